package write

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/read"
)

const current = " (file state is current in your context — no need to Read it back)"

func put(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, env *tool.Env, p string) {
	t.Helper()
	if _, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": p}); err != nil {
		t.Fatalf("Read %s: %v", p, err)
	}
}

func TestWrite(t *testing.T) {
	type setup func(t *testing.T, env *tool.Env, ws string)
	existing := func(t *testing.T, env *tool.Env, ws string) { put(t, ws+"/f.txt", "old\n", 0o644) }
	existingRead := func(t *testing.T, env *tool.Env, ws string) {
		existing(t, env, ws)
		readFile(t, env, ws+"/f.txt")
	}
	bump := func(t *testing.T, p string, content string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		setup    setup
		path     string // relative to the workspace unless absolute
		content  string
		want     string // result text or error message; {ws} is replaced
		wantErr  bool
		kind     tool.ErrorKind // of the failure
		strict   bool           // with the RequireRead policy
		file     string         // the file to check afterwards
		wantBody string
		wantMode os.FileMode
	}{
		{name: "new file", path: "f.txt", content: "hello\n",
			want: "File created successfully at: f.txt" + current, file: "f.txt", wantBody: "hello\n", wantMode: 0o644},
		{name: "new file with parents", path: "a/b/c.txt", content: "x",
			want: "File created successfully at: a/b/c.txt" + current, file: "a/b/c.txt", wantBody: "x", wantMode: 0o644},
		{name: "new empty file", path: "empty.txt", content: "",
			want: "File created successfully at: empty.txt" + current, file: "empty.txt", wantBody: "", wantMode: 0o644},
		{name: "existing, not read", setup: existing, path: "f.txt", content: "new",
			want: "The file f.txt has been updated successfully." + current, file: "f.txt", wantBody: "new", wantMode: 0o644},
		{name: "existing, not read, strict", setup: existing, path: "f.txt", content: "new", strict: true,
			wantErr: true, kind: tool.KindConflict, want: filestate.NotReadMessage, file: "f.txt", wantBody: "old\n", wantMode: 0o644},
		{name: "existing, read, strict", setup: existingRead, path: "f.txt", content: "new", strict: true,
			want: "The file f.txt has been updated successfully." + current, file: "f.txt", wantBody: "new", wantMode: 0o644},
		{name: "absolute path echoed as given", setup: existing, path: "{ws}/sub/../f.txt", content: "new",
			want: "The file {ws}/sub/../f.txt has been updated successfully." + current, file: "f.txt", wantBody: "new", wantMode: 0o644},
		{name: "existing, read", setup: existingRead, path: "f.txt", content: "new",
			want: "The file f.txt has been updated successfully." + current, file: "f.txt", wantBody: "new", wantMode: 0o644},
		{name: "existing, read, mode kept", path: "run.sh", content: "#!/bin/sh\n",
			setup: func(t *testing.T, env *tool.Env, ws string) {
				put(t, ws+"/run.sh", "old", 0o751)
				readFile(t, env, ws+"/run.sh")
			},
			want: "The file run.sh has been updated successfully." + current, file: "run.sh", wantBody: "#!/bin/sh\n", wantMode: 0o751},
		{name: "modified since read (size)", path: "f.txt", content: "new",
			setup: func(t *testing.T, env *tool.Env, ws string) {
				existingRead(t, env, ws)
				fi, _ := os.Stat(ws + "/f.txt")
				bump(t, ws+"/f.txt", "longer\n", fi.ModTime())
			},
			wantErr: true, kind: tool.KindConflict, want: filestate.ModifiedMessage, file: "f.txt", wantBody: "longer\n", wantMode: 0o644},
		{name: "modified since read (time)", path: "f.txt", content: "new",
			setup: func(t *testing.T, env *tool.Env, ws string) {
				existingRead(t, env, ws)
				bump(t, ws+"/f.txt", "OLD\n", time.Now().Add(time.Hour))
			},
			wantErr: true, kind: tool.KindConflict, want: filestate.ModifiedMessage, file: "f.txt", wantBody: "OLD\n", wantMode: 0o644},
		{name: "write after write needs no read", path: "f.txt", content: "second",
			setup: func(t *testing.T, env *tool.Env, ws string) {
				if _, err := tooltest.Run(t, New(), env, map[string]any{"file_path": ws + "/f.txt", "content": "first"}); err != nil {
					t.Fatal(err)
				}
			},
			want: "The file f.txt has been updated successfully." + current, file: "f.txt", wantBody: "second", wantMode: 0o644},
		{name: "through a symlink inside", path: "link.txt", content: "via link",
			setup: func(t *testing.T, env *tool.Env, ws string) {
				existing(t, env, ws)
				os.Symlink("f.txt", ws+"/link.txt")
				readFile(t, env, ws+"/link.txt")
			},
			want: "The file link.txt has been updated successfully." + current, file: "f.txt", wantBody: "via link", wantMode: 0o644},
		{name: "read through a symlink, written by the real path", path: "f.txt", content: "direct",
			setup: func(t *testing.T, env *tool.Env, ws string) {
				existing(t, env, ws)
				os.Symlink(".", ws+"/here")
				readFile(t, env, ws+"/here/here/f.txt")
			},
			want: "The file f.txt has been updated successfully." + current, file: "f.txt", wantBody: "direct", wantMode: 0o644},
		{name: "dangling symlink inside creates the target", path: "dangling", content: "made",
			setup: func(t *testing.T, env *tool.Env, ws string) { os.Symlink("sub/target.txt", ws+"/dangling") },
			want:  "File created successfully at: dangling" + current, file: "sub/target.txt", wantBody: "made", wantMode: 0o644},
		{name: "directory", path: "dir", content: "x",
			setup:   func(t *testing.T, env *tool.Env, ws string) { os.Mkdir(ws+"/dir", 0o755) },
			wantErr: true, kind: tool.KindWrongType, want: "dir is a directory, not a file. To create a file inside it, include the file name in file_path."},
		{name: "fifo", path: "fifo", content: "x",
			setup:   func(t *testing.T, env *tool.Env, ws string) { syscall.Mkfifo(ws+"/fifo", 0o644) },
			wantErr: true, kind: tool.KindWrongType, want: "fifo is not a regular file (p---------); Write only replaces regular files."},
		{name: "parent is a file", path: "f.txt/x", content: "x", setup: existing,
			wantErr: true, kind: tool.KindWrongType, want: "Error calling tool (Write): ENOTDIR: not a directory, stat '{ws}/f.txt/x'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := tooltest.Env(t)
			ws := env.Cwd
			if tc.setup != nil {
				tc.setup(t, env, ws)
			}
			tl := New()
			if tc.strict {
				tl = NewWith(filestate.Policy{RequireRead: true})
			}
			res, err := tooltest.Run(t, tl, env, map[string]any{"file_path": strings.ReplaceAll(tc.path, "{ws}", ws), "content": tc.content})
			want := strings.ReplaceAll(tc.want, "{ws}", ws)
			if tc.wantErr {
				var te *tool.Error
				if !errors.As(err, &te) || te.Kind != tc.kind || te.Msg != want {
					t.Fatalf("Write = %v, %v; want failure %q", res, err, want)
				}
			} else {
				if err != nil {
					t.Fatalf("Write: %v", err)
				}
				if got := tooltest.Text(res); got != want {
					t.Fatalf("text = %q, want %q", got, want)
				}
			}
			if tc.file == "" {
				return
			}
			p := filepath.Join(ws, tc.file)
			body, err := os.ReadFile(p)
			if err != nil || string(body) != tc.wantBody {
				t.Fatalf("%s = %q, %v; want %q", tc.file, body, err, tc.wantBody)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != tc.wantMode {
				t.Errorf("%s mode = %v, want %v", tc.file, fi.Mode().Perm(), tc.wantMode)
			}
			assertNoTempFiles(t, ws)
		})
	}
}

func TestWriteRecordsStampAndKeepsSymlink(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	ws := env.Cwd
	put(t, ws+"/real.txt", "old", 0o644)
	os.Symlink("real.txt", ws+"/link.txt")
	readFile(t, env, ws+"/link.txt")
	if _, err := tooltest.Run(t, New(), env, map[string]any{"file_path": ws + "/link.txt", "content": "new content"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(ws + "/link.txt"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.txt is no longer a symlink (%v)", err)
	}
	fi, _ := os.Stat(ws + "/real.txt")
	got, ok := st.Stamps[ws+"/real.txt"]
	if !ok || !got.ModTime.Equal(fi.ModTime()) || got.Size != int64(len("new content")) {
		t.Fatalf("stamp after write = %+v (%v), want the new file's", got, ok)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		input string
		want  string
	}{
		{input: `{"file_path":"/ws/a","content":"x"}`},
		{input: `{"file_path":"","content":"x"}`, want: "file_path is empty: give the absolute path of the file to write."},
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
			t.Fatal(err)
		}
		if inv.Traits() != (tool.Traits{}) {
			t.Errorf("traits = %+v, want zero", inv.Traits())
		}
		if a := inv.Activity(); a != (tool.Activity{Summary: "Write /ws/a"}) {
			t.Errorf("activity = %+v", a)
		}
	}
}

func assertNoTempFiles(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && len(d.Name()) > 0 && d.Name()[0] == '.' {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
