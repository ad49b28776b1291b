package edit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/write"
)

const current = " (file state is current in your context — no need to Read it back)"

func put(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readIt(t *testing.T, env *tool.Env, p string) {
	t.Helper()
	if _, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": p}); err != nil {
		t.Fatalf("Read %s: %v", p, err)
	}
}

// nums is lines "l<from>".."l<to>", one per line, each ending in "\n".
func nums(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "l%d\n", i)
	}
	return b.String()
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name     string
		content  string // of f.txt, read before the edit
		in       map[string]any
		all      bool   // the text of replace_all
		wantFile string // the file afterwards
	}{
		{name: "one line", content: "a\nb\nc\n", in: map[string]any{"old_string": "b\n", "new_string": "B\n"}, wantFile: "a\nB\nc\n"},
		{name: "lines added", content: nums(1, 3), in: map[string]any{"old_string": "l2\n", "new_string": "x\ny\nz\n"}, wantFile: "l1\nx\ny\nz\nl3\n"},
		{name: "lines deleted", content: nums(1, 10), in: map[string]any{"old_string": "l5\nl6\n", "new_string": ""}, wantFile: nums(1, 4) + nums(7, 10)},
		{name: "deleting a line's text deletes its newline", content: "one\ntwo\nthree\n", in: map[string]any{"old_string": "two", "new_string": ""}, wantFile: "one\nthree\n"},
		{name: "deleting a line's end deletes its newline", content: "one two\nthree\n", in: map[string]any{"old_string": " two", "new_string": ""}, wantFile: "onethree\n"},
		{name: "deleting inside a line", content: "one two three\n", in: map[string]any{"old_string": " two", "new_string": ""}, wantFile: "one three\n"},
		{name: "deleting the last line's text", content: "a\nb", in: map[string]any{"old_string": "b", "new_string": ""}, wantFile: "a\n"},
		{name: "last line without newline", content: "a\nb", in: map[string]any{"old_string": "b", "new_string": "c"}, wantFile: "a\nc"},
		{name: "everything deleted", content: "gone", in: map[string]any{"old_string": "gone", "new_string": ""}, wantFile: ""},
		{name: "replace all", content: "x = 1\ny = x\nz = x + x\n", in: map[string]any{"old_string": "x", "new_string": "w", "replace_all": true},
			all: true, wantFile: "w = 1\ny = w\nz = w + w\n"},
		{name: "replace all with one match", content: "a\nb\n", in: map[string]any{"old_string": "b", "new_string": "c", "replace_all": true},
			all: true, wantFile: "a\nc\n"},
		{name: "CRLF file with plain newlines", content: "a\r\nb\r\nc\r\n", in: map[string]any{"old_string": "a\nb\n", "new_string": "x\ny\nz\n"}, wantFile: "x\r\ny\r\nz\r\nc\r\n"},
		{name: "CRLF file, one line, new lines", content: "one\r\ntwo\r\n", in: map[string]any{"old_string": "two", "new_string": "TWO\nmore"}, wantFile: "one\r\nTWO\r\nmore\r\n"},
		{name: "mostly LF file keeps its CRLF line", content: "a\nb\r\nc\nd\n", in: map[string]any{"old_string": "a", "new_string": "A"}, wantFile: "A\nb\r\nc\nd\n"},
		{name: "empty file filled", content: "", in: map[string]any{"old_string": "", "new_string": "first\n"}, wantFile: "first\n"},
		{name: "blank file filled", content: "  \n", in: map[string]any{"old_string": "", "new_string": "first\n"}, wantFile: "first\n"},
		{name: "trailing white space of new_string dropped", content: "x = 1\n", in: map[string]any{"old_string": "x = 1", "new_string": "x = 2  \ny = 3\t\r\nz "}, wantFile: "x = 2\ny = 3\r\nz\n"},
		{name: "unicode", content: "héllo wörld\n", in: map[string]any{"old_string": "wörld", "new_string": "мир"}, wantFile: "héllo мир\n"},
		{name: "curly quotes in the file, straight in old_string", content: "say it\u2019s \u201chere\u201d now\n",
			in: map[string]any{"old_string": `it's "here"`, "new_string": `it is "there"`}, wantFile: "say it is \u201cthere\u201d now\n"},
		{name: "curly apostrophe kept in new_string", content: "don\u2019t stop\n",
			in: map[string]any{"old_string": "don't stop", "new_string": "won't 'go' (\"now\")"}, wantFile: "won\u2019t \u2018go\u2019 (\"now\")\n"},
		{name: "curly quotes in old_string, straight in the file", content: "say it's here\n",
			in: map[string]any{"old_string": "it\u2019s", "new_string": "it is"}, wantFile: "say it is here\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, st, _ := tooltest.Env(t)
			p := env.Cwd + "/f.txt"
			put(t, p, tc.content)
			if err := os.Chmod(p, 0o640); err != nil {
				t.Fatal(err)
			}
			readIt(t, env, p)
			in := map[string]any{"file_path": p}
			for k, v := range tc.in {
				in[k] = v
			}
			res, err := tooltest.Run(t, New(), env, in)
			if err != nil {
				t.Fatalf("Edit: %v", err)
			}
			want := "The file " + p + " has been updated successfully." + current
			if tc.all {
				want = "The file " + p + " has been updated. All occurrences were successfully replaced." + current
			}
			if got := tooltest.Text(res); got != want {
				t.Fatalf("text:\n%s\nwant:\n%s", got, want)
			}
			body, _ := os.ReadFile(p)
			if string(body) != tc.wantFile {
				t.Fatalf("file = %q, want %q", body, tc.wantFile)
			}
			fi, _ := os.Stat(p)
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
			}
			if s := st.Stamps[p]; !s.ModTime.Equal(fi.ModTime()) || s.Size != fi.Size() {
				t.Errorf("stamp %+v not the edited file's", s)
			}
		})
	}
}

// TestEditReadState: what the model had seen of the file decides whether
// the edit applies (Claude Code's rule, or the stricter policy) and what
// the success text says.
func TestEditReadState(t *testing.T) {
	strict := NewWith(filestate.Policy{RequireRead: true})
	changedNote := " (note: the file had been modified on disk since you last read it — the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)"
	type setup func(t *testing.T, env *tool.Env, p string)
	read := func(t *testing.T, env *tool.Env, p string) { readIt(t, env, p) }
	changed := func(t *testing.T, env *tool.Env, p string) {
		readIt(t, env, p)
		// Same size, same modification time: only the content tells.
		fi, _ := os.Stat(p)
		put(t, p, "x = 1\nY = 2\n")
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
	partial := func(t *testing.T, env *tool.Env, p string) {
		readIt(t, env, p)
		st, _, _ := env.State.ReadStamp(t.Context(), p)
		env.State.RecordRead(t.Context(), p, filestate.Partial(st))
	}
	tests := []struct {
		name    string
		tool    tool.Tool
		setup   setup
		old     string
		want    string // the text after "The file … has been updated successfully.", or the failure
		kind    tool.ErrorKind
		stampOf string // "full", "partial" or "none": the stamp afterwards
	}{
		{name: "read", tool: New(), setup: read, old: "x = 1", want: current, stampOf: "full"},
		{name: "never read", tool: New(), old: "x = 1", want: "", stampOf: "none"},
		{name: "changed since read", tool: New(), setup: changed, old: "x = 1", want: changedNote, stampOf: "partial"},
		{name: "changed since read, old_string twice", tool: New(), setup: func(t *testing.T, env *tool.Env, p string) {
			readIt(t, env, p)
			put(t, p, "x = 1\nx = 1\n")
		}, old: "x = 1", want: filestate.ModifiedMessage, kind: tool.KindConflict},
		{name: "changed since read, old_string gone", tool: New(), setup: changed, old: "y = 2", want: filestate.ModifiedMessage, kind: tool.KindConflict},
		{name: "read in part", tool: New(), setup: partial, old: "x = 1", want: "", stampOf: "partial"},
		{name: "strict: read", tool: strict, setup: read, old: "x = 1", want: current, stampOf: "full"},
		{name: "strict: never read", tool: strict, old: "x = 1", want: filestate.NotReadMessage, kind: tool.KindConflict},
		{name: "strict: changed since read", tool: strict, setup: changed, old: "x = 1", want: filestate.ModifiedMessage, kind: tool.KindConflict},
		{name: "strict: read in part", tool: strict, setup: partial, old: "x = 1", want: "", stampOf: "partial"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, st, _ := tooltest.Env(t)
			p := env.Cwd + "/c.py"
			put(t, p, "x = 1\ny = 2\n")
			if tc.setup != nil {
				tc.setup(t, env, p)
			}
			before, _ := os.ReadFile(p)
			res, err := tooltest.Run(t, tc.tool, env, map[string]any{"file_path": p, "old_string": tc.old, "new_string": "z = 0"})
			after, _ := os.ReadFile(p)
			if tc.kind != tool.KindNone {
				var te *tool.Error
				if !errors.As(err, &te) || te.Kind != tc.kind || te.Msg != tc.want {
					t.Fatalf("Edit = %v, %v; want %v %q", res, err, tc.kind, tc.want)
				}
				if string(after) != string(before) {
					t.Fatalf("refused edit changed the file: %q", after)
				}
				return
			}
			if err != nil {
				t.Fatalf("Edit: %v", err)
			}
			if got, want := tooltest.Text(res), "The file "+p+" has been updated successfully."+tc.want; got != want {
				t.Fatalf("text = %q, want %q", got, want)
			}
			if string(after) != strings.Replace(string(before), tc.old, "z = 0", 1) {
				t.Fatalf("file = %q", after)
			}
			s, ok := st.Stamps[p]
			got := "none"
			if ok {
				got = "full"
				if strings.HasPrefix(s.Hash, "partial:") {
					got = "partial"
				}
			}
			if got != tc.stampOf {
				t.Fatalf("stamp afterwards %q (%+v), want %s", got, s, tc.stampOf)
			}
		})
	}
}

func TestEditFailures(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	put(t, ws+"/read.txt", "one two two three three three\n")
	readIt(t, env, ws+"/read.txt")
	put(t, ws+"/full.txt", "content\n")
	put(t, ws+"/nb.ipynb", `{"cells": []}`)
	os.Mkdir(ws+"/dir", 0o755)
	const notUnique = "Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s"

	tests := []struct {
		name string
		in   map[string]any
		kind tool.ErrorKind
		want string
	}{
		{name: "same strings", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "one", "new_string": "one"},
			kind: tool.KindFailed, want: "No changes to make: old_string and new_string are exactly the same."},
		{name: "same strings, missing file", in: map[string]any{"file_path": ws + "/nope.txt", "old_string": "", "new_string": ""},
			kind: tool.KindFailed, want: "No changes to make: old_string and new_string are exactly the same."},
		{name: "same strings once trailing space is dropped", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "one", "new_string": "one  "},
			kind: tool.KindFailed, want: "No changes to make: old_string and new_string are exactly the same."},
		{name: "not found", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "four", "new_string": "4"},
			kind: tool.KindNoMatch, want: "String to replace not found in file.\nString: four"},
		{name: "not found, several lines", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "a\nb", "new_string": "4"},
			kind: tool.KindNoMatch, want: "String to replace not found in file.\nString: a\nb"},
		{name: "not found with replace_all", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "four", "new_string": "4", "replace_all": true},
			kind: tool.KindNoMatch, want: "String to replace not found in file.\nString: four"},
		{name: "two matches", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "two", "new_string": "2"},
			kind: tool.KindNotUnique, want: fmt.Sprintf(notUnique, 2, "two")},
		{name: "three matches", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "three", "new_string": "3"},
			kind: tool.KindNotUnique, want: fmt.Sprintf(notUnique, 3, "three")},
		{name: "missing file", in: map[string]any{"file_path": ws + "/nope.txt", "old_string": "a", "new_string": "b"},
			kind: tool.KindNotFound, want: "File does not exist. Note: your current working directory is " + ws + "."},
		{name: "missing file, same name with another extension", in: map[string]any{"file_path": ws + "/full.md", "old_string": "a", "new_string": "b"},
			kind: tool.KindNotFound, want: "File does not exist. Note: your current working directory is " + ws + ". Did you mean full.txt?"},
		{name: "missing directory", in: map[string]any{"file_path": ws + "/no/such/f.txt", "old_string": "a", "new_string": "b"},
			kind: tool.KindNotFound, want: "File does not exist. Note: your current working directory is " + ws + "."},
		{name: "empty old_string on a non-empty file", in: map[string]any{"file_path": ws + "/full.txt", "old_string": "", "new_string": "b"},
			kind: tool.KindFailed, want: "Cannot create new file - file already exists."},
		{name: "directory", in: map[string]any{"file_path": ws + "/dir", "old_string": "a", "new_string": "b"},
			kind: tool.KindWrongType, want: "Error calling tool (Edit): EISDIR: illegal operation on a directory, read"},
		{name: "notebook", in: map[string]any{"file_path": ws + "/nb.ipynb", "old_string": "cells", "new_string": "x"},
			kind: tool.KindWrongType, want: "File is a Jupyter Notebook. Use the NotebookEdit to edit this file."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, ws)
			res, err := tooltest.Run(t, New(), env, tc.in)
			var te *tool.Error
			if !errors.As(err, &te) || te.Kind != tc.kind || te.Msg != tc.want {
				t.Fatalf("Edit = %v, %v\nwant %v %q", res, err, tc.kind, tc.want)
			}
			if after := snapshot(t, ws); after != before {
				t.Fatalf("files changed by a failed edit:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// snapshot lists every file under root with its content.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v", p, d.Type())
		if d.Type().IsRegular() {
			body, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", body)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

func TestEditCreatesWithEmptyOldString(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	p := env.Cwd + "/new/dir/file.go"
	res, err := tooltest.Run(t, New(), env, map[string]any{"file_path": p, "old_string": "", "new_string": "package x\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tooltest.Text(res); got != "The file "+p+" has been updated successfully."+current {
		t.Fatalf("text = %q", got)
	}
	if body, _ := os.ReadFile(p); string(body) != "package x\n" {
		t.Fatalf("file = %q", body)
	}
	if _, ok := st.Stamps[p]; !ok {
		t.Fatal("no stamp recorded for the created file")
	}
}

func TestEditChains(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	put(t, ws+"/real.txt", "a\n")
	os.Symlink("real.txt", ws+"/link.txt")
	steps := []struct {
		tool tool.Tool
		in   map[string]any
	}{
		// Write creates, Edit follows without a Read, through the link too.
		{write.New(), map[string]any{"file_path": ws + "/w.txt", "content": "one\n"}},
		{New(), map[string]any{"file_path": ws + "/w.txt", "old_string": "one", "new_string": "two"}},
		{New(), map[string]any{"file_path": ws + "/w.txt", "old_string": "two", "new_string": "three"}},
		{read.New(read.Options{}), map[string]any{"file_path": ws + "/link.txt"}},
		{New(), map[string]any{"file_path": ws + "/real.txt", "old_string": "a", "new_string": "b"}},
		{New(), map[string]any{"file_path": ws + "/link.txt", "old_string": "b", "new_string": "c"}},
	}
	for i, s := range steps {
		if _, err := tooltest.Run(t, s.tool, env, s.in); err != nil {
			t.Fatalf("step %d (%s): %v", i, s.tool.Definition().Name, err)
		}
	}
	for p, want := range map[string]string{"w.txt": "three\n", "real.txt": "c\n"} {
		if body, _ := os.ReadFile(ws + "/" + p); string(body) != want {
			t.Errorf("%s = %q, want %q", p, body, want)
		}
	}
	if fi, err := os.Lstat(ws + "/link.txt"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink (%v)", err)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		input string
		want  string
	}{
		{input: `{"file_path":"/ws/a","old_string":"x","new_string":"y"}`},
		{input: `{"file_path":"/ws/a","old_string":"x","new_string":"y","replace_all":true}`},
		{input: `{"file_path":"/ws/a","old_string":"","new_string":"y"}`},
		// Equal strings are refused when the call runs, after the
		// permission decision, as in Claude Code.
		{input: `{"file_path":"/ws/a","old_string":"same","new_string":"same"}`},
		{input: `{"file_path":"","old_string":"a","new_string":"b"}`,
			want: "file_path is empty: give the absolute path of the file to edit."},
	}
	for _, tc := range tests {
		inv, err := New().Parse([]byte(tc.input))
		if tc.want != "" {
			var te *tool.Error
			if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || te.Msg != tc.want {
				t.Errorf("Parse(%s) = %v, want invalid input %q", tc.input, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.input, err)
		}
		if inv.Traits() != (tool.Traits{}) {
			t.Errorf("traits = %+v, want zero", inv.Traits())
		}
		if a := inv.Activity(); a != (tool.Activity{Summary: "Edit /ws/a"}) {
			t.Errorf("activity = %+v", a)
		}
	}
}
