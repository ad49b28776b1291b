package redisstore

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
)

// closedAddr is an address where nothing listens.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// call is one use of every method; a result that is not the zero value is
// reported, as a fail-closed store returns nothing it could not read.
type call struct {
	name string
	fn   func(ctx context.Context, s *Store) (nonZero bool, err error)
}

func calls(id string) []call {
	now := time.Now()
	return []call{
		{"CreateSession", func(ctx context.Context, s *Store) (bool, error) {
			return false, s.CreateSession(ctx, sample(id+"new"))
		}},
		{"GetSession", func(ctx context.Context, s *Store) (bool, error) {
			x, err := s.GetSession(ctx, id)
			return x != nil, err
		}},
		{"DeleteSession", func(ctx context.Context, s *Store) (bool, error) { return false, s.DeleteSession(ctx, id) }},
		{"UpdateSession", func(ctx context.Context, s *Store) (bool, error) {
			x, err := s.UpdateSession(ctx, id, func(*store.Session) error { return nil })
			return x != nil, err
		}},
		{"RecordDenial", func(ctx context.Context, s *Store) (bool, error) {
			n, err := s.RecordDenial(ctx, id, store.PersonDenials, now, time.Minute)
			return n != 0, err
		}},
		{"CountDenials", func(ctx context.Context, s *Store) (bool, error) {
			n, err := s.CountDenials(ctx, id, store.PersonDenials, now, time.Minute)
			return n != 0, err
		}},
		{"SetCwd", func(ctx context.Context, s *Store) (bool, error) { return false, s.SetCwd(ctx, id, "/x") }},
		{"RecordRead", func(ctx context.Context, s *Store) (bool, error) {
			return false, s.RecordRead(ctx, id, "/x", store.FileStamp{})
		}},
		{"ReadStamp", func(ctx context.Context, s *Store) (bool, error) {
			st, ok, err := s.ReadStamp(ctx, id, "/x")
			return ok || st != (store.FileStamp{}), err
		}},
		{"Ping", func(ctx context.Context, s *Store) (bool, error) { return false, s.Ping(ctx) }},
	}
}

func expectUnavailable(t *testing.T, s *Store, id string) {
	t.Helper()
	for _, c := range calls(id) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		nonZero, err := c.fn(ctx, s)
		cancel()
		t.Logf("%s: %v after %v", c.name, err, time.Since(start).Round(time.Millisecond))
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s = %v, want ErrUnavailable", c.name, err)
		}
		if nonZero {
			t.Errorf("%s returned a value with its error", c.name)
		}
	}
}

func TestOpenUnreachable(t *testing.T) {
	start := time.Now()
	_, err := Open(context.Background(), "redis://"+closedAddr(t), Options{})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open = %v, want ErrUnavailable", err)
	}
	t.Logf("Open failed after %v: %v", time.Since(start), err)
}

func TestClosedPortFailsClosed(t *testing.T) {
	c := redis.NewClient(&redis.Options{
		Addr:        closedAddr(t),
		DialTimeout: time.Second,
		MaxRetries:  -1, // no retries with backoff: a faster test
	})
	defer c.Close()
	expectUnavailable(t, New(c, Options{}), "s1")
}

// TestServerKilledFailsClosed: state was there, the server goes away.
func TestServerKilledFailsClosed(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	// No retries with backoff: a faster test.
	s, err := Open(ctx, "redis://"+srv.Addr+"?max_retries=-1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustCreate(t, s, "s1")
	if err := s.RecordRead(ctx, "s1", "/x", store.FileStamp{Size: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordDenial(ctx, "s1", store.PersonDenials, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	expectUnavailable(t, s, "s1")
}

// TestServerHungFailsClosed: the server stops answering; calls time out
// with ErrUnavailable and work again once it is back.
func TestServerHungFailsClosed(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	s, err := Open(ctx, "redis://"+srv.Addr, Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The short timeout is for the hung server; on a loaded machine a
	// live one may miss it too, so what must succeed is tried until it
	// does.
	eventuallyOK(t, "create", func() error {
		err := s.CreateSession(ctx, sample("s1"))
		if errors.Is(err, store.ErrExists) {
			return nil
		}
		return err
	})
	srv.Pause()
	for _, name := range []string{"GetSession", "RecordDenial", "CountDenials", "ReadStamp"} {
		for _, c := range calls("s1") {
			if c.name != name {
				continue
			}
			start := time.Now()
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			nonZero, err := c.fn(ctx, s)
			cancel()
			if !errors.Is(err, store.ErrUnavailable) || nonZero {
				t.Errorf("%s on a hung server = %v (value returned: %v)", name, err, nonZero)
			}
			t.Logf("%s failed after %v", name, time.Since(start).Round(time.Millisecond))
		}
	}
	srv.Resume()
	eventuallyOK(t, "GetSession after the server is back", func() error { _, err := s.GetSession(ctx, "s1"); return err })
}

// eventuallyOK calls fn until it succeeds or fails otherwise than with
// ErrUnavailable.
func eventuallyOK(t *testing.T, what string, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := fn()
		switch {
		case err == nil:
			return
		case !errors.Is(err, store.ErrUnavailable) || time.Now().After(deadline):
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// failing makes every command fail with err without sending it.
type failing struct{ err error }

func (f failing) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f failing) ProcessHook(redis.ProcessHook) redis.ProcessHook {
	return func(_ context.Context, cmd redis.Cmder) error {
		cmd.SetErr(f.err)
		return f.err
	}
}

func (f failing) ProcessPipelineHook(redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(_ context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			cmd.SetErr(f.err)
		}
		return f.err
	}
}

// TestServerErrorsFailClosed: error replies of a server that is up but
// cannot serve are ErrUnavailable too, never "not found" or zero.
func TestServerErrorsFailClosed(t *testing.T) {
	addr := redistest.Start(t)
	for _, e := range []error{
		errors.New("LOADING Redis is loading the dataset in memory"),
		errors.New("READONLY You can't write against a read only replica."),
		errors.New("MASTERDOWN Link with MASTER is down"),
		errors.New("CLUSTERDOWN The cluster is down"),
		errors.New("OOM command not allowed when used memory > 'maxmemory'."),
		context.DeadlineExceeded,
		&net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")},
	} {
		t.Run(e.Error(), func(t *testing.T) {
			good := newClient(t, addr)
			s := New(good, Options{KeyPrefix: prefix(t)})
			mustCreate(t, s, "s1")
			bad := newClient(t, addr)
			bad.AddHook(failing{e})
			expectUnavailable(t, New(bad, Options{KeyPrefix: prefix(t)}), "s1")
		})
	}
}
