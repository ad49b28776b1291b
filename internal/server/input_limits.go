package server

import (
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/strictjson"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// WithMaxInputDepth bounds how deeply the arrays and objects of a call's
// input (input or input_json) may nest (default strictjson.MaxDepth).
func (s *ToolService) WithMaxInputDepth(n int) { s.maxDepth = n }

// checkInputDepth refuses a request whose calls nest deeper than the bound,
// before anything converts or decodes their input: the conversion of a
// Struct (AsMap) and every JSON decoder after it spend memory per level.
// It is the request that is refused (InvalidArgument, naming the field):
// the calls are not taken apart, so none of them runs. The engine checks
// JSON input again, for the inputs that do not come through here (hooks,
// MCP), as an invalid-input result.
func (s *ToolService) checkInputDepth(calls []*tooldv1.ToolCall) error {
	for i, c := range calls {
		if err := s.checkCallDepth(c, fmt.Sprintf("calls[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// checkCallDepth checks one call, named field in the errors.
func (s *ToolService) checkCallDepth(c *tooldv1.ToolCall, field string) error {
	max := s.maxDepth
	if max <= 0 {
		max = strictjson.MaxDepth
	}
	if in := c.GetInput(); in != nil {
		if err := structDepth(in, max); err != nil {
			return fmt.Errorf("%s.input: %w", field, err)
		}
	}
	if js := c.GetInputJson(); js != "" {
		if err := strictjson.CheckDepth(js, max); err != nil {
			return fmt.Errorf("%s.input_json: %w", field, err)
		}
	}
	return nil
}

// structDepth counts levels as JSON does: the Struct itself is one, each
// nested struct or list one more. The recursion stops one level past max.
func structDepth(s *structpb.Struct, max int) error {
	var walk func(v *structpb.Value, depth int) bool
	walkStruct := func(s *structpb.Struct, depth int) bool {
		if depth > max {
			return false
		}
		for _, v := range s.GetFields() {
			if !walk(v, depth+1) {
				return false
			}
		}
		return true
	}
	walk = func(v *structpb.Value, depth int) bool {
		switch k := v.GetKind().(type) {
		case *structpb.Value_StructValue:
			return walkStruct(k.StructValue, depth)
		case *structpb.Value_ListValue:
			if depth > max {
				return false
			}
			for _, e := range k.ListValue.GetValues() {
				if !walk(e, depth+1) {
					return false
				}
			}
		}
		return true
	}
	if !walkStruct(s, 1) {
		return &strictjson.DepthError{Max: max, Offset: -1}
	}
	return nil
}
