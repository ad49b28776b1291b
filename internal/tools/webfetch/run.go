package webfetch

import (
	"context"
	"fmt"
	"strings"

	"github.com/toold/toold/internal/tool"
)

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	key := cacheKey{session: env.SessionID, url: c.url.String()}
	p, cached := c.t.cache.get(key)
	if !cached {
		var err error
		if p, err = c.t.fetchOnce(ctx, c.url); err != nil {
			return nil, err
		}
		c.t.cache.put(key, p)
	}
	if p.redirect != "" {
		return c.redirectResult(p, cached), nil
	}
	return c.pageResult(p, cached), nil
}

func (c *call) redirectResult(p page, cached bool) *tool.Result {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s redirects %s (%s). WebFetch does not follow such a redirect: the permission to fetch was given for the URL you named, not for the target.\n\n", p.url, p.redirectWhy, p.status)
	fmt.Fprintf(&sb, "Redirect URL: %s\n\n", p.redirect)
	sb.WriteString("To fetch the page it points to, call WebFetch again with url set to the redirect URL and the same prompt.")
	return tool.Text(sb.String()).
		WithMeta("url", c.in.URL).
		WithMeta("redirect_url", p.redirect).
		WithMeta("status_code", p.code).
		WithMeta("cached", cached)
}

func (c *call) pageResult(p page, cached bool) *tool.Result {
	var offset int64
	if c.in.Offset != nil {
		offset = *c.in.Offset
	}
	w := window(p.text, offset, c.t.opts.MaxChars)
	if offset > 0 && offset >= int64(w.total) {
		return tool.Text(fmt.Sprintf("Nothing left to read from offset %d: this page's text is %d characters long.", offset, w.total)).
			WithMeta("url", c.in.URL).
			WithMeta("final_url", p.url).
			WithMeta("status_code", p.code).
			WithMeta("cached", cached)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Fetched %s (%s, %s", p.url, p.status, p.contentType)
	if p.fromHTML {
		sb.WriteString(" converted to Markdown")
	}
	if cached {
		sb.WriteString(", from the cache")
	}
	sb.WriteString(").\n")
	sb.WriteString("No model ran over this page: apply the prompt below to the content yourself.\n\n")
	fmt.Fprintf(&sb, "<prompt>\n%s\n</prompt>\n\n<content>\n%s\n</content>", c.in.Prompt, w.text)
	if p.cut {
		fmt.Fprintf(&sb, "\n[The page is larger than %d bytes; only its first %d bytes were read.]", c.t.opts.MaxBytes, p.bodyBytes)
	}
	cut := w.end < w.total
	if cut {
		// Claude Code's note, with "content" for its "answer": here the
		// window itself is returned, not a model's answer over it.
		fmt.Fprintf(&sb, "\n\n[WebFetch note: this page's text is %d characters long and the content above covers only characters %d to %d; the final %d were not read — to read on, call WebFetch again with the same url and offset: %d.]",
			w.total, w.start, w.end, w.total-w.end, w.end)
	}
	return tool.Text(sb.String()).
		WithMeta("url", c.in.URL).
		WithMeta("final_url", p.url).
		WithMeta("status_code", p.code).
		WithMeta("content_type", p.contentType).
		WithMeta("bytes", p.bodyBytes).
		WithMeta("truncated", p.cut || cut).
		WithMeta("offset", w.start).
		WithMeta("text_chars", w.total).
		WithMeta("cached", cached).
		WithMeta("prompt", c.in.Prompt)
}

// span is the part of a page's text one call returns. Offsets count
// UTF-16 code units, as JavaScript's string length does, so that an offset
// Claude Code's model learnt to pass means the same place here.
type span struct {
	text              string
	start, end, total int
}

// window cuts text to at most n code units from offset, never through a
// surrogate pair: a character that would straddle either edge is left to
// the side it starts on.
func window(text string, offset int64, n int) span {
	var w span
	startByte, endByte := -1, len(text)
	units := 0
	for i, r := range text {
		if startByte < 0 && int64(units) >= offset {
			startByte, w.start = i, units
		}
		if startByte >= 0 && endByte == len(text) && units+runeUnits(r) > w.start+n {
			endByte, w.end = i, units
		}
		units += runeUnits(r)
	}
	w.total = units
	if startByte < 0 {
		startByte, w.start = len(text), units
	}
	if endByte == len(text) {
		w.end = units
	}
	w.text = text[startByte:endByte]
	return w
}

func runeUnits(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
