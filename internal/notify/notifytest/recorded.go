// Package notifytest reads test/conformance/recorded_notifications.json,
// the notifications Claude Code 2.1.332 put into the conversation in the
// recorded cases, for the tests that hold toold's to them.
package notifytest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/toold/toold/internal/notify"
)

// Recording is the file.
type Recording struct {
	ClaudeCodeVersion string `json:"claude_code_version"`
	Cases             []Case `json:"cases"`
}

// Case is one recorded case.
type Case struct {
	Case     string    `json:"case"`
	Calls    []Call    `json:"calls"`
	Messages []Message `json:"messages"`
}

// Call is a tool_use block and the text of its tool_result.
type Call struct {
	ToolUseID string         `json:"tool_use_id"`
	Tool      string         `json:"tool"`
	Input     map[string]any `json:"input"`
	Result    string         `json:"result"`
	IsError   bool           `json:"is_error"`
}

// Message is a message Claude Code put into the conversation that no tool
// call returned: role system between tool calls, user once its turn had
// ended; After is the index of the assistant message before it.
type Message struct {
	Role  string `json:"role"`
	After int    `json:"after"`
	Text  string `json:"text"`
}

// Load reads the recording.
func Load(t testing.TB) *Recording {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(here), "../../../test/conformance/recorded_notifications.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Recording
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// Case returns the recorded case of that id.
func (r *Recording) Case(t testing.TB, id string) *Case {
	t.Helper()
	for i := range r.Cases {
		if r.Cases[i].Case == id {
			return &r.Cases[i]
		}
	}
	t.Fatalf("no recorded case %s", id)
	return nil
}

// Elements are the <task-notification> elements of the case's messages,
// in order, their framing (the preamble, the idle turn's
// <system-reminder>) taken off.
func (c *Case) Elements() []string {
	var out []string
	for _, m := range c.Messages {
		text := strings.TrimSuffix(m.Text, "\n")
		text = strings.TrimPrefix(text, "<system-reminder>\n")
		text = strings.TrimSuffix(text, "\n</system-reminder>")
		for _, part := range strings.Split(text, notify.Preamble) {
			if part = strings.TrimSuffix(part, "\n\n"); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// CallsOf returns the case's calls of the tool.
func (c *Case) CallsOf(tool string) []Call {
	var out []Call
	for _, cl := range c.Calls {
		if cl.Tool == tool {
			out = append(out, cl)
		}
	}
	return out
}

var (
	taskID     = regexp.MustCompile(`\b(b[0-9a-z]{8}|bash_[0-9a-f]{12})\b`)
	outputFile = regexp.MustCompile(`<output-file>[^<]*</output-file>|/tmp/claude-\d+/\S+?/tasks/<TASK>\.output|toold-task://<TASK>\.output`)
)

// Normal makes a Claude Code text and a toold text comparable: task ids
// (random on both sides) become <TASK>, and a task's output file (Claude
// Code's path, toold's handle) <OUTPUT>.
func Normal(s string) string {
	s = taskID.ReplaceAllString(s, "<TASK>")
	return outputFile.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "<output-file>") {
			return "<output-file><OUTPUT></output-file>"
		}
		return "<OUTPUT>"
	})
}

// TaskOf returns the task id an element names.
func TaskOf(element string) string {
	m := regexp.MustCompile(`<task-id>([^<]*)</task-id>`).FindStringSubmatch(element)
	if m == nil {
		return ""
	}
	return m[1]
}
