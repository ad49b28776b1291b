package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// output is the JSON a hook may print on stdout
// (https://code.claude.com/docs/en/hooks "JSON output").
type output struct {
	Continue       *bool     `json:"continue"`
	StopReason     string    `json:"stopReason"`
	SuppressOutput bool      `json:"suppressOutput"`
	SystemMessage  string    `json:"systemMessage"`
	Decision       string    `json:"decision"`
	Reason         string    `json:"reason"`
	Specific       *specific `json:"hookSpecificOutput"`
}

// specific is "hookSpecificOutput"; each event reads its own fields.
type specific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	Decision                 *permDecision   `json:"decision"`
	UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput"`
	UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput"`
	// Retry (PermissionDenied): the model may make the denied call again.
	Retry bool `json:"retry"`
}

// permDecision is PermissionRequest's hookSpecificOutput.decision.
type permDecision struct {
	Behavior           string            `json:"behavior"`
	UpdatedInput       json.RawMessage   `json:"updatedInput"`
	UpdatedPermissions []json.RawMessage `json:"updatedPermissions"`
	Message            string            `json:"message"`
	Interrupt          bool              `json:"interrupt"`
}

// parseStdout reads a hook's stdout as Claude Code does: text whose first
// non-space character is '{' and that is valid JSON is the hook's JSON
// output; anything else (arrays, broken JSON, plain words) is plain text.
// A JSON object that does not fit the output schema is an error: the
// caller treats the hook as failed.
func parseStdout(stdout []byte, ev Event) (*output, error) {
	t := bytes.TrimSpace(stdout)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, nil
	}
	var out output
	if err := json.Unmarshal(t, &out); err != nil {
		return nil, fmt.Errorf("the hook's JSON output does not fit the hooks schema: %v", err)
	}
	if err := out.validate(ev); err != nil {
		return nil, fmt.Errorf("the hook's JSON output does not fit the hooks schema: %v", err)
	}
	return &out, nil
}

func (o *output) validate(ev Event) error {
	switch o.Decision {
	case "", "block", "approve":
	default:
		return fmt.Errorf("decision %q is not \"block\" or \"approve\"", o.Decision)
	}
	s := o.Specific
	if s == nil {
		return nil
	}
	if s.HookEventName != "" && s.HookEventName != string(ev) {
		return fmt.Errorf("hookSpecificOutput.hookEventName %q does not name the event %s", s.HookEventName, ev)
	}
	switch s.PermissionDecision {
	case "", "allow", "deny", "ask", "defer":
	default:
		return fmt.Errorf("hookSpecificOutput.permissionDecision %q is not allow, deny, ask or defer", s.PermissionDecision)
	}
	if err := checkObject("hookSpecificOutput.updatedInput", s.UpdatedInput); err != nil {
		return err
	}
	if d := s.Decision; d != nil {
		switch d.Behavior {
		case "allow", "deny":
		default:
			return fmt.Errorf("hookSpecificOutput.decision.behavior %q is not allow or deny", d.Behavior)
		}
		if err := checkObject("hookSpecificOutput.decision.updatedInput", d.UpdatedInput); err != nil {
			return err
		}
		for i, p := range d.UpdatedPermissions {
			if err := checkObject(fmt.Sprintf("hookSpecificOutput.decision.updatedPermissions[%d]", i), p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkObject accepts an absent value, null, or a JSON object.
func checkObject(name string, raw json.RawMessage) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" || t[0] == '{' {
		return nil
	}
	return fmt.Errorf("%s must be an object", name)
}

// present reports whether an optional JSON value was given (not absent,
// not null).
func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && string(t) != "null"
}

// maxTextChars caps each text a hook hands on (additionalContext,
// systemMessage, reasons, plain stdout), as Claude Code caps them at
// 10,000 characters. Claude Code saves the rest to a file the model may
// read; toold has no such file to offer, so the rest is cut and the cut
// said.
const maxTextChars = 10_000

func capText(s string) string {
	if utf8.RuneCountInString(s) <= maxTextChars {
		return s
	}
	n, i := 0, 0
	for i = range s {
		if n == maxTextChars {
			break
		}
		n++
	}
	rest := utf8.RuneCountInString(s[i:])
	return s[:i] + fmt.Sprintf("\n… [hook output truncated: %d more characters]", rest)
}
