// Package notebookedit implements the NotebookEdit tool: replace, insert or
// delete one cell of a Jupyter notebook, keeping everything else in the file
// as it was.
package notebookedit

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// maxFileBytes is the largest notebook NotebookEdit changes; the file is
// held in memory about twice while it is rewritten.
const maxFileBytes = 64 << 20

// New returns the NotebookEdit tool.
func New() tool.Tool { return notebookEditTool{} }

type notebookEditTool struct{}

func (notebookEditTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "NotebookEdit",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		// Auto mode's classifier sees the path and an excerpt of the change.
		Classifier: tool.ClassifierInput{Fields: []string{"notebook_path", "cell_id", "cell_type", "edit_mode"}, Excerpts: []string{"new_source"}},
		Paths:      tool.PathsWrite,
	}
}

type input struct {
	NotebookPath string `json:"notebook_path"`
	CellID       string `json:"cell_id"`
	NewSource    string `json:"new_source"`
	CellType     string `json:"cell_type"`
	EditMode     string `json:"edit_mode"`
}

func (notebookEditTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for NotebookEdit: %v", err)
	}
	if in.NotebookPath == "" {
		return nil, tool.InvalidInputf("notebook_path is empty: give the absolute path of the notebook to edit.")
	}
	if in.EditMode == "" {
		in.EditMode = "replace"
	}
	switch in.EditMode {
	case "replace", "delete":
		if in.CellID == "" {
			return nil, tool.InvalidInputf("cell_id is required for edit_mode %s: give the id of the cell, as Read shows it.", in.EditMode)
		}
	case "insert":
		// cell_type is checked when the call runs (check), after the
		// permission decision, as Claude Code does.
	default:
		return nil, tool.InvalidInputf("edit_mode %q is not one of replace, insert, delete.", in.EditMode)
	}
	if in.CellType != "" && in.CellType != "code" && in.CellType != "markdown" {
		return nil, tool.InvalidInputf("cell_type %q is not one of code, markdown.", in.CellType)
	}
	return &call{in: in}, nil
}

// check refuses what Claude Code refuses only once the call is allowed to
// run (so the permission decision comes first), in its words.
func (c *call) check() error {
	if !strings.EqualFold(filepath.Ext(c.in.NotebookPath), ".ipynb") {
		return tool.InvalidInputf("File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool.")
	}
	if c.in.EditMode == "insert" && c.in.CellType == "" {
		return tool.InvalidInputf("Cell type is required when using edit_mode=insert.")
	}
	return nil
}

type call struct {
	in input
}

// Traits are the zero value: the call must run alone and changes a file.
func (c *call) Traits() tool.Traits { return tool.Traits{} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Edit notebook " + c.in.NotebookPath}
}
