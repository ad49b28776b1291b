package notebookedit

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
)

var (
	emptyList   = json.RawMessage(`[]`)
	emptyObject = json.RawMessage(`{}`)
	null        = json.RawMessage(`null`)
)

// sourceLines splits s as nbformat stores a multi-line string: a list of
// lines, each keeping its newline.
func sourceLines(s string) []string {
	lines := []string{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// setSource replaces the cell's source, in the form (a string or a list of
// lines) it already had.
func setSource(c *object, src string) {
	if raw, ok := c.get("source"); ok && len(raw) > 0 && raw[0] == '"' {
		c.set("source", marshal(src))
		return
	}
	c.set("source", marshal(sourceLines(src)))
}

// retype makes c a cell of type t with the fields nbformat 4 requires of
// that type and none it forbids. A code cell's outputs and execution count
// are cleared: they came from a source that is gone.
func retype(c *object, t string) {
	c.set("cell_type", marshal(t))
	switch t {
	case "code":
		c.del("attachments")
		c.set("execution_count", null)
		c.set("outputs", emptyList)
	case "markdown":
		c.del("execution_count")
		c.del("outputs")
	}
}

// newCell is a cell as Jupyter writes a new one, keys sorted. id is empty
// for notebooks before 4.5, whose schema has no cell ids.
func newCell(t, id, src string) *object {
	c := &object{}
	c.set("cell_type", marshal(t))
	if id != "" {
		c.set("id", marshal(id))
	}
	c.set("metadata", emptyObject)
	c.set("source", marshal(src)) // a string, as Claude Code writes a new cell
	if t == "code" {
		retype(c, t)
	}
	return c
}

// newID returns a cell id unused in the notebook, of the form nbformat
// itself generates: 8 hexadecimal digits, within the 4.5 schema's
// [a-zA-Z0-9-_]{1,64}.
func (nb *notebook) newID() string {
	for {
		var b [4]byte
		rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if _, err := nb.find(id); err != nil {
			return id
		}
	}
}
