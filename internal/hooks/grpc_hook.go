package hooks

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// runGRPC calls a gRPC hook's RunHook with the hook's timeout as deadline.
// Any error status is a failed hook, like a command hook that crashed.
func (r *Runner) runGRPC(ctx context.Context, h *Handler, in input, timeout time.Duration) attempt {
	conn, err := r.conn(h)
	if err != nil {
		return attempt{exitCode: -1, failure: err}
	}
	req, err := requestOf(in)
	if err != nil {
		return attempt{exitCode: -1, failure: fmt.Errorf("encoding the hook input: %w", err)}
	}
	callCtx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	if len(h.Headers) > 0 {
		callCtx = metadata.NewOutgoingContext(callCtx, metadata.New(h.Headers))
	}
	resp, err := tooldv1.NewHookServiceClient(conn).RunHook(callCtx, req)
	if err != nil {
		// The deadline travels with the call, so the server may give up on
		// it (DeadlineExceeded) a moment before the local timer fires.
		if ctx.Err() == nil && (errors.Is(context.Cause(callCtx), errTimeout) || status.Code(err) == codes.DeadlineExceeded) {
			return attempt{exitCode: -1, failure: fmt.Errorf("timed out after %s", timeout), timedOut: true}
		}
		if ctx.Err() != nil {
			return attempt{exitCode: -1, failure: fmt.Errorf("cancelled: %w", context.Cause(ctx))}
		}
		return attempt{exitCode: -1, failure: fmt.Errorf("RunHook failed: %s: %s", status.Code(err), status.Convert(err).Message())}
	}
	out, err := outputOf(resp)
	if err != nil {
		return attempt{exitCode: -1, failure: err}
	}
	if err := out.validate(in.HookEventName); err != nil {
		return attempt{exitCode: -1, failure: fmt.Errorf("the hook's response does not fit the hooks schema: %v", err)}
	}
	return attempt{exitCode: 0, out: out}
}

// conn returns the handler's connection, dialling it on first use. The
// connection is shared by every call of the handler and closed by
// Runner.Close.
func (r *Runner) conn(h *Handler) (*grpc.ClientConn, error) {
	key := h.key()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("the hook runner is closed")
	}
	if c, ok := r.conns[key]; ok {
		return c, nil
	}
	creds, err := transportCredentials(h)
	if err != nil {
		return nil, err
	}
	c, err := grpc.NewClient(h.Endpoint, append([]grpc.DialOption{grpc.WithTransportCredentials(creds)}, r.opts.DialOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("gRPC hook %s: %w", h.Endpoint, err)
	}
	r.conns[key] = c
	return c, nil
}

func transportCredentials(h *Handler) (credentials.TransportCredentials, error) {
	if h.Insecure {
		return insecure.NewCredentials(), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: h.ServerName}
	if h.CAFile != "" {
		pem, err := os.ReadFile(h.CAFile)
		if err != nil {
			return nil, fmt.Errorf("gRPC hook %s: caFile: %w", h.Endpoint, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("gRPC hook %s: caFile %s holds no PEM certificate", h.Endpoint, h.CAFile)
		}
		cfg.RootCAs = pool
	}
	return credentials.NewTLS(cfg), nil
}

// requestOf carries the stdin JSON's fields over to RunHookRequest.
func requestOf(in input) (*tooldv1.RunHookRequest, error) {
	req := &tooldv1.RunHookRequest{
		SessionId: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd,
		PermissionMode: in.PermissionMode, HookEventName: string(in.HookEventName),
		ToolName: in.ToolName, ToolUseId: in.ToolUseID,
		Source: in.Source, Model: in.Model, Reason: in.Reason, ProjectDir: in.projectDir,
	}
	if present(in.ToolInput) {
		req.ToolInput = &structpb.Struct{}
		if err := protojson.Unmarshal(in.ToolInput, req.ToolInput); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
	}
	if present(in.ToolResponse) {
		req.ToolResponse = &structpb.Value{}
		if err := protojson.Unmarshal(in.ToolResponse, req.ToolResponse); err != nil {
			return nil, fmt.Errorf("tool_response: %w", err)
		}
	}
	if in.DurationMS != nil {
		req.DurationMs = *in.DurationMS
	}
	if in.Error != nil {
		req.Error = *in.Error
	}
	if in.IsInterrupt != nil {
		req.IsInterrupt = *in.IsInterrupt
	}
	for i, s := range in.PermissionSuggestions {
		v := &structpb.Value{}
		if err := protojson.Unmarshal(s, v); err != nil {
			return nil, fmt.Errorf("permission_suggestions[%d]: %w", i, err)
		}
		req.PermissionSuggestions = append(req.PermissionSuggestions, v)
	}
	return req, nil
}

var (
	permissionDecisionNames = map[tooldv1.HookPermissionDecision]string{
		tooldv1.HookPermissionDecision_HOOK_PERMISSION_DECISION_ALLOW: "allow",
		tooldv1.HookPermissionDecision_HOOK_PERMISSION_DECISION_DENY:  "deny",
		tooldv1.HookPermissionDecision_HOOK_PERMISSION_DECISION_ASK:   "ask",
		tooldv1.HookPermissionDecision_HOOK_PERMISSION_DECISION_DEFER: "defer",
	}
	behaviorNames = map[tooldv1.HookPermissionBehavior]string{
		tooldv1.HookPermissionBehavior_HOOK_PERMISSION_BEHAVIOR_ALLOW: "allow",
		tooldv1.HookPermissionBehavior_HOOK_PERMISSION_BEHAVIOR_DENY:  "deny",
	}
	decisionNames = map[tooldv1.HookDecision]string{
		tooldv1.HookDecision_HOOK_DECISION_BLOCK:   "block",
		tooldv1.HookDecision_HOOK_DECISION_APPROVE: "approve",
	}
)

// outputOf reads RunHookResponse as the JSON output it mirrors.
func outputOf(resp *tooldv1.RunHookResponse) (*output, error) {
	out := &output{
		Continue: resp.Continue, StopReason: resp.GetStopReason(), SuppressOutput: resp.GetSuppressOutput(),
		SystemMessage: resp.GetSystemMessage(), Reason: resp.GetReason(),
	}
	var err error
	if out.Decision, err = enumName(decisionNames, resp.GetDecision(), "decision"); err != nil {
		return nil, err
	}
	s := resp.GetHookSpecificOutput()
	if s == nil {
		return out, nil
	}
	out.Specific = &specific{
		HookEventName:            s.GetHookEventName(),
		PermissionDecisionReason: s.GetPermissionDecisionReason(),
		AdditionalContext:        s.GetAdditionalContext(),
		Retry:                    s.GetRetry(),
	}
	if out.Specific.PermissionDecision, err = enumName(permissionDecisionNames, s.GetPermissionDecision(), "permission_decision"); err != nil {
		return nil, err
	}
	if out.Specific.UpdatedInput, err = jsonOf(s.GetUpdatedInput()); err != nil {
		return nil, err
	}
	if out.Specific.UpdatedToolOutput, err = jsonOf(s.GetUpdatedToolOutput()); err != nil {
		return nil, err
	}
	if out.Specific.UpdatedMCPToolOutput, err = jsonOf(s.GetUpdatedMcpToolOutput()); err != nil {
		return nil, err
	}
	if d := s.GetDecision(); d != nil {
		pd := &permDecision{Message: d.GetMessage(), Interrupt: d.GetInterrupt()}
		if pd.Behavior, err = enumName(behaviorNames, d.GetBehavior(), "decision.behavior"); err != nil {
			return nil, err
		}
		if pd.Behavior == "" {
			return nil, errors.New("the hook's response has a permission request decision without a behavior")
		}
		if pd.UpdatedInput, err = jsonOf(d.GetUpdatedInput()); err != nil {
			return nil, err
		}
		for _, p := range d.GetUpdatedPermissions() {
			raw, err := jsonOf(p)
			if err != nil {
				return nil, err
			}
			pd.UpdatedPermissions = append(pd.UpdatedPermissions, raw)
		}
		out.Specific.Decision = pd
	}
	return out, nil
}

// enumName names a known enum value, "" for the zero value; a value this
// build does not know is an error rather than silently no decision.
func enumName[E ~int32](names map[E]string, v E, field string) (string, error) {
	if v == 0 {
		return "", nil
	}
	if n, ok := names[v]; ok {
		return n, nil
	}
	return "", fmt.Errorf("the hook's response has an unknown %s value %d", field, int32(v))
}

// jsonOf renders a Struct or Value as JSON; nil for an absent message.
func jsonOf(m proto.Message) (json.RawMessage, error) {
	if m == nil || !m.ProtoReflect().IsValid() {
		return nil, nil
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}
