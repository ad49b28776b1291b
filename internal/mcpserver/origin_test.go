package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// A browser page of a foreign origin may not call the endpoint (DNS
// rebinding); localhost's pages, the configured origins and clients that
// send no Origin may.
func TestOriginIsValidated(t *testing.T) {
	h := New(newFakeBackend(), Options{AllowedOrigins: []string{"https://inspector.example.com/"}})
	t.Cleanup(h.Close)
	for origin, allowed := range map[string]bool{
		"":                               true,
		"http://localhost:6274":          true,
		"http://127.0.0.1:6274":          true,
		"http://[::1]:8080":              true,
		"https://inspector.example.com":  true,
		"https://INSPECTOR.example.com":  true,
		"https://evil.example":           false,
		"http://localhost.evil.example":  false,
		"http://inspector.example.com":   false,
		"null":                           false,
		"file://localhost":               false,
		"http://user@localhost:80":       false,
		"https://inspector.example.com.": false,
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Code != http.StatusForbidden; got != allowed {
			t.Errorf("Origin %q: status %d, allowed %v", origin, rec.Code, allowed)
		}
	}
}

type ctxKey struct{}

// tenantBackend records what EndSession's context carries.
type tenantBackend struct {
	*fakeBackend
	endedWith chan any
}

func (b *tenantBackend) EndSession(ctx context.Context, id string) error {
	b.endedWith <- ctx.Value(ctxKey{})
	return b.fakeBackend.EndSession(ctx, id)
}

// The session made for an MCP session is ended with the context of the
// request that made it (its tenant: another tenant's delete finds no
// session), not a bare one.
func TestSessionEndsWithTheCreatorsContext(t *testing.T) {
	b := &tenantBackend{fakeBackend: newFakeBackend(), endedWith: make(chan any, 1)}
	h := New(b, Options{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, "tenant-a")))
	}))
	t.Cleanup(func() { h.Close(); ts.Close() })
	cs, err := connect(t, ts.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if got := <-b.endedWith; got != "tenant-a" {
		t.Fatalf("EndSession's context carries %v, want tenant-a", got)
	}
	eventually(t, "the session to end", func() bool { return slices.Equal(b.endedSessions(), []string{"sess-1"}) })
}

// tools/list carries the annotations toold knows of its built-in tools.
func TestToolAnnotations(t *testing.T) {
	_, url := serve(t, newFakeBackend())
	cs, err := connect(t, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tl := range lt.Tools {
		a := tl.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Fatalf("%s: annotations %+v", tl.Name, a)
		}
		got[tl.Name] = fmt.Sprintf("ro=%v destructive=%v open=%v", a.ReadOnlyHint, *a.DestructiveHint, *a.OpenWorldHint)
	}
	want := map[string]string{
		"Bash":  "ro=false destructive=true open=true",
		"Read":  "ro=true destructive=false open=false",
		"Write": "ro=false destructive=true open=false",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %s, want %s", name, got[name], w)
		}
	}
	if annotations("mcp__fs__read_file") != nil {
		t.Error("a tool toold does not know got annotations")
	}
}
