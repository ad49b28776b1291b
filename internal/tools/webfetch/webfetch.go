// Package webfetch implements the WebFetch tool: fetch a URL over http or
// https, convert HTML to Markdown, and return it with the caller's prompt.
// Connections to the server's own machine and networks are refused on the
// address actually dialled, unless the operator allows them.
package webfetch

import (
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"

	"github.com/toold/toold/internal/tool"
)

// Defaults of Options.
const (
	DefaultTimeout      = 60 * time.Second
	DefaultMaxBytes     = 10 << 20
	DefaultMaxChars     = 100_000
	DefaultCacheTTL     = 15 * time.Minute
	DefaultCacheBytes   = 64 << 20
	DefaultMaxRedirects = 10
	DefaultUserAgent    = "toold-WebFetch/1.0"
)

// maxURLLength bounds the URL the model may give.
const maxURLLength = 2000

// Options configure the tool. Zero values take the defaults above.
type Options struct {
	// AllowCIDRs are addresses that would be refused (loopback, private,
	// link-local, metadata, ...) but which the operator lets WebFetch reach.
	AllowCIDRs []netip.Prefix
	// Timeout bounds one call: connecting, redirects and reading the body.
	Timeout time.Duration
	// MaxBytes bounds the response body read (after decompression); a
	// longer body is cut and the result says so.
	MaxBytes int64
	// MaxChars bounds the text returned.
	MaxChars int
	// CacheTTL is how long a fetched page is served from the cache;
	// negative disables the cache.
	CacheTTL time.Duration
	// CacheBytes bounds the cache's total size.
	CacheBytes int64
	// MaxRedirects bounds the same-host redirects followed.
	MaxRedirects int
	UserAgent    string
	// KeepHTTP turns off the upgrade of http URLs to https.
	KeepHTTP bool
}

func (o *Options) fill() {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
}

// Tool is the WebFetch tool. One Tool serves every session; it holds an
// HTTP connection pool and the page cache.
type Tool struct {
	opts      Options
	guard     *guard
	transport *http.Transport
	client    *http.Client
	conv      *converter.Converter
	cache     *cache
}

var _ tool.Tool = (*Tool)(nil)

// New returns the WebFetch tool.
func New(opts Options) *Tool {
	opts.fill()
	g := &guard{allow: append([]netip.Prefix(nil), opts.AllowCIDRs...)}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	tr := &http.Transport{
		// No proxy: the guard must see the address of the site itself.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  opts.Timeout,
		MaxResponseHeaderBytes: 1 << 20,
	}
	t := &Tool{
		opts:      opts,
		guard:     g,
		transport: tr,
		conv: converter.NewConverter(converter.WithPlugins(
			base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin())),
		cache: newCache(opts.CacheTTL, opts.CacheBytes, time.Now),
	}
	t.client = &http.Client{Transport: tr, CheckRedirect: t.checkRedirect}
	return t
}

// DropSession forgets the pages a session fetched. Call it when the
// session is deleted; the cache would let them expire anyway.
func (t *Tool) DropSession(sessionID string) { t.cache.dropSession(sessionID) }

// Close releases idle connections. Calls still running are not affected.
func (t *Tool) Close() error {
	t.transport.CloseIdleConnections()
	return nil
}

func (t *Tool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "WebFetch",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		// Auto mode's classifier judges where the fetch goes.
		Classifier: tool.ClassifierInput{Fields: []string{"url"}},
		FetchesURL: true,
	}
}

type input struct {
	URL    string `json:"url"`
	Prompt string `json:"prompt"`
	// Offset is where in the page's text (UTF-16 code units, as Claude
	// Code counts) the returned window starts.
	Offset *int64 `json:"offset"`
}

func (t *Tool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for WebFetch: %v", err)
	}
	u, err := parseURL(in.URL)
	if err != nil {
		return nil, err
	}
	if in.Offset != nil && *in.Offset < 0 {
		return nil, tool.InvalidInputf("offset must be 0 or more, got %d.", *in.Offset)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, tool.InvalidInputf("prompt is empty: say what you want from the page.")
	}
	return &call{t: t, in: in, url: u}, nil
}

// parseURL accepts absolute http and https URLs with a plain host: no user
// name or password, and an ASCII host name (permission rules match the
// punycode form, so that is the form the model must give).
func parseURL(s string) (*url.URL, error) {
	if len(s) > maxURLLength {
		return nil, tool.InvalidInputf("The URL is %d characters long; WebFetch accepts URLs of up to %d.", len(s), maxURLLength)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, tool.InvalidInputf("Invalid URL %q: %v.", s, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, tool.InvalidInputf("Invalid URL %q: WebFetch fetches http and https URLs only.", s)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, tool.InvalidInputf("Invalid URL %q: it has no host.", s)
	}
	if u.User != nil {
		return nil, tool.InvalidInputf("Invalid URL %q: URLs with a user name or password are not fetched.", s)
	}
	for _, r := range u.Hostname() {
		if r >= 0x80 {
			return nil, tool.InvalidInputf("Invalid URL %q: write an internationalised host name in its punycode (xn--) form.", s)
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

type call struct {
	t   *Tool
	in  input
	url *url.URL
}

// Traits: a fetch reads and changes nothing in the workspace.
func (c *call) Traits() tool.Traits { return tool.Traits{ReadOnly: true, ConcurrencySafe: true} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Fetch " + c.in.URL}
}
