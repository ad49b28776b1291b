package conformance

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
)

// normResult is a tool_result block as oracle.py's norm_result leaves it:
// content as blocks, consecutive text blocks joined with a newline, images
// and documents by type, media type and size, paths replaced by <WS>,
// <AUX> and <HOME>, is_error false when absent, everything else dropped.
type normResult struct {
	IsError bool             `json:"is_error"`
	Blocks  []map[string]any `json:"blocks"`
}

// normalise applies norm_result to a tool_result block decoded from JSON.
func normalise(tr map[string]any, d dirs) *normResult {
	if tr == nil {
		return nil
	}
	var content []any
	switch c := tr["content"].(type) {
	case string:
		content = []any{map[string]any{"type": "text", "text": c}}
	case []any:
		content = c
	}
	var blocks []map[string]any
	for _, x := range content {
		b, _ := x.(map[string]any)
		t, _ := b["type"].(string)
		switch t {
		case "text":
			s, _ := b["text"].(string)
			blocks = append(blocks, map[string]any{"type": "text", "text": normText(s, d)})
		case "image", "document":
			src, _ := b["source"].(map[string]any)
			data, _ := src["data"].(string)
			blocks = append(blocks, map[string]any{"type": t, "media_type": src["media_type"], "bytes": float64(len(data))})
		default:
			blocks = append(blocks, map[string]any{"type": t})
		}
	}
	var merged []map[string]any
	for _, b := range blocks {
		if n := len(merged); n > 0 && b["type"] == "text" && merged[n-1]["type"] == "text" {
			merged[n-1] = map[string]any{"type": "text", "text": merged[n-1]["text"].(string) + "\n" + b["text"].(string)}
			continue
		}
		merged = append(merged, b)
	}
	if merged == nil {
		merged = []map[string]any{}
	}
	isErr, _ := tr["is_error"].(bool)
	return &normResult{IsError: isErr, Blocks: merged}
}

// normText replaces each side's directories, the resolved path first, as
// norm_text does.
func normText(s string, d dirs) string {
	for _, p := range [][2]string{{d.ws, "<WS>"}, {d.aux, "<AUX>"}, {d.home, "<HOME>"}} {
		if real, err := filepath.EvalSymlinks(p[0]); err == nil {
			s = strings.ReplaceAll(s, real, p[1])
		}
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	return s
}

// equal compares two normalised results through their JSON form, so that
// a fixture read from disk and a result built here compare alike, their
// background task ids set aside (withoutTaskIDs).
func equal(a, b *normResult) bool {
	if a == nil || b == nil {
		return false
	}
	return reflect.DeepEqual(asJSON(a.withoutTaskIDs()), asJSON(b.withoutTaskIDs()))
}

// announced finds the id of the background task a result starts (Monitor,
// Bash in the background or moved there). Both sides make it at random:
// Claude Code's b… against toold's bash_….
var announced = regexp.MustCompile(`(?:Monitor started \(task |running in background with ID: |moved to the background \(ID: )([0-9A-Za-z_]+)`)

// withoutTaskIDs is the result with each task id it announces replaced by
// <TASK>, wherever it names it; the rest stays as it is (the task's output
// file is Claude Code's path on one side and toold's handle on the other).
func (n *normResult) withoutTaskIDs() *normResult {
	out := &normResult{IsError: n.IsError}
	for _, b := range n.Blocks {
		if text, ok := b["text"].(string); ok && b["type"] == "text" {
			for _, m := range announced.FindAllStringSubmatch(text, -1) {
				text = strings.ReplaceAll(text, m[1], "<TASK>")
			}
			b = map[string]any{"type": "text", "text": text}
		}
		out.Blocks = append(out.Blocks, b)
	}
	return out
}

func asJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// text is the result as the model reads it, for messages.
func (n *normResult) text() string {
	if n == nil {
		return "(none)"
	}
	var parts []string
	for _, b := range n.Blocks {
		if b["type"] == "text" {
			parts = append(parts, b["text"].(string))
		} else {
			parts = append(parts, "["+b["type"].(string)+"]")
		}
	}
	return strings.Join(parts, "\n")
}
