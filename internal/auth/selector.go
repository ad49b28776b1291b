package auth

import (
	"context"
	"strings"

	grpcauth "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	"google.golang.org/grpc"
)

// Service prefixes of methods that may be called without credentials.
const (
	healthService     = "/grpc.health.v1.Health/"
	reflectionV1      = "/grpc.reflection.v1.ServerReflection/"
	reflectionV1Alpha = "/grpc.reflection.v1alpha.ServerReflection/"
)

// Public reports whether a method (as in grpc's FullMethod,
// "/package.Service/Method") is served without authentication.
func Public(fullMethod string, publicReflection bool) bool {
	if strings.HasPrefix(fullMethod, healthService) {
		return true
	}
	return publicReflection &&
		(strings.HasPrefix(fullMethod, reflectionV1) || strings.HasPrefix(fullMethod, reflectionV1Alpha))
}

// UnaryServerInterceptor authenticates every unary method but the Public
// ones with fn; the context fn returns is the handler's. It does what
// go-grpc-middleware's auth interceptor under its selector does, without
// formatting the method name for the selector on every call.
func UnaryServerInterceptor(fn grpcauth.AuthFunc, publicReflection bool) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if Public(info.FullMethod, publicReflection) {
			return h(ctx, req)
		}
		ctx, err := fn(ctx)
		if err != nil {
			return nil, err
		}
		return h(ctx, req)
	}
}

// StreamServerInterceptor is UnaryServerInterceptor for streams.
func StreamServerInterceptor(fn grpcauth.AuthFunc, publicReflection bool) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if Public(info.FullMethod, publicReflection) {
			return h(srv, ss)
		}
		ctx, err := fn(ss.Context())
		if err != nil {
			return err
		}
		return h(srv, authedStream{ss, ctx})
	}
}

// authedStream is a stream with the context authentication gave it.
type authedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s authedStream) Context() context.Context { return s.ctx }
