package read

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// ctxEvery is how many lines pass between checks of the context.
const ctxEvery = 4096

// Claude Code's limits on a text read: without a limit the file may hold
// at most maxTextBytes; with one, the lines chosen may hold at most
// maxSelectedBytes (25,000 tokens times 128) when the file is larger.
const (
	maxTextBytes     = 262144
	maxSelectedBytes = 25000 * 128
	// nulSniffLen is how much of the file is searched for NUL bytes.
	nulSniffLen = 8000
)

// Notices in Claude Code's wording, which models know.
const (
	emptyNotice    = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
	offsetNotice   = "<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>"
	tooLargeText   = "File content (%s) exceeds maximum allowed size (%s). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file." + allowLargeHint
	rangeTooLarge  = "The requested line range contains over %s of text, more than a read can return. Use a smaller limit \u2014 or, if a single line is this large, no limit will fit it: search for specific content instead." + allowLargeHint
	tooManyTokens  = "File content (%d tokens) exceeds maximum allowed tokens (%d). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file." + allowLargeHint
	allowLargeHint = " To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file."
	notTextNote    = "[This file %s.%s Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"
)

// tooLarge is Claude Code's refusal of a file read whole past the size
// limit.
func tooLarge(size int64) error {
	return tool.Failf(tooLargeText, formatSize(size), formatSize(maxTextBytes))
}

// formatSize writes a byte count as Claude Code does: 512 bytes, 1.5KB,
// 256KB, 3.1MB.
func formatSize(n int64) string {
	kb := float64(n) / 1024
	if kb < 1 {
		return fmt.Sprintf("%d bytes", n)
	}
	// One decimal, a tie rounded up as JavaScript's toFixed does, and no
	// ".0".
	trim := func(f float64, unit string) string {
		return strings.TrimSuffix(strconv.FormatFloat(math.Round(f*10)/10, 'f', 1, 64), ".0") + unit
	}
	if kb < 1024 {
		return trim(kb, "KB")
	}
	if mb := kb / 1024; mb < 1024 {
		return trim(mb, "MB")
	}
	return trim(kb/1024/1024, "GB")
}

// text renders the requested lines as Claude Code does: the file is split
// at every newline (so a final newline ends in an empty last line), the
// lines from offset on (limit of them, or all) are numbered "N<TAB>line"
// from the offset given, and a file that is not clean UTF-8 text is shown
// all the same, with a note saying so. Lines are read one at a time, so
// only the lines shown are held in memory, whatever the file's size.
func (c *call) text(ctx context.Context, br *bufio.Reader, size int64) (*tool.Result, error) {
	if !c.limitGiven && size > maxTextBytes && !c.allowLarge {
		return nil, tooLarge(size)
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	head, _ := br.Peek(min(nulSniffLen, br.Size()))
	notText := ""
	switch {
	case bytes.HasPrefix(head, []byte("\xfe\xff")):
		notText = "is UTF-16 big-endian (it starts FE FF), which these tools cannot write"
	case bytes.IndexByte(head, 0) >= 0:
		notText = "has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without a byte-order mark, or text with embedded NULs"
	}
	first := c.start - 1 // index of the first line shown
	if c.start == 0 {
		first = 0
	}
	// The chosen lines are bounded only when the file is larger than the
	// bound, as in Claude Code.
	capSel := c.limitGiven && size > maxSelectedBytes

	var sb strings.Builder
	sb.Grow(int(min(size+size/4+64, int64(c.opts.MaxOutputBytes))))
	var v validator
	tc := newTokenCap(c)
	n, shown, selBytes := 0, 0, 0
	var line []byte
	for {
		if n%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		chunk, err := br.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, err
		}
		v.feed(chunk)
		want := n >= first && (!c.limitGiven || n < first+c.limit)
		if want {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			if capSel && len(line) > maxSelectedBytes {
				return nil, tool.Failf(rangeTooLarge, formatSize(maxSelectedBytes))
			}
			continue
		}
		end := err == io.EOF
		if want {
			l := bytes.TrimSuffix(line, []byte("\n"))
			l = bytes.TrimSuffix(l, []byte("\r"))
			if shown > 0 {
				selBytes++
			}
			selBytes += len(l)
			if capSel && selBytes > maxSelectedBytes {
				return nil, tool.Failf(rangeTooLarge, formatSize(maxSelectedBytes))
			}
			if shown > 0 {
				sb.WriteByte('\n')
			}
			tc.line(&sb, l, shown > 0)
			filestate.WriteNumbered(&sb, c.start+shown, l)
			shown++
			line = line[:0]
		}
		n++
		if end {
			break
		}
	}
	if err := tc.apply(&sb); err != nil {
		return nil, err
	}
	if notText == "" && !v.valid() {
		notText = "is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary"
	}

	var out string
	switch {
	case shown == 0:
		out = fmt.Sprintf(offsetNotice, c.start, n)
	case shown == 1 && sb.Len() == len(fmt.Sprint(c.start))+1:
		// One empty line: the empty file, or the empty last line.
		if n > 1 {
			out = sb.String()
		} else {
			out = emptyNotice
		}
	default:
		out = sb.String()
	}
	if notText != "" {
		extra := ""
		if strings.HasPrefix(notText, "is not valid") {
			extra = " Its undecodable bytes show above as U+FFFD."
		}
		out += "\n\n" + fmt.Sprintf(notTextNote, notText, extra)
	}
	return tool.Text(out), nil
}

// validator checks that a stream of chunks is UTF-8, carrying a rune cut
// between two chunks over to the next.
type validator struct {
	carry []byte
	bad   bool
}

func (v *validator) feed(b []byte) {
	if v.bad || len(b) == 0 {
		return
	}
	if len(v.carry) > 0 {
		need := 4 - len(v.carry)
		k := min(need, len(b))
		joined := append(append([]byte(nil), v.carry...), b[:k]...)
		v.carry = v.carry[:0]
		r, size := utf8.DecodeRune(joined)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(joined) && len(b) == k {
				v.carry = append(v.carry, joined...)
				return
			}
			v.bad = true
			return
		}
		b = b[size-(len(joined)-k):]
	}
	tail := tool.TrimPartialRune(b)
	if !utf8.Valid(tail) {
		v.bad = true
		return
	}
	v.carry = append(v.carry, b[len(tail):]...)
}

func (v *validator) valid() bool { return !v.bad && len(v.carry) == 0 }
