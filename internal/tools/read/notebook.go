package read

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// notebook returns every cell of the notebook with its outputs: text
// blocks, and an image block for each picture an output holds. A file
// named .ipynb that is not an nbformat 4 notebook is shown as text, so
// that a notebook broken by a merge can still be read and mended.
func (c *call) notebook(ctx context.Context, t filestate.Target, fi fs.FileInfo, br *bufio.Reader) (*tool.Result, error) {
	path := t.Given.Abs
	if fi.Size() > c.opts.MaxNotebookBytes {
		return nil, tool.Failf("%s is a notebook of %s; notebooks larger than %s are not read. Read parts of it through Bash with jq, for example: jq '.cells[:20]' %s",
			path, tool.HumanBytes(fi.Size()), tool.HumanBytes(c.opts.MaxNotebookBytes), shellQuote(path))
	}
	data, err := io.ReadAll(io.LimitReader(br, c.opts.MaxNotebookBytes+1))
	if err != nil {
		return nil, filestate.AccessError(path, err)
	}
	var nb nbFile
	if err := json.Unmarshal(data, &nb); err != nil {
		return c.notebookAsText(ctx, path, data, fmt.Sprintf("its JSON does not parse (%v)", err))
	}
	if nb.NBFormat != 4 {
		return c.notebookAsText(ctx, path, data, fmt.Sprintf("it is nbformat %d, and only nbformat 4 notebooks are shown cell by cell", nb.NBFormat))
	}
	r := nbRenderer{ctx: ctx, opts: c.opts}
	r.render(path, &nb)
	if r.err != nil {
		return nil, r.err
	}
	if r.textBytes > c.opts.MaxOutputBytes {
		return nil, tool.Failf("%s is a notebook of %d cells whose content comes to %s, more than one Read returns (%s). Read parts of it through Bash with jq, for example: jq '.cells[:20]' %s",
			path, len(nb.Cells), tool.HumanBytes(int64(r.textBytes)), tool.HumanBytes(int64(c.opts.MaxOutputBytes)), shellQuote(path))
	}
	return &tool.Result{Content: r.blocks}, nil
}

// notebookAsText shows a file that should have been a notebook as
// numbered lines, followed by why.
func (c *call) notebookAsText(ctx context.Context, path string, data []byte, why string) (*tool.Result, error) {
	head := data[:min(len(data), sniffLen)]
	if err := checkText(path, head, len(head) == len(data)); err != nil {
		return nil, err
	}
	res, err := c.text(ctx, bufio.NewReader(bytes.NewReader(data)))
	if err != nil {
		return nil, filestate.AccessError(path, err)
	}
	note := fmt.Sprintf("\n\n[%s cannot be shown as a notebook: %s. It is shown as text.]", path, why)
	last := &res.Content[len(res.Content)-1]
	last.Text += note
	return res, nil
}

// shellQuote quotes a path for a command the model may copy.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
