package server

import (
	"fmt"
	"unsafe"

	"github.com/toold/toold/internal/strictjson"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// checkInputLimits refuses a request whose calls' input_json is over the
// input limits, before anything converts or decodes it: every JSON decoder
// after this spends memory per level and per value. (A Struct input was
// measured on the wire, before it was decoded: codec.go.) It is the
// request that is refused (InvalidArgument, naming the field): the calls
// are not taken apart, so none of them runs. The engine checks JSON input
// again, for the inputs that do not come through here (hooks, MCP), as an
// invalid-input result.
func (s *ToolService) checkInputLimits(calls []*tooldv1.ToolCall) error {
	for i, c := range calls {
		if c.GetInputJson() == "" {
			continue // nothing to check, and no field name to build
		}
		if err := s.checkCallLimits(c, fmt.Sprintf("calls[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// checkCallLimits checks one call, named field in the errors.
func (s *ToolService) checkCallLimits(c *tooldv1.ToolCall, field string) error {
	if js := c.GetInputJson(); js != "" {
		if err := strictjson.CheckLimits(js, s.limits); err != nil {
			return fmt.Errorf("%s.input_json: %w", field, err)
		}
	}
	return nil
}

// readOnlyBytes is a call's input_json as bytes without a copy of it (a
// Write's is a whole file). The engine only reads a request's RawInput
// (decoding, hashing); a hook that changes the input replaces it.
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
