package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
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

func TestLineLevel(t *testing.T) {
	for _, tc := range []struct {
		code codes.Code
		took time.Duration
		want slog.Level
	}{
		{codes.OK, 250 * time.Microsecond, slog.LevelDebug},
		{codes.OK, 999 * time.Millisecond, slog.LevelDebug},
		{codes.OK, time.Second, slog.LevelInfo},
		{codes.OK, time.Minute, slog.LevelInfo},
		{codes.InvalidArgument, time.Minute, slog.LevelInfo},
		{codes.Internal, time.Millisecond, slog.LevelError},
	} {
		if got := lineLevel(tc.code, tc.took); got != tc.want {
			t.Errorf("lineLevel(%v, %v) = %v, want %v", tc.code, tc.took, got, tc.want)
		}
	}
}

// record is what a handler got: the line's level and its attributes in
// order, as strings.
type record struct {
	level slog.Level
	msg   string
	attrs [][2]string
}

type recorder struct {
	min  slog.Level
	recs *[]record
}

func (r recorder) Enabled(_ context.Context, l slog.Level) bool { return l >= r.min }
func (r recorder) Handle(_ context.Context, rec slog.Record) error {
	out := record{level: rec.Level, msg: rec.Message}
	rec.Attrs(func(a slog.Attr) bool {
		out.attrs = append(out.attrs, [2]string{a.Key, a.Value.String()})
		return true
	})
	*r.recs = append(*r.recs, out)
	return nil
}
func (r recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r recorder) WithGroup(string) slog.Handler      { return r }

// middlewareLog is the logging interceptor toold used before rpcLog, as
// it was configured: one line per finished call, rpcLevel's levels, a
// slow success raised to INFO.
func middlewareLog(log *slog.Logger) grpc.UnaryServerInterceptor {
	slow := func(fields []any) bool {
		for i := 0; i+1 < len(fields); i += 2 {
			if fields[i] == "grpc.time_ms" {
				var ms float64
				fmt.Sscan(fields[i+1].(string), &ms)
				return ms >= float64(slowRPC.Milliseconds())
			}
		}
		return false
	}
	lg := logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		level := slog.Level(lvl)
		if level < slog.LevelInfo && !log.Enabled(ctx, level) {
			if !log.Enabled(ctx, slog.LevelInfo) || !slow(fields) {
				return
			}
			level = slog.LevelInfo
		} else if level < slog.LevelInfo && slow(fields) {
			level = slog.LevelInfo
		}
		log.Log(ctx, level, msg, fields...)
	})
	return logging.UnaryServerInterceptor(lg, logging.WithLogOnEvents(logging.FinishCall), logging.WithLevels(rpcLevel))
}

// TestRPCLogAsMiddleware: rpcLog writes the lines the middleware wrote,
// field for field (the times aside, which each takes from its own clock),
// and none where it wrote none.
func TestRPCLogAsMiddleware(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 51234}
	base := peer.NewContext(context.Background(), &peer.Peer{Addr: addr})
	withDeadline, cancel := context.WithDeadline(base, time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	defer cancel()
	for _, tc := range []struct {
		name  string
		min   slog.Level
		ctx   context.Context
		err   error
		lines int
	}{
		{"ok at info", slog.LevelInfo, base, nil, 0},
		{"ok at debug", slog.LevelDebug, base, nil, 1},
		{"invalid at info", slog.LevelInfo, base, status.Error(codes.InvalidArgument, "calls: bad"), 1},
		{"internal at warn", slog.LevelWarn, withDeadline, status.Error(codes.Internal, "boom"), 1},
		{"plain error at error", slog.LevelError, base, errors.New("not a status"), 1},
		{"not found at warn", slog.LevelWarn, base, status.Error(codes.NotFound, "no"), 0},
		{"deadline, ok at debug", slog.LevelDebug, withDeadline, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mine, theirs []record
			info := &grpc.UnaryServerInfo{FullMethod: "/toold.v1.ToolService/Call"}
			handler := func(context.Context, any) (any, error) { return nil, tc.err }
			rpcLog{log: slog.New(recorder{tc.min, &mine}), now: time.Now}.unary(tc.ctx, nil, info, handler)
			middlewareLog(slog.New(recorder{tc.min, &theirs}))(tc.ctx, nil, info, handler)
			if len(mine) != tc.lines || len(theirs) != tc.lines {
				t.Fatalf("lines: rpcLog %d, middleware %d, want %d", len(mine), len(theirs), tc.lines)
			}
			for i := range mine {
				m, o := mine[i], theirs[i]
				if m.level != o.level || m.msg != o.msg {
					t.Errorf("line %d: %v %q, middleware %v %q", i, m.level, m.msg, o.level, o.msg)
				}
				keys := func(r record) (k []string) {
					for _, a := range r.attrs {
						k = append(k, a[0])
					}
					return k
				}
				if !slices.Equal(keys(m), keys(o)) {
					t.Fatalf("keys %v, middleware %v", keys(m), keys(o))
				}
				for j, a := range m.attrs {
					if a[0] == "grpc.time_ms" || a[0] == "grpc.start_time" {
						continue
					}
					if a != o.attrs[j] {
						t.Errorf("%s = %q, middleware %q", a[0], a[1], o.attrs[j][1])
					}
				}
			}
		})
	}
}

// TestRPCLogSlow: a success that took a second is logged at INFO, one
// just under it is not.
func TestRPCLogSlow(t *testing.T) {
	for _, tc := range []struct {
		took  time.Duration
		lines int
		ms    string
	}{{999999 * time.Microsecond, 0, ""}, {time.Second, 1, "1000"}, {61234567 * time.Microsecond, 1, "61234.566"}} {
		var recs []record
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		now := func() time.Time { t := clock; clock = clock.Add(tc.took); return t }
		info := &grpc.UnaryServerInfo{FullMethod: "/grpc.health.v1.Health/Check"}
		rpcLog{log: slog.New(recorder{slog.LevelInfo, &recs}), now: now}.unary(context.Background(), nil, info,
			func(context.Context, any) (any, error) { return nil, nil })
		if len(recs) != tc.lines {
			t.Fatalf("%v: %d lines, want %d", tc.took, len(recs), tc.lines)
		}
		if tc.lines == 0 {
			continue
		}
		if recs[0].level != slog.LevelInfo {
			t.Errorf("%v: level %v", tc.took, recs[0].level)
		}
		if got := recs[0].attrs[len(recs[0].attrs)-1]; got != [2]string{"grpc.time_ms", tc.ms} {
			t.Errorf("%v: last field %v, want grpc.time_ms %s", tc.took, got, tc.ms)
		}
	}
}

// TestRPCLogMillis: grpc.time_ms is written as the middleware wrote it
// (fmt's %v of a float32 of milliseconds to the microsecond).
func TestRPCLogMillis(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 999, 1000, 1234, 250 * time.Microsecond, 3 * time.Millisecond,
		999999 * time.Microsecond, time.Second, 1234567890, time.Hour, 1000 * time.Hour} {
		var recs []record
		clock := time.Unix(0, 0)
		now := func() time.Time { t := clock; clock = clock.Add(d); return t }
		rpcLog{log: slog.New(recorder{slog.LevelDebug, &recs}), now: now}.unary(context.Background(), nil,
			&grpc.UnaryServerInfo{FullMethod: "/a.B/C"}, func(context.Context, any) (any, error) { return nil, nil })
		want := fmt.Sprintf("%v", float32(d.Nanoseconds()/1000)/1000)
		if got := recs[0].attrs[len(recs[0].attrs)-1][1]; got != want {
			t.Errorf("%v: grpc.time_ms %q, want %q", d, got, want)
		}
	}
}

type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s ctxStream) Context() context.Context { return s.ctx }

// TestRPCLogStream: a server-streaming RPC's line names its type.
func TestRPCLogStream(t *testing.T) {
	var recs []record
	info := &grpc.StreamServerInfo{FullMethod: "/toold.v1.ToolService/Execute", IsServerStream: true}
	rpcLog{log: slog.New(recorder{slog.LevelDebug, &recs}), now: time.Now}.stream(nil, ctxStream{ctx: context.Background()}, info,
		func(any, grpc.ServerStream) error { return nil })
	if len(recs) != 1 || !slices.Contains(recs[0].attrs, [2]string{"grpc.method_type", "server_stream"}) ||
		!slices.Contains(recs[0].attrs, [2]string{"grpc.method", "Execute"}) {
		t.Fatalf("lines %+v", recs)
	}
}
