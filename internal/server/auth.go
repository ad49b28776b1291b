package server

import (
	"context"
	"net/http"

	grpcauth "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/session"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// guard is the interceptors of authentication and admission, built from
// Options; interceptors() places them in the chain.
type guard struct {
	unaryAuth  grpc.UnaryServerInterceptor
	streamAuth grpc.StreamServerInterceptor
	// limit admits an Execute request's calls; a pass-through without a
	// Limiter.
	limit grpc.StreamServerInterceptor
	// unaryLimit admits a unary Call's calls the same way.
	unaryLimit grpc.UnaryServerInterceptor
}

func newGuard(opts Options) guard {
	a := opts.Authenticator
	if a == nil {
		// --auth none: every caller is auth.DefaultTenant, so that
		// sessions and limits are keyed the same way in every mode.
		a, _ = auth.New(auth.Config{Mode: auth.ModeNone})
	}
	fn := tenantAuthFunc(a)
	g := guard{
		unaryAuth:  auth.UnaryServerInterceptor(fn, opts.PublicReflection),
		streamAuth: auth.StreamServerInterceptor(fn, opts.PublicReflection),
		limit: func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return h(srv, ss)
		},
		unaryLimit: func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			return h(ctx, req)
		},
	}
	if opts.Limiter != nil {
		limit := ratelimit.StreamServerInterceptor(opts.Limiter, auth.TenantFrom, callsIn)
		// The limiter's own failures (Redis down) are domain errors like
		// the handlers': mapped by ToStatus, so a client sees UNAVAILABLE.
		g.limit = func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return ToStatus(ss.Context(), opts.Logger, limit(srv, ss, info, h))
		}
		unary := ratelimit.UnaryServerInterceptor(opts.Limiter, auth.TenantFrom, callsIn)
		g.unaryLimit = func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			res, err := unary(ctx, req, info, h)
			return res, ToStatus(ctx, opts.Logger, err)
		}
	}
	return g
}

// tenantAuthFunc authenticates with a and hands the tenant on to the
// session layer, which owns the rule of who may use a session
// (session.CheckOwner) and knows nothing of credentials.
func tenantAuthFunc(a auth.Authenticator) grpcauth.AuthFunc {
	authenticate := auth.AuthFunc(a)
	return func(ctx context.Context) (context.Context, error) {
		ctx, err := authenticate(ctx)
		if err != nil {
			return nil, err
		}
		t, _ := auth.TenantFrom(ctx)
		return session.WithTenant(ctx, t), nil
	}
}

// callsIn is what the rate limiter charges for a request: the tool calls
// of an Execute or a Call; other requests are free.
func callsIn(msg any) int {
	switch r := msg.(type) {
	case *tooldv1.ExecuteRequest:
		return len(r.GetCalls())
	case *tooldv1.CallRequest:
		return len(r.GetCalls())
	}
	return 0
}

// HTTPAuth authenticates the HTTP requests of toold's MCP endpoint as the
// gRPC interceptor authenticates calls: the Authorization header goes to
// the authenticator as gRPC metadata would, and the tenant into the
// request's context, so that the same ownership rule applies to sessions
// used over MCP. A refused request gets 401 with the reason.
func HTTPAuth(a auth.Authenticator, next http.Handler) http.Handler {
	if a == nil {
		a, _ = auth.New(auth.Config{Mode: auth.ModeNone})
	}
	fn := tenantAuthFunc(a)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		md := metadata.MD{}
		if v := r.Header.Get("Authorization"); v != "" {
			md.Set("authorization", v)
		}
		ctx, err := fn(metadata.NewIncomingContext(r.Context(), md))
		if err != nil {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, status.Convert(err).Message(), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
