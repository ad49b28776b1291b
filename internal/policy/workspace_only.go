package policy

import "context"

// WorkspaceOnly allows every call, as if the mode were bypassPermissions
// with no rules, while file tools stay confined to the session's
// directories by the workspace package. Tests and benchmarks of the call
// path use it to leave policy out of what they measure; the server uses
// Engine.
type WorkspaceOnly struct{}

// Decide allows the call.
func (WorkspaceOnly) Decide(context.Context, Request) (Decision, error) {
	return Decision{
		Behavior: Allow,
		Reason:   "allowed: no permission rules are enforced",
		Source:   "allowAll",
	}, nil
}
