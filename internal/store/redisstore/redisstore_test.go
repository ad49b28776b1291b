package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
	"github.com/toold/toold/internal/store/storetest"
)

func newClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr:                  addr,
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
		ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// prefix gives every subtest its own keys on the shared server.
func prefix(t testing.TB) string { return "test:" + t.Name() + ":" }

func TestConformance(t *testing.T) {
	c := newClient(t, redistest.Start(t))
	storetest.Run(t, func(t *testing.T) store.Store {
		return New(c, Options{KeyPrefix: prefix(t)})
	})
}

// TestConformanceOpen runs the suite on stores that own their client.
func TestConformanceOpen(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0"
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := Open(context.Background(), url, Options{KeyPrefix: prefix(t)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func sample(id string) *store.Session {
	return &store.Session{
		ID: id, Workspace: "/ws", Mode: "default", Cwd: "/ws",
		Allow:     []string{"Read"},
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
	}
}

func mustCreate(t testing.TB, s *Store, id string) {
	t.Helper()
	if err := s.CreateSession(context.Background(), sample(id)); err != nil {
		t.Fatal(err)
	}
}

// TestTTLRefresh shortens the TTL of every key, uses the session through
// one method and checks that all keys got the full idle TTL back.
func TestTTLRefresh(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	// The TTL is long so that no key expires while the test runs,
	// however slowly; a key's TTL counts down at most by the time that
	// passed since the step that set it began (fullTTL).
	const ttl = time.Hour
	s := New(c, Options{KeyPrefix: prefix(t), SessionTTL: ttl})
	fullTTL := func(since time.Time, d time.Duration) bool {
		return d > ttl-time.Since(since)-10*time.Millisecond && d <= ttl
	}
	created := time.Now()
	mustCreate(t, s, "s1")
	k, _ := s.keys("s1")
	if d := c.PTTL(ctx, k.session).Val(); !fullTTL(created, d) {
		t.Fatalf("TTL after create = %v", d)
	}
	// Create the other keys.
	if err := s.RecordRead(ctx, "s1", "/ws/a", store.FileStamp{Size: 1}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := s.RecordDenial(ctx, "s1", store.PersonDenials, now, time.Minute); err != nil {
		t.Fatal(err)
	}
	calls := store.CallTimes{Lease: time.Minute, Keep: time.Hour}
	if _, _, err := s.BeginCalls(ctx, "s1", "o", []store.Claim{{ToolUseID: "a", Fingerprint: "f"}}, calls); err != nil {
		t.Fatal(err)
	}
	uses := []struct {
		name string
		fn   func() error
	}{
		{"GetSession", func() error { _, err := s.GetSession(ctx, "s1"); return err }},
		{"UpdateSession", func() error {
			_, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error { x.Mode = "plan"; return nil })
			return err
		}},
		{"SetCwd", func() error { return s.SetCwd(ctx, "s1", "/ws/b") }},
		{"RecordRead", func() error { return s.RecordRead(ctx, "s1", "/ws/c", store.FileStamp{}) }},
		{"ReadStamp", func() error { _, _, err := s.ReadStamp(ctx, "s1", "/ws/a"); return err }},
		{"RecordDenial", func() error { _, err := s.RecordDenial(ctx, "s1", store.PersonDenials, now, time.Minute); return err }},
		{"CountDenials", func() error { _, err := s.CountDenials(ctx, "s1", store.PersonDenials, now, time.Minute); return err }},
		{"BeginCalls", func() error {
			_, _, err := s.BeginCalls(ctx, "s1", "o", []store.Claim{{ToolUseID: "b", Fingerprint: "f"}}, calls)
			return err
		}},
		{"FinishCall", func() error {
			return s.FinishCall(ctx, store.CallRef{SessionID: "s1", ToolUseID: "b"}, "o", nil, store.Effects{}, calls)
		}},
	}
	for _, u := range uses {
		for _, key := range k.all() {
			if !c.PExpire(ctx, key, ttl/2).Val() {
				t.Fatalf("%s: key %s is missing", u.name, key)
			}
		}
		used := time.Now()
		if err := u.fn(); err != nil {
			t.Fatalf("%s: %v", u.name, err)
		}
		for _, key := range k.all() {
			if d := c.PTTL(ctx, key).Val(); !fullTTL(used, d) {
				t.Errorf("%s did not refresh %s: TTL %v", u.name, key, d)
			}
		}
	}
	// An idle session expires with all its state.
	for _, key := range k.all() {
		c.PExpire(ctx, key, time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := s.GetSession(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired session: %v", err)
	}
	if n := c.Exists(ctx, k.all()...).Val(); n != 0 {
		t.Fatalf("%d keys outlived the session", n)
	}
}

// TestTTLKeepsUsedSessionAlive: in real time, a session used more often
// than its TTL lives on, an idle one goes.
//
// The session is used until the idle one has gone. A use that fails only
// counts when the time since the use before it began is under the TTL: a
// machine too loaded to use the session in time proves nothing, and the
// session is made again.
func TestTTLKeepsUsedSessionAlive(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	const ttl = 300 * time.Millisecond
	s := New(c, Options{KeyPrefix: prefix(t), SessionTTL: ttl})
	mustCreate(t, s, "idle")
	prev := time.Now()
	mustCreate(t, s, "used")
	// Looking at the idle session's key does not use the session.
	idle, _ := s.keys("idle")
	deadline := time.Now().Add(time.Minute)
	for uses := 0; uses == 0 || c.Exists(ctx, idle.session).Val() != 0; uses++ {
		if time.Now().After(deadline) {
			t.Fatal("an idle session outlived its TTL")
		}
		time.Sleep(ttl / 3)
		start := time.Now()
		_, _, err := s.ReadStamp(ctx, "used", "/x")
		switch {
		case err == nil:
		case time.Since(prev) < ttl:
			t.Fatalf("a session used within its TTL expired: %v", err)
		default:
			t.Logf("the session was not used within its TTL (%v): made again", time.Since(prev))
			mustCreate(t, s, "used")
		}
		prev = start
	}
	if _, err := s.GetSession(ctx, "idle"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an idle session outlived its TTL: %v", err)
	}
}

// TestKeyLayout: every key of a session is under the prefix, in the
// session's hash slot.
func TestKeyLayout(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: "layout:"})
	ids := []string{"s1", "ABCdef_-0123456789abcdefgh"}
	for _, id := range ids {
		mustCreate(t, s, id)
		if err := s.RecordRead(ctx, id, "/a", store.FileStamp{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordDenial(ctx, id, store.PersonDenials, time.Now(), time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordDenial(ctx, id, store.ClassifierDenials, time.Now(), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	all, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	// Each session's four keys, and the index of their tenant ("").
	if len(all) != 4*len(ids)+1 || c.Exists(ctx, "layout:{t:}:sessions").Val() != 1 {
		t.Fatalf("keys = %q", all)
	}
	for _, id := range ids {
		// The classifier's denials expire on their own: never before the
		// session's idle TTL, and with it at the latest once all are out
		// of the window.
		cd := "layout:{s:" + id + "}:cdenials"
		if ttl, idle := c.PTTL(ctx, cd).Val(), c.PTTL(ctx, "layout:{s:"+id+"}:session").Val(); ttl <= 0 || ttl > DefaultSessionTTL || ttl < idle-time.Second {
			t.Errorf("%s: TTL %v (the session's %v)", cd, ttl, idle)
		}
		want := []string{"layout:{s:" + id + "}:session", "layout:{s:" + id + "}:stamps", "layout:{s:" + id + "}:denials", cd}
		for _, key := range want {
			if n := c.Exists(ctx, key).Val(); n != 1 {
				t.Errorf("missing key %s (have %q)", key, all)
			}
			if got, want := slot(key), slot("{s:"+id+"}"); got != want {
				t.Errorf("%s in slot %d, want %d", key, got, want)
			}
		}
		if err := s.DeleteSession(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	// Only the deleted marks stay, and they expire, and the tenant's
	// index, which the next ListSessions prunes.
	left, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != len(ids)+1 {
		t.Fatalf("keys left after deleting every session: %q", left)
	}
	if got, err := s.ListSessions(ctx, "", 10); err != nil || len(got) != 0 {
		t.Fatalf("ListSessions after deleting every session = %v, %v", got, err)
	}
	if n := c.Exists(ctx, "layout:{t:}:sessions").Val(); n != 0 {
		t.Error("ListSessions left the emptied tenant index")
	}
	for _, id := range ids {
		key := "layout:{s:" + id + "}:deleted"
		if ttl := c.PTTL(ctx, key).Val(); ttl <= 0 || ttl > store.DeletedKeep {
			t.Errorf("mark %s: TTL %v, want (0, %v]", key, ttl, store.DeletedKeep)
		}
	}
}

// slot is Redis Cluster's key slot: CRC16 (XMODEM) of the hash tag, mod
// 16384.
func slot(key string) uint16 {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % 16384
}

func TestSlotFunction(t *testing.T) {
	// Values from the Redis Cluster specification and CLUSTER KEYSLOT.
	if got := slot("123456789"); got != 0x31C3%16384 {
		t.Fatalf("slot(123456789) = %d", got)
	}
	if slot("{user1000}.following") != slot("{user1000}.followers") {
		t.Fatal("hash tags ignored")
	}
}

func TestInvalidIDs(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: prefix(t)})
	bad := []string{"", "a b", "a{b", "a}b", "{x}", "a:b", "../x", "a*", "é", "a\nb", "a\x00", strings.Repeat("a", maxIDLen+1)}
	for _, id := range bad {
		sess := sample(id)
		for name, err := range map[string]error{
			"CreateSession": s.CreateSession(ctx, sess),
			"GetSession":    second(s.GetSession(ctx, id)),
			"DeleteSession": s.DeleteSession(ctx, id),
			"UpdateSession": second(s.UpdateSession(ctx, id, func(*store.Session) error { return nil })),
			"RecordDenial":  second(s.RecordDenial(ctx, id, store.PersonDenials, time.Now(), time.Minute)),
			"CountDenials":  second(s.CountDenials(ctx, id, store.PersonDenials, time.Now(), time.Minute)),
			"SetCwd":        s.SetCwd(ctx, id, "/x"),
			"RecordRead":    s.RecordRead(ctx, id, "/x", store.FileStamp{}),
			"ReadStamp":     third(s.ReadStamp(ctx, id, "/x")),
		} {
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s(%q) = %v, want ErrNotFound", name, id, err)
			}
		}
	}
	if n := c.DBSize(ctx).Val(); n != 0 {
		t.Fatalf("invalid ids wrote %d keys", n)
	}
}

func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }

func TestBadOptions(t *testing.T) {
	if _, err := Open(context.Background(), "redis://127.0.0.1:1", Options{KeyPrefix: "a{b}:"}); err == nil {
		t.Fatal("Open accepted a brace in the prefix")
	}
	if _, err := Open(context.Background(), "http://x", Options{}); err == nil || errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open of a bad URL = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("New accepted a brace in the prefix")
		}
	}()
	New(nil, Options{KeyPrefix: "{x}"})
}

// TestEncoding pins the stored form: field names and RFC 3339 times.
func TestEncoding(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: prefix(t)})
	mustCreate(t, s, "s1")
	if err := s.RecordRead(ctx, "s1", "/f", store.FileStamp{ModTime: time.Unix(1700000000, 123456789), Size: 42}); err != nil {
		t.Fatal(err)
	}
	k, _ := s.keys("s1")
	var got map[string]any
	if err := json.Unmarshal([]byte(c.Get(ctx, k.session).Val()), &got); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]any{
		"id": "s1", "workspace": "/ws", "mode": "default", "cwd": "/ws",
		"created_at": "2026-01-02T03:04:05.000006Z", "revision": 0.0,
	} {
		if got[field] != want {
			t.Errorf("%s = %#v, want %#v", field, got[field], want)
		}
	}
	if st := c.HGet(ctx, k.stamps, "/f").Val(); st != `{"mtime":"2023-11-14T22:13:20.123456789Z","size":42}` {
		t.Errorf("stamp = %s", st)
	}
	// The SetCwd script rewrites the JSON with cjson; Go must still read
	// it, including an empty list written as {}.
	if err := c.Set(ctx, k.session, `{"id":"s1","allow":{},"user":{"deny":{}},"cwd":"/","created_at":"2026-01-02T03:04:05Z","revision":3}`, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCwd(ctx, "s1", "/w"); err != nil {
		t.Fatal(err)
	}
	sess, err := s.GetSession(ctx, "s1")
	if err != nil || sess.Cwd != "/w" || sess.Revision != 3 || len(sess.Allow) != 0 {
		t.Fatalf("GetSession = %+v, %v", sess, err)
	}
}

// TestCorruptDataFailsClosed: what the store cannot decode is an error,
// never a default value.
func TestCorruptDataFailsClosed(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: prefix(t)})
	mustCreate(t, s, "s1")
	k, _ := s.keys("s1")
	c.HSet(ctx, k.stamps, "/f", "garbage")
	if _, ok, err := s.ReadStamp(ctx, "s1", "/f"); !errors.Is(err, store.ErrUnavailable) || ok {
		t.Errorf("ReadStamp of a corrupt stamp = %v, %v", ok, err)
	}
	c.Set(ctx, k.session, "garbage", time.Minute)
	if _, err := s.GetSession(ctx, "s1"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("GetSession of a corrupt session = %v", err)
	}
	if err := s.SetCwd(ctx, "s1", "/x"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("SetCwd of a corrupt session = %v", err)
	}
	if _, err := s.UpdateSession(ctx, "s1", func(*store.Session) error { return nil }); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("UpdateSession of a corrupt session = %v", err)
	}
	c.Set(ctx, k.denials, "not a zset", time.Minute)
	if _, err := s.CountDenials(ctx, "s1", store.PersonDenials, time.Now(), time.Minute); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("CountDenials on a key of the wrong type = %v", err)
	}
}

// roundTrips counts commands and pipelines sent, each one round trip.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

func TestRoundTrips(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	rt := &roundTrips{}
	c.AddHook(rt)
	s := New(c, Options{KeyPrefix: prefix(t)})
	if err := s.loadScripts(ctx); err != nil {
		t.Fatal(err)
	}
	// A pipeline may take a connection of its own, whose handshake (HELLO,
	// CLIENT SETINFO) the hook would count: warm it first.
	c.Pipelined(ctx, func(p redis.Pipeliner) error { p.Ping(ctx); return nil })
	now := time.Now()
	ops := []struct {
		name string
		want int64 // 0: only logged
		fn   func() error
	}{
		{"CreateSession", 1, func() error { return s.CreateSession(ctx, sample("s1")) }},
		{"GetSession", 1, func() error { _, err := s.GetSession(ctx, "s1"); return err }},
		{"SetCwd", 1, func() error { return s.SetCwd(ctx, "s1", "/ws/x") }},
		{"RecordRead", 1, func() error { return s.RecordRead(ctx, "s1", "/a", store.FileStamp{Size: 1}) }},
		{"ReadStamp", 1, func() error { _, _, err := s.ReadStamp(ctx, "s1", "/a"); return err }},
		{"RecordDenial", 1, func() error { _, err := s.RecordDenial(ctx, "s1", store.PersonDenials, now, time.Minute); return err }},
		{"CountDenials", 1, func() error { _, err := s.CountDenials(ctx, "s1", store.PersonDenials, now, time.Minute); return err }},
		{"UpdateSession", 0, func() error {
			_, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error { x.Mode = "plan"; return nil })
			return err
		}},
		{"DeleteSession", 1, func() error { return s.DeleteSession(ctx, "s1") }},
	}
	for _, op := range ops {
		rt.n.Store(0)
		if err := op.fn(); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		n := rt.n.Load()
		t.Logf("%s: %d round trip(s)", op.name, n)
		if op.want != 0 && n != op.want {
			t.Errorf("%s cost %d round trips, want %d", op.name, n, op.want)
		}
	}
}

// The classifier's denials are kept for the longer of the idle TTL and
// the window: a window longer than the TTL still sees them while the
// session is used.
func TestClassifierDenialsKeptForTheWindow(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: prefix(t), SessionTTL: time.Hour})
	mustCreate(t, s, "s1")
	k, _ := s.keys("s1")
	if _, err := s.RecordDenial(ctx, "s1", store.ClassifierDenials, time.Now(), 3*time.Hour); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, k.classifierDenials).Val(); ttl <= 2*time.Hour || ttl > 3*time.Hour+time.Second {
		t.Fatalf("TTL %v, want about the 3h window", ttl)
	}
	// A person's denials keep the session's TTL, as before.
	if _, err := s.RecordDenial(ctx, "s1", store.PersonDenials, time.Now(), 3*time.Hour); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, k.denials).Val(); ttl <= 0 || ttl > time.Hour {
		t.Fatalf("people's denials: TTL %v, want the session's hour", ttl)
	}
}
