package grep

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// rgL is `rg -l` with the filters Grep's query asks for, and nothing of
// Grep's own: the list a user of ripgrep would get.
func rgL(t *testing.T, dir string, in map[string]any) []string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	args := []string{"-l", "--no-config", "--hidden", "--no-ignore-global",
		"--glob=!.bzr", "--glob=!.git", "--glob=!.hg", "--glob=!.jj", "--glob=!.svn"}
	if in["-i"] == true {
		args = append(args, "-i")
	}
	if g, ok := in["glob"].(string); ok {
		args = append(args, "--glob="+g)
	}
	if ty, ok := in["type"].(string); ok {
		args = append(args, "--type="+ty)
	}
	cmd := exec.Command(rg, append(args, "--regexp="+in["pattern"].(string), "--", ".")...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		t.Fatalf("rg %v: %v", args, err)
	}
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			files = append(files, strings.TrimPrefix(l, "./"))
		}
	}
	slices.Sort(files)
	return files
}

// listed is the set of paths of a files_with_matches result, sorted.
func listed(t *testing.T, res *tool.Result) []string {
	t.Helper()
	text := tooltest.Text(res)
	if text == "No files found" {
		return nil
	}
	head, rest, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(head, "Found ") {
		t.Fatalf("not a files_with_matches listing: %.200q", text)
	}
	files := strings.Split(rest, "\n")
	slices.Sort(files)
	return files
}

// TestFilesModeIsRgL checks that files_with_matches finds exactly the
// files `rg -l` finds with the same pattern and filters, with both
// engines: on the corpus (ignore files, hidden files, binaries, links)
// and on the Go source tree, where the files are many.
func TestFilesModeIsRgL(t *testing.T) {
	env, ws, _ := corpus(t)
	queries := []map[string]any{
		{"pattern": "needle"},
		{"pattern": "NEEDLE", "-i": true},
		{"pattern": "needle", "glob": "*.go"},
		{"pattern": "needle", "glob": "!*.md"},
		{"pattern": "needle", "glob": "sub/**"},
		{"pattern": "needle", "type": "go"},
		{"pattern": "needle", "type": "py"},
		{"pattern": "^needle"},
		{"pattern": "nothing matches this"},
	}
	for _, in := range queries {
		want := rgL(t, ws, in)
		if len(want) == 0 && in["pattern"] != "nothing matches this" {
			t.Fatalf("rg -l %v found nothing: the corpus changed?", in)
		}
		for name, opts := range backends(t) {
			in := merged(in, map[string]any{"head_limit": 0})
			res, err := tooltest.Run(t, New(opts), env, in)
			if err != nil {
				t.Fatalf("%s %v: %v", name, in, err)
			}
			if got := listed(t, res); !slices.Equal(got, want) {
				t.Errorf("%s %v:\n got %q\nwant %q (rg -l)", name, in, got, want)
			}
		}
	}
	if testing.Short() {
		return
	}
	genv := gorootEnv(t)
	for _, q := range gorootQueries {
		if q.mode != "files_with_matches" {
			continue
		}
		in := map[string]any{"pattern": q.pattern}
		want := rgL(t, genv.Cwd, in)
		for name, opts := range map[string]Options{"go": {PureGo: true}, "rg": {}} {
			res, err := grepCall(t, opts, q.pattern, q.mode).Run(context.Background(), genv)
			if err != nil {
				t.Fatal(err)
			}
			if got := listed(t, res); !slices.Equal(got, want) {
				t.Errorf("%s %q in GOROOT/src: %d files, rg -l %d; first differences: %q",
					name, q.pattern, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func merged(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// firstDiff names a few paths in one sorted list and not the other.
func firstDiff(a, b []string) []string {
	var d []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			d = append(d, "+"+x)
		}
	}
	for _, x := range b {
		if _, ok := slices.BinarySearch(a, x); !ok {
			d = append(d, "-"+x)
		}
	}
	return d[:min(len(d), 5)]
}
