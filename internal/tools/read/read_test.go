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
		fmt.Fprintf(&b, "%d\tline %d", i, i)
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
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name    string
		content string
		in      map[string]any
		opts    Options
		want    string
		trunc   bool
	}{
		{name: "whole file", content: "a\nb\nc\n", want: "1\ta\n2\tb\n3\tc\n4\t"},
		{name: "no final newline", content: "a\nb", want: "1\ta\n2\tb"},
		{name: "one empty line", content: "\n", want: "1\t\n2\t"},
		{name: "blank lines kept", content: "a\n\n\nb\n", want: "1\ta\n2\t\n3\t\n4\tb\n5\t"},
		{name: "CRLF", content: "a\r\nb\r\n", want: "1\ta\n2\tb\n3\t"},
		{name: "lone CR kept, final CR dropped", content: "one\rtwo\r", want: "1\tone\rtwo"},
		{name: "byte-order mark dropped", content: "\ufeffhi\n", want: "1\thi\n2\t"},
		{name: "tabs", content: "\tx\n", want: "1\t\tx\n2\t"},
		{name: "empty file", content: "", want: emptyNotice},
		{name: "empty file with offset", content: "", in: map[string]any{"offset": 5},
			want: "<system-reminder>Warning: the file exists but is shorter than the provided offset (5). The file has 1 lines.</system-reminder>"},
		{name: "offset past end", content: "a\nb\n", in: map[string]any{"offset": 4},
			want: "<system-reminder>Warning: the file exists but is shorter than the provided offset (4). The file has 3 lines.</system-reminder>"},
		{name: "offset on the empty last line", content: "a\nb\n", in: map[string]any{"offset": 3}, want: "3\t"},
		{name: "offset zero numbers from 0", content: lines(3), in: map[string]any{"offset": 0, "limit": 2}, want: "0\tline 1\n1\tline 2"},
		{name: "negative offset is the first line", content: "a\n", in: map[string]any{"offset": -3}, want: "1\ta\n2\t"},
		{name: "offset one", content: lines(3), in: map[string]any{"offset": 1}, want: numbered(1, 3) + "\n4\t"},
		{name: "offset to the end", content: lines(5), in: map[string]any{"offset": 4}, want: numbered(4, 5) + "\n6\t"},
		{name: "offset written as a float", content: lines(5), in: map[string]any{"offset": 4.0}, want: numbered(4, 5) + "\n6\t"},
		{name: "offset and limit, no note", content: lines(10), in: map[string]any{"offset": 3, "limit": 2}, want: numbered(3, 4)},
		{name: "limit zero reads all", content: "a\n", in: map[string]any{"limit": 0}, want: "1\ta\n2\t"},
		{name: "negative limit reads all", content: "a\n", in: map[string]any{"limit": -1}, want: "1\ta\n2\t"},
		{name: "limit larger than the file", content: lines(4), in: map[string]any{"limit": 100}, want: numbered(1, 4) + "\n5\t"},
		{name: "no line limit", content: lines(2500), want: numbered(1, 2500) + "\n2501\t"},
		{name: "long line whole", content: long + "\nnext", want: "1\t" + long + "\n2\tnext"},
		{name: "line longer than the buffer", content: "a\n" + strings.Repeat("y", 200_000) + "\nlast", in: map[string]any{"offset": 2},
			want: "2\t" + strings.Repeat("y", 200_000) + "\n3\tlast"},
		{name: "not UTF-8 shown with a note", content: "caf\xe9\n", want: "1\tcaf\uFFFD\n2\t\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"},
		{name: "invalid UTF-8 far in, outside the lines shown", content: strings.Repeat("ok\n", 4000) + "bad \xff\n", in: map[string]any{"limit": 1},
			want: "1\tok\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"},
		{name: "a truncated sequence is one replacement", content: "a\xe2\x82b", want: "1\ta\uFFFDb\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"},
		{name: "NUL shown with a note", content: "ab\x00cd\n", want: "1\tab\x00cd\n2\t\n\n[This file has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without a byte-order mark, or text with embedded NULs. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"},
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
			if got := tooltest.Text(res); got != "1\tpackage x\n2\t" {
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
		if got := tooltest.Text(res); got != "1\t- one\n2\t- two\n3\t" {
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
	put(t, ws, "big.txt", strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 4500))
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
		{name: "missing", path: ws + "/nope.txt", kind: tool.KindNotFound,
			want: "File does not exist. Note: your current working directory is " + ws + "."},
		{name: "missing in a missing directory", path: ws + "/no/such/file", kind: tool.KindNotFound,
			want: "File does not exist. Note: your current working directory is " + ws + "."},
		{name: "missing, other case exists: no suggestion", path: ws + "/dir/readme.md", kind: tool.KindNotFound,
			want: "File does not exist. Note: your current working directory is " + ws + "."},
		{name: "missing, other extension exists", path: ws + "/dir/main.ts", kind: tool.KindNotFound,
			want: "File does not exist. Note: your current working directory is " + ws + ". Did you mean main.tsx?"},
		{name: "directory", path: ws + "/dir", kind: tool.KindWrongType,
			want: "EISDIR: illegal operation on a directory, read '" + ws + "/dir'"},
		{name: "workspace root", path: ws, kind: tool.KindWrongType,
			want: "EISDIR: illegal operation on a directory, read '" + ws + "'"},
		{name: "binary by its extension", path: ws + "/bin.dat", kind: tool.KindFailed,
			want: "This tool cannot read binary files. The file appears to be a binary .dat file. Use a skill for this file type if one is available, or a shell command or script that can read the format."},
		{name: "binary even when missing", path: ws + "/gone.EXE", kind: tool.KindFailed,
			want: "This tool cannot read binary files. The file appears to be a binary .exe file. Use a skill for this file type if one is available, or a shell command or script that can read the format."},
		{name: "over 256KB", path: ws + "/big.txt", kind: tool.KindFailed,
			want: "File content (281.3KB) exceeds maximum allowed size (256KB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file."},
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
			// Claude Code gives a missing file's text without <tool_use_error>.
			if tc.kind == tool.KindNotFound && !te.Bare {
				t.Errorf("a missing file's error is not bare")
			}
		})
	}
	if len(st.Stamps) != 0 {
		t.Errorf("failed reads recorded stamps: %v", st.Stamps)
	}

	// A NUL past the sniffed part is not caught up front; the line is
	// shown with the byte as it is, which protobuf accepts.
	res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": ws + "/late-nul.txt"})
	if err != nil || !strings.HasSuffix(tooltest.Text(res), "\x00") || strings.Contains(tooltest.Text(res), "[This file") {
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
			// Without an extension, the content decides, as in Claude Code.
			p := put(t, env.Cwd, "picture", tc.content)
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

func TestReadLargeFileWithLimit(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	// 8 MiB of 64-byte lines: over the size limit, so only offset and
	// limit read it; the lines chosen may hold at most 3.1MB.
	var b strings.Builder
	for b.Len() < 8<<20 {
		b.WriteString("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n")
	}
	p := put(t, env.Cwd, "huge.log", b.String())
	res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p, "offset": 3, "limit": 2})
	if err != nil {
		t.Fatal(err)
	}
	const row = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"
	if got := tooltest.Text(res); got != "3\t"+row+"\n4\t"+row {
		t.Fatalf("got %q", got)
	}
	_, err = tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p, "limit": 100_000})
	var te *tool.Error
	if !errors.As(err, &te) || te.Msg != "The requested line range contains over 3.1MB of text, more than a read can return. Use a smaller limit \u2014 or, if a single line is this large, no limit will fit it: search for specific content instead. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file." {
		t.Fatalf("large range: %v", err)
	}
	res, err = tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p, "allow_large": true})
	if err != nil || !strings.HasSuffix(tooltest.Text(res), "\n131073\t") {
		t.Fatalf("allow_large: %v", err)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 1024: "1KB", 288000: "281.3KB", 262144: "256KB", 3200000: "3.1MB", 5 << 30: "5GB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
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
		{name: "path only", input: `{"file_path":"/ws/a"}`, start: 1},
		{name: "offset and limit", input: `{"file_path":"/ws/a","offset":7,"limit":3}`, start: 7, limit: 3},
		{name: "offset zero", input: `{"file_path":"/ws/a","offset":0}`, start: 0},
		{name: "negative offset", input: `{"file_path":"/ws/a","offset":-1}`, start: 1},
		{name: "zero limit", input: `{"file_path":"/ws/a","limit":0}`, start: 1},
		{name: "integral float", input: `{"file_path":"/ws/a","offset":7.0,"limit":3.0}`, start: 7, limit: 3},
		{name: "empty path", input: `{"file_path":""}`, want: "file_path is empty: give the absolute path of the file to read."},
		{name: "fractional offset", input: `{"file_path":"/ws/a","offset":1.5}`, want: "offset must be a line number (1 for the first line), got 1.5."},
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
