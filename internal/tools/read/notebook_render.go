package read

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
)

const (
	// maxCellOutputBytes caps the text of one output: a cell that printed
	// a whole data set should not crowd out the rest of the notebook.
	maxCellOutputBytes = 10_000
	// maxNotebookImages caps the pictures of one read; the API takes a
	// limited number of images per request.
	maxNotebookImages = 20
)

// textMIMEs are the text forms of a rich output, best first.
var textMIMEs = []string{"text/plain", "text/markdown", "text/latex", "application/json", "text/html"}

// imageMIMEs are the pictures the API can be shown.
var imageMIMEs = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// ansi matches terminal escape sequences, which tracebacks are full of.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// nbRenderer builds the blocks of a notebook: text, broken by the images
// of outputs where they appear.
type nbRenderer struct {
	ctx       context.Context
	opts      *Options
	blocks    []tool.Block
	text      strings.Builder
	textBytes int
	images    int
	err       error
}

func (r *nbRenderer) render(path string, nb *nbFile) {
	lang := ""
	if l := nb.language(); l != "" {
		lang = ", " + l
	}
	fmt.Fprintf(&r.text, "Jupyter notebook %s: %d cells%s. Cells are named by their id (cell-N, counting from 0, for a cell without one), as NotebookEdit's cell_id takes them.\n", path, len(nb.Cells), lang)
	for i := range nb.Cells {
		if r.err = r.ctx.Err(); r.err != nil {
			return
		}
		r.cell(i, &nb.Cells[i])
	}
	r.flush()
}

func (r *nbRenderer) cell(i int, c *nbCell) {
	id := c.ID
	if id == "" {
		id = "cell-" + strconv.Itoa(i)
	}
	fmt.Fprintf(&r.text, "\n<cell id=%q type=%q", id, c.CellType)
	if c.CellType == "code" && c.ExecutionCount != nil {
		fmt.Fprintf(&r.text, " execution_count=\"%d\"", *c.ExecutionCount)
	}
	r.text.WriteString(">\n")
	r.lines(string(c.Source))
	for _, o := range c.Outputs {
		r.output(&o)
	}
	r.text.WriteString("</cell>\n")
}

// lines writes s ending in exactly one newline (none for an empty s).
func (r *nbRenderer) lines(s string) {
	if s == "" {
		return
	}
	r.text.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		r.text.WriteByte('\n')
	}
}

func (r *nbRenderer) output(o *nbOutput) {
	switch o.OutputType {
	case "stream":
		name := o.Name
		if name == "" {
			name = "stdout"
		}
		fmt.Fprintf(&r.text, "<output type=\"stream\" name=%q>\n", name)
		r.lines(capOutput(string(o.Text)))
	case "error":
		fmt.Fprintf(&r.text, "<output type=\"error\" ename=%q>\n", o.EName)
		tb := strings.Join(o.Traceback, "\n")
		if tb == "" {
			tb = o.EName + ": " + o.EValue
		}
		r.lines(capOutput(ansi.ReplaceAllString(tb, "")))
	case "execute_result", "display_data":
		fmt.Fprintf(&r.text, "<output type=%q>\n", o.OutputType)
		r.rich(o.Data)
	default:
		fmt.Fprintf(&r.text, "<output type=%q>\n", o.OutputType)
	}
	r.text.WriteString("</output>\n")
}

// rich writes a MIME bundle: its picture when it has one the API can be
// shown, and otherwise its best text form.
func (r *nbRenderer) rich(data map[string]json.RawMessage) {
	for _, mime := range imageMIMEs {
		if raw, ok := data[mime]; ok && r.image(mime, raw) {
			return
		}
	}
	for _, mime := range textMIMEs {
		raw, ok := data[mime]
		if !ok {
			continue
		}
		var s multiline
		if mime == "application/json" {
			s = multiline(raw)
		} else if json.Unmarshal(raw, &s) != nil {
			continue
		}
		if mime != "text/plain" {
			fmt.Fprintf(&r.text, "[%s]\n", mime)
		}
		r.lines(capOutput(string(s)))
		return
	}
	if len(data) > 0 {
		fmt.Fprintf(&r.text, "[output of type %s, not shown]\n", strings.Join(slices.Sorted(maps.Keys(data)), ", "))
	}
}

// image adds the picture of an output as an image block, scaled down as a
// file would be. It returns false, having written why, when the picture
// cannot be shown and its text form should stand in.
func (r *nbRenderer) image(mime string, raw json.RawMessage) bool {
	if r.images == maxNotebookImages {
		fmt.Fprintf(&r.text, "[%s output not shown: one read returns at most %d images]\n", mime, maxNotebookImages)
		return false
	}
	var enc multiline
	if json.Unmarshal(raw, &enc) != nil {
		return false
	}
	data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(enc)), ""))
	mediaType := imageType(data)
	if err != nil || mediaType == "" {
		fmt.Fprintf(&r.text, "[%s output not shown: its data is not a valid image]\n", mime)
		return false
	}
	img, err := fitImage(r.ctx, data, mediaType, r.opts)
	if err != nil {
		if r.ctx.Err() != nil {
			r.err = err
		}
		fmt.Fprintf(&r.text, "[%s output not shown: %v]\n", mime, err)
		return false
	}
	r.flush()
	r.blocks = append(r.blocks, img.block())
	r.images++
	if img.changed() {
		r.text.WriteString(img.note() + "\n")
	}
	return true
}

// flush ends the current text block.
func (r *nbRenderer) flush() {
	if r.text.Len() == 0 {
		return
	}
	r.textBytes += r.text.Len()
	r.blocks = append(r.blocks, tool.Block{Type: tool.BlockText, Text: r.text.String()})
	r.text.Reset()
}

// capOutput cuts an output's text past maxCellOutputBytes, on a character
// boundary, saying how much was left out.
func capOutput(s string) string {
	if len(s) <= maxCellOutputBytes {
		return s
	}
	cut := maxCellOutputBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n... [output truncated: %d more bytes]", s[:cut], len(s)-cut)
}
