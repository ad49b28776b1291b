package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
)

func benchStore(b *testing.B) *Store {
	s, err := Open(context.Background(), "redis://"+redistest.Start(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	mustCreate(b, s, "s1")
	return s
}

func BenchmarkGetSession(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.GetSession(ctx, "s1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetSessionParallel(b *testing.B) {
	s := benchStore(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.GetSession(context.Background(), "s1"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkReadStamp(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	if err := s.RecordRead(ctx, "s1", "/ws/a", store.FileStamp{ModTime: time.Now(), Size: 1}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := s.ReadStamp(ctx, "s1", "/ws/a"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecordDenial(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.RecordDenial(ctx, "s1", store.PersonDenials, time.Now(), 5*time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdateSession(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error { x.Mode = "plan"; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
