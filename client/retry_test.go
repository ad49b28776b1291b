package client

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestBackoffWaitsGrowWithJitterUpToMax(t *testing.T) {
	b := Backoff{Initial: 100 * time.Millisecond, Max: time.Second}
	for n, full := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		full *= time.Millisecond
		seen := map[time.Duration]bool{}
		for range 200 {
			w := b.wait(n)
			if w < full/2 || w > full {
				t.Fatalf("wait(%d) = %v, want within [%v, %v]", n, w, full/2, full)
			}
			seen[w] = true
		}
		if len(seen) < 10 {
			t.Fatalf("wait(%d) has no jitter: %v", n, seen)
		}
	}
	if (Backoff{Attempts: 3}).gaveUp(2) || !(Backoff{Attempts: 3}).gaveUp(3) || (Backoff{}).gaveUp(1000) {
		t.Fatal("gaveUp")
	}
}

func TestRetryable(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	for _, c := range []struct {
		ctx  context.Context
		err  error
		want bool
	}{
		{live, status.Error(codes.Unavailable, "connection refused"), true},
		{live, status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: CANCEL"), true},
		{live, status.Error(codes.NotFound, "no such session"), false},
		{live, status.Error(codes.InvalidArgument, "bad"), false},
		{live, status.Error(codes.Internal, "error id e123"), false},
		{live, status.Error(codes.Unauthenticated, "no token"), false},
		{done, status.Error(codes.Unavailable, "closing"), false},
		{done, status.Error(codes.Canceled, "context canceled"), false},
	} {
		if got := retryable(c.ctx, c.err); got != c.want {
			t.Errorf("retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
