package server

import (
	"context"
	"crypto/tls"
	"log/slog"
	"runtime/debug"
	"time"

	protovalidateint "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/protovalidate"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/validator"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/strictjson"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Options configure the gRPC server.
type Options struct {
	Logger         *slog.Logger
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// MaxRecvMsgSize bounds one request (default 16 MiB: a Write of a large
	// file travels in one message).
	MaxRecvMsgSize int
	// MaxSendMsgSize bounds one event (default 32 MiB: a Read of an image).
	MaxSendMsgSize int
	// Authenticator names the tenant of every call but health (and
	// reflection when PublicReflection); nil accepts every caller as
	// auth.DefaultTenant (--auth none).
	Authenticator    auth.Authenticator
	PublicReflection bool
	// InputLimits bound the nesting and the values of a call's input
	// (zero fields: strictjson's defaults), checked before the request is
	// decoded (Struct) or its input converted (input_json).
	InputLimits strictjson.Limits
	// Limiter admits the tool calls of each Execute per tenant; nil: no
	// limits.
	Limiter ratelimit.Limiter
	// TLS serves TLS (and, with ClientCAs, mTLS) when set.
	TLS *tls.Config
	// Info is what ServerService.GetServerInfo reports; AuthMode is its
	// auth field (none, token, mtls or jwt; empty: none).
	Info     ServerInfo
	AuthMode string
	// StreamKeepalive is how long an Execute or Attach stream may stay
	// silent before it carries a keepalive event (zero: never).
	StreamKeepalive time.Duration
	// Connections: the connection age that rebalances clients
	// (connection_age.go).
	Connections Connections
}

// streamWorkers is how many streams can start on a worker at once. A
// stream that finds none idle runs on a new goroutine, whose stack grows
// from a few KiB to the call path's 30-odd KiB in several copies: with
// four workers per CPU, 64 concurrent Reads spent a seventh of toold's CPU
// copying stacks. A worker costs its stack while idle (some 8 MiB for
// all of them once grown), and grpc-go starts it anew every 65,536 calls.
const streamWorkers = 256

// bdpLimit is grpc-go's bound on the windows its BDP estimator sets.
const bdpLimit = 16 << 20

// New builds the gRPC server with health and reflection registered. The
// returned health server is set to SERVING; shutdown flips it.
func New(opts Options, sessions *SessionService, tools *ToolService) (*grpc.Server, *health.Server) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.TracerProvider == nil {
		opts.TracerProvider = tracenoop.NewTracerProvider()
	}
	if opts.MeterProvider == nil {
		opts.MeterProvider = metricnoop.NewMeterProvider()
	}
	if opts.MaxRecvMsgSize == 0 {
		opts.MaxRecvMsgSize = 16 << 20
	}
	if opts.MaxSendMsgSize == 0 {
		opts.MaxSendMsgSize = 32 << 20
	}
	unary, stream := interceptors(opts.Logger, newGuard(opts))
	tools.limits = opts.InputLimits.WithDefaults()
	var creds []grpc.ServerOption
	if opts.TLS != nil {
		creds = append(creds, grpc.Creds(credentials.NewTLS(opts.TLS)))
	}
	srv := grpc.NewServer(append(creds,
		grpc.StatsHandler(otelgrpc.NewServerHandler(
			otelgrpc.WithTracerProvider(opts.TracerProvider),
			otelgrpc.WithMeterProvider(opts.MeterProvider),
			otelgrpc.WithPropagators(propagation.TraceContext{}),
		)),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
		grpc.ForceServerCodecV2(newLimitCodec(opts.InputLimits)),
		grpc.MaxRecvMsgSize(opts.MaxRecvMsgSize),
		grpc.MaxSendMsgSize(opts.MaxSendMsgSize),
		grpc.MaxConcurrentStreams(1024),
		// Flow-control windows at what grpc-go's BDP estimator grows them to
		// at most (16 MiB; a whole request of the default size fits).
		// Setting them turns the estimator off: it sent a PING with
		// nearly every request (one is outstanding at a time, and an
		// answer on loopback or a LAN comes back within the call), which
		// the client answered: a write and a read more on each side per
		// call, for a window that small requests never grow.
		grpc.InitialWindowSize(bdpLimit),
		grpc.InitialConnWindowSize(bdpLimit),
		// Streams start on long-lived workers whose stacks have grown to
		// what a call needs, rather than on a new goroutine that grows its
		// stack again for every call; when all are busy (long calls), a
		// stream gets its own goroutine as without workers.
		grpc.NumStreamWorkers(streamWorkers),
		grpc.MaxHeaderListSize(1<<20),
		grpc.ConnectionTimeout(20*time.Second),
		// Orchestrators hold long Execute streams and may ping while idle;
		// allow pings every 10 s, with or without a stream.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		grpc.KeepaliveParams(opts.Connections.keepaliveParams()),
	)...)
	sessions.log, tools.log, tools.keepalive = opts.Logger, opts.Logger, opts.StreamKeepalive
	tooldv1.RegisterSessionServiceServer(srv, sessions)
	tooldv1.RegisterToolServiceServer(srv, tools)
	tooldv1.RegisterServerServiceServer(srv, newServerService(opts.Info, opts.AuthMode))
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	for _, name := range []string{"", tooldv1.SessionService_ServiceDesc.ServiceName, tooldv1.ToolService_ServiceDesc.ServiceName, tooldv1.ServerService_ServiceDesc.ServiceName, LivenessService} {
		hs.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	reflection.Register(srv)
	return srv, hs
}

// interceptors is the one place where the order of the gRPC interceptors is
// written down, outermost first. OTel is not here: it runs as a stats
// handler, around all of them, so its spans cover the whole call.
//
//  1. logging (rpcLog): one line per finished RPC with its code and
//     duration; being outermost, it also logs what recovery turned into
//     Internal. Errors and RPCs slower than slowRPC are logged at INFO or
//     above, the rest at DEBUG (see lineLevel): a busy server writes no
//     line per call, and builds none.
//  2. recovery: a panic in anything below becomes Internal and the server
//     keeps serving; the stack goes to the log, never to the client.
//  3. auth: every method but grpc.health.v1 (probes carry no
//     credentials) and, when the operator makes it public, server
//     reflection, is authenticated; the tenant goes into the context for
//     what follows, and a refused credential is Unauthenticated. It runs
//     in every mode: --auth none names auth.DefaultTenant.
//  4. limit notes: a request whose input the codec found over the input
//     limits (codec.go) is InvalidArgument, before validation reads
//     the request the codec decoded without that input.
//  5. validation: the protovalidate annotations of the .proto files, then
//     the few checks they cannot express (a request's Validate method);
//     InvalidArgument naming the field, before a handler sees it.
//  6. ratelimit (last): admits the calls of an Execute or a Call
//     request for its tenant once the request is read and valid, so that
//     invalid or unauthenticated requests cost no quota; over a limit,
//     ResourceExhausted with a RetryInfo. A pass-through without a Limiter.
func interceptors(log *slog.Logger, g guard) ([]grpc.UnaryServerInterceptor, []grpc.StreamServerInterceptor) {
	lg := rpcLog{log: log, now: time.Now}
	recoverOpts := []recovery.Option{recovery.WithRecoveryHandlerContext(func(ctx context.Context, p any) error {
		id := errorID()
		log.ErrorContext(ctx, "panic in gRPC handler", "error_id", id, "panic", p, "stack", string(debug.Stack()))
		return internalStatus(id)
	})}
	unary := []grpc.UnaryServerInterceptor{
		lg.unary,
		recovery.UnaryServerInterceptor(recoverOpts...),
		g.unaryAuth,
		limitNoteUnary,
		protovalidateint.UnaryServerInterceptor(requestValidator{}),
		validator.UnaryServerInterceptor(),
		g.unaryLimit,
	}
	stream := []grpc.StreamServerInterceptor{
		lg.stream,
		recovery.StreamServerInterceptor(recoverOpts...),
		g.streamAuth,
		limitNoteStream,
		protovalidateint.StreamServerInterceptor(requestValidator{}),
		validator.StreamServerInterceptor(),
		g.limit,
	}
	return unary, stream
}
