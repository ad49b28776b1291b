package webfetch

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// loopback is the operator allowance the tests run under: the test server
// listens on 127.0.0.1, which WebFetch refuses by default.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// server is a local HTTP server that counts the requests it serves.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, h http.Handler) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func fetch(t *testing.T, wf *Tool, env *tool.Env, u string) (*tool.Result, error) {
	t.Helper()
	return tooltest.Run(t, wf, env, map[string]any{"url": u, "prompt": "Summarise the page."})
}

func mustFetch(t *testing.T, wf *Tool, env *tool.Env, u string) (*tool.Result, string) {
	t.Helper()
	res, err := fetch(t, wf, env, u)
	if err != nil {
		t.Fatalf("WebFetch %s: %v", u, err)
	}
	return res, tooltest.Text(res)
}

func failure(t *testing.T, err error, kind tool.ErrorKind, want ...string) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != kind {
		t.Fatalf("err = %v, want a %v failure", err, kind)
	}
	for _, w := range want {
		if !strings.Contains(te.Msg, w) {
			t.Errorf("message %q lacks %q", te.Msg, w)
		}
	}
}

const article = `<!doctype html>
<html><head><title>T</title><style>body{color:red}</style><script>var secret = "script body";</script></head>
<body><h1>Release notes</h1>
<p>Version <strong>2.1</strong> adds a <a href="/docs/flags">flag</a>.</p>
<ul><li>first</li><li>second</li></ul>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
</body></html>`

func TestFetchHTML(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ua := r.Header.Get("User-Agent"); ua != DefaultUserAgent {
			t.Errorf("User-Agent = %q", ua)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, article)
	}))
	env, _, _ := tooltest.Env(t)
	wf := New(Options{AllowCIDRs: loopback})
	res, text := mustFetch(t, wf, env, s.URL+"/notes#top")
	for _, want := range []string{
		"Fetched " + s.URL + "/notes (200 OK, text/html converted to Markdown).",
		"<prompt>\nSummarise the page.\n</prompt>",
		"# Release notes",
		"Version **2.1** adds a [flag](" + s.URL + "/docs/flags).",
		"- first\n- second",
		"| Name | Value |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "script body") || strings.Contains(text, "color:red") {
		t.Errorf("script or style leaked into the Markdown:\n%s", text)
	}
	for k, want := range map[string]any{"final_url": s.URL + "/notes", "status_code": 200, "content_type": "text/html",
		"prompt": "Summarise the page.", "cached": false, "truncated": false} {
		if res.Meta[k] != want {
			t.Errorf("meta %s = %v, want %v", k, res.Meta[k], want)
		}
	}
}

func TestTextTypes(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"a": "<b>not html</b>"}`)
		case "/latin1":
			w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
			w.Write([]byte("caf\xe9"))
		case "/png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n0000"))
		case "/404":
			http.NotFound(w, r)
		}
	}))
	env, _, _ := tooltest.Env(t)
	wf := New(Options{AllowCIDRs: loopback})
	if _, text := mustFetch(t, wf, env, s.URL+"/json"); !strings.Contains(text, "<content>\n{\"a\": \"<b>not html</b>\"}\n</content>") {
		t.Errorf("JSON not returned as it is:\n%s", text)
	}
	if _, text := mustFetch(t, wf, env, s.URL+"/latin1"); !strings.Contains(text, "<content>\ncafé\n</content>") {
		t.Errorf("Latin-1 not decoded:\n%s", text)
	}
	_, err := fetch(t, wf, env, s.URL+"/png")
	failure(t, err, tool.KindFailed, "returned image/png content (12 bytes), which WebFetch does not return")
	_, err = fetch(t, wf, env, s.URL+"/404")
	failure(t, err, tool.KindFailed, "the server answered 404 Not Found")
}

func TestSameHostRedirectFollowed(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			fmt.Fprint(w, "moved here")
		}
	}))
	env, _, _ := tooltest.Env(t)
	wf := New(Options{AllowCIDRs: loopback, MaxRedirects: 3})
	res, text := mustFetch(t, wf, env, s.URL+"/old")
	if res.Meta["final_url"] != s.URL+"/new" || !strings.Contains(text, "moved here") {
		t.Fatalf("redirect not followed: %v\n%s", res.Meta, text)
	}
	_, err := fetch(t, wf, env, s.URL+"/loop")
	failure(t, err, tool.KindFailed, "more than 3 redirects")
}

// TestCrossHostRedirect: a redirect to another host is reported with the
// new URL, and nothing is fetched from it; fetching that URL is a new
// call, which the permission rules see.
func TestCrossHostRedirect(t *testing.T) {
	target := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "other host")
	}))
	// Same machine, another host name: localhost instead of 127.0.0.1.
	other := strings.Replace(target.URL, "127.0.0.1", "localhost", 1) + "/landing"
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other, http.StatusFound)
		case "/downgrade":
			http.Redirect(w, r, "https://example.invalid/x", http.StatusMovedPermanently)
		}
	}))
	env, _, _ := tooltest.Env(t)
	wf := New(Options{AllowCIDRs: loopback})
	res, text := mustFetch(t, wf, env, s.URL+"/away")
	want := s.URL + "/away redirects to a different host (302 Found)."
	if !strings.HasPrefix(text, want) || !strings.Contains(text, "Redirect URL: "+other+"\n") {
		t.Fatalf("text:\n%s\nwant it to start %q and name %s", text, want, other)
	}
	if res.Meta["redirect_url"] != other || target.hits.Load() != 0 {
		t.Fatalf("meta %v; the other host served %d requests", res.Meta, target.hits.Load())
	}
	if _, text := mustFetch(t, wf, env, s.URL+"/downgrade"); !strings.Contains(text, "Redirect URL: https://example.invalid/x") {
		t.Fatalf("text:\n%s", text)
	}
	// The model follows up with the new URL itself.
	if _, text := mustFetch(t, wf, env, other); !strings.Contains(text, "other host") {
		t.Fatalf("follow-up fetch:\n%s", text)
	}
}

// TestRefused: without the operator's allowance, loopback and metadata
// addresses are refused, whether named directly or through a host name,
// and the server never sees a request.
func TestRefused(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	port := s.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndexByte(port, ':')+1:]
	env, _, _ := tooltest.Env(t)
	tests := []struct {
		name  string
		opts  Options
		url   string
		wants []string
	}{
		{"loopback address", Options{}, s.URL + "/", []string{"Refused to fetch " + s.URL + "/: 127.0.0.1 is a loopback address.", "--webfetch-allow-cidr"}},
		{"host name resolving to loopback", Options{}, "http://localhost:" + port + "/", []string{": localhost resolves to 127.0.0.1, which is a loopback address."}},
		{"IPv6 loopback", Options{}, "http://[::1]:" + port + "/", []string{"::1 is a loopback address"}},
		{"IPv4-mapped loopback", Options{}, "http://[::ffff:127.0.0.1]:" + port + "/", []string{"127.0.0.1 is a loopback address"}},
		{"unspecified", Options{}, "http://0.0.0.0:" + port + "/", []string{"0.0.0.0 is an unspecified"}},
		{"cloud metadata", Options{}, "http://169.254.169.254/latest/meta-data/", []string{"169.254.169.254 is a cloud metadata address"}},
		{"allowance is exact", Options{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}, s.URL + "/", []string{"127.0.0.1 is a loopback address"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fetch(t, New(tc.opts), env, tc.url)
			failure(t, err, tool.KindPermissionDenied, tc.wants...)
		})
	}
	if n := s.hits.Load(); n != 0 {
		t.Fatalf("the refused server served %d requests", n)
	}
}

func TestGuardRanges(t *testing.T) {
	g := &guard{allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	for addr, want := range map[string]string{
		"127.0.0.1":        "a loopback address",
		"127.255.0.9":      "a loopback address",
		"10.0.0.1":         "a private address",
		"10.1.2.3":         "", // allowed by the operator
		"172.31.255.255":   "a private address",
		"172.32.0.1":       "",
		"192.168.1.1":      "a private address",
		"100.64.0.1":       "a shared (carrier-grade NAT) address",
		"100.100.100.200":  "a shared (carrier-grade NAT) address",
		"169.254.169.254":  "a cloud metadata address",
		"169.254.1.1":      "a link-local address",
		"0.0.0.0":          "an unspecified (this-network) address",
		"224.0.0.1":        "a multicast address",
		"255.255.255.255":  "a reserved address",
		"8.8.8.8":          "",
		"::":               "the unspecified address",
		"::1":              "a loopback address",
		"fe80::1":          "a link-local address",
		"fd00:ec2::254":    "a cloud metadata address",
		"fd12:3456::1":     "a unique local (private) address",
		"ff02::1":          "a multicast address",
		"::ffff:10.0.0.1":  "a private address",
		"64:ff9b::a00:1":   "a private address", // NAT64 of 10.0.0.1
		"64:ff9b::a01:1":   "",                  // NAT64 of 10.1.0.1, allowed
		"64:ff9b::808:808": "",
		"2001:4860::8888":  "",
	} {
		err := g.control("tcp", netip.AddrPortFrom(netip.MustParseAddr(addr), 443).String(), nil)
		var be *blockedError
		switch {
		case want == "" && err != nil:
			t.Errorf("%s refused: %v", addr, err)
		case want != "" && (!errors.As(err, &be) || be.what != want):
			t.Errorf("%s: err = %v, want %q", addr, err, want)
		}
	}
}

func TestUpgrade(t *testing.T) {
	wf := New(Options{AllowCIDRs: loopback})
	plain := New(Options{})
	keep := New(Options{KeepHTTP: true})
	for _, tc := range []struct {
		wf       *Tool
		in, want string
	}{
		{plain, "http://example.com/a?b=c", "https://example.com/a?b=c"},
		{plain, "http://example.com:80/a", "https://example.com/a"},
		{plain, "http://[2001:db8::1]/a", "https://[2001:db8::1]/a"},
		{plain, "http://example.com:8080/a", "http://example.com:8080/a"},
		{plain, "https://example.com/a", "https://example.com/a"},
		{plain, "http://127.0.0.1/a", "https://127.0.0.1/a"},
		{wf, "http://127.0.0.1/a", "http://127.0.0.1/a"},
		{wf, "http://localhost/a", "http://localhost/a"},
		{keep, "http://example.com/a", "http://example.com/a"},
	} {
		u, _ := url.Parse(tc.in)
		if got := tc.wf.upgrade(t.Context(), u).String(); got != tc.want {
			t.Errorf("upgrade(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCaps(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(strings.Repeat("é", 5000))) // 10 000 bytes
		case "/slow":
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	env, _, _ := tooltest.Env(t)
	// The page that must arrive gets all the time it needs; only the one
	// that never ends meets the short timeout.
	wf := New(Options{AllowCIDRs: loopback, MaxBytes: 1001, MaxChars: 300, Timeout: time.Minute})
	res, text := mustFetch(t, wf, env, s.URL+"/big")
	if !strings.Contains(text, "<content>\n"+strings.Repeat("é", 300)+"\n</content>") {
		t.Errorf("content not cut at 300 characters:\n%.200s", text)
	}
	for _, want := range []string{"[The page is larger than 1001 bytes; only its first 1001 bytes were read.]", "[WebFetch note: this page's text is 500 characters long and the content above covers only characters 0 to 300; the final 200 were not read — to read on, call WebFetch again with the same url and offset: 300.]"} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q", want)
		}
	}
	if res.Meta["truncated"] != true || res.Meta["bytes"] != 1001 {
		t.Errorf("meta = %v", res.Meta)
	}
	wf = New(Options{AllowCIDRs: loopback, MaxBytes: 1001, MaxChars: 300, Timeout: 300 * time.Millisecond})
	_, err := fetch(t, wf, env, s.URL+"/slow")
	failure(t, err, tool.KindTimeout, "did not complete within 300ms")
}

func TestCache(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "page") }))
	env, _, _ := tooltest.Env(t)
	other := *env
	other.SessionID = "other-session"
	wf := New(Options{AllowCIDRs: loopback})
	now := time.Unix(1_000_000, 0)
	wf.cache.now = func() time.Time { return now }

	mustFetch(t, wf, env, s.URL)
	res, text := mustFetch(t, wf, env, s.URL)
	if s.hits.Load() != 1 || res.Meta["cached"] != true || !strings.Contains(text, ", from the cache).") {
		t.Fatalf("second fetch not served from the cache (%d hits, meta %v)", s.hits.Load(), res.Meta)
	}
	mustFetch(t, wf, &other, s.URL)
	if s.hits.Load() != 2 {
		t.Fatalf("another session was served from this one's cache")
	}
	wf.DropSession(env.SessionID)
	mustFetch(t, wf, env, s.URL)
	if s.hits.Load() != 3 {
		t.Fatal("DropSession kept the session's pages")
	}
	now = now.Add(DefaultCacheTTL - time.Second)
	mustFetch(t, wf, env, s.URL)
	if s.hits.Load() != 3 {
		t.Fatal("a page was dropped before its time")
	}
	now = now.Add(2 * time.Second)
	mustFetch(t, wf, env, s.URL)
	if s.hits.Load() != 4 {
		t.Fatal("an expired page was served")
	}
}

func TestCacheBounded(t *testing.T) {
	c := newCache(time.Hour, 1000, time.Now)
	for i := range 20 {
		c.put(cacheKey{"s", fmt.Sprint(i)}, page{text: strings.Repeat("x", 200)})
	}
	if c.size > 1000 {
		t.Fatalf("cache holds %d bytes, bound 1000", c.size)
	}
	if _, ok := c.get(cacheKey{"s", "19"}); !ok {
		t.Fatal("the newest page was evicted")
	}
	if _, ok := c.get(cacheKey{"s", "0"}); ok {
		t.Fatal("the oldest page was kept past the bound")
	}
}

func TestParse(t *testing.T) {
	wf := New(Options{})
	for in, want := range map[string]string{
		`{"url":"https://example.com/x","prompt":"p"}`:                                 "",
		`{"url":"HTTP://Example.com","prompt":"p"}`:                                    "",
		`{"url":"ftp://example.com/x","prompt":"p"}`:                                   "http and https URLs only",
		`{"url":"file:///etc/passwd","prompt":"p"}`:                                    "http and https URLs only",
		`{"url":"example.com/x","prompt":"p"}`:                                         "http and https URLs only",
		`{"url":"https:///x","prompt":"p"}`:                                            "it has no host",
		`{"url":"https://user:pw@example.com/","prompt":"p"}`:                          "user name or password",
		`{"url":"https://bücher.example/","prompt":"p"}`:                               "punycode",
		`{"url":"https://example.com/","prompt":"  "}`:                                 "prompt is empty",
		`{"url":"https://example.com/` + strings.Repeat("a", 2000) + `","prompt":"p"}`: "accepts URLs of up to 2000",
	} {
		_, err := wf.Parse([]byte(in))
		if want == "" {
			if err != nil {
				t.Errorf("Parse(%.60s) = %v", in, err)
			}
			continue
		}
		failure(t, err, tool.KindInvalidInput, want)
	}
}

func TestParseCIDRs(t *testing.T) {
	got, err := ParseCIDRs([]string{"127.0.0.0/8", " 10.1.2.3 ", "::1", "192.168.1.7/24", ""})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[127.0.0.0/8 10.1.2.3/32 ::1/128 192.168.1.0/24]" {
		t.Fatalf("got %v", got)
	}
	if _, err := ParseCIDRs([]string{"localhost"}); err == nil {
		t.Fatal("a host name was accepted as a CIDR")
	}
}

func TestDefinition(t *testing.T) {
	wf := New(Options{})
	d := wf.Definition()
	if d.Name != "WebFetch" || len(d.Description) < 500 {
		t.Fatalf("definition %q with a %d-byte description", d.Name, len(d.Description))
	}
	sch, _ := tooltest.Schema(t, d)
	for in, valid := range map[string]bool{
		`{"url":"https://a.b","prompt":"p"}`:              true,
		`{"url":"https://a.b"}`:                           false,
		`{"url":"","prompt":"p"}`:                         false,
		`{"url":"https://a.b","prompt":"p","method":"x"}`: false,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err := sch.Validate(v); (err == nil) != valid {
			t.Errorf("Validate(%s) = %v, want valid=%v", in, err, valid)
		}
	}
	inv, _ := wf.Parse([]byte(`{"url":"https://a.b","prompt":"p"}`))
	if tr := inv.Traits(); !tr.ReadOnly || !tr.ConcurrencySafe {
		t.Errorf("traits = %+v, want read-only and concurrency-safe", tr)
	}
}

// TestOffsetWindows reads a long page window by window, as the model is
// told to, and gets every character exactly once, astral characters (two
// UTF-16 units) included.
func TestOffsetWindows(t *testing.T) {
	page := strings.Repeat("ab😀c", 40) // 40 × 5 units
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, page)
	}))
	env, _, _ := tooltest.Env(t)
	wf := New(Options{AllowCIDRs: loopback, MaxChars: 33})
	var got strings.Builder
	offset := 0
	for calls := 0; ; calls++ {
		if calls > 20 {
			t.Fatal("the windows never reach the end of the page")
		}
		res, err := tooltest.Run(t, wf, env, map[string]any{"url": s.URL, "prompt": "p", "offset": offset})
		if err != nil {
			t.Fatal(err)
		}
		text := tooltest.Text(res)
		body := text[strings.Index(text, "<content>\n")+len("<content>\n") : strings.Index(text, "\n</content>")]
		got.WriteString(body)
		if res.Meta["offset"] != offset {
			t.Errorf("offset meta = %v, want %d", res.Meta["offset"], offset)
		}
		const marker = "offset: "
		i := strings.LastIndex(text, marker)
		if i < 0 {
			if res.Meta["truncated"] != false {
				t.Errorf("last window marked truncated: %v", res.Meta)
			}
			break
		}
		next, err := strconv.Atoi(strings.TrimSuffix(text[i+len(marker):], ".]"))
		if err != nil || next <= offset || next-offset > 33 {
			t.Fatalf("next offset %q after %d", text[i:], offset)
		}
		want := fmt.Sprintf("this page's text is 200 characters long and the content above covers only characters %d to %d; the final %d were not read", offset, next, 200-next)
		if !strings.Contains(text, want) {
			t.Errorf("note lacks %q:\n%s", want, text[strings.Index(text, "</content>"):])
		}
		offset = next
	}
	if got.String() != page {
		t.Errorf("windows joined = %q, want the page", got.String())
	}
	res, err := tooltest.Run(t, wf, env, map[string]any{"url": s.URL, "prompt": "p", "offset": 200})
	if err != nil {
		t.Fatal(err)
	}
	if text := tooltest.Text(res); text != "Nothing left to read from offset 200: this page's text is 200 characters long." {
		t.Errorf("past the end: %q", text)
	}
	if _, err := tooltest.Run(t, wf, env, map[string]any{"url": s.URL, "prompt": "p", "offset": -1}); err == nil {
		t.Error("a negative offset was accepted")
	}
}

func TestWindowNeverSplitsASurrogatePair(t *testing.T) {
	for _, c := range []struct {
		text       string
		offset     int64
		n          int
		want       string
		start, end int
	}{
		{"a😀b", 0, 2, "a", 0, 1}, // 😀 would straddle the end
		{"a😀b", 2, 5, "b", 3, 4}, // offset inside 😀: start after it
		{"a😀b", 1, 2, "😀", 1, 3},
		{"", 0, 5, "", 0, 0},
		{"abc", 9, 5, "", 3, 3},
	} {
		w := window(c.text, c.offset, c.n)
		if w.text != c.want || w.start != c.start || w.end != c.end {
			t.Errorf("window(%q, %d, %d) = %q [%d,%d), want %q [%d,%d)", c.text, c.offset, c.n, w.text, w.start, w.end, c.want, c.start, c.end)
		}
	}
}
