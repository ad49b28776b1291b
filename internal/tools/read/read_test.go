package read

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

func put(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// numbered builds the expected view of lines from..to of "line N" lines.
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\tline %d", i, i)
	}
	return b.String()
}

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadText(t *testing.T) {
	long := strings.Repeat("x", 2000)
	tests := []struct {
		name    string
		content string
		in      map[string]any
		opts    Options
		want    string
		trunc   bool
	}{
		{name: "whole file", content: "a\nb\nc\n", want: "     1\ta\n     2\tb\n     3\tc"},
		{name: "no final newline", content: "a\nb", want: "     1\ta\n     2\tb"},
		{name: "one empty line", content: "\n", want: "     1\t"},
		{name: "blank lines kept", content: "a\n\n\nb\n", want: "     1\ta\n     2\t\n     3\t\n     4\tb"},
		{name: "CRLF", content: "a\r\nb\r\n", want: "     1\ta\n     2\tb"},
		{name: "tabs", content: "\tx\n", want: "     1\t\tx"},
		{name: "empty file", content: "", want: emptyNotice},
		{name: "empty file with offset", content: "", in: map[string]any{"offset": 5}, want: emptyNotice},
		{name: "offset past end", content: "a\nb\n", in: map[string]any{"offset": 3},
			want: "<system-reminder>Warning: the file exists but is shorter than the provided offset (3). The file has 2 lines.</system-reminder>"},
		{name: "offset zero is the first line", content: lines(3), in: map[string]any{"offset": 0}, want: numbered(1, 3)},
		{name: "offset one", content: lines(3), in: map[string]any{"offset": 1}, want: numbered(1, 3)},
		{name: "offset to the end", content: lines(5), in: map[string]any{"offset": 4}, want: numbered(4, 5)},
		{name: "offset written as a float", content: lines(5), in: map[string]any{"offset": 4.0}, want: numbered(4, 5)},
		{name: "offset and limit", content: lines(10), in: map[string]any{"offset": 3, "limit": 2}, trunc: true,
			want: numbered(3, 4) + "\n\n[Showing lines 3-4 of 10 (limit=2). To read further, call Read with offset=5.]"},
		{name: "limit reaching the end exactly", content: lines(4), in: map[string]any{"limit": 4}, want: numbered(1, 4)},
		{name: "limit larger than the file", content: lines(4), in: map[string]any{"limit": 100}, want: numbered(1, 4)},
		{name: "default 2000 lines", content: lines(2500), trunc: true,
			want: numbered(1, 2000) + "\n\n[Showing lines 1-2000 of 2500 (without a limit, Read returns at most 2000 lines). To read further, call Read with offset=2001.]"},
		{name: "last line without newline counted", content: lines(3) + "line 4", in: map[string]any{"limit": 1}, trunc: true,
			want: numbered(1, 1) + "\n\n[Showing lines 1-1 of 4 (limit=1). To read further, call Read with offset=2.]"},
		{name: "long line cut", content: long + "tail\nnext\n", want: "     1\t" + long + "... [line truncated]\n     2\tnext"},
		{name: "line longer than the buffer cut", content: "a\n" + strings.Repeat("y", 200_000) + "\nlast", in: map[string]any{"offset": 2},
			want: "     2\t" + strings.Repeat("y", 2000) + "... [line truncated]\n     3\tlast"},
		{name: "unterminated huge last line", content: "a\n" + strings.Repeat("z", 150_000), in: map[string]any{"offset": 2},
			want: "     2\t" + strings.Repeat("z", 2000) + "... [line truncated]"},
		{name: "invalid UTF-8 past the sniffed part", content: strings.Repeat("ok\n", 4000) + "bad \xff\n", in: map[string]any{"offset": 4001},
			want: "  4001\tbad \uFFFD"},
		{name: "output cap", content: lines(100), opts: Options{MaxOutputBytes: 100}, trunc: true,
			want: numbered(1, 7) + "\n\n[Showing lines 1-7 of 100 (one result holds at most 100 bytes). To read further, call Read with offset=8.]"},
		{name: "output cap keeps at least one line", content: long + "\nb\n", opts: Options{MaxOutputBytes: 10}, trunc: true,
			want: "     1\t" + long + "\n\n[Showing lines 1-1 of 2 (one result holds at most 10 bytes). To read further, call Read with offset=2.]"},
		{name: "line count bounded", content: lines(100_000), in: map[string]any{"limit": 2}, opts: Options{CountBudgetBytes: 1000}, trunc: true,
			// 3 lines consumed, then 1000 bytes: lines 4-9 (7 bytes each),
			// 10-99 (8 bytes) and 27 lines of 9 bytes.
			want: numbered(1, 2) + "\n\n[Showing lines 1-2 of at least 126 (limit=2). To read further, call Read with offset=3.]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, st, _ := tooltest.Env(t)
			p := put(t, env.Cwd, "f.txt", tc.content)
			in := map[string]any{"file_path": p}
			for k, v := range tc.in {
				in[k] = v
			}
			res, err := tooltest.Run(t, New(tc.opts), env, in)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if got := tooltest.Text(res); got != tc.want {
				t.Fatalf("Read text:\n%.600q\nwant:\n%.600q", got, tc.want)
			}
			if res.IsError {
				t.Errorf("IsError set")
			}
			if got, _ := res.Meta["truncated"].(bool); got != tc.trunc {
				t.Errorf("meta truncated = %v, want %v", got, tc.trunc)
			}
			assertStamp(t, st, p)
		})
	}
}

func assertStamp(t *testing.T, st *tooltest.State, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := st.Stamps[p]
	if !ok {
		t.Fatalf("no read stamp for %s (stamps: %v)", p, st.Stamps)
	}
	if !got.ModTime.Equal(fi.ModTime()) || got.Size != fi.Size() {
		t.Fatalf("stamp %+v, want {%v %d}", got, fi.ModTime(), fi.Size())
	}
}

func TestReadRelativePathAndSymlinkInside(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	real := put(t, env.Cwd, "src/real.go", "package x\n")
	if err := os.Symlink("src/real.go", filepath.Join(env.Cwd, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(env.Cwd, "srcdir")); err != nil {
		t.Fatal(err)
	}
	env.Cwd = filepath.Join(env.Cwd, "src")
	for _, p := range []string{"real.go", "../link.go", filepath.Join(filepath.Dir(env.Cwd), "srcdir", "real.go")} {
		t.Run(p, func(t *testing.T) {
			clear(st.Stamps)
			res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p})
			if err != nil {
				t.Fatal(err)
			}
			if got := tooltest.Text(res); got != "     1\tpackage x" {
				t.Fatalf("text = %q", got)
			}
			// Every spelling is keyed by the real file, where Edit looks.
			assertStamp(t, st, real)
			if len(st.Stamps) != 1 {
				t.Fatalf("stamps = %v, want only %s", st.Stamps, real)
			}
		})
	}
}

func TestReadAdditionalDirectory(t *testing.T) {
	extra, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env, st, _ := tooltest.Env(t, extra)
	p := put(t, extra, "notes/todo.md", "- one\n- two\n")
	// An absolute symlink from the primary directory into the additional
	// one: os.Root alone refuses it, resolution places it in the right root.
	if err := os.Symlink(extra+"/notes", env.Cwd+"/notes"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, env.Cwd + "/notes/todo.md"} {
		res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": path})
		if err != nil {
			t.Fatalf("Read %s: %v", path, err)
		}
		if got := tooltest.Text(res); got != "     1\t- one\n     2\t- two" {
			t.Fatalf("Read %s = %q", path, got)
		}
		assertStamp(t, st, p)
	}
}

func TestReadErrors(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	ws := env.Cwd
	put(t, ws, "dir/README.md", "x")
	put(t, ws, "dir/main.tsx", "x")
	put(t, ws, "bin.dat", "ELF\x00\x01\x02")
	put(t, ws, "latin1.txt", "caf\xe9\n")
	put(t, ws, "late-nul.txt", strings.Repeat("abcdefgh\n", 1000)+"\x00")
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("loop-b", filepath.Join(ws, "loop-a"))
	os.Symlink("loop-a", filepath.Join(ws, "loop-b"))
	tests := []struct {
		name string
		path string
		want string
		kind tool.ErrorKind
	}{
		{name: "missing", path: ws + "/nope.txt", kind: tool.KindFailed,
			want: "File does not exist: " + ws + "/nope.txt. The current working directory is " + ws + "."},
		{name: "missing in a missing directory", path: ws + "/no/such/file", kind: tool.KindFailed,
			want: "File does not exist: " + ws + "/no/such/file. The current working directory is " + ws + "."},
		{name: "missing, other case exists", path: ws + "/dir/readme.md", kind: tool.KindFailed,
			want: "File does not exist: " + ws + "/dir/readme.md. Did you mean " + ws + "/dir/README.md?"},
		{name: "missing, other extension exists", path: ws + "/dir/main.ts", kind: tool.KindFailed,
			want: "File does not exist: " + ws + "/dir/main.ts. Did you mean " + ws + "/dir/main.tsx?"},
		{name: "directory", path: ws + "/dir", kind: tool.KindFailed,
			want: ws + "/dir is a directory, not a file. Use Glob to find files in it, or ls through Bash to list it."},
		{name: "workspace root", path: ws, kind: tool.KindFailed,
			want: ws + " is a directory, not a file. Use Glob to find files in it, or ls through Bash to list it."},
		{name: "binary", path: ws + "/bin.dat", kind: tool.KindFailed,
			want: "Cannot read " + ws + "/bin.dat: it is a binary file (application/octet-stream) and cannot be shown as text. Use Bash (for example file, xxd or strings) to inspect it."},
		{name: "not UTF-8", path: ws + "/latin1.txt", kind: tool.KindFailed,
			want: "Cannot read " + ws + "/latin1.txt: it is not UTF-8 text. It may be binary, or text in another encoding such as Latin-1 (convert it with iconv through Bash)."},
		{name: "fifo not opened", path: ws + "/fifo", kind: tool.KindFailed,
			want: ws + "/fifo is not a regular file (p---------); only regular files can be read."},
		{name: "symlink loop", path: ws + "/loop-a", kind: tool.KindFailed,
			want: "Cannot access " + ws + "/loop-a: too many levels of symbolic links (a symlink loop?)."},
		{name: "NUL in path", path: ws + "/a\x00b", kind: tool.KindInvalidInput,
			want: `Invalid file_path: path "` + ws + `/a\x00b" contains control characters.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": tc.path})
			var te *tool.Error
			if !errors.As(err, &te) {
				t.Fatalf("Read = %v, %v; want a *tool.Error", res, err)
			}
			if te.Kind != tc.kind || te.Msg != tc.want {
				t.Fatalf("error = %v %q\nwant    %v %q", te.Kind, te.Msg, tc.kind, tc.want)
			}
		})
	}
	if len(st.Stamps) != 0 {
		t.Errorf("failed reads recorded stamps: %v", st.Stamps)
	}

	// A NUL past the sniffed part is not caught up front; the line is
	// shown with the byte as it is, which protobuf accepts.
	res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": ws + "/late-nul.txt"})
	if err != nil || !strings.HasSuffix(tooltest.Text(res), "\x00") {
		t.Fatalf("late NUL: %v", err)
	}
}

func TestReadImages(t *testing.T) {
	pngData := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 40)
	tests := []struct {
		name      string
		content   string
		mediaType string
	}{
		{name: "png", content: pngData, mediaType: "image/png"},
		{name: "jpeg", content: "\xff\xd8\xff\xe0\x00\x10JFIF\x00" + strings.Repeat("\x00", 40), mediaType: "image/jpeg"},
		{name: "gif87", content: "GIF87a\x01\x00\x01\x00" + strings.Repeat("\x00", 20), mediaType: "image/gif"},
		{name: "gif89", content: "GIF89a\x01\x00\x01\x00" + strings.Repeat("\x00", 20), mediaType: "image/gif"},
		{name: "webp", content: "RIFF\x24\x00\x00\x00WEBPVP8 " + strings.Repeat("\x00", 30), mediaType: "image/webp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, st, _ := tooltest.Env(t)
			// The extension is deliberately wrong: content decides.
			p := put(t, env.Cwd, "picture.txt", tc.content)
			res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 || res.Content[0].Type != tool.BlockImage {
				t.Fatalf("content = %+v, want one image block", res.Content)
			}
			b := res.Content[0]
			if b.MediaType != tc.mediaType || string(b.Data) != tc.content {
				t.Fatalf("image %s with %d bytes, want %s with %d", b.MediaType, len(b.Data), tc.mediaType, len(tc.content))
			}
			assertStamp(t, st, p)
		})
	}

	t.Run("too large", func(t *testing.T) {
		env, _, _ := tooltest.Env(t)
		p := put(t, env.Cwd, "big.png", pngData+strings.Repeat("\x00", 3000))
		_, err := tooltest.Run(t, New(Options{MaxImageBytes: 2048}), env, map[string]any{"file_path": p})
		want := p + " is an image (image/png) of 3.0 KiB; images larger than 2.0 KiB cannot be returned. Make a smaller copy (for example with ImageMagick through Bash) and read that."
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
	})
}

func TestReadLargeFileIsLazy(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	// 8 MiB of 64-byte lines; only 10 are shown and 64 KiB more counted.
	var b strings.Builder
	for b.Len() < 8<<20 {
		b.WriteString("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n")
	}
	p := put(t, env.Cwd, "huge.log", b.String())
	res, err := tooltest.Run(t, New(Options{CountBudgetBytes: 64 << 10}), env, map[string]any{"file_path": p, "limit": 10})
	if err != nil {
		t.Fatal(err)
	}
	got := tooltest.Text(res)
	if !strings.Contains(got, "[Showing lines 1-10 of at least 1035 (limit=10).") {
		t.Fatalf("note missing or wrong:\n%s", got[strings.LastIndexByte(got, '\n')+1:])
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string // error message, "" when valid
		start int
		limit int
	}{
		{name: "path only", input: `{"file_path":"/ws/a"}`, start: 1, limit: 2000},
		{name: "offset and limit", input: `{"file_path":"/ws/a","offset":7,"limit":3}`, start: 7, limit: 3},
		{name: "offset zero", input: `{"file_path":"/ws/a","offset":0}`, start: 1, limit: 2000},
		{name: "integral float", input: `{"file_path":"/ws/a","offset":7.0,"limit":3.0}`, start: 7, limit: 3},
		{name: "empty path", input: `{"file_path":""}`, want: "file_path is empty: give the absolute path of the file to read."},
		{name: "negative offset", input: `{"file_path":"/ws/a","offset":-1}`, want: "offset must be a line number (1 for the first line), got -1."},
		{name: "fractional offset", input: `{"file_path":"/ws/a","offset":1.5}`, want: "offset must be a line number (1 for the first line), got 1.5."},
		{name: "zero limit", input: `{"file_path":"/ws/a","limit":0}`, want: "limit must be a number of lines of at least 1, got 0."},
		{name: "not an object", input: `[]`, want: "Invalid input for Read: json: cannot unmarshal array into Go value of type read.input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := New(Options{}).Parse([]byte(tc.input))
			if tc.want != "" {
				var te *tool.Error
				if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || te.Msg != tc.want {
					t.Fatalf("Parse = %v, want invalid input %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := inv.(*call)
			if c.start != tc.start || c.limit != tc.limit {
				t.Fatalf("start, limit = %d, %d; want %d, %d", c.start, c.limit, tc.start, tc.limit)
			}
			if inv.Traits() != (tool.Traits{ReadOnly: true, ConcurrencySafe: true, Repeatable: true}) {
				t.Errorf("traits = %+v", inv.Traits())
			}
			if a := inv.Activity(); a.Summary != "Read /ws/a" || !a.Read || a.Search || a.List {
				t.Errorf("activity = %+v", a)
			}
		})
	}
}

func TestReadCancelled(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	p := put(t, env.Cwd, "many.txt", lines(20_000))
	inv, err := New(Options{}).Parse([]byte(`{"file_path":"` + p + `","offset":19000}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := inv.Run(ctx, env); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if len(st.Stamps) != 0 {
		t.Fatalf("a cancelled read recorded a stamp")
	}
}
