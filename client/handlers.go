package client

import (
	"context"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Handlers receive a Run's events as they arrive. Every field is optional
// and they are called from Run's goroutine, one at a time, each event once
// even when a stream was resumed. Keepalives are not passed on.
type Handlers struct {
	// Started: the call passed validation and policy and is starting.
	Started func(toolUseID string, s *tooldv1.ToolStarted)
	// Progress: output (stdout, stderr chunks) or a message while it runs.
	Progress func(toolUseID string, p *tooldv1.ToolProgress)
	// HookRun: a hook ran for the call.
	HookRun func(toolUseID string, h *tooldv1.HookRun)
	// Decision: how the policy decided the call.
	Decision func(toolUseID string, d *tooldv1.Decision)
	// Permission answers a call that asks; its answer is sent with
	// ResolvePermission. Without it every ask is denied, with a message
	// saying so, so that an unattended loop never hangs on a prompt.
	Permission func(ctx context.Context, toolUseID string, req *tooldv1.PermissionRequest) Answer
	// Result: the call's result, with the tool_result block Run returns.
	Result func(toolUseID string, r *tooldv1.ToolResult)
	// Delegated completes a call toold hands to the orchestrator (Agent,
	// SendMessage, AskUserQuestion, ExitPlanMode: see docs/delegation.md).
	// The completion it returns is sent with CompleteCall (its session and
	// tool_use_id are filled in); nil means the handler completes the call
	// itself, later or elsewhere, with Client.CompleteCall, and Run waits
	// for the result. Without it every delegated call fails at once, with
	// a message saying so, so that an unattended loop never hangs.
	Delegated func(ctx context.Context, toolUseID string, d *tooldv1.DelegatedCall) *tooldv1.CompleteCallRequest
}

// Answer is a person's (or a program's) answer to a permission request.
type Answer struct {
	Allow bool
	// ForSession also allows, for the rest of the session, the calls that
	// the request's suggested rules cover (allow only).
	ForSession bool
	// Message is told to the model with a denial.
	Message string
}

// AllowOnce lets this call run.
func AllowOnce() Answer { return Answer{Allow: true} }

// AllowForSession lets this call and the ones its suggested rules cover run.
func AllowForSession() Answer { return Answer{Allow: true, ForSession: true} }

// Deny refuses the call; message, if any, is told to the model.
func Deny(message string) Answer { return Answer{Message: message} }

// noDelegationHandler is what the model is told of a delegated call when
// nobody completes it.
const noDelegationHandler = "This client completes no delegated calls, so the tool could not be used."

// noHandlerDenial is what the model is told when nobody can answer.
const noHandlerDenial = "denied: this client has no permission handler, so calls that need approval are refused"

func (a Answer) request(sessionID, requestID string) *tooldv1.ResolvePermissionRequest {
	r := &tooldv1.ResolvePermissionRequest{
		SessionId: sessionID,
		RequestId: requestID,
		Decision:  tooldv1.PermissionDecision_PERMISSION_DECISION_DENY,
		Scope:     tooldv1.PermissionScope_PERMISSION_SCOPE_ONCE,
		Message:   a.Message,
	}
	if a.Allow {
		r.Decision = tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW
		if a.ForSession {
			r.Scope = tooldv1.PermissionScope_PERMISSION_SCOPE_SESSION
		}
	}
	return r
}
