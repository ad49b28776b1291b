package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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

func BenchmarkAddNotification(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	n := store.Notification{Kind: store.NoteMonitorEvent, TaskID: "bash_0a1b2c3d4e5f", Text: "<task-notification>\n<event>tick</event>\n</task-notification>"}
	for b.Loop() {
		if _, err := s.AddNotification(ctx, "s1", n); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNotificationWake measures, as wake-ns/op, the time from a
// notification added through one store to a reader waiting on another
// store (another replica) having it: the Pub/Sub wake and one read,
// against the poll of notePoll that it saves.
func BenchmarkNotificationWake(b *testing.B) {
	a := benchStore(b)
	r := New(newClient(b, a.c.(*redis.Client).Options().Addr), Options{})
	b.Cleanup(func() { r.Close() })
	ctx := context.Background()
	n := store.Notification{Kind: store.NoteShellEnded, TaskID: "bash_0a1b2c3d4e5f", Text: "x"}
	// The first wait makes the waker's subscription; it is not timed.
	seq, _ := a.AddNotification(ctx, "s1", n)
	if _, err := r.ReadNotifications(ctx, "s1", seq-1, 1, time.Minute); err != nil {
		b.Fatal(err)
	}
	got := make(chan time.Time, 1)
	var total time.Duration
	for b.Loop() {
		go func() {
			if _, err := r.ReadNotifications(ctx, "s1", seq, 1, time.Minute); err != nil {
				b.Error(err)
			}
			got <- time.Now()
		}()
		// Long enough for the reader to be waiting, so that the add
		// wakes it rather than its first read finding the notification.
		time.Sleep(2 * time.Millisecond)
		added := time.Now()
		if seq, _ = a.AddNotification(ctx, "s1", n); seq == 0 {
			b.Fatal("not added")
		}
		total += (<-got).Sub(added)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "wake-ns/op")
}
