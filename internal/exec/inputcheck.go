package exec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// This file checks a call's input the way Claude Code's input schemas do
// (zod objects), and words the failures as Claude Code does:
//
//   - the top-level object is strict: an unknown key is an "unexpected
//     parameter"; nested objects drop unknown keys instead;
//   - a property's JSON type is checked first; a property with an enum is
//     checked against the enum whatever its type; an "integer" takes any
//     number and refuses a fraction ("expected as `int`") and a value past
//     the safe integer range;
//   - "format": "uri" must parse as a URL with a scheme;
//   - minLength, maxLength, minItems, maxItems, minimum, maximum and the
//     exclusive bounds are checked on nested values only: Claude Code
//     leaves a top-level parameter's range to the tool (a Read with limit
//     -1 runs);
//   - a quoted number ("5", "-1.5") in a number or integer field and
//     "true"/"false" in a boolean field mean the number and the boolean.
//
// The issues are reported as zod reports them. When any of them is a
// missing, unexpected or wrongly typed parameter, the text lists every
// issue, grouped in that order and then the other issues; otherwise it is
// zod's JSON list of the issues.

// schemaNode is a JSON Schema object with its properties in the order the
// schema gives them (the order Claude Code reports them in).
type schemaNode struct {
	types      []string // "type", one or several; empty: any
	props      []string // property names in schema order
	propNode   map[string]*schemaNode
	required   map[string]bool
	reqOrder   []string
	closed     bool // additionalProperties: false
	items      *schemaNode
	enum       []any
	hasEnum    bool
	format     string
	minLength  *float64
	maxLength  *float64
	minItems   *float64
	maxItems   *float64
	minimum    *float64
	maximum    *float64
	exclMin    *float64
	exclMax    *float64
	exclMinOld bool // draft-04 exclusiveMinimum: true
	exclMaxOld bool
	// messages replaces zod's wording of a failed keyword (minLength, ...)
	// with the tool's own, from its definition's InputMessages.
	messages map[string]string
}

// withMessages attaches a definition's InputMessages to the nodes they
// name. A key names no node of the schema: an error.
func (n *schemaNode) withMessages(m map[string]string) error {
	for key, msg := range m {
		path, keyword, ok := strings.Cut(key, " ")
		if !ok || keyword == "" {
			return fmt.Errorf("input message %q: want \"path keyword\"", key)
		}
		at := n
		for elem := range strings.SplitSeq(path, ".") {
			name, items := strings.CutSuffix(elem, "[]")
			if at = at.propNode[name]; at == nil {
				return fmt.Errorf("input message %q: no property %q", key, name)
			}
			if items {
				if at = at.items; at == nil {
					return fmt.Errorf("input message %q: %q has no items", key, name)
				}
			}
		}
		if at.messages == nil {
			at.messages = map[string]string{}
		}
		at.messages[keyword] = msg
	}
	return nil
}

// worded is is with the message the schema gives its keyword, if any.
func (n *schemaNode) worded(keyword string, is issue) issue {
	if msg, ok := n.messages[keyword]; ok {
		is.message = msg
	}
	return is
}

// parseSchemaNode reads the parts of a schema that checkInput uses.
func parseSchemaNode(raw []byte) (*schemaNode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*orderedObject)
	if !ok {
		return &schemaNode{}, nil
	}
	return nodeOf(o), nil
}

type orderedObject struct {
	keys []string
	m    map[string]any
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := &orderedObject{m: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := o.m[k]; !dup {
				o.keys = append(o.keys, k)
			}
			o.m[k] = v
		}
		_, err := dec.Token()
		return o, err
	case '[':
		var a []any
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

func nodeOf(o *orderedObject) *schemaNode {
	n := &schemaNode{propNode: map[string]*schemaNode{}, required: map[string]bool{}}
	switch t := o.m["type"].(type) {
	case string:
		n.types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				n.types = append(n.types, s)
			}
		}
	}
	if p, ok := o.m["properties"].(*orderedObject); ok {
		for _, k := range p.keys {
			if po, ok := p.m[k].(*orderedObject); ok {
				n.props = append(n.props, k)
				n.propNode[k] = nodeOf(po)
			} else {
				n.props = append(n.props, k)
				n.propNode[k] = &schemaNode{}
			}
		}
	}
	if r, ok := o.m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok && !n.required[s] {
				n.required[s] = true
				n.reqOrder = append(n.reqOrder, s)
			}
		}
	}
	if b, ok := o.m["additionalProperties"].(bool); ok && !b {
		n.closed = true
	}
	if it, ok := o.m["items"].(*orderedObject); ok {
		n.items = nodeOf(it)
	}
	if e, ok := o.m["enum"].([]any); ok {
		n.enum, n.hasEnum = e, true
	}
	n.format, _ = o.m["format"].(string)
	num := func(k string) *float64 {
		if v, ok := o.m[k].(json.Number); ok {
			if f, err := v.Float64(); err == nil {
				return &f
			}
		}
		return nil
	}
	n.minLength, n.maxLength = num("minLength"), num("maxLength")
	n.minItems, n.maxItems = num("minItems"), num("maxItems")
	n.minimum, n.maximum = num("minimum"), num("maximum")
	n.exclMin, n.exclMax = num("exclusiveMinimum"), num("exclusiveMaximum")
	n.exclMinOld, _ = o.m["exclusiveMinimum"].(bool)
	n.exclMaxOld, _ = o.m["exclusiveMaximum"].(bool)
	return n
}

// issue is one zod issue.
type issue struct {
	code     string // invalid_type, unrecognized_keys, invalid_value, invalid_format, too_small, too_big
	path     []any
	missing  bool // invalid_type of an absent required property
	expected string
	received string
	keys     []string
	values   []any
	format   string
	origin   string
	limit    float64
	incl     bool
	note     string
	message  string
}

const maxSafeInteger = 1<<53 - 1

// checkInput checks in against the schema. order is the input's top-level
// keys in the order they were sent (nil: sorted), for the unexpected ones.
func checkInput(root *schemaNode, in map[string]any, order []string) (issues []issue, stripped bool) {
	ck := &checker{}
	checkObject(root, in, nil, order, true, ck)
	return ck.issues, ck.stripped
}

type checker struct {
	issues []issue
	// stripped: a nested object lost keys its schema does not know.
	stripped bool
}

func checkObject(n *schemaNode, obj map[string]any, path []any, order []string, top bool, ck *checker) {
	var tail []issue
	for _, k := range n.props {
		v, present := obj[k]
		if !present {
			if n.required[k] {
				ck.issues = append(ck.issues, missingIssue(n.propNode[k], appendPath(path, k)))
			}
			continue
		}
		checkValue(n.propNode[k], v, appendPath(path, k), top, ck)
	}
	// Required names that are not among the properties.
	for _, k := range n.reqOrder {
		if _, listed := n.propNode[k]; listed {
			continue
		}
		if _, present := obj[k]; !present {
			ck.issues = append(ck.issues, missingIssue(&schemaNode{}, appendPath(path, k)))
		}
	}
	if n.closed {
		var unknown []string
		for _, k := range keysInOrder(obj, order) {
			if _, known := n.propNode[k]; !known {
				if top {
					unknown = append(unknown, k)
				} else {
					// zod's plain object drops what it does not know.
					delete(obj, k)
					ck.stripped = true
				}
			}
		}
		if len(unknown) > 0 {
			tail = append(tail, issue{code: "unrecognized_keys", keys: unknown, path: path,
				message: "Unrecognized key" + plural(len(unknown)) + ": " + quoteJoin(unknown, ", ")})
		}
	}
	ck.issues = append(ck.issues, tail...)
}

func missingIssue(n *schemaNode, path []any) issue {
	if n.hasEnum {
		// zod's enum reports an absent value as any other it does not
		// list (recorded: ExitWorktree without action).
		return issue{code: "invalid_value", values: n.enum, path: path, message: enumMessage(n.enum)}
	}
	exp := "unknown"
	if len(n.types) > 0 {
		exp = zodType(n.types[0])
	}
	return issue{code: "invalid_type", missing: true, expected: exp, received: "undefined", path: path,
		message: "Invalid input: expected " + exp + ", received undefined"}
}

func checkValue(n *schemaNode, v any, path []any, top bool, ck *checker) {
	if n.hasEnum {
		for _, e := range n.enum {
			if jsonEqual(e, v) {
				return
			}
		}
		ck.issues = append(ck.issues, issue{code: "invalid_value", values: n.enum, path: path, message: enumMessage(n.enum)})
		return
	}
	if len(n.types) > 0 {
		t, ok := matchType(n.types, v)
		if !ok {
			exp := zodType(n.types[0])
			if n.types[0] == "integer" && jsonTypeOf(v) == "number" {
				exp = "int"
			}
			rec := jsonTypeOf(v)
			ck.issues = append(ck.issues, issue{code: "invalid_type", expected: exp, received: rec, path: path,
				message: "Invalid input: expected " + exp + ", received " + rec})
			return
		}
		if t == "integer" {
			f, _ := toFloat(v)
			if f > maxSafeInteger {
				ck.issues = append(ck.issues, issue{code: "too_big", origin: "int", limit: maxSafeInteger, incl: true, path: path,
					note: "Integers must be within the safe integer range.", message: "Too big: expected int to be <=9007199254740991"})
				return
			}
		}
	}
	switch x := v.(type) {
	case string:
		if n.format == "uri" || n.format == "url" {
			if !validURL(x) {
				ck.issues = append(ck.issues, n.worded("format", issue{code: "invalid_format", format: "url", path: path, message: "Invalid URL"}))
				return
			}
		}
		if !top {
			l := float64(len(utf16.Encode([]rune(x))))
			if n.minLength != nil && l < *n.minLength {
				ck.issues = append(ck.issues, n.worded("minLength", boundIssue("too_small", "string", *n.minLength, true, path)))
			} else if n.maxLength != nil && l > *n.maxLength {
				ck.issues = append(ck.issues, n.worded("maxLength", boundIssue("too_big", "string", *n.maxLength, true, path)))
			}
		}
	case []any:
		if !top {
			if n.minItems != nil && float64(len(x)) < *n.minItems {
				ck.issues = append(ck.issues, n.worded("minItems", boundIssue("too_small", "array", *n.minItems, true, path)))
			} else if n.maxItems != nil && float64(len(x)) > *n.maxItems {
				ck.issues = append(ck.issues, n.worded("maxItems", boundIssue("too_big", "array", *n.maxItems, true, path)))
			}
		}
		if n.items != nil {
			for i, e := range x {
				checkValue(n.items, e, appendPath(path, i), false, ck)
			}
		}
	case map[string]any:
		if n.props != nil || n.closed || len(n.reqOrder) > 0 {
			checkObject(n, x, path, nil, false, ck)
		}
	default:
		if f, ok := toFloat(v); ok && !top {
			origin := "number"
			switch {
			case n.minimum != nil && f < *n.minimum:
				ck.issues = append(ck.issues, n.worded("minimum", boundIssue("too_small", origin, *n.minimum, !n.exclMinOld, path)))
			case n.exclMin != nil && f <= *n.exclMin:
				ck.issues = append(ck.issues, n.worded("exclusiveMinimum", boundIssue("too_small", origin, *n.exclMin, false, path)))
			case n.maximum != nil && f > *n.maximum:
				ck.issues = append(ck.issues, n.worded("maximum", boundIssue("too_big", origin, *n.maximum, !n.exclMaxOld, path)))
			case n.exclMax != nil && f >= *n.exclMax:
				ck.issues = append(ck.issues, n.worded("exclusiveMaximum", boundIssue("too_big", origin, *n.exclMax, false, path)))
			}
		}
	}
}

func boundIssue(code, origin string, limit float64, incl bool, path []any) issue {
	op := ">"
	word := "Too small"
	if code == "too_big" {
		op, word = "<", "Too big"
	}
	if incl {
		op += "="
	}
	lim := strconv.FormatFloat(limit, 'f', -1, 64)
	var msg string
	switch origin {
	case "string":
		msg = fmt.Sprintf("%s: expected string to have %s%s characters", word, op, lim)
	case "array":
		msg = fmt.Sprintf("%s: expected array to have %s%s items", word, op, lim)
	default:
		msg = fmt.Sprintf("%s: expected %s to be %s%s", word, origin, op, lim)
	}
	return issue{code: code, origin: origin, limit: limit, incl: incl, path: path, message: msg}
}

func appendPath(path []any, elem any) []any {
	p := make([]any, len(path), len(path)+1)
	copy(p, path)
	return append(p, elem)
}

func keysInOrder(obj map[string]any, order []string) []string {
	if order != nil {
		var ks []string
		for _, k := range order {
			if _, ok := obj[k]; ok {
				ks = append(ks, k)
			}
		}
		return ks
	}
	ks := make([]string, 0, len(obj))
	for k := range obj {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// zodType is how zod names a JSON Schema type.
func zodType(t string) string {
	switch t {
	case "integer":
		return "number"
	}
	return t
}

// jsonTypeOf is how zod names the type of a value it received.
func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if _, ok := toFloat(v); ok {
		return "number"
	}
	return "unknown"
}

// matchType returns the first of types that v is.
func matchType(types []string, v any) (string, bool) {
	vt := jsonTypeOf(v)
	for _, t := range types {
		switch {
		case t == vt:
			return t, true
		case t == "integer" && vt == "number":
			if f, _ := toFloat(v); f == math.Trunc(f) && !math.IsInf(f, 0) {
				return t, true
			}
		}
	}
	return "", false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil || math.IsInf(f, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func jsonEqual(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

func enumMessage(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = jsText(v)
	}
	if len(values) == 1 {
		return "Invalid input: expected " + parts[0]
	}
	return "Invalid option: expected one of " + strings.Join(parts, "|")
}

// jsText is JSON.stringify of a scalar.
func jsText(v any) string {
	b, err := json.Marshal(plainJSON(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

// validURL approximates the WHATWG URL parser zod's url() uses: a scheme,
// and for the schemes with hosts, a host.
func validURL(s string) bool {
	s = strings.TrimSpace(s)
	if !uriScheme.MatchString(s) {
		return false
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss", "ftp":
		return u.Host != "" || strings.TrimLeft(u.Opaque, "/") != ""
	}
	return true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func quoteJoin(ks []string, sep string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, sep)
}

// formatIssues is Claude Code's text for a call whose input failed its
// schema, without the tool_use_error wrapper.
func formatIssues(toolName string, issues []issue) string {
	var missing, unexpected, wrong, other []string
	for _, is := range issues {
		switch {
		case is.code == "invalid_type" && is.missing:
			missing = append(missing, fmt.Sprintf("The required parameter `%s` is missing", formatPath(is.path)))
		case is.code == "unrecognized_keys":
			for _, k := range is.keys {
				unexpected = append(unexpected, fmt.Sprintf("An unexpected parameter `%s` was provided", k))
			}
		case is.code == "invalid_type":
			wrong = append(wrong, fmt.Sprintf("The parameter `%s` type is expected as `%s` but provided as `%s`", formatPath(is.path), is.expected, is.received))
		default:
			other = append(other, fmt.Sprintf("The parameter `%s` is invalid: %s", formatPath(is.path), is.message))
		}
	}
	if len(missing)+len(unexpected)+len(wrong) == 0 {
		return "InputValidationError: " + issuesJSON(issues)
	}
	parts := append(append(append(missing, unexpected...), wrong...), other...)
	word := "issue"
	if len(parts) > 1 {
		word = "issues"
	}
	return fmt.Sprintf("InputValidationError: %s failed due to the following %s:\n%s", toolName, word, strings.Join(parts, "\n"))
}

// formatPath writes a zod path as Claude Code does: todos[0].activeForm.
func formatPath(path []any) string {
	var b strings.Builder
	for i, p := range path {
		switch x := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", x)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, x)
		}
	}
	return b.String()
}

// issuesJSON is JSON.stringify(issues, null, 2) of zod's issues, their
// fields in zod's order.
func issuesJSON(issues []issue) string {
	var b strings.Builder
	b.WriteString("[")
	for i, is := range issues {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		var fields [][2]string
		add := func(k string, v any) { fields = append(fields, [2]string{k, jsonIndent(v, "    ")}) }
		switch is.code {
		case "invalid_value":
			add("code", is.code)
			add("values", is.values)
		case "invalid_format":
			add("code", is.code)
			add("format", is.format)
		case "too_small", "too_big":
			key := "minimum"
			if is.code == "too_big" {
				key = "maximum"
			}
			if is.note != "" {
				add("code", is.code)
				add(key, is.limit)
				add("note", is.note)
				add("origin", is.origin)
				add("inclusive", is.incl)
			} else {
				add("origin", is.origin)
				add("code", is.code)
				add(key, is.limit)
				add("inclusive", is.incl)
			}
		case "invalid_type":
			add("expected", is.expected)
			add("code", is.code)
		case "unrecognized_keys":
			add("code", is.code)
			add("keys", is.keys)
		default:
			add("code", "custom")
		}
		path := is.path
		if path == nil {
			path = []any{}
		}
		add("path", path)
		add("message", is.message)
		for j, f := range fields {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n    %q: %s", f[0], f[1])
		}
		b.WriteString("\n  }")
	}
	if len(issues) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]")
	return b.String()
}

// jsonIndent is JSON.stringify(v, null, 2) of a value nested at indent.
func jsonIndent(v any, indent string) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	if err := enc.Encode(plainJSON(v)); err != nil {
		return "null"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// plainJSON turns ordered schema values back into plain ones.
func plainJSON(v any) any {
	switch x := v.(type) {
	case *orderedObject:
		m := make(map[string]any, len(x.m))
		for k, e := range x.m {
			m[k] = plainJSON(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainJSON(e)
		}
		return out
	}
	return v
}

// topLevelKeys returns the keys of a JSON object text in the order sent.
func topLevelKeys(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

// quotedNumber is what Claude Code's semanticNumber takes as a number.
var quotedNumber = regexp.MustCompile(`^-?\d+(\.\d+)?$`)
