package tooldv1

// The requests' field rules are protovalidate annotations in the .proto
// files, enforced by the server's validation interceptor. What is left here
// are the rules that depend on where a message is used and that name the
// offending element, which a field rule on a repeated field cannot: a
// ToolCall needs a tool_use_id in an Execute request (CheckPermission takes
// one without), unique within the request. The server runs these after the
// annotations.

import (
	"fmt"
)

// MaxToolUseIDLen bounds a tool_use_id (the Messages API's are ~30 bytes);
// the annotations on ToolCall and AttachRequest say the same.
const MaxToolUseIDLen = 256

// Validate checks that every call has a tool_use_id and that no two share
// one.
func (r *ExecuteRequest) Validate() error { return validateCalls(r.GetCalls()) }

// Validate checks the calls as ExecuteRequest.Validate does.
func (r *CallRequest) Validate() error { return validateCalls(r.GetCalls()) }

func validateCalls(calls []*ToolCall) error {
	seen := make(map[string]struct{}, len(calls))
	for i, c := range calls {
		id := c.GetToolUseId()
		if id == "" {
			return fmt.Errorf("calls[%d].tool_use_id: required", i)
		}
		if _, dup := seen[id]; dup {
			return fmt.Errorf("calls[%d].tool_use_id: %q appears more than once in the request", i, id)
		}
		seen[id] = struct{}{}
	}
	return nil
}
