package read

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// nbFile is the part of an nbformat 4 notebook that Read shows.
type nbFile struct {
	NBFormat int      `json:"nbformat"`
	Cells    []nbCell `json:"cells"`
	Metadata struct {
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
		Kernelspec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
	} `json:"metadata"`
}

type nbCell struct {
	ID             string     `json:"id"`
	HasID          bool       `json:"-"`
	CellType       string     `json:"cell_type"`
	Source         multiline  `json:"source"`
	ExecutionCount *int       `json:"execution_count"`
	Outputs        []nbOutput `json:"outputs"`
}

type nbOutput struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"` // stream: stdout or stderr
	Text       multiline                  `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	EName      string                     `json:"ename"`
	EValue     string                     `json:"evalue"`
	Traceback  []string                   `json:"traceback"`
}

// multiline is nbformat's multi-line string: one string, or a list of
// lines to be joined as they are.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return errors.New("a multi-line string must be a string or a list of strings")
	}
	*m = multiline(strings.Join(lines, ""))
	return nil
}

// language is the notebook's programming language, when it says.
func (nb *nbFile) language() string {
	if l := nb.Metadata.LanguageInfo.Name; l != "" {
		return l
	}
	return nb.Metadata.Kernelspec.Language
}

func (c *nbCell) UnmarshalJSON(b []byte) error {
	type plain nbCell
	var p struct {
		plain
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = nbCell(p.plain)
	if p.ID != nil {
		c.ID, c.HasID = *p.ID, true
	}
	return nil
}

// notebook returns every cell of the notebook with its outputs, as Claude
// Code lays them out; offset and limit do not apply.
func (c *call) notebook(ctx context.Context, t filestate.Target, fi fs.FileInfo, br *bufio.Reader) (*tool.Result, error) {
	path := t.Given.Abs
	if fi.Size() > c.opts.MaxNotebookBytes {
		return nil, tool.Failf("Notebook file exceeds the maximum size this tool can read (%s). Use Bash with jq to read specific portions:\n  cat <notebook_path> | jq '.cells[:20]' # First 20 cells", formatSize(c.opts.MaxNotebookBytes))
	}
	data, err := io.ReadAll(io.LimitReader(br, c.opts.MaxNotebookBytes+1))
	if err != nil {
		return nil, filestate.AccessError(path, err)
	}
	var nb nbFile
	if err := json.Unmarshal(data, &nb); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, tool.Failf("Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): %v", err)
		}
		return nil, tool.Failf("%s", notebookInvalid)
	}
	if nb.Cells == nil {
		return nil, tool.Failf("%s", notebookInvalid)
	}
	return &tool.Result{Content: renderNotebook(&nb)}, nil
}

const notebookInvalid = `Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects, each with a string or string-array "source").`

// shellQuote quotes a path for a command the model may copy.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
