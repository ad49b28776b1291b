package webfetch

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html/charset"

	"github.com/toold/toold/internal/tool"
)

// toText fills p.text from the body: HTML converted to Markdown, other
// text as it is, both decoded to UTF-8. Binary content is refused: the
// result is text for a model, and bytes would be noise.
func (t *Tool) toText(ctx context.Context, p *page, header string, body []byte) error {
	mt, params, err := mime.ParseMediaType(header)
	if header == "" || err != nil {
		mt, params, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	p.contentType = mt
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		text := decode(body, params["charset"], header, p.cut)
		md, err := t.conv.ConvertString(text, converter.WithDomain(p.url), converter.WithContext(ctx))
		if err != nil {
			return tool.Failf("Cannot convert the HTML of %s to Markdown: %v.", p.url, err)
		}
		p.text, p.fromHTML = strings.TrimSpace(md), true
	case textual(mt):
		p.text = decode(body, params["charset"], header, p.cut)
	default:
		return tool.Failf("%s returned %s content (%d bytes), which WebFetch does not return: it gives text only. Download the file with Bash (for example curl -o) if you need it.",
			p.url, mt, len(body))
	}
	return nil
}

// textual reports whether a media type is text a model can read as it is.
func textual(mt string) bool {
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql", "application/x-ndjson":
		return true
	}
	return false
}

// decode returns the body as UTF-8 text. A declared charset wins; then
// valid UTF-8 is taken as such (whatever its length, where the charset
// sniffer only looks at the first kilobyte); then the sniffer's guess
// (byte-order mark, <meta charset>, Windows-1252).
func decode(body []byte, label, header string, cut bool) string {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if label != "" {
		if enc, _ := charset.Lookup(label); enc != nil {
			if out, err := enc.NewDecoder().Bytes(body); err == nil {
				return strings.ToValidUTF8(string(out), "\uFFFD")
			}
		}
	}
	probe := body
	if cut {
		probe = tool.TrimPartialRune(probe)
	}
	if utf8.Valid(probe) {
		return string(probe)
	}
	enc, _, _ := charset.DetermineEncoding(body, header)
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		out = body
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}
