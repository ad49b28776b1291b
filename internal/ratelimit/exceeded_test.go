package ratelimit_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/ratelimit"
)

func TestExceededStatus(t *testing.T) {
	for _, c := range []struct {
		err       *ratelimit.ExceededError
		msg       string
		retryInfo bool
	}{
		{
			&ratelimit.ExceededError{Tenant: "a", Limit: ratelimit.LimitRate, Calls: 1, Limits: ratelimit.Limits{Rate: 5}, RetryAfter: 1500 * time.Millisecond},
			`tenant "a": rate limit of 5 tool calls per second (burst 5) reached; retry in 1.5s`, true,
		},
		{
			&ratelimit.ExceededError{Tenant: "a", Limit: ratelimit.LimitConcurrency, Calls: 2, Limits: ratelimit.Limits{Concurrent: 4}, RetryAfter: time.Second},
			`tenant "a": limit of 4 tool calls in flight reached; retry in 1s`, true,
		},
		{
			&ratelimit.ExceededError{Tenant: "a", Limit: ratelimit.LimitRate, Calls: 9, Limits: ratelimit.Limits{Rate: 2, Burst: 3}},
			`tenant "a": a batch of 9 calls exceeds the rate limit of 2 tool calls per second (burst 3); send fewer calls per request`, false,
		},
	} {
		// Wrapped, as a handler might return it, it is still the status.
		st := status.Convert(fmt.Errorf("execute: %w", c.err))
		if st.Code() != codes.ResourceExhausted || !strings.HasSuffix(st.Message(), c.msg) {
			t.Errorf("status %v %q, want ResourceExhausted %q", st.Code(), st.Message(), c.msg)
		}
		var retry *errdetails.RetryInfo
		for _, d := range st.Details() {
			if r, ok := d.(*errdetails.RetryInfo); ok {
				retry = r
			}
		}
		if c.retryInfo != (retry != nil) {
			t.Errorf("%q: RetryInfo %v, want present=%v", c.msg, retry, c.retryInfo)
		}
		if retry != nil && retry.GetRetryDelay().AsDuration() != c.err.RetryAfter {
			t.Errorf("RetryInfo delay %v, want %v", retry.GetRetryDelay().AsDuration(), c.err.RetryAfter)
		}
	}
}
