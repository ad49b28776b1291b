package ratelimit

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Which limit refused a batch.
const (
	LimitRate        = "rate"
	LimitConcurrency = "concurrency"
)

// ErrExceeded matches every *ExceededError with errors.Is.
var ErrExceeded = errors.New("rate limit exceeded")

// ExceededError says that a tenant's batch was refused and when trying
// again may succeed.
type ExceededError struct {
	Tenant string
	// Limit is LimitRate or LimitConcurrency.
	Limit  string
	Calls  int
	Limits Limits
	// RetryAfter is the wait after which the same batch would be admitted
	// (rate) or is worth trying (concurrency). Zero: the batch is larger
	// than the limit and will never be admitted; split it.
	RetryAfter time.Duration
}

func (e *ExceededError) Error() string {
	var what string
	switch e.Limit {
	case LimitRate:
		what = fmt.Sprintf("rate limit of %g tool calls per second (burst %d)", e.Limits.Rate, e.Limits.burst())
	default:
		what = fmt.Sprintf("limit of %d tool calls in flight", e.Limits.Concurrent)
	}
	if e.RetryAfter == 0 {
		return fmt.Sprintf("tenant %q: a batch of %d calls exceeds the %s; send fewer calls per request", e.Tenant, e.Calls, what)
	}
	return fmt.Sprintf("tenant %q: %s reached; retry in %s", e.Tenant, what, e.RetryAfter.Round(time.Millisecond))
}

// Is makes errors.Is(err, ErrExceeded) true.
func (e *ExceededError) Is(target error) bool { return target == ErrExceeded }

// GRPCStatus is ResourceExhausted with a google.rpc.QuotaFailure naming
// the tenant and the limit, and, when waiting helps, a google.rpc.RetryInfo
// with the delay: clients and gRPC retry policies read it from there.
func (e *ExceededError) GRPCStatus() *status.Status {
	st := status.New(codes.ResourceExhausted, e.Error())
	details := []protoadapt.MessageV1{&errdetails.QuotaFailure{Violations: []*errdetails.QuotaFailure_Violation{{
		Subject:     "tenant:" + e.Tenant,
		Description: e.Limit,
	}}}}
	if e.RetryAfter > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(e.RetryAfter)})
	}
	if withDetails, err := st.WithDetails(details...); err == nil {
		return withDetails
	}
	return st
}
