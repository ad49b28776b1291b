package hooks

import (
	"encoding/json"
	"strings"
)

// The JSON of Claude Code's hook protocol that describes a tool's side of a
// call: the PostToolUse tool_response, the updatedToolOutput a hook may
// send back, the PermissionRequest permission_suggestions and the
// updatedPermissions of its answer. The engine hands over plain values;
// the shapes are written down here only.

// Response is what the engine knows of a finished call for tool_response.
type Response struct {
	// Command: the tool runs a shell command line, and its response has
	// Claude Code's Bash shape ({stdout, stderr, interrupted, isImage}).
	Command bool
	// Text is the result's text blocks, joined; Image says the first block
	// is an image.
	Text  string
	Image bool
	// Meta is the result's metadata, copied in as it is.
	Meta map[string]any
	// FilePath is the file a file tool named (nil for none).
	FilePath *string
}

// ToolResponse is the PostToolUse hooks' tool_response: a command tool's
// in Claude Code's Bash shape, other tools' text as "content", each with
// the result's metadata and, for file tools, "filePath".
func ToolResponse(r Response) json.RawMessage {
	m := make(map[string]any, len(r.Meta)+4)
	for k, v := range r.Meta {
		m[k] = v
	}
	if r.Command {
		m["stdout"], m["stderr"], m["interrupted"] = r.Text, "", false
		m["isImage"] = r.Image
	} else {
		m["content"] = r.Text
	}
	if r.FilePath != nil {
		m["filePath"] = *r.FilePath
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"content": r.Text})
	}
	return b
}

// OutputText reads a hook's updatedToolOutput when it has the tool's
// output shape: for a command tool an object with a "stdout" string (and
// optionally "stderr"); for other tools a string, an object with a
// "content" string, or text blocks. false: it does not fit, and Claude
// Code ignores it.
func OutputText(command bool, raw json.RawMessage) (string, bool) {
	if command {
		var o struct {
			Stdout *string `json:"stdout"`
			Stderr string  `json:"stderr"`
		}
		if json.Unmarshal(raw, &o) != nil || o.Stdout == nil {
			return "", false
		}
		if o.Stderr != "" {
			return strings.TrimRight(*o.Stdout, "\n") + "\n" + o.Stderr, true
		}
		return *o.Stdout, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	blocksText := func(bs []block) (string, bool) {
		var parts []string
		for _, b := range bs {
			if b.Type != "text" {
				return "", false
			}
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n"), len(parts) > 0
	}
	var bs []block
	if json.Unmarshal(raw, &bs) == nil {
		return blocksText(bs)
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil || o["content"] == nil {
		return "", false
	}
	if json.Unmarshal(o["content"], &s) == nil {
		return s, true
	}
	if json.Unmarshal(o["content"], &bs) == nil {
		return blocksText(bs)
	}
	return "", false
}

// ruleValue is one rule of an addRules permission update.
type ruleValue struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent,omitempty"`
}

// PermissionSuggestions turns rules the policy suggests ("Bash(npm test)",
// "Read") into Claude Code's permission_suggestions: one addRules update
// for the session.
func PermissionSuggestions(rules []string) []json.RawMessage {
	if len(rules) == 0 {
		return nil
	}
	vals := make([]ruleValue, 0, len(rules))
	for _, r := range rules {
		name, content := r, ""
		if i := strings.IndexByte(r, '('); i > 0 && strings.HasSuffix(r, ")") {
			name, content = r[:i], r[i+1:len(r)-1]
		}
		vals = append(vals, ruleValue{ToolName: name, RuleContent: content})
	}
	b, _ := json.Marshal(map[string]any{"type": "addRules", "rules": vals, "behavior": "allow", "destination": "session"})
	return []json.RawMessage{b}
}

// RuleUpdates are the rules a PermissionRequest answer's
// updatedPermissions add, by behaviour, in the permission rule syntax.
type RuleUpdates struct {
	Allow, Deny, Ask []string
	// Ignored are the updates that are not addRules (or do not parse):
	// toold keeps no settings files of its own to apply them to.
	Ignored []json.RawMessage
}

// Empty reports whether no rule is added.
func (u RuleUpdates) Empty() bool { return len(u.Allow)+len(u.Deny)+len(u.Ask) == 0 }

// ParseRuleUpdates reads updatedPermissions, whatever each update's
// destination.
func ParseRuleUpdates(updates []json.RawMessage) RuleUpdates {
	var out RuleUpdates
	for _, raw := range updates {
		var u struct {
			Type     string      `json:"type"`
			Behavior string      `json:"behavior"`
			Rules    []ruleValue `json:"rules"`
		}
		if json.Unmarshal(raw, &u) != nil || u.Type != "addRules" {
			out.Ignored = append(out.Ignored, raw)
			continue
		}
		for _, r := range u.Rules {
			text := r.ToolName
			if r.RuleContent != "" {
				text += "(" + r.RuleContent + ")"
			}
			switch u.Behavior {
			case "allow":
				out.Allow = append(out.Allow, text)
			case "deny":
				out.Deny = append(out.Deny, text)
			case "ask":
				out.Ask = append(out.Ask, text)
			}
		}
	}
	return out
}
