package notebookedit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/read"
)

// setup copies a testdata notebook into a fresh workspace and reads it.
func setup(t *testing.T, name string) (*tool.Env, string, []byte) {
	t.Helper()
	env, _, _ := tooltest.Env(t)
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	p := env.Cwd + "/" + name
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": p}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return env, p, data
}

type nbDoc struct {
	Cells         []map[string]any `json:"cells"`
	Metadata      map[string]any   `json:"metadata"`
	NBFormat      int              `json:"nbformat"`
	NBFormatMinor int              `json:"nbformat_minor"`
}

func load(t *testing.T, data []byte) nbDoc {
	t.Helper()
	var d nbDoc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("the notebook is not valid JSON: %v\n%s", err, data)
	}
	return d
}

func edit(t *testing.T, env *tool.Env, in map[string]any) (string, error) {
	t.Helper()
	res, err := tooltest.Run(t, New(), env, in)
	if err != nil {
		return "", err
	}
	return tooltest.Text(res), nil
}

var cellID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkValid applies the nbformat 4.5 rules a cell edit can break: each
// cell has a known type, the fields of that type and no others a type
// forbids, and unique ids of the allowed form.
func checkValid(t *testing.T, d nbDoc) {
	t.Helper()
	if d.NBFormat != 4 {
		t.Fatalf("nbformat = %d", d.NBFormat)
	}
	seen := map[string]bool{}
	for i, c := range d.Cells {
		for _, k := range []string{"cell_type", "metadata", "source"} {
			if _, ok := c[k]; !ok {
				t.Errorf("cell %d lacks %s", i, k)
			}
		}
		_, hasOut := c["outputs"]
		_, hasCount := c["execution_count"]
		_, hasAtt := c["attachments"]
		switch c["cell_type"] {
		case "code":
			if !hasOut || !hasCount || hasAtt {
				t.Errorf("code cell %d: outputs %v, execution_count %v, attachments %v", i, hasOut, hasCount, hasAtt)
			}
		case "markdown", "raw":
			if hasOut || hasCount {
				t.Errorf("%s cell %d has outputs or an execution count", c["cell_type"], i)
			}
		default:
			t.Errorf("cell %d has type %v", i, c["cell_type"])
		}
		if d.NBFormatMinor >= 5 {
			id, _ := c["id"].(string)
			if !cellID.MatchString(id) || seen[id] {
				t.Errorf("cell %d has id %q (unique, [a-zA-Z0-9_-]{1,64} wanted)", i, id)
			}
			seen[id] = true
		}
	}
}

// TestRoundTripIsByteIdentical: replacing a cell by its own source
// rewrites the file exactly as Jupyter wrote it: key order, indentation,
// escapes, non-ASCII text, unknown metadata and the final newline.
func TestRoundTripIsByteIdentical(t *testing.T) {
	env, p, orig := setup(t, "analysis.ipynb")
	if _, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "intro",
		"new_source": "# Analysis\nSome *text* with <b>html</b> & ünïcode.\n"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != string(orig) {
		t.Fatalf("notebook changed by a no-op replace:\n%s\nwas:\n%s", got, orig)
	}
}

func TestReplaceCodeCell(t *testing.T) {
	env, p, orig := setup(t, "analysis.ipynb")
	text, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "c1", "new_source": "y = 1\nprint(y)"})
	if err != nil {
		t.Fatal(err)
	}
	// Claude Code's words: the cell and its new source.
	if want := "Updated cell c1 with y = 1\nprint(y)"; text != want {
		t.Fatalf("text = %q, want %q", text, want)
	}
	data, _ := os.ReadFile(p)
	before, after := load(t, orig), load(t, data)
	checkValid(t, after)
	c := after.Cells[1]
	if !reflect.DeepEqual(c["source"], []any{"y = 1\n", "print(y)"}) || c["execution_count"] != nil ||
		!reflect.DeepEqual(c["outputs"], []any{}) || c["id"] != "c1" {
		t.Fatalf("edited cell = %v", c)
	}
	if !reflect.DeepEqual(c["metadata"], before.Cells[1]["metadata"]) {
		t.Errorf("cell metadata lost: %v", c["metadata"])
	}
	if !reflect.DeepEqual(after.Metadata, before.Metadata) {
		t.Errorf("notebook metadata changed:\n%v\nwas\n%v", after.Metadata, before.Metadata)
	}
	for _, i := range []int{0, 2, 3} {
		if !reflect.DeepEqual(after.Cells[i], before.Cells[i]) {
			t.Errorf("cell %d changed: %v", i, after.Cells[i])
		}
	}
	if !strings.Contains(string(data), "\n \"metadata\": {") || !strings.HasSuffix(string(data), "}\n") {
		t.Errorf("layout not kept:\n%s", data)
	}
}

func TestChangeType(t *testing.T) {
	env, p, _ := setup(t, "analysis.ipynb")
	text, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "c1", "new_source": "Now *prose*.", "cell_type": "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Updated cell c1 with Now *prose*."; text != want {
		t.Fatalf("text = %q", text)
	}
	if _, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "intro", "new_source": "print(1)", "cell_type": "code"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	d := load(t, data)
	checkValid(t, d)
	if d.Cells[0]["cell_type"] != "code" || d.Cells[1]["cell_type"] != "markdown" {
		t.Fatalf("types = %v, %v", d.Cells[0]["cell_type"], d.Cells[1]["cell_type"])
	}
	if tags := d.Cells[0]["metadata"].(map[string]any)["tags"]; !reflect.DeepEqual(tags, []any{"title"}) {
		t.Errorf("metadata of the retyped cell lost: %v", d.Cells[0]["metadata"])
	}
}

func TestReplaceRawKeepsType(t *testing.T) {
	env, p, _ := setup(t, "analysis.ipynb")
	if _, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "r1", "new_source": "other\ntext"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	c := load(t, data).Cells[2]
	// The cell held its source as one string: it keeps that form.
	if c["cell_type"] != "raw" || c["source"] != "other\ntext" {
		t.Fatalf("cell = %v", c)
	}
}

func TestInsert(t *testing.T) {
	env, p, orig := setup(t, "analysis.ipynb")
	text, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "c1", "edit_mode": "insert",
		"cell_type": "code", "new_source": "import os\nos.getcwd()"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	d := load(t, data)
	checkValid(t, d)
	if len(d.Cells) != 5 {
		t.Fatalf("%d cells", len(d.Cells))
	}
	c := d.Cells[2]
	id, _ := c["id"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(id) {
		t.Fatalf("new cell id %q", id)
	}
	if want := "Inserted a new code cell with id " + id + " after cell c1 in " + p + "."; text != want {
		t.Fatalf("text = %q, want %q", text, want)
	}
	// A new cell's source is one string, as Claude Code writes it.
	if c["source"] != "import os\nos.getcwd()" || !reflect.DeepEqual(c["metadata"], map[string]any{}) {
		t.Fatalf("new cell = %v", c)
	}
	if !reflect.DeepEqual(d.Metadata, load(t, orig).Metadata) {
		t.Error("notebook metadata changed")
	}

	// At the start, and then after the new cell by its id: the stamp
	// recorded by the first edit lets the next ones through without a Read.
	if _, err := edit(t, env, map[string]any{"notebook_path": p, "edit_mode": "insert", "cell_type": "markdown", "new_source": "# Top"}); err != nil {
		t.Fatal(err)
	}
	if _, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": id, "edit_mode": "insert", "cell_type": "markdown", "new_source": ""}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(p)
	d = load(t, data)
	checkValid(t, d)
	var order []string
	for _, c := range d.Cells {
		order = append(order, c["cell_type"].(string))
	}
	if got := strings.Join(order, ","); got != "markdown,markdown,code,code,markdown,raw,code" {
		t.Fatalf("cell types in order: %s", got)
	}
	if d.Cells[0]["source"] != "# Top" || d.Cells[4]["source"] != "" {
		t.Fatalf("sources: %v, %v", d.Cells[0]["source"], d.Cells[4]["source"])
	}
}

func TestDelete(t *testing.T) {
	env, p, _ := setup(t, "analysis.ipynb")
	text, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "r1", "edit_mode": "delete", "new_source": ""})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Deleted cell r1"; text != want {
		t.Fatalf("text = %q", text)
	}
	data, _ := os.ReadFile(p)
	d := load(t, data)
	checkValid(t, d)
	var ids []string
	for _, c := range d.Cells {
		ids = append(ids, c["id"].(string))
	}
	if got := strings.Join(ids, ","); got != "intro,c1,c2" {
		t.Fatalf("ids = %s", got)
	}
}

// TestNotebookWithoutIDs: before nbformat 4.5 cells have no ids; they are
// named cell-N, and new cells get none (the 4.4 schema forbids them).
func TestNotebookWithoutIDs(t *testing.T) {
	env, p, _ := setup(t, "old.ipynb")
	text, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "cell-1", "edit_mode": "insert", "cell_type": "code", "new_source": "c = 3"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Inserted a new code cell with id cell-2 after cell cell-1 in " + p + "."; text != want {
		t.Fatalf("text = %q", text)
	}
	text, err = edit(t, env, map[string]any{"notebook_path": p, "cell_id": "cell-0", "edit_mode": "delete", "new_source": ""})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(text, "their cell-N names changed.") {
		t.Errorf("delete does not warn of the renumbering: %q", text)
	}
	data, _ := os.ReadFile(p)
	d := load(t, data)
	checkValid(t, d)
	if len(d.Cells) != 3 || d.Cells[1]["source"] != "c = 3" {
		t.Fatalf("cells = %v", d.Cells)
	}
	for i, c := range d.Cells {
		if _, ok := c["id"]; ok {
			t.Errorf("cell %d of a 4.4 notebook got an id", i)
		}
	}
	if _, err := edit(t, env, map[string]any{"notebook_path": p, "cell_id": "cell-3", "new_source": "x"}); err == nil {
		t.Error("cell-3 of a 3-cell notebook was accepted")
	}
}

func TestFailures(t *testing.T) {
	env, p, _ := setup(t, "analysis.ipynb")
	ws := env.Cwd
	write := func(name, content string) string {
		q := ws + "/" + name
		if err := os.WriteFile(q, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		// Read refuses a notebook that does not parse, as Claude Code's
		// does; record the read directly so the edit's own checks are
		// reached.
		if _, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": q}); err != nil {
			tg, lerr := filestate.Locate(env, q)
			fi, serr := os.Stat(q)
			if lerr != nil || serr != nil {
				t.Fatal(err, lerr, serr)
			}
			if err := filestate.Record(context.Background(), env, tg, filestate.StampContent(fi, []byte(content))); err != nil {
				t.Fatal(err)
			}
		}
		return q
	}
	v3 := write("v3.ipynb", `{"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}}`)
	broken := write("broken.ipynb", `{"nbformat": 4, "cells": [`)
	nocells := write("nocells.ipynb", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}`)
	unread := ws + "/unread.ipynb"
	data, _ := os.ReadFile(p)
	os.WriteFile(unread, data, 0o644)
	changed := write("changed.ipynb", string(data))
	// Changed after the read, same size, same modification time: only
	// the content tells.
	fi, _ := os.Stat(changed)
	os.WriteFile(changed, bytes.Replace(data, []byte("c1"), []byte("c9"), 1), 0o644)
	os.Chtimes(changed, fi.ModTime(), fi.ModTime())

	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"not read", map[string]any{"notebook_path": unread, "cell_id": "c1", "new_source": "x"}, filestate.NotReadMessage},
		{"changed since read", map[string]any{"notebook_path": changed, "cell_id": "c1", "new_source": "x"}, filestate.ModifiedMessage},
		{"unknown cell", map[string]any{"notebook_path": p, "cell_id": "nope", "new_source": "x"},
			`Cell with ID "nope" not found in notebook.`},
		{"insert after an unknown cell", map[string]any{"notebook_path": p, "cell_id": "nope", "edit_mode": "insert", "cell_type": "code", "new_source": "x"},
			`Cell with ID "nope" not found in notebook.`},
		// Never read, as Claude Code puts it.
		{"missing", map[string]any{"notebook_path": ws + "/none.ipynb", "cell_id": "c1", "new_source": "x"}, filestate.NotReadMessage},
		{"nbformat 3", map[string]any{"notebook_path": v3, "cell_id": "a", "new_source": "x"},
			v3 + " is an nbformat 3 notebook; NotebookEdit edits nbformat 4 notebooks only. Convert it first (for example with jupyter nbconvert --to notebook through Bash)."},
		{"broken JSON", map[string]any{"notebook_path": broken, "cell_id": "a", "new_source": "x"}, "is not a valid notebook: its JSON does not parse"},
		{"no cells", map[string]any{"notebook_path": nocells, "cell_id": "a", "new_source": "x"}, nocells + " is not a valid notebook: it has no cells list."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(p)
			_, err := edit(t, env, tc.in)
			var te *tool.Error
			kind := tool.KindFailed
			if tc.want == filestate.NotReadMessage || tc.want == filestate.ModifiedMessage {
				kind = tool.KindConflict
			}
			if !errors.As(err, &te) || te.Kind != kind || !strings.Contains(te.Msg, tc.want) {
				t.Fatalf("err = %v, want %v with %q", err, kind, tc.want)
			}
			if after, _ := os.ReadFile(p); string(after) != string(before) {
				t.Fatal("a failed call changed the notebook")
			}
		})
	}
}

// A file that is not a notebook, and an insert without cell_type, pass
// Parse and are refused when the call runs, after the permission decision,
// in Claude Code's words; nothing is touched.
func TestRefusedWhenRun(t *testing.T) {
	env, p, orig := setup(t, "analysis.ipynb")
	other := env.Cwd + "/a.py"
	if err := os.WriteFile(other, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"notebook_path": other, "cell_id": "x", "new_source": "s"},
			"File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool."},
		{map[string]any{"notebook_path": p, "cell_id": "c1", "new_source": "s", "edit_mode": "insert"},
			"Cell type is required when using edit_mode=insert."},
	} {
		raw, _ := json.Marshal(tc.in)
		if _, err := New().Parse(raw); err != nil {
			t.Fatalf("Parse(%s) = %v, want it accepted", raw, err)
		}
		_, err := edit(t, env, tc.in)
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || te.Msg != tc.want {
			t.Errorf("%v: err = %v, want invalid input %q", tc.in, err, tc.want)
		}
	}
	if data, _ := os.ReadFile(p); string(data) != string(orig) {
		t.Error("a refused call changed the notebook")
	}
	if data, _ := os.ReadFile(other); string(data) != "x = 1\n" {
		t.Error("a refused call changed the other file")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{in: `{"notebook_path":"/a.ipynb","cell_id":"x","new_source":"s"}`},
		{in: `{"notebook_path":"/a.IPYNB","new_source":"s","edit_mode":"insert","cell_type":"markdown"}`},
		{in: `{"notebook_path":"/a.ipynb","cell_id":"x","new_source":"","edit_mode":"delete"}`},
		{in: `{"notebook_path":"/a.ipynb","new_source":"s"}`, want: "cell_id is required for edit_mode replace"},
		{in: `{"notebook_path":"/a.ipynb","new_source":"s","edit_mode":"delete"}`, want: "cell_id is required for edit_mode delete"},
	}
	for _, tc := range tests {
		_, err := New().Parse([]byte(tc.in))
		if tc.want == "" {
			if err != nil {
				t.Errorf("Parse(%s) = %v", tc.in, err)
			}
			continue
		}
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || !strings.Contains(te.Msg, tc.want) {
			t.Errorf("Parse(%s) = %v, want invalid input with %q", tc.in, err, tc.want)
		}
	}
}

func TestDefinition(t *testing.T) {
	d := New().Definition()
	if d.Name != "NotebookEdit" || len(d.Description) < 500 {
		t.Fatalf("definition %q with a %d-byte description", d.Name, len(d.Description))
	}
	sch, _ := tooltest.Schema(t, d)
	for in, valid := range map[string]bool{
		`{"notebook_path":"/a.ipynb","new_source":"x","cell_id":"c"}`:                           true,
		`{"notebook_path":"/a.ipynb","new_source":"x","edit_mode":"insert","cell_type":"code"}`: true,
		`{"notebook_path":"/a.ipynb","cell_id":"c"}`:                                            false,
		`{"notebook_path":"/a.ipynb","new_source":"x","cell_type":"raw"}`:                       false,
		`{"notebook_path":"/a.ipynb","new_source":"x","edit_mode":"append"}`:                    false,
		`{"notebook_path":"/a.ipynb","new_source":"x","cell_number":1}`:                         false,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err := sch.Validate(v); (err == nil) != valid {
			t.Errorf("Validate(%s) = %v, want valid=%v", in, err, valid)
		}
	}
}
