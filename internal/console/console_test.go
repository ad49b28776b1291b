package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// ownedSessions reads sessions as session.Manager does: another tenant's
// is not found.
type ownedSessions struct{ st store.Store }

func (o ownedSessions) Get(ctx context.Context, id string) (*store.Session, error) {
	s, err := o.st.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := session.CheckOwner(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// fakeResolver records answers, with the tenant they were given for, and
// refuses another tenant's session as the engine does.
type fakeResolver struct {
	st  store.Store
	mu  sync.Mutex
	got []resolved
}

type resolved struct {
	tenant string
	req    *tooldv1.ResolvePermissionRequest
}

func (f *fakeResolver) ResolvePermission(ctx context.Context, req *tooldv1.ResolvePermissionRequest) (*tooldv1.ResolvePermissionResponse, error) {
	if _, err := (ownedSessions{f.st}).Get(ctx, req.GetSessionId()); err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, resolved{session.Tenant(ctx), req})
	if req.GetRequestId() == "perm_gone" {
		return nil, status.Error(codes.NotFound, "no pending permission request")
	}
	return &tooldv1.ResolvePermissionResponse{}, nil
}

func (f *fakeResolver) answers() []resolved {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]resolved(nil), f.got...)
}

type fixture struct {
	st  *memstore.Store
	res *fakeResolver
	srv *httptest.Server
}

// tokens of the two tenants of the fixture.
const (
	tokenA = "token-of-team-a"
	tokenB = "token-of-team-b"
)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	var lines string
	for tenant, tok := range map[string]string{"team-a": tokenA, "team-b": tokenB} {
		sum := sha256.Sum256([]byte(tok))
		lines += tenant + " " + hex.EncodeToString(sum[:]) + "\n"
	}
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: file})
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	res := &fakeResolver{st: st}
	c, err := New(Config{Store: st, Sessions: ownedSessions{st}, Resolver: res, Authenticator: a, Mode: auth.ModeToken, FeedWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestServer(t, c)
	for _, s := range []struct{ id, tenant string }{{"aaaaaaaaaaaaaaaaaaaaaaaaa2", "team-a"}, {"aaaaaaaaaaaaaaaaaaaaaaaaa3", "team-a"}, {"bbbbbbbbbbbbbbbbbbbbbbbbb2", "team-b"}} {
		if err := st.CreateSession(context.Background(), &store.Session{ID: s.id, Tenant: s.tenant, Workspace: "/ws/" + s.id, Mode: "default", CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{st: st, res: res, srv: srv}
}

func newTestServer(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// client follows no redirects, so that a test sees them.
func client() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// login logs in with tok and returns the cookies the console set.
func (f *fixture) login(t *testing.T, tok string) []*http.Cookie {
	t.Helper()
	res, err := client().PostForm(f.srv.URL+"/login", url.Values{"token": {tok}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login with %q: %s", tok, res.Status)
	}
	return res.Cookies()
}

func (f *fixture) get(t *testing.T, path string, cookies []*http.Cookie) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 1<<16)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res.StatusCode, b.String()
}

func (f *fixture) post(t *testing.T, path string, form url.Values, cookies []*http.Cookie, header http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func cookieNamed(cs []*http.Cookie, name string) *http.Cookie {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestLoginSetsAStrictHttpOnlyCookie(t *testing.T) {
	f := newFixture(t)
	if code, _ := f.get(t, "/", nil); code != http.StatusSeeOther {
		t.Fatalf("GET / without credentials: %d, want a redirect to the login", code)
	}
	for _, p := range []string{"/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/events", "/sessions"} {
		req, _ := http.NewRequest(http.MethodGet, f.srv.URL+p, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("X-Console-Fragment", "1")
		res, err := client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without credentials: %s, want 401", p, res.Status)
		}
	}
	for _, bad := range []string{"", "wrong", "token-of-team-a x", strings.Repeat("x", maxToken+1), "a;b"} {
		res := f.post(t, "/login", url.Values{"token": {bad}}, nil, nil)
		if res.StatusCode == http.StatusSeeOther || cookieNamed(res.Cookies(), tokenCookie) != nil {
			t.Errorf("login with %q: %s, cookies %v; want refused, no cookie", bad, res.Status, res.Cookies())
		}
	}
	cs := f.login(t, tokenA)
	c := cookieNamed(cs, tokenCookie)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.Path != "/" {
		t.Fatalf("token cookie = %+v; want HttpOnly, SameSite=Strict, not Secure over plain HTTP", c)
	}
	if code, body := f.get(t, "/", cs); code != http.StatusOK || !strings.Contains(body, "aaaaaaaaaaaaaaaaaaaaaaaaa2") {
		t.Fatalf("GET / after login: %d\n%s", code, body)
	}
	// A login from another site is refused.
	res := f.post(t, "/login", url.Values{"token": {tokenA}}, nil, http.Header{"Origin": {"https://evil.example"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site login: %s", res.Status)
	}
	// A token removed from the token file stops working at once; here, a
	// cookie with a token the file never had.
	if code, _ := f.get(t, "/", []*http.Cookie{{Name: tokenCookie, Value: "forged"}}); code != http.StatusSeeOther {
		t.Fatalf("GET / with a forged cookie: %d", code)
	}
}

func TestTenantSeesOnlyItsSessions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.st.PutAsk(ctx, "bbbbbbbbbbbbbbbbbbbbbbbbb2", "perm_b", encode(Ask{RequestID: "perm_b", Tool: "Bash", Input: map[string]any{"command": "secret-of-b"}}), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := f.st.AppendFeed(ctx, "bbbbbbbbbbbbbbbbbbbbbbbbb2", encode(Item{Kind: "started", Tool: "Bash", Summary: "feed-of-b"})); err != nil {
		t.Fatal(err)
	}
	a := f.login(t, tokenA)
	for _, p := range []string{"/", "/sessions"} {
		code, body := f.get(t, p, a)
		if code != http.StatusOK || !strings.Contains(body, "aaaaaaaaaaaaaaaaaaaaaaaaa2") || !strings.Contains(body, "aaaaaaaaaaaaaaaaaaaaaaaaa3") || strings.Contains(body, "bbbbbbbbbbbbbbbbbbbbbbbbb2") {
			t.Fatalf("GET %s as team-a: %d\n%s", p, code, body)
		}
	}
	for _, p := range []string{"/sessions/bbbbbbbbbbbbbbbbbbbbbbbbb2", "/sessions/bbbbbbbbbbbbbbbbbbbbbbbbb2/asks", "/sessions/bbbbbbbbbbbbbbbbbbbbbbbbb2/events", "/sessions/nosuch"} {
		code, body := f.get(t, p, a)
		if code != http.StatusNotFound || strings.Contains(body, "secret-of-b") || strings.Contains(body, "feed-of-b") {
			t.Errorf("GET %s as team-a: %d %q, want 404 telling nothing", p, code, body)
		}
	}
	csrf := cookieNamed(a, csrfCookie).Value
	res := f.post(t, "/sessions/bbbbbbbbbbbbbbbbbbbbbbbbb2/asks/perm_b", url.Values{"csrf": {csrf}, "decision": {"once"}}, a, nil)
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "?done=gone") {
		t.Fatalf("team-a answering team-b's request: %s %s", res.Status, res.Header.Get("Location"))
	}
	if got := f.res.answers(); len(got) != 0 {
		t.Fatalf("team-b's request was answered: %+v", got)
	}
	b := f.login(t, tokenB)
	if code, body := f.get(t, "/sessions/bbbbbbbbbbbbbbbbbbbbbbbbb2", b); code != http.StatusOK || !strings.Contains(body, "secret-of-b") || !strings.Contains(body, "feed-of-b") {
		t.Fatalf("team-b's own session: %d\n%s", code, body)
	}
}

func TestAnswersNeedTheCSRFToken(t *testing.T) {
	f := newFixture(t)
	a := f.login(t, tokenA)
	csrf := cookieNamed(a, csrfCookie).Value
	tokenOnly := []*http.Cookie{cookieNamed(a, tokenCookie)}
	path := "/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_1"
	for name, tc := range map[string]struct {
		form    url.Values
		cookies []*http.Cookie
		header  http.Header
	}{
		"no field":          {url.Values{"decision": {"once"}}, a, nil},
		"wrong field":       {url.Values{"decision": {"once"}, "csrf": {strings.Repeat("0", 32)}}, a, nil},
		"no cookie":         {url.Values{"decision": {"once"}, "csrf": {csrf}}, tokenOnly, nil},
		"another origin":    {url.Values{"decision": {"once"}, "csrf": {csrf}}, a, http.Header{"Origin": {"http://evil.example"}}},
		"another scheme":    {url.Values{"decision": {"once"}, "csrf": {csrf}}, a, http.Header{"Origin": {"https://" + strings.TrimPrefix(f.srv.URL, "http://")}}},
		"field in the URL":  {nil, a, nil},
		"origin unparsable": {url.Values{"decision": {"once"}, "csrf": {csrf}}, a, http.Header{"Origin": {"http://%zz"}}},
	} {
		p := path
		if tc.form == nil {
			p += "?decision=once&csrf=" + csrf
		}
		if res := f.post(t, p, tc.form, tc.cookies, tc.header); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s, want 403", name, res.Status)
		}
	}
	if got := f.res.answers(); len(got) != 0 {
		t.Fatalf("a refused POST answered: %+v", got)
	}
	res := f.post(t, path, url.Values{"decision": {"deny"}, "message": {"not that file"}, "csrf": {csrf}}, a, http.Header{"Origin": {f.srv.URL}})
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2?done=denied") {
		t.Fatalf("a proper deny: %s %s", res.Status, res.Header.Get("Location"))
	}
	// A client with the token in its Authorization header needs no CSRF
	// token: no other site can make a browser send that header.
	res = f.post(t, path, url.Values{"decision": {"session"}}, nil, http.Header{"Authorization": {"Bearer " + tokenA}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("answer with an Authorization header: %s", res.Status)
	}
	got := f.res.answers()
	if len(got) != 2 {
		t.Fatalf("answers = %+v", got)
	}
	d := got[0]
	if d.tenant != "team-a" || d.req.GetSessionId() != "aaaaaaaaaaaaaaaaaaaaaaaaa2" || d.req.GetRequestId() != "perm_1" ||
		d.req.GetDecision() != tooldv1.PermissionDecision_PERMISSION_DECISION_DENY || d.req.GetMessage() != "not that file" {
		t.Fatalf("deny reached the API as %+v", d)
	}
	s := got[1].req
	if s.GetDecision() != tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW || s.GetScope() != tooldv1.PermissionScope_PERMISSION_SCOPE_SESSION {
		t.Fatalf("approve for the session reached the API as %+v", s)
	}
}

func TestBadAnswersChangeNothing(t *testing.T) {
	f := newFixture(t)
	a := f.login(t, tokenA)
	csrf := cookieNamed(a, csrfCookie).Value
	for name, tc := range map[string]struct {
		path string
		form url.Values
		want int
	}{
		"unknown decision":     {"/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_1", url.Values{"decision": {"maybe"}}, http.StatusBadRequest},
		"no decision":          {"/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_1", url.Values{}, http.StatusBadRequest},
		"message too long":     {"/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_1", url.Values{"decision": {"deny"}, "message": {strings.Repeat("m", maxMessage+1)}}, http.StatusBadRequest},
		"message not UTF-8":    {"/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_1", url.Values{"decision": {"deny"}, "message": {"\xff"}}, http.StatusBadRequest},
		"request id with dots": {"/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm..1", url.Values{"decision": {"once"}}, http.StatusNotFound},
		"body too large":       {"/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_1", url.Values{"decision": {"deny"}, "message": {strings.Repeat("m", 64<<10)}}, http.StatusBadRequest},
	} {
		tc.form.Set("csrf", csrf)
		if res := f.post(t, tc.path, tc.form, a, nil); res.StatusCode != tc.want {
			t.Errorf("%s: %s, want %d", name, res.Status, tc.want)
		}
	}
	if got := f.res.answers(); len(got) != 0 {
		t.Fatalf("bad input reached the API: %+v", got)
	}
	// A request that no longer waits says so.
	res := f.post(t, "/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_gone", url.Values{"decision": {"once"}, "csrf": {csrf}}, a, nil)
	if !strings.HasSuffix(res.Header.Get("Location"), "?done=gone") {
		t.Fatalf("answer to a request that is gone: %s", res.Header.Get("Location"))
	}
	if code, body := f.get(t, "/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2?done=gone", a); code != http.StatusOK || !strings.Contains(body, "no longer waits") {
		t.Fatalf("the page after it: %d", code)
	}
	if code, _ := f.get(t, "/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/events?after=x", a); code != http.StatusBadRequest {
		t.Fatalf("events?after=x: %d", code)
	}
	if code, _ := f.get(t, "/sessions/a%2Fb", a); code != http.StatusNotFound {
		t.Fatalf("a session id that is no id: %d", code)
	}
}

func TestSessionPageExplainsTheAsk(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	bash := Ask{RequestID: "perm_bash", ToolUseID: "toolu_1", Tool: "Bash", Summary: "Run: rm -rf build && <b>x</b>",
		Input: map[string]any{"command": "rm -rf build && echo '<script>alert(1)</script>'"},
		Decision: Explanation{Behavior: "ask", Rule: "Bash(rm *)", Source: "projectSettings", Reason: "ask rule Bash(rm *)",
			Parts:    []Part{{Command: "rm -rf build", Behavior: "ask", Rule: "Bash(rm *)", Source: "projectSettings"}, {Command: "echo", Behavior: "allow", Reason: "read-only"}},
			Warnings: []string{"rm -rf deletes files"}}}
	edit := Ask{RequestID: "perm_edit", ToolUseID: "toolu_2", Tool: "Edit", Input: map[string]any{"file_path": "/ws/main.go", "old_string": "a\nold line\nc", "new_string": "a\nnew line\nc"},
		Decision: Explanation{Behavior: "ask", Source: "mode", Reason: "edits need approval in default mode"}}
	for _, a := range []Ask{bash, edit} {
		if err := f.st.PutAsk(ctx, "aaaaaaaaaaaaaaaaaaaaaaaaa2", a.RequestID, encode(a), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.st.RecordDenial(ctx, "aaaaaaaaaaaaaaaaaaaaaaaaa2", store.PersonDenials, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	code, body := f.get(t, "/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2", f.login(t, tokenA))
	if code != http.StatusOK {
		t.Fatalf("%d\n%s", code, body)
	}
	for _, want := range []string{
		`data-test="rule">Bash(rm *)`, `data-test="source">projectSettings`, "ask rule Bash(rm *)",
		`<td class="mono">rm -rf build</td>`, "rm -rf deletes files",
		`&lt;script&gt;alert(1)&lt;/script&gt;`, `&lt;b&gt;x&lt;/b&gt;`,
		`<span class="ddel">- old line</span>`, `<span class="dadd">&#43; new line</span>`, `<span class="dctx">  a</span>`,
		"/ws/main.go", `data-test="denials">1<`,
		`action="/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_edit"`, `value="once"`, `value="session"`, `value="deny"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(body, "<script>alert") {
		t.Error("input reached the page unescaped")
	}
}

// Over TLS the cookies are Secure, and an Origin must be https.
func TestCookiesAreSecureOverTLS(t *testing.T) {
	plain := newFixture(t)
	c, err := New(Config{Store: plain.st, Sessions: ownedSessions{plain.st}, Resolver: plain.res, Authenticator: mustTokens(t), Mode: auth.ModeToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(c)
	t.Cleanup(srv.Close)
	cl := srv.Client()
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	login := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(url.Values{"token": {tokenA}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		res, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := login("http://" + strings.TrimPrefix(srv.URL, "https://")); res.StatusCode != http.StatusForbidden {
		t.Fatalf("login from the http origin of an https console: %s", res.Status)
	}
	res := login(srv.URL)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login over TLS: %s", res.Status)
	}
	for _, name := range []string{tokenCookie, csrfCookie} {
		if c := cookieNamed(res.Cookies(), name); c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
			t.Errorf("cookie %s over TLS = %+v; want Secure, HttpOnly, SameSite=Strict", name, c)
		}
	}
}

func mustTokens(t *testing.T) auth.Authenticator {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	sum := sha256.Sum256([]byte(tokenA))
	if err := os.WriteFile(file, []byte("team-a "+hex.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: file})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
