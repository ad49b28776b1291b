package read

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// ctxEvery is how many lines pass between checks of the context.
const ctxEvery = 4096

// Notices in Claude Code's wording, which models know.
const (
	emptyNotice  = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
	offsetNotice = "<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>"
)

// text renders the requested lines. Lines are read one at a time, so only
// the lines shown (and at most MaxLineBytes of a long one) are held in
// memory, whatever the file's size.
func (c *call) text(ctx context.Context, br *bufio.Reader) (*tool.Result, error) {
	var sb strings.Builder
	// Room for the file with its line numbers, as far as it will be shown.
	sb.Grow(min(br.Size()+br.Size()/4+64, c.opts.MaxOutputBytes, c.limit*160))
	lr := lineReader{br: br}
	n, shown := 0, 0 // lines consumed, lines written
	more, capped := false, false
	for {
		if n%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line, err := lr.next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n++
		if n < c.start {
			continue
		}
		if shown == c.limit {
			more = true
			break
		}
		if shown > 0 && sb.Len()+lineCost(line) > c.opts.MaxOutputBytes {
			more, capped = true, true
			break
		}
		if shown > 0 {
			sb.WriteByte('\n')
		}
		filestate.WriteLine(&sb, n, line)
		shown++
	}

	switch {
	case n == 0:
		return tool.Text(emptyNotice), nil
	case shown == 0:
		return tool.Text(fmt.Sprintf(offsetNotice, c.start, n)), nil
	case !more:
		return tool.Text(sb.String()), nil
	}
	rest, exact, err := countLines(ctx, br, c.opts.CountBudgetBytes)
	if err != nil {
		return nil, err
	}
	last := c.start + shown - 1
	total := fmt.Sprint(n + rest)
	if !exact {
		total = fmt.Sprintf("at least %d", n+rest)
	}
	why := fmt.Sprintf("limit=%d", c.limit)
	switch {
	case capped:
		why = fmt.Sprintf("one result holds at most %d bytes", c.opts.MaxOutputBytes)
	case !c.limitGiven:
		why = fmt.Sprintf("without a limit, Read returns at most %d lines", defaultLimit)
	}
	fmt.Fprintf(&sb, "\n\n[Showing lines %d-%d of %s (%s). To read further, call Read with offset=%d.]",
		c.start, last, total, why, last+1)
	return tool.Text(sb.String()).WithMeta("truncated", true), nil
}

// lineCost is about what WriteLine adds for line, with its separator.
func lineCost(line []byte) int {
	cost := len("\n") + len("     1\t") + len(line)
	if len(line) > filestate.MaxLineChars {
		cost = min(cost, len("\n")+len("     1\t")+filestate.MaxLineBytes) + len(filestate.LineCutMarker)
	}
	return cost
}

// lineReader returns a file's lines one by one.
type lineReader struct {
	br *bufio.Reader
	// long holds the kept start of a line longer than the buffer.
	long []byte
}

// next returns the next line without its newline; the slice is valid until
// the following call. Of a line longer than the buffer only the first
// MaxLineBytes are kept, which is enough to show it cut. It returns io.EOF
// once no line is left.
func (r *lineReader) next(ctx context.Context) ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	switch err {
	case nil:
		return b[:len(b)-1], nil
	case io.EOF:
		if len(b) == 0 {
			return nil, io.EOF
		}
		return b, nil
	case bufio.ErrBufferFull:
	default:
		return nil, err
	}
	r.long = append(r.long[:0], b[:min(len(b), filestate.MaxLineBytes)]...)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err = r.br.ReadSlice('\n')
		if err == nil {
			b = b[:len(b)-1]
		}
		if room := filestate.MaxLineBytes - len(r.long); room > 0 {
			r.long = append(r.long, b[:min(len(b), room)]...)
		}
		switch err {
		case nil, io.EOF:
			return r.long, nil
		case bufio.ErrBufferFull:
		default:
			return nil, err
		}
	}
}

// countLines counts the lines left in br, reading at most budget bytes;
// exact is false when the budget ran out first.
func countLines(ctx context.Context, br *bufio.Reader, budget int64) (n int, exact bool, err error) {
	var scanned int64
	last := byte('\n')
	for i := 0; scanned < budget; i++ {
		if i%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
		}
		b, err := br.ReadSlice('\n')
		scanned += int64(len(b))
		if len(b) > 0 {
			last = b[len(b)-1]
		}
		switch err {
		case nil:
			n++
		case bufio.ErrBufferFull:
		case io.EOF:
			if last != '\n' {
				n++
			}
			return n, true, nil
		default:
			return 0, false, err
		}
	}
	return n, false, nil
}
