package read

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// Claude Code's bounds on a notebook's outputs: one output's text is cut
// past maxOutputChars characters; a cell whose outputs hold more than
// maxCellOutputChars characters (text and image data) has them replaced
// by a hint to read them with jq.
const (
	maxOutputChars     = 30000
	maxCellOutputChars = 10000
)

// nbOut is one output as Claude Code keeps it: a text, an image, or
// nothing (an output of an unknown type).
type nbOut struct {
	known     bool
	text      string
	imageData string // base64, whitespace removed
	imageType string
}

// renderNotebook lays the cells out as Claude Code does: each cell is
// <cell id="ID">[<cell_type>T</cell_type>][<language>L</language>]SOURCE</cell id="ID">,
// each output's text follows on a new line and its image as an image
// block, and adjacent texts are joined with a newline.
func renderNotebook(nb *nbFile) []tool.Block {
	lang := nb.Metadata.LanguageInfo.Name
	if lang == "" {
		lang = "python"
	}
	var blocks []tool.Block
	add := func(b tool.Block) {
		if n := len(blocks); n > 0 && b.Type == tool.BlockText && blocks[n-1].Type == tool.BlockText {
			blocks[n-1].Text += "\n" + b.Text
			return
		}
		blocks = append(blocks, b)
	}
	for i := range nb.Cells {
		c := &nb.Cells[i]
		id := c.ID
		if !c.HasID {
			id = fmt.Sprintf("cell-%d", i)
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, `<cell id="%s">`, id)
		if c.CellType != "code" {
			fmt.Fprintf(&sb, "<cell_type>%s</cell_type>", c.CellType)
		} else if lang != "python" {
			fmt.Fprintf(&sb, "<language>%s</language>", lang)
		}
		fmt.Fprintf(&sb, `%s</cell id="%s">`, c.Source, id)
		add(tool.Block{Type: tool.BlockText, Text: sb.String()})
		if c.CellType != "code" || len(c.Outputs) == 0 {
			continue
		}
		outs := make([]nbOut, len(c.Outputs))
		total := 0
		for j := range c.Outputs {
			outs[j] = convertOutput(&c.Outputs[j])
			total += len([]rune(outs[j].text)) + len(outs[j].imageData)
		}
		if total > maxCellOutputChars {
			outs = []nbOut{{known: true, text: fmt.Sprintf("Outputs are too large to include. Use Bash with: cat <notebook_path> | jq '.cells[%d].outputs'", i)}}
		}
		unknown := false
		for _, o := range outs {
			if !o.known {
				unknown = true
				continue
			}
			if o.text != "" {
				add(tool.Block{Type: tool.BlockText, Text: "\n" + o.text})
			}
			if o.imageData != "" {
				data, err := base64.StdEncoding.DecodeString(o.imageData)
				if err == nil {
					add(tool.Block{Type: tool.BlockImage, MediaType: o.imageType, Data: data})
				}
			}
		}
		if unknown {
			add(tool.Block{Type: tool.BlockText, Text: "\nOutputs of an unknown type are not shown."})
		}
	}
	return blocks
}

func convertOutput(o *nbOutput) nbOut {
	switch o.OutputType {
	case "stream":
		return nbOut{known: true, text: capText(string(o.Text))}
	case "execute_result", "display_data":
		out := nbOut{known: true}
		var plain multiline
		if raw, ok := o.Data["text/plain"]; ok && json.Unmarshal(raw, &plain) == nil {
			out.text = capText(string(plain))
		}
		for _, mime := range []string{"image/png", "image/jpeg"} {
			raw, ok := o.Data[mime]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) != nil {
				continue
			}
			s = strings.Join(strings.Fields(s), "")
			if _, err := base64.StdEncoding.DecodeString(s); err == nil {
				out.imageData, out.imageType = s, mime
			}
			break
		}
		return out
	case "error":
		lines := append([]string{o.EName + ": " + o.EValue}, o.Traceback...)
		return nbOut{known: true, text: capText(strings.Join(lines, "\n"))}
	}
	return nbOut{}
}

// capText cuts an output's text past maxOutputChars characters, saying
// how many lines were left out, as Claude Code does.
func capText(s string) string {
	if strings.HasPrefix(strings.ToLower(s), "data:image/") && strings.Contains(s[:min(len(s), 64)], ";base64,") {
		return s
	}
	r := []rune(s)
	if len(r) <= maxOutputChars {
		return s
	}
	head := string(r[:maxOutputChars])
	rest := string(r[maxOutputChars:])
	return fmt.Sprintf("%s\n\n... [%d lines truncated] ...", head, strings.Count(rest, "\n")+1)
}
