package read

import (
	"math"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// tokenCap applies Options.MaxTokens to one text read the way Claude Code
// 2.1.332 does when its token count falls back to an estimate (recorded
// with a Messages API whose count_tokens fails): tokens are the chosen
// lines' length in UTF-16 code units over four, rounded; over the cap a
// read with a limit is refused, and one without keeps the whole lines that
// fit in 85 % of the cap (3.4 units per token; the first line cut to that
// when not even it fits), with no note. allow_large lifts the cap.
type tokenCap struct {
	max     int
	refuse  bool
	units   int   // UTF-16 units of the chosen lines, joined by newlines
	ends    []int // per line: units up to its end
	offsets []int // per line: where its numbered form starts in the output
}

func newTokenCap(c *call) *tokenCap {
	if c.opts.MaxTokens <= 0 || c.allowLarge {
		return nil
	}
	return &tokenCap{max: c.opts.MaxTokens, refuse: c.limitGiven}
}

// line records the next chosen line before it is written to sb.
func (t *tokenCap) line(sb *strings.Builder, l []byte, joined bool) {
	if t == nil {
		return
	}
	if joined {
		t.units++
	}
	t.units += utf16Units(l)
	if !t.refuse {
		t.ends = append(t.ends, t.units)
		t.offsets = append(t.offsets, sb.Len())
	}
}

// apply refuses or cuts the read once all its lines are known.
func (t *tokenCap) apply(sb *strings.Builder) error {
	if t == nil {
		return nil
	}
	tokens := int(math.Round(float64(t.units) / 4))
	if tokens <= t.max {
		return nil
	}
	if t.refuse {
		return tool.Failf(tooManyTokens, tokens, t.max)
	}
	// Claude Code keeps the share 0.85·max/tokens of the text; with the
	// unrounded estimate units/4 as tokens that is 3.4 units per token of
	// the cap, whatever the file.
	target := t.max * 34 / 10
	keep := 0
	for keep < len(t.ends) && t.ends[keep] <= target {
		keep++
	}
	out := sb.String()
	switch {
	case keep > 0 && keep < len(t.ends):
		out = out[:t.offsets[keep]-1] // drop the newline before the first line cut
	case keep == 0:
		// Not even the first line fits: keep its first target units.
		tab := strings.IndexByte(out, '\t')
		out = out[:tab+1] + cutUnits(out[tab+1:], target)
	}
	sb.Reset()
	sb.WriteString(out)
	return nil
}

func utf16Units(b []byte) int {
	n := 0
	for _, r := range string(b) {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// cutUnits returns the longest prefix of s, ending before a newline if it
// reaches one, of at most n UTF-16 units.
func cutUnits(s string, n int) string {
	for i, r := range s {
		u := 1
		if r >= 0x10000 {
			u = 2
		}
		if r == '\n' || n < u {
			return s[:i]
		}
		n -= u
	}
	return s
}
