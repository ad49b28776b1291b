// Package auth authenticates gRPC callers and names the tenant they act
// for. One Authenticator per mode (none, token, mtls, jwt) turns a call's
// context into a tenant; AuthFunc adapts it to go-grpc-middleware's auth
// interceptor, which stores the tenant in the context for TenantFrom.
package auth

import (
	"context"
	"errors"
	"fmt"

	grpcauth "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Authenticator names the tenant of an incoming call from its metadata or
// its TLS peer. Every failure is an *Error.
type Authenticator interface {
	Authenticate(ctx context.Context) (tenant string, err error)
}

// Error is a refused credential. Reason is what the client is told; the
// cause stays on the server side.
type Error struct {
	Reason string
	cause  error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("unauthenticated: %s: %v", e.Reason, e.cause)
	}
	return "unauthenticated: " + e.Reason
}

func (e *Error) Unwrap() error { return e.cause }

// GRPCStatus makes the error an Unauthenticated status wherever it is
// returned from a handler or interceptor.
func (e *Error) GRPCStatus() *status.Status {
	return status.New(codes.Unauthenticated, e.Reason)
}

func refuse(reason string, cause error) *Error { return &Error{Reason: reason, cause: cause} }

// AuthFunc adapts an Authenticator to the auth interceptor of
// go-grpc-middleware: the returned context carries the tenant, and any
// failure is Unauthenticated.
func AuthFunc(a Authenticator) grpcauth.AuthFunc {
	return func(ctx context.Context) (context.Context, error) {
		tenant, err := a.Authenticate(ctx)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) {
				ae = refuse("credentials refused", err)
			}
			return nil, ae.GRPCStatus().Err()
		}
		return WithTenant(ctx, tenant), nil
	}
}
