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
	plot := base64.StdEncoding.EncodeToString(encodePNG(t, halves(4, 2)))
	content := nb(5,
		mdCell("intro", []string{"# Analysis\n", "Some *text*."}),
		codeCell("c1", 3, []string{"x = 6 * 7\n", "x"},
			rich("execute_result", map[string]any{"text/plain": []string{"42"}, "text/html": "<b>42</b>"}),
			map[string]any{"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []string{"tb1", "tb2"}},
		),
		map[string]any{"cell_type": "raw", "metadata": map[string]any{}, "source": "raw text"},
		codeCell("", nil, []string{}),
		codeCell("plot", 4, "plot()",
			rich("display_data", map[string]any{"image/png": plot[:10] + "\n" + plot[10:], "text/plain": []string{"<Figure>"}}),
			stream("stderr", "warn\n"),
			map[string]any{"output_type": "weird"},
		),
	)
	res, _, _, err := readNotebook(t, Options{}, content)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 3 {
		t.Fatalf("blocks = %+v", res.Content)
	}
	want := "<cell id=\"intro\"><cell_type>markdown</cell_type># Analysis\nSome *text*.</cell id=\"intro\">\n" +
		"<cell id=\"c1\">x = 6 * 7\nx</cell id=\"c1\">\n\n42\n\nValueError: bad\ntb1\ntb2\n" +
		"<cell id=\"cell-2\"><cell_type>raw</cell_type>raw text</cell id=\"cell-2\">\n" +
		"<cell id=\"cell-3\"></cell id=\"cell-3\">\n" +
		"<cell id=\"plot\">plot()</cell id=\"plot\">\n\n<Figure>"
	if got := res.Content[0].Text; got != want {
		t.Fatalf("text:\n%q\nwant\n%q", got, want)
	}
	if b := res.Content[1]; b.Type != tool.BlockImage || b.MediaType != "image/png" || base64.StdEncoding.EncodeToString(b.Data) != plot {
		t.Fatalf("image block = %v %q", b.Type, b.MediaType)
	}
	if got := res.Content[2].Text; got != "\nwarn\n\n\nOutputs of an unknown type are not shown." {
		t.Fatalf("last text = %q", got)
	}
}

func TestReadNotebookLanguageAndLimits(t *testing.T) {
	doc := map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{"language_info": map[string]any{"name": "R"}},
		"cells": []any{
			codeCell("q", 1, "cat(1)", stream("stdout", strings.Repeat("y", 6000)), stream("stdout", strings.Repeat("z", 6000))),
			codeCell("long", 2, "p()", stream("stdout", strings.Repeat("a\n", 20000))),
		}}
	b, _ := json.Marshal(doc)
	res, _, _, err := readNotebook(t, Options{}, string(b))
	if err != nil {
		t.Fatal(err)
	}
	got := tooltest.Text(res)
	want := "<cell id=\"q\"><language>R</language>cat(1)</cell id=\"q\">\n\nOutputs are too large to include. Use Bash with: cat <notebook_path> | jq '.cells[0].outputs'\n<cell id=\"long\"><language>R</language>p()</cell id=\"long\">"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got %.400q", got)
	}
	if _, err := readNotebookErr(t, "not json"); err == nil || !strings.HasPrefix(err.Error(), "Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): ") {
		t.Fatalf("invalid JSON: %v", err)
	}
	if _, err := readNotebookErr(t, `{"cells": 3}`); err == nil || err.Error() != notebookInvalid {
		t.Fatalf("invalid notebook: %v", err)
	}
}

func readNotebookErr(t *testing.T, content string) (*tool.Result, error) {
	_, _, _, err := readNotebook(t, Options{}, content)
	return nil, err
}

func TestReadNotebookCellNamesMatchNotebookEdit(t *testing.T) {
	content := nb(4, codeCell("", 1, "a = 1"), mdCell("", "note"), codeCell("", 2, "b = 2"))
	res, p, env, err := readNotebook(t, Options{}, content)
	if err != nil {
		t.Fatal(err)
	}
	text := tooltest.Text(res)
	for i := range 3 {
		if tag := fmt.Sprintf("<cell id=\"cell-%d\">", i); !strings.Contains(text, tag) {
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
	if text := tooltest.Text(res); !strings.Contains(text, "<cell id=\"cell-1\"><cell_type>markdown</cell_type>edited note</cell id=\"cell-1\">") {
		t.Fatalf("the edit did not land in cell-1:\n%s", text)
	}
}
