package webfetch

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

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
	text, cut := p.text, false
	if utf8.RuneCountInString(text) > c.t.opts.MaxChars {
		text, cut = cutRunes(text, c.t.opts.MaxChars), true
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
	fmt.Fprintf(&sb, "<prompt>\n%s\n</prompt>\n\n<content>\n%s\n</content>", c.in.Prompt, text)
	if p.cut {
		fmt.Fprintf(&sb, "\n[The page is larger than %d bytes; only its first %d bytes were read.]", c.t.opts.MaxBytes, p.bodyBytes)
	}
	if cut {
		fmt.Fprintf(&sb, "\n[The content was cut at %d characters.]", c.t.opts.MaxChars)
	}
	return tool.Text(sb.String()).
		WithMeta("url", c.in.URL).
		WithMeta("final_url", p.url).
		WithMeta("status_code", p.code).
		WithMeta("content_type", p.contentType).
		WithMeta("bytes", p.bodyBytes).
		WithMeta("truncated", p.cut || cut).
		WithMeta("cached", cached).
		WithMeta("prompt", c.in.Prompt)
}

func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
