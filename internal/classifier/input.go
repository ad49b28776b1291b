package classifier

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Bounds of what the classifier is sent, so that a request stays small
// whatever the call carries (a Write of megabytes).
const (
	// maxField bounds a passed field (a command, a path, a URL).
	maxField = 8 << 10
	// maxExcerpt bounds the excerpt of a change (Write's content).
	maxExcerpt = 2 << 10
	// redactSlack is how much past a cut is redacted with it, so that a
	// secret straddling the cut is still matched whole before the cut.
	redactSlack = 1 << 10
	// maxDefaultFields bounds the keys passed of a tool that declares
	// nothing (an MCP tool's input).
	maxDefaultFields = 32
	// maxReason bounds the classifier's reason.
	maxReason = 2 << 10
)

// request is what the classifier is asked about the call.
func (k *Classifier) request(c *exec.Call, asked policy.Decision) *tooldv1.ClassifyRequest {
	s := c.Session
	in := k.input(c.Def.Classifier, c.Args, s.Cwd)
	st, err := structpb.NewStruct(in)
	if err != nil {
		// Values come from decoded JSON, which structpb takes; keep the
		// request well-formed all the same.
		st = &structpb.Struct{}
	}
	req := &tooldv1.ClassifyRequest{
		SessionId: s.ID, Tenant: s.Tenant, ToolUseId: c.ToolUseID, ToolName: c.ToolName(),
		Input: st, Cwd: s.Cwd,
		AskReason: k.opts.Redact(bounded(asked.Reason, maxField)), AskSource: asked.Source,
		RecentDecisions: k.recent.Of(s.ID),
	}
	for _, w := range asked.Warnings {
		req.Warnings = append(req.Warnings, k.opts.Redact(bounded(w, maxField)))
	}
	return req
}

// input applies the tool's declaration to the call's arguments.
func (k *Classifier) input(decl tool.ClassifierInput, args map[string]any, cwd string) map[string]any {
	out := map[string]any{}
	fields := decl.Fields
	if len(fields) == 0 && len(decl.Excerpts) == 0 {
		fields = slices.Sorted(maps.Keys(args))
		if len(fields) > maxDefaultFields {
			fields = fields[:maxDefaultFields]
		}
	}
	for _, f := range fields {
		if v, ok := args[f]; ok {
			out[f] = k.value(v, maxField)
		}
	}
	for _, f := range decl.Excerpts {
		v, ok := args[f]
		if !ok {
			continue
		}
		text, isString := v.(string)
		if !isString {
			b, _ := json.Marshal(v)
			text = string(b)
		}
		out[f] = k.text(text, maxExcerpt)
	}
	if decl.Cwd {
		out["cwd"] = k.opts.Redact(cwd)
	}
	return out
}

// value passes a JSON value with every string redacted and cut; objects
// and arrays nested in a field are passed as their (cut) JSON text.
func (k *Classifier) value(v any, limit int) any {
	switch x := v.(type) {
	case string:
		return k.text(x, limit)
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return k.text(string(b), limit)
	}
	return v
}

// text redacts s, then cuts it to limit bytes (at a rune boundary), noting
// how much was cut. Only a bounded prefix is redacted: the rest is cut
// anyway.
func (k *Classifier) text(s string, limit int) string {
	if len(s) <= limit {
		return k.opts.Redact(s)
	}
	total := len(s)
	r := k.opts.Redact(bounded(s, limit+redactSlack))
	return bounded(r, limit) + "… [" + itoa(total-limit) + " more bytes]"
}

// bounded cuts s to at most n bytes without splitting a rune.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.ToValidUTF8(s[:n], "")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
