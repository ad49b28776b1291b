// Package multiedit implements the MultiEdit tool: several exact-string
// replacements in one file, applied in order and written all together or
// not at all.
package multiedit

import (
	"encoding/json"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// maxFileBytes is the largest file MultiEdit changes, as for Edit: the
// content is held in memory once per edit in flight.
const maxFileBytes = 64 << 20

// New returns the MultiEdit tool with Claude Code's read-before-write rule
// (that of Edit).
func New() tool.Tool { return NewWith(filestate.Policy{}) }

// NewWith returns the MultiEdit tool held to policy p.
func NewWith(p filestate.Policy) tool.Tool { return multiEditTool{policy: p} }

type multiEditTool struct{ policy filestate.Policy }

func (multiEditTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "MultiEdit",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		// Auto mode's classifier sees the path and an excerpt of the change.
		Classifier:   tool.ClassifierInput{Fields: []string{"file_path"}, Excerpts: []string{"edits"}},
		Paths:        tool.PathsWrite,
		PathDenyText: true,
	}
}

type input struct {
	FilePath string `json:"file_path"`
	Edits    []edit `json:"edits"`
}

type edit struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (m multiEditTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for MultiEdit: %v", err)
	}
	if in.FilePath == "" {
		return nil, tool.InvalidInputf("file_path is empty: give the absolute path of the file to edit.")
	}
	if len(in.Edits) == 0 {
		return nil, tool.InvalidInputf("edits is empty: give at least one replacement.")
	}
	for i, e := range in.Edits {
		if e.OldString == e.NewString {
			return nil, tool.InvalidInputf("Edit %d of %d: No changes to make: old_string and new_string are exactly the same.", i+1, len(in.Edits))
		}
		if i > 0 && e.OldString == "" {
			return nil, tool.InvalidInputf("Edit %d of %d has an empty old_string: only the first edit may be empty, to create the file; later edits must name the text they replace.", i+1, len(in.Edits))
		}
	}
	return &call{in: in, policy: m.policy}, nil
}

type call struct {
	in     input
	policy filestate.Policy
}

// Traits are the zero value: the call must run alone and changes a file.
func (c *call) Traits() tool.Traits { return tool.Traits{} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Edit " + c.in.FilePath}
}
