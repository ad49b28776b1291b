package read

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/notebookedit"
)

// nb builds an nbformat 4 notebook of the given cells.
func nb(minor int, cells ...map[string]any) string {
	doc := map[string]any{
		"nbformat": 4, "nbformat_minor": minor, "cells": cells,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"name": "python3", "language": "python"},
			"language_info": map[string]any{"name": "python"},
		},
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func codeCell(id string, count any, src any, outputs ...map[string]any) map[string]any {
	c := map[string]any{"cell_type": "code", "metadata": map[string]any{}, "source": src,
		"execution_count": count, "outputs": append([]map[string]any{}, outputs...)}
	if id != "" {
		c["id"] = id
	}
	return c
}

func mdCell(id string, src any) map[string]any {
	c := map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": src}
	if id != "" {
		c["id"] = id
	}
	return c
}

func stream(name string, text any) map[string]any {
	return map[string]any{"output_type": "stream", "name": name, "text": text}
}

func rich(kind string, data map[string]any) map[string]any {
	return map[string]any{"output_type": kind, "data": data, "metadata": map[string]any{}}
}

func readNotebook(t *testing.T, opts Options, content string) (*tool.Result, string, *tool.Env, error) {
	t.Helper()
	env, st, _ := tooltest.Env(t)
	p := put(t, env.Cwd, "analysis.ipynb", content)
	res, err := tooltest.Run(t, New(opts), env, map[string]any{"file_path": p})
	if err == nil {
		assertStamp(t, st, p)
	}
	return res, p, env, err
}

func TestReadNotebook(t *testing.T) {
	plot := encodePNG(t, halves(40, 20))
	content := nb(5,
		mdCell("intro", []string{"# Analysis\n", "Some *text*."}),
		codeCell("c1", 3, []string{"x = 6 * 7\n", "print('hello')\n", "x"},
			stream("stdout", []string{"hello\n"}),
			rich("execute_result", map[string]any{"text/plain": []string{"42"}, "text/html": "<b>42</b>"}),
		),
		codeCell("plot", 4, "plt.plot(xs)",
			rich("display_data", map[string]any{
				"image/png":  base64.StdEncoding.EncodeToString(plot)[:30] + "\n" + base64.StdEncoding.EncodeToString(plot)[30:],
				"text/plain": "<Figure size 640x480 with 1 Axes>",
			}),
			stream("stderr", "a warning\n"),
		),
		codeCell("err", 5, "1/0", map[string]any{
			"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
			"traceback": []string{"\x1b[0;31m---------------------------------------------------------------------------\x1b[0m", "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"},
		}),
		codeCell("todo", nil, "", rich("display_data", map[string]any{"application/vnd.jupyter.widget-view+json": map[string]any{"model_id": "x"}})),
		map[string]any{"cell_type": "raw", "id": "r1", "metadata": map[string]any{}, "source": "raw *text*"},
	)
	res, p, _, err := readNotebook(t, Options{}, content)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(res.Content) != 3 || res.Content[0].Type != tool.BlockText || res.Content[1].Type != tool.BlockImage || res.Content[2].Type != tool.BlockText {
		t.Fatalf("content = %+v, want text, the plot's image, text", res.Content)
	}
	if img := res.Content[1]; img.MediaType != "image/png" || string(img.Data) != string(plot) {
		t.Fatalf("image %s of %d bytes, want the plot's %d bytes of PNG", img.MediaType, len(img.Data), len(plot))
	}
	before := `Jupyter notebook ` + p + `: 6 cells, python. Cells are named by their id (cell-N, counting from 0, for a cell without one), as NotebookEdit's cell_id takes them.

<cell id="intro" type="markdown">
# Analysis
Some *text*.
</cell>

<cell id="c1" type="code" execution_count="3">
x = 6 * 7
print('hello')
x
<output type="stream" name="stdout">
hello
</output>
<output type="execute_result">
42
</output>
</cell>

<cell id="plot" type="code" execution_count="4">
plt.plot(xs)
<output type="display_data">
`
	after := `</output>
<output type="stream" name="stderr">
a warning
</output>
</cell>

<cell id="err" type="code" execution_count="5">
1/0
<output type="error" ename="ZeroDivisionError">
---------------------------------------------------------------------------
ZeroDivisionError: division by zero
</output>
</cell>

<cell id="todo" type="code">
<output type="display_data">
[output of type application/vnd.jupyter.widget-view+json, not shown]
</output>
</cell>

<cell id="r1" type="raw">
raw *text*
</cell>
`
	if got := res.Content[0].Text; got != before {
		t.Fatalf("text before the image:\n%s\nwant:\n%s", got, before)
	}
	if got := res.Content[2].Text; got != after {
		t.Fatalf("text after the image:\n%s\nwant:\n%s", got, after)
	}
}

// A notebook without cell ids (before nbformat 4.5) names its cells
// cell-N, and NotebookEdit finds them by those names.
func TestReadNotebookCellNamesMatchNotebookEdit(t *testing.T) {
	content := nb(4, codeCell("", 1, "a = 1"), mdCell("", "note"), codeCell("", 2, "b = 2"))
	res, p, env, err := readNotebook(t, Options{}, content)
	if err != nil {
		t.Fatal(err)
	}
	text := tooltest.Text(res)
	for i, typ := range []string{"code", "markdown", "code"} {
		if tag := fmt.Sprintf("<cell id=\"cell-%d\" type=%q", i, typ); !strings.Contains(text, tag) {
			t.Fatalf("no %s in:\n%s", tag, text)
		}
	}
	if _, err := tooltest.Run(t, notebookedit.New(), env, map[string]any{
		"notebook_path": p, "cell_id": "cell-1", "new_source": "edited note",
	}); err != nil {
		t.Fatalf("NotebookEdit of cell-1 after Read: %v", err)
	}
	res, err = tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p})
	if err != nil {
		t.Fatal(err)
	}
	if text := tooltest.Text(res); !strings.Contains(text, "<cell id=\"cell-1\" type=\"markdown\">\nedited note\n</cell>") {
		t.Fatalf("the edit did not land in cell-1:\n%s", text)
	}
}

func TestReadNotebookLimits(t *testing.T) {
	t.Run("long output cut", func(t *testing.T) {
		long := strings.Repeat("é", maxCellOutputBytes) // two bytes each
		res, _, _, err := readNotebook(t, Options{}, nb(5, codeCell("c", 1, "print(s)", stream("stdout", long))))
		if err != nil {
			t.Fatal(err)
		}
		text := tooltest.Text(res)
		want := strings.Repeat("é", maxCellOutputBytes/2) + "\n... [output truncated: 10000 more bytes]\n</output>"
		if !strings.Contains(text, want) {
			t.Fatalf("no cut output in:\n%.300s...", text)
		}
	})
	t.Run("large image scaled down", func(t *testing.T) {
		big := base64.StdEncoding.EncodeToString(encodePNG(t, halves(600, 120)))
		res, _, _, err := readNotebook(t, Options{MaxImageDimension: 400}, nb(5, codeCell("c", 1, "show()", rich("display_data", map[string]any{"image/png": big}))))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 3 || res.Content[1].Type != tool.BlockImage {
			t.Fatalf("content = %+v", res.Content)
		}
		if text := res.Content[2].Text; !strings.HasPrefix(text, "[Image scaled down from 600x120 to 400x80 pixels") {
			t.Fatalf("text after the image = %q", text)
		}
	})
	t.Run("at most 20 images", func(t *testing.T) {
		img := base64.StdEncoding.EncodeToString(encodePNG(t, halves(4, 4)))
		var cells []map[string]any
		for i := range maxNotebookImages + 2 {
			cells = append(cells, codeCell(fmt.Sprint("c", i), i, "show()", rich("display_data", map[string]any{"image/png": img, "text/plain": "<Figure>"})))
		}
		res, _, _, err := readNotebook(t, Options{}, nb(5, cells...))
		if err != nil {
			t.Fatal(err)
		}
		images := 0
		for _, b := range res.Content {
			if b.Type == tool.BlockImage {
				images++
			}
		}
		text := tooltest.Text(res)
		if images != maxNotebookImages || strings.Count(text, "[image/png output not shown: one read returns at most 20 images]\n<Figure>") != 2 {
			t.Fatalf("%d images; text:\n%s", images, text)
		}
	})
	t.Run("bad image data", func(t *testing.T) {
		res, _, _, err := readNotebook(t, Options{}, nb(5, codeCell("c", 1, "show()", rich("display_data", map[string]any{"image/png": "bm90IGFuIGltYWdl", "text/plain": "<Figure>"}))))
		if err != nil {
			t.Fatal(err)
		}
		if text := tooltest.Text(res); !strings.Contains(text, "[image/png output not shown: its data is not a valid image]\n<Figure>\n") {
			t.Fatalf("text:\n%s", text)
		}
	})
	t.Run("too much text", func(t *testing.T) {
		_, p, _, err := readNotebook(t, Options{MaxOutputBytes: 500}, nb(5, codeCell("c", 1, strings.Repeat("x = 1\n", 200))))
		want := p + " is a notebook of 1 cells whose content comes to 1.4 KiB, more than one Read returns (500 bytes). Read parts of it through Bash with jq, for example: jq '.cells[:20]' '" + p + "'"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
	})
	t.Run("file too large", func(t *testing.T) {
		_, p, _, err := readNotebook(t, Options{MaxNotebookBytes: 100}, nb(5, codeCell("c", 1, "x")))
		if err == nil || !strings.HasPrefix(err.Error(), p+" is a notebook of ") || !strings.Contains(err.Error(), "notebooks larger than 100 bytes are not read") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestReadNotebookNotValidShownAsText(t *testing.T) {
	tests := []struct {
		name, content, why string
	}{
		{name: "merge conflict", content: "{\n<<<<<<< HEAD\n \"cells\": []\n}\n",
			why: "its JSON does not parse (invalid character '<' looking for beginning of object key string)"},
		{name: "nbformat 3", content: "{\"nbformat\": 3, \"worksheets\": []}\n",
			why: "it is nbformat 3, and only nbformat 4 notebooks are shown cell by cell"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, p, _, err := readNotebook(t, Options{}, tc.content)
			if err != nil {
				t.Fatal(err)
			}
			got := tooltest.Text(res)
			if !strings.HasPrefix(got, "     1\t{") || !strings.HasSuffix(got, "\n\n["+p+" cannot be shown as a notebook: "+tc.why+". It is shown as text.]") {
				t.Fatalf("text:\n%s", got)
			}
		})
	}
}
