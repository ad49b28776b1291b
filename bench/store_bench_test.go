package bench

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/store/redisstore"
	"github.com/toold/toold/internal/store/redistest"
)

// roundTrips counts what a go-redis client sends: one per command, one per
// pipeline (however many commands it holds). Dials are not counted.
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

// redisStore starts a private redis-server and a store on it whose round
// trips are counted.
func redisStore(b *testing.B) (store.Store, *roundTrips) {
	addr := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 128})
	rt := &roundTrips{}
	c.AddHook(rt)
	b.Cleanup(func() { c.Close() })
	return redisstore.New(c, redisstore.Options{KeyPrefix: "bench:"}), rt
}

// BenchmarkStoreRead compares a cheap call (Read of a small file) on the
// in-memory store and on Redis, serially (p50) and from 64 callers
// (throughput), and reports Redis round trips per call.
func BenchmarkStoreRead(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"memory", "redis"} {
		b.Run(name, func(b *testing.B) {
			var st store.Store = memstore.New()
			var rt *roundTrips
			if name == "redis" {
				st, rt = redisStore(b)
			}
			f := startWith(b, st)
			op := func() error { return f.execute(ctx, "Read", map[string]any{"file_path": f.file}) }
			run := func(b *testing.B, how func(*testing.B, func() error)) {
				var before int64
				if rt != nil {
					before = rt.n.Load()
				}
				how(b, op)
				if rt != nil {
					b.ReportMetric(float64(rt.n.Load()-before)/float64(b.N), "rtt/call")
				}
			}
			b.Run("serial", func(b *testing.B) { run(b, measure) })
			b.Run("parallel64", func(b *testing.B) { run(b, parallel) })
		})
	}
}
