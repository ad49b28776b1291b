package server

import (
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/strictjson"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// WithInputLimits bounds the nesting and the values of a call's input
// (input or input_json); zero fields keep strictjson's defaults.
func (s *ToolService) WithInputLimits(l strictjson.Limits) { s.limits = l }

// checkInputLimits refuses a request whose calls are over the limits,
// before anything converts or decodes their input: the conversion of a
// Struct (AsMap) and every JSON decoder after it spend memory per level
// and per value. It is the request that is refused (InvalidArgument,
// naming the field): the calls are not taken apart, so none of them runs.
// The engine checks JSON input again, for the inputs that do not come
// through here (hooks, MCP), as an invalid-input result.
func (s *ToolService) checkInputLimits(calls []*tooldv1.ToolCall) error {
	for i, c := range calls {
		if err := s.checkCallLimits(c, fmt.Sprintf("calls[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// checkCallLimits checks one call, named field in the errors.
func (s *ToolService) checkCallLimits(c *tooldv1.ToolCall, field string) error {
	l := s.limits.WithDefaults()
	if in := c.GetInput(); in != nil {
		if err := structLimits(in, l); err != nil {
			return fmt.Errorf("%s.input: %w", field, err)
		}
	}
	if js := c.GetInputJson(); js != "" {
		if err := strictjson.CheckLimits(js, l); err != nil {
			return fmt.Errorf("%s.input_json: %w", field, err)
		}
	}
	return nil
}

// structLimits counts as strictjson does for JSON text: the Struct itself
// is one level and one value, each nested struct or list one level more,
// each member or element one value more. The walk stops at the first
// bound passed, so its recursion is at most one level past MaxDepth.
func structLimits(s *structpb.Struct, l strictjson.Limits) error {
	values := 1
	var over *strictjson.LimitError
	var walkStruct func(s *structpb.Struct, depth int) bool
	var walk func(v *structpb.Value, depth int) bool
	enter := func(depth, n int) bool {
		values += n
		switch {
		case depth > l.MaxDepth:
			over = &strictjson.LimitError{Max: l.MaxDepth, Offset: -1}
		case values > l.MaxValues:
			over = &strictjson.LimitError{Values: true, Max: l.MaxValues, Offset: -1}
		}
		return over == nil
	}
	walkStruct = func(s *structpb.Struct, depth int) bool {
		if !enter(depth, len(s.GetFields())) {
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
			if !enter(depth, len(k.ListValue.GetValues())) {
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
		return over
	}
	return nil
}
