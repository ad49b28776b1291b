package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// slowRPC is how long an RPC may take before its line is logged at INFO
// even though it succeeded.
const slowRPC = time.Second

// rpcLevel is the level of an RPC's log line by its code: a success at
// DEBUG (unless slow: see lineLevel), the caller's mistakes at INFO,
// failures of the server or its dependencies at WARN and ERROR.
func rpcLevel(code codes.Code) logging.Level {
	if code == codes.OK {
		return logging.LevelDebug
	}
	return logging.DefaultServerCodeToLevel(code)
}

// lineLevel is the level of the line of an RPC that ended with code after
// took: a success slower than slowRPC is raised to INFO.
func lineLevel(code codes.Code, took time.Duration) slog.Level {
	level := slog.Level(rpcLevel(code))
	if level < slog.LevelInfo && took >= slowRPC {
		level = slog.LevelInfo
	}
	return level
}

// rpcLog writes one line per finished RPC ("finished call", with the
// fields go-grpc-middleware's logging interceptor writes, in its order).
// The line's fields are built only when it is written: a busy server at
// INFO writes none for its successful calls and should not pay for them.
type rpcLog struct {
	log *slog.Logger
	now func() time.Time
}

func (l rpcLog) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := l.now()
	resp, err := handler(ctx, req)
	l.finished(ctx, info.FullMethod, "unary", start, err)
	return resp, err
}

func (l rpcLog) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	start := l.now()
	err := handler(srv, ss)
	l.finished(ss.Context(), info.FullMethod, streamType(info), start, err)
	return err
}

func streamType(info *grpc.StreamServerInfo) string {
	switch {
	case info.IsClientStream && !info.IsServerStream:
		return "client_stream"
	case !info.IsClientStream && info.IsServerStream:
		return "server_stream"
	}
	return "bidi_stream"
}

func (l rpcLog) finished(ctx context.Context, fullMethod, kind string, start time.Time, err error) {
	took := l.now().Sub(start)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	code := status.Code(err)
	level := lineLevel(code, took)
	if !l.log.Enabled(ctx, level) {
		return
	}
	service, method := "unknown", "unknown"
	if m := strings.TrimPrefix(fullMethod, "/"); strings.Contains(m, "/") {
		service, method, _ = strings.Cut(m, "/")
	}
	attrs := make([]slog.Attr, 0, 12)
	attrs = append(attrs,
		slog.String("protocol", "grpc"),
		slog.String("grpc.component", "server"),
		slog.String("grpc.service", service),
		slog.String("grpc.method", method),
		slog.String("grpc.method_type", kind))
	if p, ok := peer.FromContext(ctx); ok {
		attrs = append(attrs, slog.String("peer.address", p.Addr.String()))
	}
	attrs = append(attrs, slog.String("grpc.start_time", start.Format(time.RFC3339)))
	if d, ok := ctx.Deadline(); ok {
		attrs = append(attrs, slog.String("grpc.request.deadline", d.Format(time.RFC3339)))
	}
	attrs = append(attrs, slog.String("grpc.code", code.String()))
	if err != nil {
		attrs = append(attrs, slog.String("grpc.error", err.Error()))
	}
	// Milliseconds to the microsecond, as the middleware wrote them.
	ms := float32(took.Nanoseconds()/1000) / 1000
	attrs = append(attrs, slog.String("grpc.time_ms", strconv.FormatFloat(float64(ms), 'g', -1, 32)))
	l.log.LogAttrs(ctx, level, "finished call", attrs...)
}
