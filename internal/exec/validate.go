package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toold/toold/internal/strictjson"
	"github.com/toold/toold/internal/tool"
)

// schemas holds each tool's compiled input schema and the property types
// that coercion needs. The registry's are compiled when the engine is
// built; a session's MCP tools' on first use, kept by name and schema (a
// server may change a tool's schema).
type schemas struct {
	byName map[string]*compiledSchema
	// limits bound a raw JSON input.
	limits strictjson.Limits

	mu    sync.Mutex
	extra map[string]*compiledSchema
}

// maxExtraSchemas bounds the cache of MCP tools' schemas; past it the
// cache starts over (a miss costs one compile).
const maxExtraSchemas = 4096

type compiledSchema struct {
	schema *jsonschema.Schema
	// propTypes maps a top-level property to its JSON type, for the seeds'
	// semanticNumber/semanticBoolean coercions.
	propTypes map[string]string
}

func compileSchemas(reg *tool.Registry, limits strictjson.Limits) (*schemas, error) {
	s := &schemas{byName: make(map[string]*compiledSchema), extra: make(map[string]*compiledSchema), limits: limits}
	for _, t := range reg.Tools() {
		d := t.Definition()
		cs, err := compileSchema(d)
		if err != nil {
			return nil, err
		}
		s.byName[d.Name] = cs
	}
	return s, nil
}

// of returns the compiled schema of a tool's definition.
func (s *schemas) of(d tool.Definition) (*compiledSchema, error) {
	if cs := s.byName[d.Name]; cs != nil {
		return cs, nil
	}
	key := d.Name + "\x00" + string(d.InputSchema)
	s.mu.Lock()
	cs := s.extra[key]
	s.mu.Unlock()
	if cs != nil {
		return cs, nil
	}
	cs, err := compileSchema(d)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.extra) >= maxExtraSchemas {
		clear(s.extra)
	}
	s.extra[key] = cs
	s.mu.Unlock()
	return cs, nil
}

func compileSchema(d tool.Definition) (*compiledSchema, error) {
	sch, doc, err := tool.CompileSchema(d)
	if err != nil {
		return nil, err
	}
	cs := &compiledSchema{schema: sch, propTypes: map[string]string{}}
	if m, ok := doc.(map[string]any); ok {
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				if typ, ok := pm["type"].(string); ok {
					cs.propTypes[name] = typ
				}
			}
		}
	}
	return cs, nil
}

// Validate is the stage that checks input against the tool's schema,
// strictly, and parses it into an invocation. Its failures are invalid-input
// results whose text tells the model what to fix.
func Validate(s *schemas) Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		if err := s.prepare(c); err != nil {
			return nil, err
		}
		return next(ctx, c)
	}
}

func (s *schemas) prepare(c *Call) error {
	name := c.Def.Name
	in := c.Request.Input
	if in == nil {
		if len(c.RawInput) == 0 {
			in = map[string]any{}
		} else {
			m, err := strictjson.DecodeObject(c.RawInput, s.limits)
			if err != nil {
				return tool.InvalidInputf("Invalid input for %s: %v", name, err)
			}
			in = m
		}
	}
	cs, err := s.of(c.Def)
	if err != nil {
		// An MCP server's schema that does not compile: the call cannot
		// be checked, so it does not run.
		return tool.Errorf(tool.KindFailed, "The input schema of %s is not valid JSON Schema, so the call cannot be checked: %v", name, err)
	}
	changed := coerce(in, cs.propTypes)
	if err := cs.schema.Validate(in); err != nil {
		return tool.InvalidInputf("%s", describeSchemaError(name, err))
	}
	// JSON text that coercion left alone is the input as it is: it was
	// decoded strictly, so it means what the map means, and a Write's
	// content is not copied once more.
	raw := json.RawMessage(c.RawInput)
	if c.Request.Input != nil || changed || len(raw) == 0 {
		if raw, err = json.Marshal(in); err != nil {
			return tool.InvalidInputf("Invalid input for %s: %v", name, err)
		}
	}
	c.Input = raw
	c.Args = in
	inv, err := c.Tool.Parse(raw)
	if err != nil {
		if _, ok := err.(*tool.Error); ok {
			return err
		}
		return tool.InvalidInputf("Invalid input for %s: %v", name, err)
	}
	c.Invocation = inv
	return nil
}

// coerce applies the seeds' semantic wrappers: models often quote numbers
// and booleans, and "5" for a number field means 5. It reports whether it
// changed anything.
func coerce(in map[string]any, types map[string]string) (changed bool) {
	for k, v := range in {
		s, ok := v.(string)
		if !ok {
			continue
		}
		switch types[k] {
		case "number":
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				in[k], changed = f, true
			}
		case "integer":
			if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
				in[k], changed = n, true
			}
		case "boolean":
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true":
				in[k], changed = true, true
			case "false":
				in[k], changed = false, true
			}
		}
	}
	return changed
}

func describeSchemaError(toolName string, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Invalid input for %s:", toolName)
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		fmt.Fprintf(&b, " %v", err)
		return b.String()
	}
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "the input"
		}
		fmt.Fprintf(&b, "\n- %s: %s", loc, u.Error.String())
	}
	b.WriteString("\nFix the input to match the tool's input_schema and call it again.")
	return b.String()
}
