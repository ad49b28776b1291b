package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Backoff is the retry schedule: waits grow from Initial by doubling up to
// Max, each one drawn at random between half and all of its value (jitter,
// so that clients cut off together do not come back together).
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
	// Attempts is how many tries in a row may fail before the error is
	// returned; a try that makes progress (an event arrives) starts the
	// count again. Zero means retry until the context ends.
	Attempts int
}

// DefaultBackoff retries for about half a minute.
var DefaultBackoff = Backoff{Initial: 100 * time.Millisecond, Max: 5 * time.Second, Attempts: 10}

// wait returns the jittered wait before retry n (0-based).
func (b Backoff) wait(n int) time.Duration {
	d := b.Initial
	if d <= 0 {
		d = 100 * time.Millisecond
	}
	for i := 0; i < n && (b.Max <= 0 || d < b.Max); i++ {
		d *= 2
	}
	if b.Max > 0 && d > b.Max {
		d = b.Max
	}
	return d/2 + rand.N(d/2+1)
}

// gaveUp reports whether failure number n (1-based) is the last allowed.
func (b Backoff) gaveUp(n int) bool { return b.Attempts > 0 && n >= b.Attempts }

// retryable says whether err may be retried: toold or the path to it is
// unavailable, or the stream broke under a context that is still live.
// Anything else (NOT_FOUND, INVALID_ARGUMENT, PERMISSION_DENIED, ...) is an
// answer, and retrying would not change it.
func retryable(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.Unavailable:
		return true
	case codes.Canceled, codes.Internal, codes.Unknown:
		// A connection cut mid-stream can surface as a reset stream or a
		// cancellation the caller did not ask for.
		m := st.Message()
		return strings.Contains(m, "RST_STREAM") || strings.Contains(m, "transport") ||
			strings.Contains(m, "EOF") || st.Code() == codes.Canceled
	}
	return false
}

// retry runs an idempotent unary call until it succeeds, fails for good or
// ctx ends.
func (c *Client) retry(ctx context.Context, call func(context.Context) error) error {
	for n := 1; ; n++ {
		err := call(ctx)
		if !retryable(ctx, err) || c.o.backoff.gaveUp(n) {
			if err != nil && ctx.Err() != nil {
				return errors.Join(ctx.Err(), err)
			}
			return err
		}
		if err := sleep(ctx, c.o.backoff.wait(n-1)); err != nil {
			return err
		}
	}
}
