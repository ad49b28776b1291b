package policy

import "context"

// WorkspaceOnly is the interim policy: every call is allowed, as if the
// mode were bypassPermissions, while file tools stay confined to the
// session's directories by the workspace package. Rules and modes replace it.
type WorkspaceOnly struct{}

// Decide allows the call.
func (WorkspaceOnly) Decide(context.Context, Request) (Decision, error) {
	return Decision{
		Behavior: Allow,
		Reason:   "allowed: rules and modes are not enforced yet; file tools are confined to the workspace",
		Source:   "interim",
	}, nil
}
