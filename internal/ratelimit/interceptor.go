package ratelimit

import (
	"context"
	"sync"

	"google.golang.org/grpc"
)

// TenantFunc names the tenant of a call; false leaves the call unlimited
// (methods served without authentication, such as health).
type TenantFunc func(ctx context.Context) (string, bool)

// CountFunc is how many tool calls a request message carries; 0 leaves the
// message unlimited. For toold: len(ExecuteRequest.Calls).
type CountFunc func(msg any) int

// StreamServerInterceptor admits the tool calls of a stream's request
// before the handler sees the request, and releases the permit when the
// handler returns (unless the handler took it with PermitFrom(...).Detach).
// Refusals reach the client as the *ExceededError's status, with its
// RetryInfo.
//
// go-grpc-middleware's ratelimit interceptor is not used because it
// formats the limiter's error into a new status, which drops the
// RetryInfo detail, and because it decides before the request is read,
// when the number of calls is not yet known.
func StreamServerInterceptor(l Limiter, tenant TenantFunc, count CountFunc) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		w := &admittingStream{ServerStream: ss, l: l, tenant: tenant, count: count, ctx: ss.Context()}
		defer func() { w.permit.releaseAttached() }()
		return handler(srv, w)
	}
}

// admittingStream admits on the first received message, and from then on
// carries the permit in its context for the handler.
type admittingStream struct {
	grpc.ServerStream
	l        Limiter
	tenant   TenantFunc
	count    CountFunc
	admitted bool
	permit   *Permit

	mu  sync.Mutex // ctx may be read by the handler's goroutines
	ctx context.Context
}

func (s *admittingStream) Context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx
}

func (s *admittingStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if s.admitted {
		return nil
	}
	s.admitted = true
	n := s.count(m)
	ctx := s.Context()
	t, ok := s.tenant(ctx)
	if n == 0 || !ok {
		return nil
	}
	p, err := s.l.Admit(ctx, t, n)
	if err != nil {
		return err
	}
	s.permit = p
	s.mu.Lock()
	s.ctx = withPermit(ctx, p)
	s.mu.Unlock()
	return nil
}

// UnaryServerInterceptor admits the tool calls of a unary request before
// the handler sees it, and releases the permit when the handler returns.
// The handler finds the permit with PermitFrom.
func UnaryServerInterceptor(l Limiter, tenant TenantFunc, count CountFunc) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		n := count(req)
		t, ok := tenant(ctx)
		if n == 0 || !ok {
			return handler(ctx, req)
		}
		p, err := l.Admit(ctx, t, n)
		if err != nil {
			return nil, err
		}
		defer p.Release()
		return handler(withPermit(ctx, p), req)
	}
}
