package auth

import (
	"context"
	"strings"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
)

// Service prefixes of methods that may be called without credentials.
const (
	healthService     = "/grpc.health.v1.Health/"
	reflectionV1      = "/grpc.reflection.v1.ServerReflection/"
	reflectionV1Alpha = "/grpc.reflection.v1alpha.ServerReflection/"
)

// Required is the selector matcher that puts the auth interceptor in front
// of every method except grpc.health.v1 (kubelet probes carry no
// credentials) and, when publicReflection is true, server reflection.
// Wrap the auth interceptors with selector.UnaryServerInterceptor and
// selector.StreamServerInterceptor and this matcher.
func Required(publicReflection bool) selector.Matcher {
	return selector.MatchFunc(func(_ context.Context, c interceptors.CallMeta) bool {
		return !Public(c.FullMethod(), publicReflection)
	})
}

// Public reports whether a method (as in grpc's FullMethod,
// "/package.Service/Method") is served without authentication.
func Public(fullMethod string, publicReflection bool) bool {
	if strings.HasPrefix(fullMethod, healthService) {
		return true
	}
	return publicReflection &&
		(strings.HasPrefix(fullMethod, reflectionV1) || strings.HasPrefix(fullMethod, reflectionV1Alpha))
}
