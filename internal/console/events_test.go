package console

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// readEvent reads one server-sent event (or comment) up to its blank line.
func readEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream ended: %v (read %q)", err, b.String())
		}
		if line == "\n" {
			return b.String()
		}
		b.WriteString(line)
	}
}

// readUntil skips comments and returns the first event naming kind.
func readUntil(t *testing.T, r *bufio.Reader, kind string) string {
	t.Helper()
	for {
		if ev := readEvent(t, r); strings.Contains(ev, "event: "+kind+"\n") {
			return ev
		}
	}
}

func TestEventsStreamTheFeed(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const sid = "aaaaaaaaaaaaaaaaaaaaaaaaa2"
	if err := f.st.AppendFeed(ctx, sid, encode(Item{Kind: "decision", Tool: "Read"}), encode(Item{Kind: "started", Tool: "Read"})); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+"/sessions/"+sid+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	// Resuming after the first entry, as a reconnecting EventSource does.
	req.Header.Set("Last-Event-ID", "1")
	for _, c := range f.login(t, tokenA) {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(res.Body)
	ev := readUntil(t, r, "feed")
	if !strings.HasPrefix(ev, "id: 2\n") || !strings.Contains(ev, `"kind":"started"`) {
		t.Fatalf("first event after Last-Event-ID 1: %q", ev)
	}
	if err := f.st.AppendFeed(ctx, sid, encode(Item{Kind: "result", Tool: "Read", Text: "line\nbreak"})); err != nil {
		t.Fatal(err)
	}
	ev = readUntil(t, r, "feed")
	if !strings.HasPrefix(ev, "id: 3\n") || !strings.Contains(ev, `"text":"line\nbreak"`) || strings.Count(ev, "\n") != 3 {
		t.Fatalf("appended entry: %q", ev)
	}
	if err := f.st.DeleteSession(ctx, sid); err != nil {
		t.Fatal(err)
	}
	readUntil(t, r, "gone")
}

// With --auth none there is no login: the console acts for the default
// tenant, and still wants the CSRF token on answers.
func TestNoAuthNeedsNoLogin(t *testing.T) {
	st := newFixture(t).st
	res := &fakeResolver{st: st}
	c, err := New(Config{Store: st, Sessions: ownedSessions{st}, Resolver: res})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, res: res}
	f.srv = newTestServer(t, c)
	code, body := f.get(t, "/", nil)
	if code != http.StatusOK || strings.Contains(body, "aaaaaaaaaaaaaaaaaaaaaaaaa2") || strings.Contains(body, "Log out") {
		t.Fatalf("GET / with --auth none: %d (the fixture's sessions belong to named tenants)\n%s", code, body)
	}
	if code, _ := f.get(t, "/login", nil); code != http.StatusSeeOther {
		t.Fatalf("GET /login with --auth none: %d", code)
	}
	if r := f.post(t, "/sessions/aaaaaaaaaaaaaaaaaaaaaaaaa2/asks/perm_1", map[string][]string{"decision": {"once"}}, nil, nil); r.StatusCode != http.StatusForbidden {
		t.Fatalf("answer without the CSRF token: %s", r.Status)
	}
}

// More followers than may wait in the store at once still get every entry:
// the others look once a second.
func TestManyFollowersAllGetTheFeed(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const sid = "aaaaaaaaaaaaaaaaaaaaaaaaa2"
	cookies := f.login(t, tokenA)
	var readers []*bufio.Reader
	for range maxBlockingReads + 3 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+"/sessions/"+sid+"/events", nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		readers = append(readers, bufio.NewReader(res.Body))
	}
	if err := f.st.AppendFeed(ctx, sid, encode(Item{Kind: "started", Tool: "Glob"})); err != nil {
		t.Fatal(err)
	}
	for i, r := range readers {
		if ev := readUntil(t, r, "feed"); !strings.Contains(ev, `"tool":"Glob"`) {
			t.Fatalf("follower %d got %q", i, ev)
		}
	}
}
