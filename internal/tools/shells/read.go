package shells

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"time"
)

// Until says what a waiting read waits for.
type Until int

const (
	// UntilOutput: new output (matching the filter, if any) or the end of
	// the shell.
	UntilOutput Until = iota
	// UntilExit: the end of the shell.
	UntilExit
)

// ReadOptions shape one read.
type ReadOptions struct {
	// Filter keeps only the lines that match. The other lines are
	// consumed all the same: no later read returns them.
	Filter *regexp.Regexp
	// Wait is how long the read may wait for what Until names. Zero:
	// return at once with whatever is new.
	Wait  time.Duration
	Until Until
	// MaxBytes bounds Text: when more is new, the newest MaxBytes are
	// returned and the rest is counted in Omitted. Zero: no bound.
	MaxBytes int
}

// Output is what one read returns.
type Output struct {
	// Info is the shell's state when the read finished. A shell seen
	// ended here has nothing left to read after this Output.
	Info Info
	// Text is the output written since the previous read, filtered.
	Text string
	// Dropped counts bytes written since the previous read that the cap
	// removed before they could be read.
	Dropped int64
	// Omitted counts bytes left out of Text to keep it within MaxBytes.
	Omitted int64
	// TimedOut: the read waited the whole Wait without what it waited for.
	TimedOut bool
	// SaveErr is set when output could not be saved to disk (a full disk);
	// output after the error is lost.
	SaveErr error
}

// Read returns the output a shell wrote since the last read, and moves the
// read position past it.
func (r *Registry) Read(ctx context.Context, sessionID, id string, opts ReadOptions) (Output, error) {
	sh, err := r.lookup(sessionID, id)
	if err != nil {
		return Output{}, err
	}
	var timer <-chan time.Time
	if opts.Wait > 0 {
		t := time.NewTimer(opts.Wait)
		defer t.Stop()
		timer = t.C
	}
	var out Output
	for {
		// Taken before the read, so that output arriving after it wakes
		// the wait below.
		changed := sh.out.waitChan()
		if opts.Until == UntilExit && opts.Wait > 0 && !out.TimedOut {
			select {
			case <-sh.done:
			case <-timer:
				out.TimedOut = true
			case <-ctx.Done():
				return Output{}, ctx.Err()
			}
		}
		ended := isClosed(sh.done)
		part, err := sh.readNew(opts, ended)
		if err != nil {
			return Output{}, err
		}
		out.Text, out.Omitted, out.SaveErr = part.Text, part.Omitted, part.SaveErr
		out.Dropped += part.Dropped
		if opts.Until == UntilExit || out.Text != "" || ended || opts.Wait == 0 || out.TimedOut {
			out.Info = sh.info()
			return out, nil
		}
		select {
		case <-changed:
		case <-sh.done:
		case <-timer:
			out.TimedOut = true
		case <-ctx.Done():
			return Output{}, ctx.Err()
		}
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// readNew reads from the cursor to the end of what has been written. ended
// says the shell has ended, so that a last line without a newline is
// complete.
func (sh *shell) readNew(opts ReadOptions, ended bool) (Output, error) {
	sh.readMu.Lock()
	defer sh.readMu.Unlock()
	v := sh.out.snapshot()
	var out Output
	out.SaveErr = v.err
	from := sh.cursor
	if from < v.oldest {
		out.Dropped = v.oldest - from
		from = v.oldest
	}
	if from >= v.total {
		sh.cursor = from
		return out, nil
	}
	if opts.Filter == nil {
		start := from
		if opts.MaxBytes > 0 && v.total-from > int64(opts.MaxBytes) {
			start = v.total - int64(opts.MaxBytes)
		}
		rr := sh.out.reader(v, start, v.total)
		data, err := io.ReadAll(rr)
		if err != nil {
			return Output{}, err
		}
		out.Dropped += rr.lost
		data, cut := trimPartialRune(data)
		out.Omitted = start - from + int64(cut)
		out.Text = string(data)
		sh.cursor = v.total
		return out, nil
	}
	rr := sh.out.reader(v, from, v.total)
	kept, omitted, consumed, err := filterLines(rr, opts.Filter, opts.MaxBytes, ended)
	if err != nil {
		return Output{}, err
	}
	out.Dropped += rr.lost
	out.Omitted = omitted
	out.Text = string(kept)
	sh.cursor = from + rr.lost + consumed
	return out, nil
}

// filterLines keeps the lines of r that re matches, the newest maxBytes of
// them when maxBytes > 0. A last line without a newline is matched only when
// final; otherwise it is left for the next read. It returns the kept text,
// the bytes of matching lines left out, and the bytes consumed.
func filterLines(r io.Reader, re *regexp.Regexp, maxBytes int, final bool) ([]byte, int64, int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var kept []byte
	var omitted, consumed int64
	for {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, 0, err
		}
		complete := len(line) > 0 && line[len(line)-1] == '\n'
		if len(line) > 0 && (complete || final) {
			consumed += int64(len(line))
			if re.Match(bytes.TrimSuffix(line, []byte("\n"))) {
				kept = append(kept, line...)
				if maxBytes > 0 && len(kept) > 2*maxBytes {
					cut := len(kept) - maxBytes
					omitted += int64(cut)
					kept = append(kept[:0], kept[cut:]...)
				}
			}
		}
		if err != nil {
			break
		}
	}
	if maxBytes > 0 && len(kept) > maxBytes {
		cut := len(kept) - maxBytes
		omitted += int64(cut)
		kept = kept[cut:]
	}
	kept, cut := trimPartialRune(kept)
	return kept, omitted + int64(cut), consumed, nil
}

// trimPartialRune drops continuation bytes at the start of p, left there
// when a cut fell inside a UTF-8 character.
func trimPartialRune(p []byte) ([]byte, int) {
	n := 0
	for n < len(p) && n < 3 && p[n]&0xc0 == 0x80 {
		n++
	}
	return p[n:], n
}
