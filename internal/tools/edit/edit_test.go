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

const snippetIntro = " Here's the result of running `cat -n` on a snippet of the edited file:\n"

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

// view is the cat -n view of "l<n>" lines from..to.
func view(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\tl%d", i, i)
	}
	return b.String()
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name     string
		content  string // of f.txt, read before the edit; "-" for no file
		in       map[string]any
		want     string // result text after "The file {ws}/f.txt has been updated."
		wantFile string
	}{
		{name: "one line", content: "a\nb\nc\n", in: map[string]any{"old_string": "b", "new_string": "B"},
			want: snippetIntro + "     1\ta\n     2\tB\n     3\tc", wantFile: "a\nB\nc\n"},
		{name: "context of four lines", content: nums(1, 20), in: map[string]any{"old_string": "l10\n", "new_string": "ten\n"},
			want:     snippetIntro + view(6, 9) + "\n    10\tten\n" + view(11, 14),
			wantFile: nums(1, 9) + "ten\n" + nums(11, 20)},
		{name: "lines added", content: nums(1, 3), in: map[string]any{"old_string": "l2\n", "new_string": "x\ny\nz\n"},
			want:     snippetIntro + "     1\tl1\n     2\tx\n     3\ty\n     4\tz\n     5\tl3",
			wantFile: "l1\nx\ny\nz\nl3\n"},
		{name: "lines deleted", content: nums(1, 10), in: map[string]any{"old_string": "l5\nl6\n", "new_string": ""},
			want:     snippetIntro + view(1, 4) + "\n     5\tl7\n     6\tl8\n     7\tl9\n     8\tl10",
			wantFile: nums(1, 4) + nums(7, 10)},
		{name: "last line without newline", content: "a\nb", in: map[string]any{"old_string": "b", "new_string": "c"},
			want: snippetIntro + "     1\ta\n     2\tc", wantFile: "a\nc"},
		{name: "everything deleted", content: "gone", in: map[string]any{"old_string": "gone", "new_string": ""},
			want: " The file is now empty.", wantFile: ""},
		{name: "replace all", content: "x = 1\ny = x\nz = x + x\n", in: map[string]any{"old_string": "x", "new_string": "w", "replace_all": true},
			want:     " All 4 occurrences of old_string were replaced." + snippetIntro + "     1\tw = 1\n     2\ty = w\n     3\tz = w + w",
			wantFile: "w = 1\ny = w\nz = w + w\n"},
		{name: "replace all with one match", content: "a\nb\n", in: map[string]any{"old_string": "b", "new_string": "c", "replace_all": true},
			want: " The one occurrence of old_string was replaced." + snippetIntro + "     1\ta\n     2\tc", wantFile: "a\nc\n"},
		{name: "CRLF file with plain newlines", content: "a\r\nb\r\nc\r\n", in: map[string]any{"old_string": "a\nb\n", "new_string": "x\ny\nz\n"},
			want: snippetIntro + "     1\tx\n     2\ty\n     3\tz\n     4\tc", wantFile: "x\r\ny\r\nz\r\nc\r\n"},
		{name: "CRLF file with CRLF strings", content: "a\r\nb\r\n", in: map[string]any{"old_string": "a\r\n", "new_string": "q\r\n"},
			want: snippetIntro + "     1\tq\n     2\tb", wantFile: "q\r\nb\r\n"},
		{name: "empty file filled", content: "", in: map[string]any{"old_string": "", "new_string": "first\n"},
			want: snippetIntro + "     1\tfirst", wantFile: "first\n"},
		{name: "long new_string snippet cut", content: "start\nend\n", in: map[string]any{"old_string": "start\n", "new_string": nums(1, 100)},
			want:     snippetIntro + view(1, 60) + "\n[Snippet cut after line 60; Read the file to see the rest of the change.]",
			wantFile: nums(1, 100) + "end\n"},
		{name: "unicode", content: "héllo wörld\n", in: map[string]any{"old_string": "wörld", "new_string": "мир"},
			want: snippetIntro + "     1\théllo мир", wantFile: "héllo мир\n"},
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
			want := "The file " + p + " has been updated." + tc.want
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

func TestEditFailures(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	put(t, ws+"/read.txt", "one two two three three three\n")
	readIt(t, env, ws+"/read.txt")
	put(t, ws+"/unread.txt", "one\n")
	put(t, ws+"/changed.txt", "one\n")
	readIt(t, env, ws+"/changed.txt")
	// Changed after the read, in place, same size, same modification
	// time: only the content tells.
	fi, _ := os.Stat(ws + "/changed.txt")
	put(t, ws+"/changed.txt", "ONE\n")
	os.Chtimes(ws+"/changed.txt", fi.ModTime(), fi.ModTime())
	put(t, ws+"/full.txt", "content\n")
	readIt(t, env, ws+"/full.txt")
	os.Mkdir(ws+"/dir", 0o755)

	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{name: "not read", in: map[string]any{"file_path": ws + "/unread.txt", "old_string": "one", "new_string": "1"},
			want: filestate.NotReadMessage},
		{name: "changed since read", in: map[string]any{"file_path": ws + "/changed.txt", "old_string": "one", "new_string": "1"},
			want: filestate.ModifiedMessage},
		{name: "not found", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "four", "new_string": "4"},
			want: "String to replace not found in file."},
		{name: "not found, line prefix copied", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "     1\tone", "new_string": "1"},
			want: "String to replace not found in file. old_string seems to start with a line number and a tab from Read's output; those are not part of the file, leave them out."},
		{name: "two matches", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "two", "new_string": "2"},
			want: "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance."},
		{name: "three matches", in: map[string]any{"file_path": ws + "/read.txt", "old_string": "three", "new_string": "3"},
			want: "Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance."},
		{name: "missing file", in: map[string]any{"file_path": ws + "/nope.txt", "old_string": "a", "new_string": "b"},
			want: "File does not exist: " + ws + "/nope.txt."},
		{name: "empty old_string on a non-empty file", in: map[string]any{"file_path": ws + "/full.txt", "old_string": "", "new_string": "b"},
			want: "Cannot create " + ws + "/full.txt: the file already exists and is not empty. An empty old_string only creates a file (or fills an empty one); give the text to replace in old_string."},
		{name: "directory", in: map[string]any{"file_path": ws + "/dir", "old_string": "a", "new_string": "b"},
			want: ws + "/dir is a directory; Edit needs the path of a file."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, ws)
			res, err := tooltest.Run(t, New(), env, tc.in)
			var te *tool.Error
			if !errors.As(err, &te) || te.Kind != tool.KindFailed || te.Msg != tc.want {
				t.Fatalf("Edit = %v, %v\nwant failure %q", res, err, tc.want)
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
	if got := tooltest.Text(res); got != "File created successfully at: "+p {
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
		{input: `{"file_path":"/ws/a","old_string":"same","new_string":"same"}`,
			want: "No changes to make: old_string and new_string are exactly the same."},
		{input: `{"file_path":"/ws/a","old_string":"","new_string":""}`,
			want: "No changes to make: old_string and new_string are exactly the same."},
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
