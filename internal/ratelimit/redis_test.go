package ratelimit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
)

func newClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr: addr, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		MaxRetries: -1, ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// replica is one toold process's limiter: its own client, the shared
// server and prefix.
func replica(t *testing.T, addr, prefix string, cfg ratelimit.Config, ttl time.Duration) (*ratelimit.Redis, *redis.Client) {
	t.Helper()
	c := newClient(t, addr)
	l, err := ratelimit.NewRedis(c, cfg, ratelimit.RedisOptions{KeyPrefix: prefix, LeaseTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l, c
}

func TestRedis(t *testing.T) {
	addr := redistest.Start(t)
	runSuite(t, func(t *testing.T, cfg ratelimit.Config) ratelimit.Limiter {
		l, _ := replica(t, addr, "test:"+t.Name()+":", cfg, 0)
		return l
	})
}

func TestRedisReplicasShareLimits(t *testing.T) {
	addr := redistest.Start(t)
	cfg := ratelimit.Config{Default: ratelimit.Limits{Rate: slow, Burst: 4, Concurrent: 3}}
	a, _ := replica(t, addr, "toold:", cfg, 0)
	b, _ := replica(t, addr, "toold:", cfg, 0)

	// The rate: four calls in all, whichever replica takes them.
	pa := admit(t, a, "team", 2)
	pb := admit(t, b, "team", 1)
	refused(t, a, "team", 1, ratelimit.LimitConcurrency)
	refused(t, b, "team", 1, ratelimit.LimitConcurrency)
	pa.Release()
	pb.Release()
	admit(t, b, "team", 1).Release()
	refused(t, a, "team", 1, ratelimit.LimitRate)
	refused(t, b, "team", 1, ratelimit.LimitRate)

	// Another tenant, and the same tenant under another prefix (another
	// deployment on the same Redis), are not affected.
	admit(t, a, "other", 1).Release()
	c, _ := replica(t, addr, "staging:", cfg, 0)
	admit(t, c, "team", 3).Release()
}

func TestRedisLeasesOfACrashedReplicaExpire(t *testing.T) {
	addr := redistest.Start(t)
	cfg := ratelimit.Config{Default: ratelimit.Limits{Concurrent: 2}}
	const ttl = time.Second
	live, _ := replica(t, addr, "toold:", cfg, ttl)
	crashed, crashedClient := replica(t, addr, "toold:", cfg, ttl)
	other, _ := replica(t, addr, "toold:", cfg, ttl)

	held := admit(t, live, "team", 1)
	defer held.Release()
	admit(t, crashed, "team", 1) // never released
	// The crashed replica stops talking to Redis: no renewal, no release.
	_ = crashedClient.Close()
	refused(t, other, "team", 1, ratelimit.LimitConcurrency)

	// Within a few TTLs the crashed replica's slot frees itself, while
	// the live replica's renewed lease keeps its slot.
	deadline := time.Now().Add(20 * ttl)
	for {
		p, err := other.Admit(ctx, "team", 1)
		if err == nil {
			p.Release()
			break
		}
		if !errors.Is(err, ratelimit.ErrExceeded) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the crashed replica's slot never expired")
		}
		time.Sleep(ttl / 4)
	}
	time.Sleep(2 * ttl)
	p := admit(t, other, "team", 1)
	refused(t, other, "team", 1, ratelimit.LimitConcurrency)
	p.Release()
}

func TestRedisUnavailableFailsClosed(t *testing.T) {
	srv := redistest.StartServer(t)
	l, _ := replica(t, srv.Addr, "toold:", ratelimit.Config{Default: ratelimit.Limits{Rate: slow, Concurrent: 1}}, 0)
	admit(t, l, "team", 1).Release()
	srv.Kill()
	_, err := l.Admit(ctx, "team", 1)
	if !errors.Is(err, store.ErrUnavailable) || errors.Is(err, ratelimit.ErrExceeded) {
		t.Fatalf("Admit with Redis gone = %v, want store.ErrUnavailable", err)
	}
}

func TestRedisOptions(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	if _, err := ratelimit.NewRedis(c, ratelimit.Config{}, ratelimit.RedisOptions{LeaseTTL: time.Millisecond}); err == nil {
		t.Error("a 1ms lease TTL was accepted")
	}
	if _, err := ratelimit.NewRedis(c, ratelimit.Config{Default: ratelimit.Limits{Rate: -1}}, ratelimit.RedisOptions{}); err == nil {
		t.Error("a negative rate was accepted")
	}
}
