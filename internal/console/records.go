package console

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

// What the console keeps in the store (store.Board), as JSON: an Item per
// feed entry and an Ask per waiting permission request. Both are bounded:
// texts are cut, so that a call with a large input or output cannot grow a
// session's feed past MaxFeedEntries times a few kilobytes.

// Item is one entry of a session's feed.
type Item struct {
	At        time.Time `json:"at"`
	ToolUseID string    `json:"tool_use_id"`
	// Kind: decision, ask, started, result.
	Kind    string `json:"kind"`
	Tool    string `json:"tool,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Behavior, Rule, Source and Reason explain a decision.
	Behavior  string `json:"behavior,omitempty"`
	Rule      string `json:"rule,omitempty"`
	Source    string `json:"source,omitempty"`
	Reason    string `json:"reason,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	// IsError and Text describe a result; Text is its beginning.
	IsError bool   `json:"is_error,omitempty"`
	Text    string `json:"text,omitempty"`
}

// Ask is a permission request that waits for an answer.
type Ask struct {
	RequestID string         `json:"request_id"`
	ToolUseID string         `json:"tool_use_id"`
	Tool      string         `json:"tool"`
	Summary   string         `json:"summary,omitempty"`
	Input     map[string]any `json:"input,omitempty"`
	// Truncated: some strings of Input were cut to maxInputText.
	Truncated bool        `json:"truncated,omitempty"`
	Decision  Explanation `json:"decision"`
	Raised    time.Time   `json:"raised"`
}

// Explanation is a decision as CheckPermission explains it: which rule,
// from which source, why; for Bash the verdict on each simple command.
type Explanation struct {
	Behavior    string   `json:"behavior"`
	Rule        string   `json:"rule,omitempty"`
	Source      string   `json:"source,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Parts       []Part   `json:"parts,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Suggestions []string `json:"suggestions,omitempty"`
}

// Part is the decision on one simple command of a Bash call.
type Part struct {
	Command  string `json:"command"`
	Behavior string `json:"behavior"`
	Rule     string `json:"rule,omitempty"`
	Source   string `json:"source,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

const (
	// maxInputText bounds each string of an ask's input (an Edit's
	// old_string, a Write's content): enough to judge a change by.
	maxInputText = 32 << 10
	// maxItemText bounds the texts of a feed entry.
	maxItemText = 1 << 10
)

func explain(d policy.Decision) Explanation {
	x := Explanation{
		Behavior: d.Behavior.String(), Rule: d.Rule, Source: d.Source, Reason: d.Reason,
		Warnings: d.Warnings, Suggestions: d.Suggestions,
	}
	for _, p := range d.Parts {
		x.Parts = append(x.Parts, Part{Command: p.Command, Behavior: p.Behavior.String(), Rule: p.Rule, Source: p.Source, Reason: p.Reason})
	}
	return x
}

// newAsk builds the record of a request from its event.
func newAsk(toolUseID string, pr *exec.PermissionRequest, summary string, at time.Time) Ask {
	in, cut := boundInput(pr.Input)
	return Ask{
		RequestID: pr.ID, ToolUseID: toolUseID, Tool: pr.Tool, Summary: summary,
		Input: in, Truncated: cut, Decision: explain(pr.Decision), Raised: at,
	}
}

// boundInput copies an input with every string cut to maxInputText.
func boundInput(in map[string]any) (map[string]any, bool) {
	cut := false
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			if len(x) > maxInputText {
				cut = true
				return truncate(x, maxInputText)
			}
			return x
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, e := range x {
				m[k] = walk(e)
			}
			return m
		case []any:
			l := make([]any, len(x))
			for i, e := range x {
				l[i] = walk(e)
			}
			return l
		default:
			return v
		}
	}
	if in == nil {
		return nil, false
	}
	return walk(in).(map[string]any), cut
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// resultText is the beginning of a result's text blocks.
func resultText(r *tool.Result) string {
	var s string
	for _, b := range r.Content {
		if b.Type == tool.BlockText {
			s += b.Text
			if len(s) > maxItemText {
				break
			}
		}
	}
	return truncate(s, maxItemText)
}

func encode(v any) []byte {
	b, _ := json.Marshal(v) // plain structs of strings, maps from JSON: never fails
	return b
}
