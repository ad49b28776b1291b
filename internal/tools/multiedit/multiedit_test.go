package multiedit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/read"
)

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

type e = map[string]any

func run(t *testing.T, env *tool.Env, p string, edits ...e) (*tool.Result, error) {
	t.Helper()
	list := make([]any, len(edits))
	for i, x := range edits {
		list[i] = x
	}
	return tooltest.Run(t, New(), env, map[string]any{"file_path": p, "edits": list})
}

// runStrict is run with the RequireRead policy.
func runStrict(t *testing.T, env *tool.Env, p string, edits ...e) (*tool.Result, error) {
	t.Helper()
	list := make([]any, len(edits))
	for i, x := range edits {
		list[i] = x
	}
	return tooltest.Run(t, NewWith(filestate.Policy{RequireRead: true}), env, map[string]any{"file_path": p, "edits": list})
}

func TestMultiEdit(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		edits    []e
		wantFile string
		wantText string
	}{
		{name: "two places", content: "alpha\nbeta\ngamma\n",
			edits:    []e{{"old_string": "alpha", "new_string": "ALPHA"}, {"old_string": "gamma", "new_string": "GAMMA"}},
			wantFile: "ALPHA\nbeta\nGAMMA\n",
			wantText: "Applied 2 edits to {p}:\n1. Replaced \"alpha\" with \"ALPHA\"\n2. Replaced \"gamma\" with \"GAMMA\""},
		{name: "later edit sees the earlier one", content: "func a() {}\n",
			edits:    []e{{"old_string": "func a()", "new_string": "func b()"}, {"old_string": "func b() {}", "new_string": "func b() { return }"}},
			wantFile: "func b() { return }\n"},
		{name: "an earlier edit makes a later one unique", content: "x\nx\n",
			edits:    []e{{"old_string": "x\nx", "new_string": "x\ny"}, {"old_string": "x", "new_string": "z"}},
			wantFile: "z\ny\n"},
		{name: "replace_all counts", content: "a a a b\n",
			edits:    []e{{"old_string": "a", "new_string": "c", "replace_all": true}, {"old_string": "b", "new_string": "d"}},
			wantFile: "c c c d\n",
			wantText: "Applied 2 edits to {p}:\n1. Replaced \"a\" with \"c\" (3 occurrences)\n2. Replaced \"b\" with \"d\""},
		{name: "CRLF file with plain newlines", content: "a\r\nb\r\nc\r\n",
			edits:    []e{{"old_string": "a\nb\n", "new_string": "x\ny\n"}, {"old_string": "c", "new_string": "z"}},
			wantFile: "x\r\ny\r\nz\r\n"},
		{name: "everything removed", content: "one\ntwo\n",
			edits:    []e{{"old_string": "one\n", "new_string": ""}, {"old_string": "two\n", "new_string": ""}},
			wantFile: "",
			wantText: "Applied 2 edits to {p}:\n1. Replaced \"one\\n\" with \"\"\n2. Replaced \"two\\n\" with \"\"\nThe file is now empty."},
		{name: "empty file filled then edited", content: "",
			edits:    []e{{"old_string": "", "new_string": "hello world\n"}, {"old_string": "world", "new_string": "there"}},
			wantFile: "hello there\n"},
		{name: "long strings cut in the summary", content: strings.Repeat("q", 100),
			edits:    []e{{"old_string": strings.Repeat("q", 100), "new_string": "r"}},
			wantFile: "r",
			wantText: "Applied 1 edit to {p}:\n1. Replaced \"" + strings.Repeat("q", 60) + "\"… with \"r\""},
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
			res, err := run(t, env, p, tc.edits...)
			if err != nil {
				t.Fatalf("MultiEdit: %v", err)
			}
			if body, _ := os.ReadFile(p); string(body) != tc.wantFile {
				t.Fatalf("file = %q, want %q", body, tc.wantFile)
			}
			if want := strings.ReplaceAll(tc.wantText, "{p}", p); tc.wantText != "" && tooltest.Text(res) != want {
				t.Fatalf("text:\n%s\nwant:\n%s", tooltest.Text(res), want)
			}
			fi, _ := os.Stat(p)
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
			}
			if s := st.Stamps[p]; !s.ModTime.Equal(fi.ModTime()) || s.Size != fi.Size() {
				t.Errorf("stamp %+v is not the edited file's", s)
			}
		})
	}
}

// TestAllOrNothing: whichever edit fails, the file stays byte-identical,
// no temporary file is left, and the read stamp still lets a corrected
// call through.
func TestAllOrNothing(t *testing.T) {
	const content = "one\ntwo\nthree three\n"
	good := []e{{"old_string": "one", "new_string": "1"}, {"old_string": "two", "new_string": "2"}}
	tests := []struct {
		name string
		last e
		kind tool.ErrorKind
		want string
	}{
		{name: "third not found", last: e{"old_string": "four", "new_string": "4"}, kind: tool.KindNoMatch,
			want: "Edit 3 of 3 failed: String to replace not found in file.\nString: four\nNo edit was applied; {p} is unchanged."},
		{name: "third ambiguous", last: e{"old_string": "three", "new_string": "3"}, kind: tool.KindNotUnique,
			want: "Edit 3 of 3 failed: Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: three\nNo edit was applied; {p} is unchanged."},
		{name: "third looks for text an earlier edit replaced", last: e{"old_string": "one", "new_string": "uno"}, kind: tool.KindNoMatch,
			want: "Edit 3 of 3 failed: String to replace not found in file.\nString: one\nNo edit was applied; {p} is unchanged."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := tooltest.Env(t)
			p := env.Cwd + "/f.txt"
			put(t, p, content)
			readIt(t, env, p)
			before := snapshot(t, env.Cwd)
			res, err := run(t, env, p, append(append([]e{}, good...), tc.last)...)
			var te *tool.Error
			want := strings.ReplaceAll(tc.want, "{p}", p)
			if !errors.As(err, &te) || te.Kind != tc.kind || te.Msg != want {
				t.Fatalf("MultiEdit = %v, %v\nwant %v %q", res, err, tc.kind, want)
			}
			if after := snapshot(t, env.Cwd); after != before {
				t.Fatalf("a failed MultiEdit changed files:\n%s\nwas:\n%s", after, before)
			}
			if _, err := run(t, env, p, good...); err != nil {
				t.Fatalf("the corrected call failed: %v", err)
			}
			if body, _ := os.ReadFile(p); string(body) != "1\n2\nthree three\n" {
				t.Fatalf("file = %q", body)
			}
		})
	}
}

func TestReadBeforeWrite(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	put(t, ws+"/unread.txt", "a\n")
	put(t, ws+"/changed.txt", "a\n")
	readIt(t, env, ws+"/changed.txt")
	// Changed after the read, same size, same modification time: only
	// the content tells.
	fi, _ := os.Stat(ws + "/changed.txt")
	put(t, ws+"/changed.txt", "b\n")
	if err := os.Chtimes(ws+"/changed.txt", fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	put(t, ws+"/full.txt", "content\n")
	readIt(t, env, ws+"/full.txt")
	if err := os.Mkdir(ws+"/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		edits []e
		kind  tool.ErrorKind
		want  string
	}{
		{"not read", ws + "/unread.txt", []e{{"old_string": "a", "new_string": "b"}}, tool.KindConflict, filestate.NotReadMessage},
		{"changed since read", ws + "/changed.txt", []e{{"old_string": "a", "new_string": "b"}}, tool.KindConflict, filestate.ModifiedMessage},
		{"missing file", ws + "/nope.txt", []e{{"old_string": "a", "new_string": "b"}}, tool.KindFailed,
			"File does not exist: " + ws + "/nope.txt. To create it, make the first edit's old_string empty and give the content as its new_string."},
		{"empty old_string on a non-empty file", ws + "/full.txt", []e{{"old_string": "", "new_string": "x"}}, tool.KindFailed,
			"Edit 1 of 1 failed: Cannot create " + ws + "/full.txt: the file already exists and is not empty. An empty old_string only creates a file (or fills an empty one); give the text to replace in old_string.\nNo edit was applied; " + ws + "/full.txt is unchanged."},
		{"directory", ws + "/dir", []e{{"old_string": "a", "new_string": "b"}}, tool.KindFailed, ws + "/dir is a directory; MultiEdit needs the path of a file."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, ws)
			_, err := runStrict(t, env, tc.path, tc.edits...)
			var te *tool.Error
			if !errors.As(err, &te) || te.Kind != tc.kind || te.Msg != tc.want {
				t.Fatalf("err = %v, want failure %q", err, tc.want)
			}
			if after := snapshot(t, ws); after != before {
				t.Fatalf("files changed:\n%s", after)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	p := env.Cwd + "/new/dir/main.go"
	res, err := run(t, env, p,
		e{"old_string": "", "new_string": "package main\n\nfunc main() {}\n"},
		e{"old_string": "func main() {}", "new_string": "func main() {\n\tprintln(1)\n}"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Created " + p + " and applied 2 edits:\n1. Wrote the initial content \"package main\\n\\nfunc main() {}\\n\"\n2. Replaced \"func main() {}\" with \"func main() {\\n\\tprintln(1)\\n}\""
	if got := tooltest.Text(res); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
	if body, _ := os.ReadFile(p); string(body) != "package main\n\nfunc main() {\n\tprintln(1)\n}\n" {
		t.Fatalf("file = %q", body)
	}
	if _, ok := st.Stamps[p]; !ok {
		t.Fatal("no stamp recorded for the created file")
	}
	// The stamp lets a second call through without a Read.
	if _, err := run(t, env, p, e{"old_string": "println(1)", "new_string": "println(2)"}); err != nil {
		t.Fatalf("second MultiEdit: %v", err)
	}
}

func TestCreateFailsWhole(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	p := env.Cwd + "/new.txt"
	_, err := run(t, env, p, e{"old_string": "", "new_string": "a\n"}, e{"old_string": "b", "new_string": "c"})
	var te *tool.Error
	if !errors.As(err, &te) || !strings.HasPrefix(te.Msg, "Edit 2 of 2 failed: String to replace not found in file.") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed create left a file (%v)", err)
	}
}

func TestOutsideWorkspace(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	outside := t.TempDir() + "/x.txt"
	_, err := run(t, env, outside, e{"old_string": "", "new_string": "x"})
	if err == nil {
		t.Fatal("MultiEdit wrote outside the workspace")
	}
	if _, statErr := os.Lstat(outside); statErr == nil {
		t.Fatal("file created outside the workspace")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		input string
		want  string
	}{
		{input: `{"file_path":"/ws/a","edits":[{"old_string":"x","new_string":"y"}]}`},
		{input: `{"file_path":"/ws/a","edits":[{"old_string":"","new_string":"y"},{"old_string":"y","new_string":"z","replace_all":true}]}`},
		{input: `{"file_path":"","edits":[{"old_string":"x","new_string":"y"}]}`, want: "file_path is empty"},
		{input: `{"file_path":"/ws/a","edits":[]}`, want: "edits is empty"},
		{input: `{"file_path":"/ws/a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"q","new_string":"q"}]}`,
			want: "Edit 2 of 2: No changes to make: old_string and new_string are exactly the same."},
		{input: `{"file_path":"/ws/a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"","new_string":"z"}]}`,
			want: "Edit 2 of 2 has an empty old_string"},
	}
	for _, tc := range tests {
		_, err := New().Parse([]byte(tc.input))
		if tc.want == "" {
			if err != nil {
				t.Errorf("Parse(%s) = %v", tc.input, err)
			}
			continue
		}
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || !strings.Contains(te.Msg, tc.want) {
			t.Errorf("Parse(%s) = %v, want invalid input containing %q", tc.input, err, tc.want)
		}
	}
}

func TestDefinition(t *testing.T) {
	d := New().Definition()
	if d.Name != "MultiEdit" || len(d.Description) < 500 {
		t.Fatalf("definition %q with a %d-byte description", d.Name, len(d.Description))
	}
	sch, _ := tooltest.Schema(t, d)
	for in, valid := range map[string]bool{
		`{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"}]}`:                      true,
		`{"file_path":"/a","edits":[{"old_string":"x","new_string":"y","replace_all":true}]}`:   true,
		`{"file_path":"/a","edits":[]}`:                                                         false,
		`{"file_path":"/a"}`:                                                                    false,
		`{"file_path":"/a","edits":[{"old_string":"x"}]}`:                                       false,
		`{"file_path":"/a","edits":[{"old_string":"x","new_string":"y","regex":true}]}`:         false,
		`{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"}],"dry_run":true}`:       false,
		`{"file_path":"/a","edits":[{"old_string":"x","new_string":"y","replace_all":"true"}]}`: false,
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != valid {
			t.Errorf("Validate(%s) = %v, want valid=%v", in, err, valid)
		}
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
			fi, _ := d.Info()
			fmt.Fprintf(&b, " %q %v", body, fi.ModTime().UnixNano())
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

// TestClaudeCodeRule: by default MultiEdit follows Edit's rule: a file
// never read is changed, one changed since the read too when the edits
// still apply.
func TestClaudeCodeRule(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	put(t, ws+"/unread.txt", "a\n")
	if _, err := run(t, env, ws+"/unread.txt", e{"old_string": "a", "new_string": "b"}); err != nil {
		t.Fatalf("unread: %v", err)
	}
	put(t, ws+"/changed.txt", "a\nb\n")
	readIt(t, env, ws+"/changed.txt")
	put(t, ws+"/changed.txt", "a\nB\n")
	if _, err := run(t, env, ws+"/changed.txt", e{"old_string": "a", "new_string": "x"}); err != nil {
		t.Fatalf("changed: %v", err)
	}
	for p, want := range map[string]string{"unread.txt": "b\n", "changed.txt": "x\nB\n"} {
		if b, _ := os.ReadFile(ws + "/" + p); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
}
