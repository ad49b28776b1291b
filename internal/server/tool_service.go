package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

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
	// toolsJSON is the registry's Messages API tools array (ListTools'
	// tools_json without a session pool).
	toolsJSON string
	maxCalls  int
	limits    strictjson.Limits // of a call's input_json; set by New
	pools     SessionPools      // nil: every session has the registry's tools
	notes     *notes            // nil: no notifications (WithNotifications)
	// log and keepalive are set by New from its Options.
	log       *slog.Logger
	keepalive time.Duration
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
	tj, err := messagesTools(reg.Tools(), func(d tool.Definition) bool { return d.Deferred })
	if err != nil {
		return nil, err
	}
	return &ToolService{engine: engine, sessions: sessions, defs: defs, toolsJSON: tj, maxCalls: maxCalls}, nil
}

// messagesTool is one entry of the Messages API `tools` array: these three
// keys and nothing else.
type messagesTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// messagesTools is the Messages API `tools` array of tools, in order,
// without the deferred ones: each schema as the tool declares it (its key
// order kept), compacted.
func messagesTools(tools []tool.Tool, deferred func(tool.Definition) bool) (string, error) {
	out := make([]messagesTool, 0, len(tools))
	for _, t := range tools {
		d := t.Definition()
		if deferred(d) {
			continue
		}
		var schema bytes.Buffer
		if len(d.InputSchema) == 0 {
			schema.WriteString(`{"type":"object"}`)
		} else if err := json.Compact(&schema, d.InputSchema); err != nil {
			return "", fmt.Errorf("the input schema of %s: %w", d.Name, err)
		}
		out = append(out, messagesTool{Name: d.Name, Description: d.Description, InputSchema: schema.Bytes()})
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // descriptions keep their < > & as written
	if err := enc.Encode(out); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func (s *ToolService) ListTools(ctx context.Context, req *tooldv1.ListToolsRequest) (*tooldv1.ListToolsResponse, error) {
	if id := req.GetSessionId(); id != "" {
		sess, err := s.sessions.Get(ctx, id)
		if err != nil {
			return nil, ToStatus(ctx, s.log, err)
		}
		if s.pools != nil {
			return s.sessionTools(ctx, sess)
		}
	}
	return &tooldv1.ListToolsResponse{Tools: s.defs, ToolsJson: s.toolsJSON}, nil
}

func (s *ToolService) Execute(req *tooldv1.ExecuteRequest, stream tooldv1.ToolService_ExecuteServer) error {
	ctx := stream.Context()
	if n := len(req.GetCalls()); n > s.maxCalls {
		return status.Errorf(codes.InvalidArgument, "calls: %d calls in one request, at most %d allowed", n, s.maxCalls)
	}
	if err := session.CheckID(req.GetSessionId()); err != nil {
		return ToStatus(ctx, s.log, err)
	}
	if err := s.checkInputLimits(req.GetCalls()); err != nil {
		return ToStatus(ctx, s.log, err)
	}
	reqs := make([]exec.Request, len(req.GetCalls()))
	for i, c := range req.GetCalls() {
		reqs[i] = callFromProto(c)
	}
	permit := ratelimit.PermitFrom(ctx)
	sink := newStreamSink(stream, permit, len(reqs))
	defer sink.keepAlive(ctx, s.keepalive)()
	if req.GetDetached() {
		// The calls outlive the client; DeleteSession and shutdown still
		// cancel them through the engine. Their concurrency slots stay
		// taken until the batch ends, not until the stream does.
		ctx = context.WithoutCancel(ctx)
		defer permit.Detach().Release()
	}
	return ToStatus(ctx, s.log, s.engine.Execute(ctx, req.GetSessionId(), reqs, sink))
}

func (s *ToolService) Attach(req *tooldv1.AttachRequest, stream tooldv1.ToolService_AttachServer) error {
	ctx := stream.Context()
	sink := newStreamSink(stream, nil, 1)
	defer sink.keepAlive(ctx, s.keepalive)()
	return ToStatus(ctx, s.log, s.engine.Attach(ctx, req.GetSessionId(), req.GetToolUseId(), req.GetAfterSeq(), sink))
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
