// Package edit implements the Edit tool: exact string replacement in a file
// the model has read.
package edit

import (
	"encoding/json"
	"fmt"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// maxFileBytes is the largest file Edit changes. The whole file is held in
// memory twice (old and new content), so this bounds one call's memory.
const maxFileBytes = 64 << 20

// New returns the Edit tool with Claude Code's read-before-write rule.
func New() tool.Tool { return NewWith(filestate.Policy{}) }

// NewWith returns the Edit tool held to policy p.
func NewWith(p filestate.Policy) tool.Tool { return editTool{policy: p} }

type editTool struct{ policy filestate.Policy }

func (e editTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "Edit",
		Description: fmt.Sprintf(description, readRule[e.policy.RequireRead]),
		InputSchema: json.RawMessage(inputSchema),
		// Auto mode's classifier sees the path and an excerpt of the change.
		Classifier:   tool.ClassifierInput{Fields: []string{"file_path"}, Excerpts: []string{"old_string", "new_string"}},
		Paths:        tool.PathsWrite,
		PathDenyText: true,
	}
}

type input struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (e editTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Edit: %v", err)
	}
	if in.FilePath == "" {
		return nil, tool.InvalidInputf("file_path is empty: give the absolute path of the file to edit.")
	}
	return &call{in: in, policy: e.policy}, nil
}

type call struct {
	in     input
	policy filestate.Policy
}

// Traits are the zero value: an edit must run alone and changes a file.
func (c *call) Traits() tool.Traits { return tool.Traits{} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Edit " + c.in.FilePath}
}
