package exec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

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
	// strictJSON refuses input text with duplicate keys or that is not an
	// object, instead of reading it as Claude Code does.
	strictJSON bool

	mu    sync.Mutex
	extra map[string]*compiledSchema
}

// maxExtraSchemas bounds the cache of MCP tools' schemas; past it the
// cache starts over (a miss costs one compile).
const maxExtraSchemas = 4096

type compiledSchema struct {
	schema *jsonschema.Schema
	// node is what checkInput walks; other says the schema has keywords
	// it does not know, for the schema validator.
	node  *schemaNode
	other bool
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
	if len(d.MayOmit) > 0 {
		var err error
		if d.InputSchema, err = withoutRequired(d.InputSchema, d.MayOmit); err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", d.Name, err)
		}
	}
	sch, doc, err := tool.CompileSchema(d)
	if err != nil {
		return nil, err
	}
	node, err := parseSchemaNode(d.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", d.Name, err)
	}
	if err := node.withMessages(d.InputMessages); err != nil {
		return nil, fmt.Errorf("tool %s: %w", d.Name, err)
	}
	cs := &compiledSchema{schema: sch, node: node, other: usesOtherKeywords(doc, true), propTypes: map[string]string{}}
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

func (s *schemas) prepare(c *Call) error {
	name := c.Def.Name
	in := c.Request.Input
	var order []string
	// remarshal: the input text is not what the tool may parse as it is
	// (it had duplicate keys, or was not an object).
	remarshal := false
	if in == nil {
		raw := c.RawInput
		if len(raw) == 0 {
			in = map[string]any{}
		} else {
			m, err := strictjson.DecodeObject(raw, s.limits)
			if err != nil {
				var le *strictjson.LimitError
				if errors.As(err, &le) || s.strictJSON {
					return tool.InvalidInputf("Invalid input for %s: %v", name, err)
				}
				if m, order, err = lenientObject(raw); err != nil {
					return tool.InvalidInputf("%s", unparsableInput(name, raw))
				}
				remarshal = true
			} else {
				order = topLevelKeys(raw)
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
	issues, stripped := checkInput(cs.node, in, order)
	if len(issues) == 0 && cs.other {
		// Keywords the check above does not know (anyOf, $ref, pattern,
		// ...): the schema validator decides, in zod's words as near as
		// they go.
		if err := cs.schema.Validate(in); err != nil {
			issues = schemaIssues(err)
		}
	}
	if len(issues) > 0 {
		return tool.InvalidInputf("%s", formatIssues(name, issues))
	}
	// JSON text that coercion left alone is the input as it is: it was
	// decoded strictly, so it means what the map means, and a Write's
	// content is not copied once more.
	raw := json.RawMessage(c.RawInput)
	if c.Request.Input != nil || changed || stripped || remarshal || len(raw) == 0 {
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
	if si, ok := inv.(Situated); ok && c.Files != nil {
		si.Situate(c.Cwd())
	}
	c.Shell = nil
	if c.Def.Command {
		c.Shell = commandAnalysis(inv, in)
	}
	return nil
}

// lenientObject reads input text as Claude Code does: JSON.parse (a
// duplicate key keeps its last value), then the value spread into an
// object ({...value}): an array or a string gives its indexes as keys,
// any other value no keys.
func lenientObject(raw []byte) (map[string]any, []string, error) {
	if !utf8.Valid(raw) {
		return nil, nil, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("data after the JSON value")
	}
	switch x := v.(type) {
	case map[string]any:
		return x, topLevelKeys(raw), nil
	case []any:
		m := make(map[string]any, len(x))
		order := make([]string, len(x))
		for i, e := range x {
			order[i] = strconv.Itoa(i)
			m[order[i]] = e
		}
		return m, order, nil
	case string:
		units := utf16.Encode([]rune(x))
		m := make(map[string]any, len(units))
		order := make([]string, len(units))
		for i, u := range units {
			order[i] = strconv.Itoa(i)
			m[order[i]] = string(utf16.Decode([]uint16{u}))
		}
		return m, order, nil
	}
	return map[string]any{}, nil, nil
}

// unparsableInputShown is how much of input text that is not JSON the
// model is shown again (UTF-16 code units, as Claude Code counts).
const unparsableInputShown = 200

// unparsableInput is Claude Code's text for input that is not JSON.
func unparsableInput(name string, raw []byte) string {
	units := utf16.Encode([]rune(strings.ToValidUTF8(string(raw), "\uFFFD")))
	shown := units
	if len(shown) > unparsableInputShown {
		shown = shown[:unparsableInputShown]
	}
	return fmt.Sprintf("InputValidationError: %s was called with input that could not be parsed as JSON.\nYou sent (first %d of %d bytes): %s\nCommon causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. Retry with valid JSON.",
		name, len(shown), len(units), string(utf16.Decode(shown)))
}

// coerce applies Claude Code's semanticNumber and semanticBoolean to the
// top-level parameters: a number field takes "5" or "-1.5" (not "1e3"),
// a boolean field "true" or "false" exactly. It reports whether it
// changed anything.
func coerce(in map[string]any, types map[string]string) (changed bool) {
	for k, v := range in {
		s, ok := v.(string)
		if !ok {
			continue
		}
		switch types[k] {
		case "number", "integer":
			if quotedNumber.MatchString(s) {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					in[k], changed = json.Number(strconv.FormatFloat(f, 'f', -1, 64)), true
				}
			}
		case "boolean":
			switch s {
			case "true":
				in[k], changed = true, true
			case "false":
				in[k], changed = false, true
			}
		}
	}
	return changed
}

// schemaIssues turns the schema validator's errors into issues.
func schemaIssues(err error) []issue {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []issue{{code: "custom", path: []any{}, message: err.Error()}}
	}
	var out []issue
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		var path []any
		for _, p := range strings.Split(strings.TrimPrefix(u.InstanceLocation, "/"), "/") {
			if p == "" {
				continue
			}
			p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
			if n, err := strconv.Atoi(p); err == nil {
				path = append(path, n)
			} else {
				path = append(path, p)
			}
		}
		out = append(out, issue{code: "custom", path: path, message: u.Error.String()})
	}
	if len(out) == 0 {
		out = append(out, issue{code: "custom", path: []any{}, message: ve.Error()})
	}
	return out
}

// checkedKeywords are the keywords checkInput applies or that only
// annotate; a schema with any other one is also given to the validator.
var checkedKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "format": true, "minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true,
	"description": true, "title": true, "default": true, "examples": true,
	"$schema": true, "$id": true, "$comment": true, "deprecated": true,
	"readOnly": true, "writeOnly": true,
}

func usesOtherKeywords(doc any, top bool) bool {
	m, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range m {
		if !checkedKeywords[k] {
			return true
		}
		switch k {
		case "properties":
			props, _ := v.(map[string]any)
			for _, p := range props {
				if usesOtherKeywords(p, false) {
					return true
				}
			}
		case "items":
			if usesOtherKeywords(v, false) {
				return true
			}
		case "additionalProperties":
			if _, ok := v.(bool); !ok {
				return true
			}
		}
	}
	return false
}

// withoutRequired is the schema with names taken off its top-level
// "required" list: what the input check holds a call to, where the model
// is shown the schema as it is (tool.Definition.MayOmit).
func withoutRequired(schema json.RawMessage, names []string) (json.RawMessage, error) {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, err
	}
	req, _ := doc["required"].([]any)
	kept := req[:0]
	for _, r := range req {
		if s, ok := r.(string); !ok || !slices.Contains(names, s) {
			kept = append(kept, r)
		}
	}
	doc["required"] = kept
	return json.Marshal(doc)
}
