package grep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// parityQueries exercise every input field. Each runs through both engines
// over the same corpus; the texts must be identical.
var parityQueries = []map[string]any{
	{"pattern": "needle"},
	{"pattern": "needle", "output_mode": "content"},
	{"pattern": "needle", "output_mode": "count"},
	{"pattern": "needle", "output_mode": "content", "-n": false},
	{"pattern": "NEEDLE", "-i": true},
	{"pattern": "NEEDLE", "-i": true, "output_mode": "count"},
	{"pattern": "needle", "-i": true, "output_mode": "content", "path": "sub"},
	{"pattern": "Needle", "output_mode": "content"},
	{"pattern": "needle", "glob": "*.go"},
	{"pattern": "needle", "glob": "!*.md"},
	{"pattern": "needle", "glob": "sub/**"},
	{"pattern": "needle", "glob": "*.{go,js}"},
	{"pattern": "needle", "glob": "*.go *.py"},
	{"pattern": "needle", "glob": "*.go,*.rs"},
	{"pattern": "needle", "glob": "*.log"},
	{"pattern": "needle", "glob": "!sub/"},
	{"pattern": "needle", "glob": "**/deeper/*"},
	{"pattern": "needle", "type": "go"},
	{"pattern": "needle", "type": "js"},
	{"pattern": "needle", "type": "py", "output_mode": "content"},
	{"pattern": "needle", "type": "make"},
	{"pattern": "needle", "type": "md", "output_mode": "count"},
	{"pattern": "needle", "type": "sh"},
	{"pattern": "needle", "type": "go", "glob": "sub/**"},
	{"pattern": "needle", "path": "ctx.txt", "output_mode": "content", "-A": 1},
	{"pattern": "needle", "path": "ctx.txt", "output_mode": "content", "-B": 2},
	{"pattern": "needle", "path": "ctx.txt", "output_mode": "content", "-C": 1},
	{"pattern": "needle", "path": "ctx.txt", "output_mode": "content", "context": 3},
	{"pattern": "needle", "path": "ctx.txt", "output_mode": "content", "-C": 5, "-A": 0},
	{"pattern": "needle", "output_mode": "content", "-C": 1, "glob": "*.{txt,go}"},
	{"pattern": "needle", "output_mode": "content", "-B": 1, "-n": false, "type": "go"},
	{"pattern": "start\nmiddle", "multiline": true, "output_mode": "content"},
	{"pattern": "start.*?end", "multiline": true, "output_mode": "content"},
	{"pattern": "start.*?end", "multiline": true, "output_mode": "count"},
	{"pattern": "start.*?end", "multiline": true},
	{"pattern": `start[\s\S]*?needle`, "multiline": true, "output_mode": "content", "-C": 1},
	{"pattern": "needle", "multiline": true, "output_mode": "count"},
	{"pattern": "needle", "output_mode": "content", "-o": true},
	{"pattern": `\w*needle\w*`, "output_mode": "content", "-o": true, "-i": true},
	{"pattern": "needle", "path": "ctx.txt", "output_mode": "content", "-o": true, "-C": 1},
	{"pattern": "needle", "path": "ctx.txt", "output_mode": "content", "-o": true, "-A": 2, "-n": false},
	{"pattern": "x*", "path": "ctx.txt", "output_mode": "content", "-o": true},
	{"pattern": "start.*?end", "multiline": true, "output_mode": "content", "-o": true},
	{"pattern": `start[\s\S]*?needle`, "multiline": true, "output_mode": "content", "-o": true, "-C": 1},
	{"pattern": "needle", "output_mode": "count", "-o": true},
	{"pattern": "needle", "-o": true},
	{"pattern": "needle$", "output_mode": "content"},
	{"pattern": "^needle", "output_mode": "content"},
	{"pattern": `\bneedle\b`, "output_mode": "count"},
	{"pattern": `[^a-z ]needle`, "output_mode": "content"},
	{"pattern": `\w+ld`, "output_mode": "content"},
	{"pattern": `\d+`, "output_mode": "content", "path": "unicode.txt"},
	{"pattern": `\s\d`, "output_mode": "content", "path": "unicode.txt"},
	{"pattern": "kelvin", "-i": true, "output_mode": "content"},
	{"pattern": "STRASSE|straße", "-i": true, "output_mode": "content"},
	{"pattern": "needle", "output_mode": "content", "path": "long.txt", "-C": 1},
	{"pattern": "needle", "output_mode": "content", "path": "late.bin"},
	{"pattern": "needle", "output_mode": "content", "glob": "*.bin"},
	{"pattern": "needle", "output_mode": "count", "glob": "*.bin"},
	{"pattern": "needle", "glob": "*.bin"},
	{"pattern": "needle", "output_mode": "content", "glob": "{bom,utf16,crlf,nonl}.txt"},
	{"pattern": "^needle", "output_mode": "content", "path": "bom.txt"},
	{"pattern": "--pre=sh", "output_mode": "content"},
	{"pattern": "-e", "output_mode": "content"},
	{"pattern": "--", "output_mode": "count"},
	{"pattern": "needle", "path": "debug.log", "output_mode": "content"},
	{"pattern": "needle", "path": ".git", "output_mode": "content"},
	{"pattern": "needle", "path": "nested"},
	{"pattern": "needle", "path": "sub/deeper", "output_mode": "content"},
	{"pattern": "needle", "path": "insub", "output_mode": "content"},
	{"pattern": "needle", "path": "inlink.go", "output_mode": "content"},
	{"pattern": "needle", "path": "bin.dat"},
	{"pattern": "needle", "head_limit": 3},
	{"pattern": "needle", "head_limit": 3, "offset": 2},
	{"pattern": "needle", "output_mode": "content", "head_limit": 4, "offset": 5},
	{"pattern": "needle", "output_mode": "count", "head_limit": 2, "offset": 1},
	{"pattern": "needle", "output_mode": "content", "head_limit": 0},
	{"pattern": "needle", "output_mode": "content", "offset": 10000},
	{"pattern": "nothing matches this", "output_mode": "content"},
	{"pattern": "nothing matches this"},
	{"pattern": "^", "path": "nonl.txt", "output_mode": "content"},
	{"pattern": "x*", "path": "multi.txt", "output_mode": "count"},
	{"pattern": "needle", "glob": "!**/deeper/**"},
	{"pattern": "needle", "glob": "/main.go"},
	{"pattern": "needle", "glob": "*.log", "output_mode": "content"},
	{"pattern": "needle two$", "output_mode": "content"},
	{"pattern": "long s", "-i": true, "output_mode": "content"},
	{"pattern": "^$", "output_mode": "count"},
	{"pattern": "^$", "path": "blank.txt", "output_mode": "content", "-A": 1},
	{"pattern": "odd", "output_mode": "content"},
	{"pattern": "keep", "output_mode": "content"},
}

func TestBackendParity(t *testing.T) {
	env, ws, _ := corpus(t)
	engines := backends(t)
	if len(engines) < 2 {
		t.Skip("rg not installed: nothing to compare")
	}
	for i, in := range parityQueries {
		t.Run(fmt.Sprintf("%02d_%v", i, in), func(t *testing.T) {
			got := map[string]string{}
			for name, opts := range engines {
				res, err := tooltest.Run(t, New(opts), env, in)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				text := tooltest.Text(res)
				if strings.Contains(text, canary) {
					t.Fatalf("%s: canary from outside the workspace in output:\n%s", name, text)
				}
				got[name] = strings.ReplaceAll(text, ws, "$WS")
			}
			if got["go"] != got["rg"] {
				t.Errorf("engines differ\n--- go:\n%s\n--- rg:\n%s", got["go"], got["rg"])
			}
		})
	}
}

// TestParityErrors checks that both engines refuse the same inputs with
// invalid_input.
func TestParityErrors(t *testing.T) {
	env, _, _ := corpus(t)
	for _, in := range []map[string]any{
		{"pattern": "("},
		{"pattern": "a\nb"},
		{"pattern": "[z-a]"},
		{"pattern": "x", "glob": "[abc"},
		{"pattern": "x", "type": "nosuchtype"},
		{"pattern": "x", "glob": "{a,{b,c}}"},
	} {
		for name, opts := range backends(t) {
			_, err := tooltest.Run(t, New(opts), env, in)
			var te *tool.Error
			if !asToolError(err, &te) || te.Kind != tool.KindInvalidInput {
				t.Errorf("%s %v: err = %v, want invalid input", name, in, err)
			}
		}
	}
}

func TestParityMtimeOrder(t *testing.T) {
	env, _, _ := corpus(t)
	for name, opts := range backends(t) {
		res, err := tooltest.Run(t, New(opts), env, map[string]any{"pattern": "needle", "type": "go"})
		if err != nil {
			t.Fatal(err)
		}
		want := "Found 3 files\n" + strings.Join([]string{
			"vendor/lib/lib.go",
			"sub/deeper/deep.go",
			"main.go",
		}, "\n")
		if got := tooltest.Text(res); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
}
