package tooldv1

// Validate methods are called by the request-validation interceptor before
// any handler runs. They check each request's shape only: limits that depend
// on the server's configuration are checked by the handlers.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// MaxToolUseIDLen bounds a tool_use_id; the Messages API's are ~30 bytes.
const MaxToolUseIDLen = 256

func checkPath(field, p string) error {
	if strings.ContainsRune(p, 0) {
		return fmt.Errorf("%s: contains a NUL byte", field)
	}
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%s: %q must be an absolute path", field, p)
	}
	return nil
}

// Validate checks the request's fields.
func (r *CreateSessionRequest) Validate() error {
	if r.GetWorkspace() != "" {
		if err := checkPath("workspace", r.GetWorkspace()); err != nil {
			return err
		}
	}
	if _, ok := PermissionMode_name[int32(r.GetMode())]; !ok {
		return fmt.Errorf("mode: unknown value %d", r.GetMode())
	}
	for i, d := range r.GetPermissions().GetAdditionalDirectories() {
		if err := checkPath(fmt.Sprintf("permissions.additional_directories[%d]", i), d); err != nil {
			return err
		}
	}
	for _, list := range []struct {
		name  string
		rules []string
	}{{"allow", r.GetPermissions().GetAllow()}, {"deny", r.GetPermissions().GetDeny()}, {"ask", r.GetPermissions().GetAsk()}} {
		for i, rule := range list.rules {
			if strings.TrimSpace(rule) == "" {
				return fmt.Errorf("permissions.%s[%d]: empty rule", list.name, i)
			}
		}
	}
	return nil
}

func checkSessionID(id string) error {
	if id == "" {
		return errors.New("session_id: required")
	}
	return nil
}

// Validate checks the request's fields.
func (r *GetSessionRequest) Validate() error { return checkSessionID(r.GetSessionId()) }

// Validate checks the request's fields.
func (r *DeleteSessionRequest) Validate() error { return checkSessionID(r.GetSessionId()) }

// Validate checks the request's fields.
func (r *ListToolsRequest) Validate() error { return nil }

// Validate checks the request's fields: at least one call, each with a
// unique tool_use_id and a name, and at most one form of input.
func (r *ExecuteRequest) Validate() error {
	if err := checkSessionID(r.GetSessionId()); err != nil {
		return err
	}
	if len(r.GetCalls()) == 0 {
		return errors.New("calls: at least one call is required")
	}
	seen := make(map[string]struct{}, len(r.GetCalls()))
	for i, c := range r.GetCalls() {
		id := c.GetToolUseId()
		switch {
		case id == "":
			return fmt.Errorf("calls[%d].tool_use_id: required", i)
		case len(id) > MaxToolUseIDLen:
			return fmt.Errorf("calls[%d].tool_use_id: longer than %d bytes", i, MaxToolUseIDLen)
		case c.GetName() == "":
			return fmt.Errorf("calls[%d].name: required", i)
		case c.GetInput() != nil && c.GetInputJson() != "":
			return fmt.Errorf("calls[%d]: set input or input_json, not both", i)
		}
		if _, dup := seen[id]; dup {
			return fmt.Errorf("calls[%d].tool_use_id: %q appears more than once in the request", i, id)
		}
		seen[id] = struct{}{}
	}
	return nil
}

// Validate checks the request's fields.
func (r *AttachRequest) Validate() error {
	if err := checkSessionID(r.GetSessionId()); err != nil {
		return err
	}
	switch id := r.GetToolUseId(); {
	case id == "":
		return errors.New("tool_use_id: required")
	case len(id) > MaxToolUseIDLen:
		return fmt.Errorf("tool_use_id: longer than %d bytes", MaxToolUseIDLen)
	case r.GetAfterSeq() < 0:
		return errors.New("after_seq: must not be negative")
	}
	return nil
}

// Validate checks the request's fields.
func (r *UpdateSessionRequest) Validate() error {
	if err := checkSessionID(r.GetSessionId()); err != nil {
		return err
	}
	if _, ok := PermissionMode_name[int32(r.GetMode())]; !ok {
		return fmt.Errorf("mode: unknown value %d", r.GetMode())
	}
	for _, p := range []struct {
		name string
		list *Permissions
	}{{"add_rules", r.GetAddRules()}, {"remove_rules", r.GetRemoveRules()}} {
		if len(p.list.GetAdditionalDirectories()) > 0 {
			return fmt.Errorf("%s.additional_directories: cannot be changed by UpdateSession", p.name)
		}
	}
	return nil
}

// Validate checks the request's fields.
func (r *ResolvePermissionRequest) Validate() error {
	if err := checkSessionID(r.GetSessionId()); err != nil {
		return err
	}
	if r.GetRequestId() == "" {
		return errors.New("request_id: required")
	}
	switch r.GetDecision() {
	case PermissionDecision_PERMISSION_DECISION_ALLOW, PermissionDecision_PERMISSION_DECISION_DENY:
	default:
		return errors.New("decision: PERMISSION_DECISION_ALLOW or PERMISSION_DECISION_DENY required")
	}
	if _, ok := PermissionScope_name[int32(r.GetScope())]; !ok {
		return fmt.Errorf("scope: unknown value %d", r.GetScope())
	}
	return nil
}

// Validate checks the request's fields.
func (r *CheckPermissionRequest) Validate() error {
	if err := checkSessionID(r.GetSessionId()); err != nil {
		return err
	}
	if r.GetCall().GetName() == "" {
		return errors.New("call.name: required")
	}
	if r.GetCall().GetInput() != nil && r.GetCall().GetInputJson() != "" {
		return errors.New("call: set input or input_json, not both")
	}
	return nil
}
