package notebookedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// notebook is a parsed .ipynb file: its top-level object, its cells, and
// how the file was laid out, so that it is written back the same way.
type notebook struct {
	top   *object
	cells []*object
	minor int // nbformat_minor

	indent    string // "" with pretty: newlines only
	pretty    bool   // the file was indented (Jupyter writes one space)
	finalNewl bool
}

// parseNotebook reads an nbformat 4 notebook. A file that is not one is a
// failure the model must see: this tool will not guess at other formats.
func parseNotebook(path string, data []byte) (*notebook, error) {
	top, err := decodeObject(data)
	if err != nil {
		return nil, tool.Failf("%s is not a valid notebook: its JSON does not parse (%v).", path, err)
	}
	nb := &notebook{top: top}
	var major int
	if raw, ok := top.get("nbformat"); !ok || json.Unmarshal(raw, &major) != nil {
		return nil, tool.Failf("%s is not a valid notebook: it has no nbformat version.", path)
	}
	if major != 4 {
		return nil, tool.Failf("%s is an nbformat %d notebook; NotebookEdit edits nbformat 4 notebooks only. Convert it first (for example with jupyter nbconvert --to notebook through Bash).", path, major)
	}
	if raw, ok := top.get("nbformat_minor"); ok {
		json.Unmarshal(raw, &nb.minor)
	}
	raw, ok := top.get("cells")
	var cells []json.RawMessage
	if !ok || json.Unmarshal(raw, &cells) != nil {
		return nil, tool.Failf("%s is not a valid notebook: it has no cells list.", path)
	}
	for i, c := range cells {
		o, err := decodeObject(c)
		if err != nil {
			return nil, tool.Failf("%s is not a valid notebook: cell %d is not a JSON object.", path, i)
		}
		nb.cells = append(nb.cells, o)
	}
	nb.layout(data)
	return nb, nil
}

// layout notes the indentation of the file's second line and whether the
// file ends in a newline.
func (nb *notebook) layout(data []byte) {
	nb.finalNewl = bytes.HasSuffix(data, []byte("\n"))
	body := bytes.TrimRight(data, " \t\r\n")
	i := bytes.IndexByte(body, '\n')
	if i < 0 {
		return
	}
	nb.pretty = true
	rest := body[i+1:]
	n := len(rest) - len(bytes.TrimLeft(rest, " \t"))
	nb.indent = string(rest[:n])
}

// encode writes the notebook back in the layout it was read in.
func (nb *notebook) encode() ([]byte, error) {
	cells := []byte{'['}
	for i, c := range nb.cells {
		if i > 0 {
			cells = append(cells, ',')
		}
		cells = c.appendJSON(cells)
	}
	cells = append(cells, ']')
	nb.top.set("cells", cells)

	var compact bytes.Buffer
	if err := json.Compact(&compact, nb.top.appendJSON(nil)); err != nil {
		return nil, fmt.Errorf("rewriting the notebook: %w", err)
	}
	out := compact.Bytes()
	if nb.pretty {
		var ind bytes.Buffer
		if err := json.Indent(&ind, out, "", nb.indent); err != nil {
			return nil, fmt.Errorf("rewriting the notebook: %w", err)
		}
		out = ind.Bytes()
	}
	if nb.finalNewl {
		out = append(out, '\n')
	}
	return out, nil
}

// find returns the index of the cell named id: by its id field, or, when
// no cell has that id, "cell-N" as the N-th cell (notebooks before 4.5
// have no ids, and Read names their cells so).
func (nb *notebook) find(id string) (int, error) {
	for i, c := range nb.cells {
		if c.string("id") == id {
			return i, nil
		}
	}
	if rest, ok := strings.CutPrefix(id, "cell-"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n < len(nb.cells) && strconv.Itoa(n) == rest {
			return n, nil
		}
	}
	return 0, tool.Failf("Cell with ID %q not found in notebook.", id)
}

// name is how results refer to cell i: its id, or cell-N without one.
func (nb *notebook) name(i int) string {
	if id := nb.cells[i].string("id"); id != "" {
		return id
	}
	return "cell-" + strconv.Itoa(i)
}
