package server

import (
	"context"
	"encoding/json"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/strictjson"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// ToolService implements toold.v1.ToolService.
type ToolService struct {
	tooldv1.UnimplementedToolServiceServer
	engine   *exec.Engine
	sessions *session.Manager
	defs     []*tooldv1.ToolDefinition
	maxCalls int
	limits   strictjson.Limits // of a call's input_json; set by New
	pools    SessionPools      // nil: every session has the registry's tools
}

// NewToolService serves the registry's tools through the engine. maxCalls
// bounds the calls of one Execute request.
func NewToolService(reg *tool.Registry, engine *exec.Engine, sessions *session.Manager, maxCalls int) (*ToolService, error) {
	defs := make([]*tooldv1.ToolDefinition, 0, len(reg.Tools()))
	for _, t := range reg.Tools() {
		d := t.Definition()
		if d.Deferred {
			// By name only: the model loads the definition with ToolSearch.
			defs = append(defs, &tooldv1.ToolDefinition{Name: d.Name, Deferred: true})
			continue
		}
		var schema map[string]any
		if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
			return nil, err
		}
		s, err := structpb.NewStruct(schema)
		if err != nil {
			return nil, err
		}
		defs = append(defs, &tooldv1.ToolDefinition{Name: d.Name, Description: d.Description, InputSchema: s})
	}
	return &ToolService{engine: engine, sessions: sessions, defs: defs, maxCalls: maxCalls}, nil
}

func (s *ToolService) ListTools(ctx context.Context, req *tooldv1.ListToolsRequest) (*tooldv1.ListToolsResponse, error) {
	if id := req.GetSessionId(); id != "" {
		sess, err := s.sessions.Get(ctx, id)
		if err != nil {
			return nil, ToStatus(err)
		}
		if s.pools != nil {
			return s.sessionTools(ctx, sess)
		}
	}
	return &tooldv1.ListToolsResponse{Tools: s.defs}, nil
}

func (s *ToolService) Execute(req *tooldv1.ExecuteRequest, stream tooldv1.ToolService_ExecuteServer) error {
	if n := len(req.GetCalls()); n > s.maxCalls {
		return status.Errorf(codes.InvalidArgument, "calls: %d calls in one request, at most %d allowed", n, s.maxCalls)
	}
	if err := session.CheckID(req.GetSessionId()); err != nil {
		return ToStatus(err)
	}
	if err := s.checkInputLimits(req.GetCalls()); err != nil {
		return ToStatus(err)
	}
	reqs := make([]exec.Request, len(req.GetCalls()))
	for i, c := range req.GetCalls() {
		reqs[i] = callFromProto(c)
	}
	ctx := stream.Context()
	permit := ratelimit.PermitFrom(ctx)
	if req.GetDetached() {
		// The calls outlive the client; DeleteSession and shutdown still
		// cancel them through the engine. Their concurrency slots stay
		// taken until the batch ends, not until the stream does.
		ctx = context.WithoutCancel(ctx)
		defer permit.Detach().Release()
	}
	sink := &streamSink{stream: stream, permit: permit}
	return ToStatus(s.engine.Execute(ctx, req.GetSessionId(), reqs, sink))
}

func (s *ToolService) Attach(req *tooldv1.AttachRequest, stream tooldv1.ToolService_AttachServer) error {
	sink := &streamSink{stream: stream}
	return ToStatus(s.engine.Attach(stream.Context(), req.GetSessionId(), req.GetToolUseId(), req.GetAfterSeq(), sink))
}

func callFromProto(c *tooldv1.ToolCall) exec.Request {
	r := exec.Request{ToolUseID: c.GetToolUseId(), Name: c.GetName()}
	if c.GetInput() != nil {
		r.Input = c.GetInput().AsMap()
	} else if c.GetInputJson() != "" {
		r.RawInput = readOnlyBytes(c.GetInputJson())
	}
	return r
}

// streamSink serialises sends: grpc-go streams allow one sender at a time,
// and concurrent calls emit from several goroutines. After a failed send
// (the client left) it drops events; a detached batch goes on regardless.
type streamSink struct {
	mu     sync.Mutex
	stream interface {
		Send(*tooldv1.ExecuteEvent) error
	}
	err error
	// permit holds the tenant's concurrency slots of the batch (nil
	// without rate limits); each call's result gives its slot back.
	permit *ratelimit.Permit
}

func (s *streamSink) Emit(ev exec.Event) error {
	if ev.Result != nil {
		s.permit.Done()
	}
	msg := eventToProto(ev)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.err = s.stream.Send(msg)
	return s.err
}
