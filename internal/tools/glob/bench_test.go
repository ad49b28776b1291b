package glob

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// benchPatterns are run through Glob and through ripgrep's file lister in
// the same benchmark run, on the Go source tree.
var benchPatterns = []string{"**/*.go", "**/*_test.go", "net/**/*.go"}

// gorootEnv opens $GOROOT/src as a workspace.
func gorootEnv(tb testing.TB) (*tool.Env, string) {
	tb.Helper()
	src := filepath.Join(runtime.GOROOT(), "src")
	ws, err := workspace.Open(src)
	if err != nil {
		tb.Skipf("GOROOT/src unavailable: %v", err)
	}
	tb.Cleanup(func() { ws.Close() })
	return &tool.Env{Files: ws, Cwd: ws.Primary(), Progress: tool.NopProgress{}}, ws.Primary()
}

func BenchmarkGlobGOROOT(b *testing.B) {
	env, src := gorootEnv(b)
	rg, rgErr := exec.LookPath("rg")
	for _, p := range benchPatterns {
		raw, _ := json.Marshal(map[string]string{"pattern": p})
		inv, err := New().Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p+"/Glob", func(b *testing.B) {
			for b.Loop() {
				if _, err := inv.Run(context.Background(), env); err != nil {
					b.Fatal(err)
				}
			}
		})
		if rgErr != nil {
			continue
		}
		// What the brief compares against, and the same listing with
		// Glob's rules (hidden files in, .gitignore not consulted).
		for name, args := range map[string][]string{
			"rg":                 {"--files", "-g", p, "."},
			"rg-hidden-noignore": {"--files", "--hidden", "--no-ignore", "-g", p, "."},
		} {
			b.Run(p+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if err := rgCmd(rg, src, args).Run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func rgCmd(rg, dir string, args []string) *exec.Cmd {
	cmd := exec.Command(rg, args...)
	cmd.Dir = dir
	return cmd
}

// TestGlobGOROOTMatchesRg checks Glob's count of matches against rg's file
// listing with the same rules (hidden files in, ignore files not read).
func TestGlobGOROOTMatchesRg(t *testing.T) {
	if testing.Short() {
		t.Skip("walks all of GOROOT/src")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	env, src := gorootEnv(t)
	for _, p := range benchPatterns {
		out, err := rgCmd(rg, src, []string{"--files", "--hidden", "--no-ignore", "-g", p, "."}).Output()
		if err != nil {
			t.Fatalf("rg -g %s: %v", p, err)
		}
		want := strings.Count(string(out), "\n")
		raw, _ := json.Marshal(map[string]string{"pattern": p})
		inv, err := New().Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		res, err := inv.Run(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Meta["total_files"]; got != want {
			t.Errorf("%s: Glob found %v files, rg %d", p, got, want)
		}
	}
}

// BenchmarkGlobRatioGOROOT runs Glob and rg's file lister in turn in every
// iteration and reports the ratio of their times (below 1: Glob is
// faster), so that load from other processes weighs on both alike.
func BenchmarkGlobRatioGOROOT(b *testing.B) {
	env, src := gorootEnv(b)
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed")
	}
	for _, p := range benchPatterns {
		raw, _ := json.Marshal(map[string]string{"pattern": p})
		inv, err := New().Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p, func(b *testing.B) {
			var tGlob, tRg, tRgSame time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := inv.Run(context.Background(), env); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := rgCmd(rg, src, []string{"--files", "-g", p, "."}).Run(); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if err := rgCmd(rg, src, []string{"--files", "--hidden", "--no-ignore", "-g", p, "."}).Run(); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				tGlob, tRg, tRgSame = tGlob+t1.Sub(t0), tRg+t2.Sub(t1), tRgSame+t3.Sub(t2)
			}
			b.ReportMetric(float64(tGlob)/float64(tRg), "glob/rg")
			b.ReportMetric(float64(tGlob)/float64(tRgSame), "glob/rg-hidden-noignore")
			b.ReportMetric(float64(tRg.Milliseconds())/float64(b.N), "rg-ms")
		})
	}
}
