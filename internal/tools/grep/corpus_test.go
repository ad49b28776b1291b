package grep

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// canary is a string that only files outside the workspace contain.
const canary = "CANARY_d41d8cd9"

// backends returns the engines to test: the built-in one always, ripgrep
// when it is installed.
func backends(t *testing.T) map[string]Options {
	t.Helper()
	out := map[string]Options{"go": {PureGo: true}}
	if _, err := exec.LookPath("rg"); err == nil {
		out["rg"] = Options{}
	} else {
		t.Log("rg not found: testing the built-in engine only")
	}
	return out
}

// fileSet writes files with increasing modification times, so that the
// newest-first order of files_with_matches is known.
type fileSet struct {
	t   testing.TB
	dir string
	n   int
}

var mtimeBase = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func (f *fileSet) put(name string, data []byte) string {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.n++
	mt := mtimeBase.Add(time.Duration(f.n) * time.Minute)
	if err := os.Chtimes(p, mt, mt); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fileSet) text(name, s string) string { return f.put(name, []byte(s)) }

func link(t testing.TB, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// corpus builds the workspace the parity and behaviour tests search: nested
// directories, ignore files at several levels, hidden files, VCS metadata,
// binary and odd encodings, long lines, symbolic links in and out, and
// files of several types. Outside it, a canary directory.
func corpus(t *testing.T) (env *tool.Env, ws, outside string) {
	t.Helper()
	env, _, _ = tooltest.Env(t)
	ws = env.Cwd
	outside = t.TempDir()
	out := &fileSet{t: t, dir: outside}
	out.text("canary.txt", "needle "+canary+"\n")
	out.text("dir/inner.go", "package inner // needle "+canary+"\n")
	out.text(".gitignore", "*.go\n*.txt\n")

	f := &fileSet{t: t, dir: ws}
	f.text(".gitignore", "*.log\nbuild/\n!keep.log\n!build/keep.go\n/rootonly.txt\nsub/*.gen.go\n")
	f.text(".ignore", "dotignored.txt\n")
	f.text(".rgignore", "!rgkept.txt\n")
	f.text(".git/config", "[core] needle\n")
	f.text(".git/info/exclude", "excluded.txt\n")
	f.text(".git/HEAD", "ref: needle\n")
	f.text(".hg/store", "needle\n")
	f.text(".hidden/secret.txt", "a hidden needle\n")
	f.text(".env", "NEEDLE=1\n")
	f.text("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"needle\")\n}\n")
	f.text("app.js", "const needle = require('needle');\nfunction Needle() { return 1 }\n")
	f.text("tool.py", "def needle():\n    return 'Needle'\n")
	f.text("lib.rs", "fn needle() -> u8 { 0 }\n")
	f.text("README.md", "# Needle\n\nSearch for a needle in a haystack.\n")
	f.text("data.json", "{\"needle\": true}\n")
	f.text("conf.yaml", "needle: yes\n")
	f.text("run.sh", "#!/bin/sh\necho needle\n")
	f.text("Makefile", "all:\n\techo needle\n")
	f.text("debug.log", "needle in a log\n")
	f.text("keep.log", "needle kept\n")
	f.text("rootonly.txt", "needle rootonly\n")
	f.text("dotignored.txt", "needle dotignored\n")
	f.text("excluded.txt", "needle excluded\n")
	f.text("rgkept.txt", "needle rgkept\n")
	f.text("build/out.go", "package build // needle\n")
	f.text("sub/.gitignore", "*.tmp\n!keep.tmp\n")
	f.text("sub/x.tmp", "needle tmp\n")
	f.text("sub/keep.tmp", "needle keep tmp\n")
	f.text("sub/rootonly.txt", "needle not root\n")
	f.text("sub/gen.gen.go", "package sub // needle generated\n")
	f.text("sub/deeper/deep.go", "package deeper\n\n// Needle NEEDLE needle\n")
	f.text("sub/deeper/debug.log", "needle deep log\n")
	f.text("nested/.git/HEAD", "ref\n")
	f.text("nested/n.log", "needle in nested repo log\n")
	f.text("vendor/lib/lib.go", "package lib // needle\n")
	f.text("ctx.txt", contextText())
	f.text("multi.txt", "start\nmiddle needle\nend\nstart again\nend again\n")
	f.text("unicode.txt", "héllo wörld 123 ٣٤\nstraße\nKelvin \u212a and long \u017f\nplain ascii\n")
	f.text("crlf.txt", "needle one\r\nneedle two\r\n")
	f.text("long.txt", strings.Repeat("x", 600)+" needle "+strings.Repeat("é", 300)+"\nshort needle\n"+strings.Repeat("ctx", 300)+"\n"+
		"needle "+strings.Repeat("z", 3000)+"\n"+strings.Repeat("€", 1000)+"\nneedle "+strings.Repeat("\xff", 2500)+"\n")
	f.put("bin.dat", []byte("needle\x00binary\n"))
	f.put("late.bin", lateBinary())
	f.put("bom.txt", append([]byte("\xef\xbb\xbf"), "needle first\nsecond\n"...))
	f.put("utf16.txt", utf16LE("needle in utf16\nline two\n"))
	f.text("dash.txt", "--pre=sh and -e flags\nx -- y\n")
	f.text("empty.txt", "")
	f.text("odd:name [1].txt", "needle in an odd name\n")
	f.text(".gitignore-free/build/keep.go", "package keep // needle\n")
	f.text("build/keep.go", "package keep // needle in an ignored directory\n")
	f.text("sub2/.ignore", "!*.log\n")
	f.text("sub2/x.log", "needle re-included by .ignore\n")
	f.text("blank.txt", "a\n\nb\n\n\nc\n")
	f.text("nonl.txt", "no newline needle")
	// Symbolic links are never followed by a walk.
	link(t, filepath.Join(outside, "canary.txt"), filepath.Join(ws, "linkout.txt"))
	link(t, filepath.Join(outside, "dir"), filepath.Join(ws, "linkdir"))
	link(t, "main.go", filepath.Join(ws, "inlink.go"))
	link(t, "sub", filepath.Join(ws, "insub"))
	link(t, "missing", filepath.Join(ws, "dangling.txt"))
	return env, ws, outside
}

func contextText() string {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		switch i {
		case 3, 4, 10, 14, 30:
			b.WriteString("needle line\n")
		default:
			b.WriteString("filler\n")
		}
	}
	return b.String()
}

// lateBinary has matches before and after a NUL that lies past the first
// 64 KiB, where ripgrep has already searched some of the file.
func lateBinary() []byte {
	var b bytes.Buffer
	b.WriteString("needle at the start\n")
	for b.Len() < 100_000 {
		b.WriteString(strings.Repeat("y", 79) + "\n")
	}
	b.WriteString("needle before nul\x00 after\nneedle after nul\n")
	return b.Bytes()
}

func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return out
}
