package grep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// gorootQueries are searched in $GOROOT/src by the benchmark and by the
// test that checks Grep's numbers against bare rg.
var gorootQueries = []struct{ pattern, mode string }{
	{"func main", "files_with_matches"},
	{"func main", "count"},
	{`(?i)context\.Context`, "files_with_matches"},
	{`(?i)context\.Context`, "count"},
	{"TODO", "files_with_matches"},
	{"TODO", "count"},
}

func gorootEnv(tb testing.TB) *tool.Env {
	tb.Helper()
	ws, err := workspace.Open(filepath.Join(runtime.GOROOT(), "src"))
	if err != nil {
		tb.Skipf("GOROOT/src unavailable: %v", err)
	}
	tb.Cleanup(func() { ws.Close() })
	return &tool.Env{Files: ws, Cwd: ws.Primary(), Progress: tool.NopProgress{}, Environ: []string{"PATH=/usr/bin:/bin"}}
}

// bareRg is rg with the filtering flags Grep passes, printing what rg
// prints by itself (paths, or path:count).
func bareRg(tb testing.TB, dir, pattern, mode string) *exec.Cmd {
	tb.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		tb.Skip("rg not installed")
	}
	args := []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-global",
		"--glob=!.bzr", "--glob=!.git", "--glob=!.hg", "--glob=!.jj", "--glob=!.svn"}
	if mode == "count" {
		args = append(args, "--count")
	} else {
		args = append(args, "--files-with-matches")
	}
	cmd := exec.Command(rg, append(args, "--regexp="+pattern, "--", ".")...)
	cmd.Dir = dir
	return cmd
}

func grepCall(tb testing.TB, opts Options, pattern, mode string) tool.Invocation {
	tb.Helper()
	raw, _ := json.Marshal(map[string]any{"pattern": pattern, "output_mode": mode, "head_limit": 0})
	inv, err := New(opts).Parse(raw)
	if err != nil {
		tb.Fatal(err)
	}
	return inv
}

func BenchmarkGrepGOROOT(b *testing.B) {
	env := gorootEnv(b)
	engines := map[string]Options{"Grep-go": {PureGo: true}}
	if _, err := exec.LookPath("rg"); err == nil {
		engines["Grep-rg"] = Options{}
	}
	for _, q := range gorootQueries {
		name := strings.NewReplacer("(?i)", "i-", `\.`, ".", " ", "_").Replace(q.pattern) + "/" + q.mode
		for engine, opts := range engines {
			inv := grepCall(b, opts, q.pattern, q.mode)
			b.Run(name+"/"+engine, func(b *testing.B) {
				for b.Loop() {
					if _, err := inv.Run(context.Background(), env); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		if _, err := exec.LookPath("rg"); err != nil {
			continue
		}
		b.Run(name+"/rg", func(b *testing.B) {
			for b.Loop() {
				cmd := bareRg(b, env.Cwd, q.pattern, q.mode)
				cmd.Stdout = new(bytes.Buffer)
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGorootMatchesRg checks that Grep, with either engine, finds the
// same files and counts as bare rg on the Go source tree.
func TestGorootMatchesRg(t *testing.T) {
	if testing.Short() {
		t.Skip("searches all of GOROOT/src")
	}
	env := gorootEnv(t)
	// Beyond the benchmarked queries: the prefilter's alternation and
	// required-literal paths, and a pattern with neither.
	extra := []struct{ pattern, mode string }{
		{"TODO|FIXME", "count"}, {`\w+Error\(`, "count"}, {`^\s*//\s*[A-Z]\w*:`, "count"},
		{"(?i)unsafe|syscall", "files_with_matches"},
	}
	for _, q := range append(gorootQueries[:len(gorootQueries):len(gorootQueries)], extra...) {
		cmd := bareRg(t, env.Cwd, q.pattern, q.mode)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("rg %s: %v", q.pattern, err)
		}
		wantFiles, wantTotal := summarize(t, string(out), q.mode)
		for engine, opts := range map[string]Options{"go": {PureGo: true}, "rg": {}} {
			res, err := grepCall(t, opts, q.pattern, q.mode).Run(context.Background(), env)
			if err != nil {
				t.Fatal(err)
			}
			// The page is cut near 90 KB; the header and the summary
			// line count everything.
			text := res.Content[0].Text
			var files, total int
			if q.mode == "count" {
				_, err = fmt.Sscanf(text[strings.LastIndex(text, "\n\nFound ")+2:], "Found %d total occurrences across %d files.", &total, &files)
			} else {
				_, err = fmt.Sscanf(text, "Found %d files", &files)
			}
			if err != nil {
				t.Fatalf("%s %q: cannot read the totals of %q: %v", engine, q.pattern, text[:min(len(text), 200)], err)
			}
			if files != wantFiles || total != wantTotal {
				t.Errorf("%s %q %s: %d files, %d total; rg: %d files, %d total",
					engine, q.pattern, q.mode, files, total, wantFiles, wantTotal)
			}
		}
	}
}

// summarize counts the files of a listing and sums path:count lines.
func summarize(t *testing.T, out, mode string) (files, total int) {
	t.Helper()
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		files++
		if mode == "count" {
			i := strings.LastIndexByte(line, ':')
			n, err := strconv.Atoi(line[i+1:])
			if err != nil {
				t.Fatalf("bad count line %q", line)
			}
			total += n
		}
	}
	return files, total
}

// BenchmarkGrepRatioGOROOT runs Grep (both engines) and bare rg in turn in
// every iteration and reports their time ratios, so that load from other
// processes weighs on all three alike. Below 1: faster than rg.
func BenchmarkGrepRatioGOROOT(b *testing.B) {
	env := gorootEnv(b)
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg not installed")
	}
	for _, q := range gorootQueries {
		name := strings.NewReplacer("(?i)", "i-", `\.`, ".", " ", "_").Replace(q.pattern) + "/" + q.mode
		goInv := grepCall(b, Options{PureGo: true}, q.pattern, q.mode)
		rgInv := grepCall(b, Options{}, q.pattern, q.mode)
		b.Run(name, func(b *testing.B) {
			var tGo, tRg, tBare time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := goInv.Run(context.Background(), env); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := rgInv.Run(context.Background(), env); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				cmd := bareRg(b, env.Cwd, q.pattern, q.mode)
				cmd.Stdout = new(bytes.Buffer)
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				tGo, tRg, tBare = tGo+t1.Sub(t0), tRg+t2.Sub(t1), tBare+t3.Sub(t2)
			}
			b.ReportMetric(float64(tGo)/float64(tBare), "go/rg")
			b.ReportMetric(float64(tRg)/float64(tBare), "grep-rg/rg")
			b.ReportMetric(float64(tBare.Milliseconds())/float64(b.N), "rg-ms")
		})
	}
}
