package server

import (
	"testing"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc/codes"
)

func TestRPCLevel(t *testing.T) {
	for _, tc := range []struct {
		code codes.Code
		want logging.Level
	}{
		{codes.OK, logging.LevelDebug},
		{codes.InvalidArgument, logging.LevelInfo},
		{codes.NotFound, logging.LevelInfo},
		{codes.ResourceExhausted, logging.LevelWarn},
		{codes.Unavailable, logging.LevelWarn},
		{codes.Internal, logging.LevelError},
	} {
		if got := rpcLevel(tc.code); got != tc.want {
			t.Errorf("rpcLevel(%v) = %v, want %v", tc.code, got, tc.want)
		}
	}
}

func TestSlowFields(t *testing.T) {
	for _, tc := range []struct {
		fields []any
		want   bool
	}{
		{[]any{"grpc.method", "Execute", "grpc.time_ms", "0.25"}, false},
		{[]any{"grpc.time_ms", "999.9"}, false},
		{[]any{"grpc.time_ms", "1000"}, true},
		{[]any{"grpc.code", "OK", "grpc.time_ms", "61234.5"}, true},
		{[]any{"grpc.time_ms", "not a number"}, false},
		{[]any{"grpc.time_ms"}, false},
		{nil, false},
	} {
		if got := slowFields(tc.fields); got != tc.want {
			t.Errorf("slowFields(%v) = %v, want %v", tc.fields, got, tc.want)
		}
	}
}
