package server_test

import (
	"context"
	"sync"
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

// BenchmarkStoreRead is one small Read per op on the in-memory store and
// on a private Redis, from one caller and from 64, with the Redis round
// trips per call (rtt/call): what the shared store adds to a cheap call.
func BenchmarkStoreRead(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"memory", "redis"} {
		b.Run(name, func(b *testing.B) {
			var st store.Store = memstore.New()
			rt := &roundTrips{}
			if name == "redis" {
				c := redis.NewClient(&redis.Options{Addr: redistest.Start(b), PoolSize: 128})
				c.AddHook(rt)
				b.Cleanup(func() { c.Close() })
				st = redisstore.New(c, redisstore.Options{KeyPrefix: "bench:"})
			}
			f := newPathFixtureOn(b, st)
			report := func(b *testing.B, before int64) {
				if name == "redis" {
					b.ReportMetric(float64(rt.n.Load()-before)/float64(b.N), "rtt/call")
				}
			}
			b.Run("serial", func(b *testing.B) {
				before := rt.n.Load()
				for b.Loop() {
					if err := f.reads(ctx, 1); err != nil {
						b.Fatal(err)
					}
				}
				report(b, before)
			})
			b.Run("parallel64", func(b *testing.B) {
				before := rt.n.Load()
				var (
					wg   sync.WaitGroup
					left atomic.Int64
				)
				left.Store(int64(b.N))
				b.ResetTimer()
				for range 64 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for left.Add(-1) >= 0 {
							if err := f.reads(ctx, 1); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				report(b, before)
			})
		})
	}
}
