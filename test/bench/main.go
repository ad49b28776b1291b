// Command bench measures every ratio of toold's performance targets in
// one interleaved run against a real toold binary, and prints them as a
// table (figure, toold, baseline, ratio, target) with the machine it ran
// on; it also writes a PNG of the latency distributions. `make bench`
// runs it.
//
// toold runs as its own process with the in-memory store, driven over
// loopback TCP by this separate gRPC client. Every toold sample is taken
// next to its baseline's, alternating which goes first, so that the rest
// of the machine's load weighs on both alike: a health Check on the same
// server, `bash -c true` started here in a session of its own, `rg -l`
// with the same pattern and filters.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	var (
		bin       = flag.String("toold", "bin/toold", "the toold binary to measure")
		out       = flag.String("png", "bench/latency.png", "where to write the PNG of the latency distributions; empty: none")
		scale     = flag.Float64("scale", 1, "multiplies the number of samples (0.2 for a quick look)")
		tree      = flag.String("grep-tree", "", "directory tree searched by the Grep figure, copied first (default: GOROOT/src)")
		unary     = flag.Bool("unary", true, "also measure the Read figures through the unary Call (false for a toold without it)")
		only      = flag.String("only", "", "run only the steps whose name contains one of these, comma-separated (Read, throughput, batch, Bash, Grep)")
		readFloor = flag.Bool("floor", true, "also measure the Read figures against a grpc-go server that does no work (read_floor.go)")
		floor     = flag.Bool("serve-floor", false, "internal: serve the Bash figures' floor server on --listen (the harness starts it)")
		serveRead = flag.String("serve-read-floor", "", "internal: serve the Read figures' floor server on --listen, with the events in this file (the harness starts it)")
		lis       = flag.String("listen", "", "internal: the floor server's address")
	)
	flag.Parse()
	if *floor || *serveRead != "" {
		serve := func() error { return serveFloor(*lis) }
		if *serveRead != "" {
			serve = func() error { return serveReadFloor(*lis, *serveRead) }
		}
		if err := serve(); err != nil {
			fmt.Fprintln(os.Stderr, "bench floor:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *out, *tree, *only, *scale, *unary, *readFloor, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(bin, pngPath, tree, only string, scale float64, unary, readFloor bool, w io.Writer) error {
	if scale <= 0 {
		return fmt.Errorf("--scale %g: want a positive number", scale)
	}
	ctx := context.Background()
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s: %w (make build)", bin, err)
	}
	machine := describeMachine()
	started := time.Now()

	tmp, err := os.MkdirTemp("", "toold-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The sandbox account must reach the workspaces below.
	for d := tmp; d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(d, fi.Mode().Perm()|0o111)
		}
	}
	corpus, err := copyTree(tree, filepath.Join(tmp, "src"))
	if err != nil {
		return err
	}
	plain, err := startToold(ctx, bin, "--sandbox", "off", "--workspace-root", tmp)
	if err != nil {
		return err
	}
	defer plain.stop()
	boxed, err := startToold(ctx, bin, "--workspace-root", filepath.Join(tmp, "boxed")) // the default sandbox: best-effort
	if err != nil {
		return err
	}
	defer boxed.stop()
	if err := plain.newSession(ctx, ""); err != nil {
		return err
	}
	if err := boxed.newSession(ctx, ""); err != nil {
		return err
	}
	small := filepath.Join(plain.ws, "small.go")
	if err := os.WriteFile(small, smallSource(), 0o644); err != nil {
		return err
	}
	grep := &server{cmd: plain.cmd, conn: plain.conn, tools: plain.tools, health: plain.health}
	if err := grep.newSession(ctx, corpus); err != nil {
		return err
	}

	b := &bench{ctx: ctx, plain: plain, boxed: boxed, grep: grep, scale: scale,
		smallRd: call{"Read", map[string]any{"file_path": small}}, senders: []sender{viaExecute}}
	if selected("Bash true", only) {
		// The Bash figures' floor: this program again, as a gRPC server
		// that only runs bash (floorServer).
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		if b.floor, err = startToold(ctx, exe, "--serve-floor"); err != nil {
			return fmt.Errorf("the floor server: %w", err)
		}
		defer b.floor.stop()
	}
	if unary {
		b.senders = append(b.senders, viaUnary)
	}
	if readFloor {
		if b.readFloor, err = startReadFloor(ctx, plain, b.smallRd, tmp); err != nil {
			return err
		}
		defer b.readFloor.stop()
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"Read and unknown tool vs health Check", b.readAndFloor},
		{"throughput at 64 callers", b.throughput},
		{"batch of ten Reads", b.batch},
		{"Bash true", func() error { return b.bash(plain, "", 300*time.Microsecond, 300*time.Microsecond) }},
		{"Bash true, sandboxed", func() error { return b.bash(boxed, " (sandboxed)", 600*time.Microsecond, 600*time.Microsecond) }},
		{"Grep files mode", func() error { return b.grepFiles("TODO") }},
	}
	for _, s := range steps {
		if !selected(s.name, only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s...\n", s.name)
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}

	fmt.Fprintf(w, "Machine: %s; load average %s at the end; %s in all.\n\n", machine, loadAvg(), time.Since(started).Round(time.Second))
	fmt.Fprintln(w, "| figure | toold | baseline | ratio | target | met |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range b.rows {
		met := "yes"
		if !r.met {
			met = "**no**"
		}
		if r.target == "(floor of the above)" || r.target == floorNote || r.target == "" {
			met = ""
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.figure, r.toold, orDash(r.baseline), orDash(r.result), orDash(r.target), met)
	}
	if pngPath != "" {
		if err := writePNG(pngPath, "toold latency distributions: "+machine, b.dists); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nLatency distributions: %s\n", pngPath)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// copyTree copies tree (GOROOT/src when empty) to dst, so that the
// session's workspace is a directory of its own.
func copyTree(tree, dst string) (string, error) {
	if tree == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return "", fmt.Errorf("go env GOROOT: %w", err)
		}
		tree = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	if out, err := exec.Command("cp", "-a", tree, dst).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copy %s: %v: %s", tree, err, out)
	}
	return dst, nil
}

func describeMachine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GB", float64(kb)/(1<<20))
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("%s, %d CPUs%s, Linux %s, %s; load average %s at the start",
		cpu, runtime.NumCPU(), mem, strings.TrimSpace(string(kernel)), runtime.Version(), loadAvg())
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// selected reports whether the step name is one of only's (comma-separated
// substrings; empty selects every step).
func selected(name, only string) bool {
	if only == "" {
		return true
	}
	for _, o := range strings.Split(only, ",") {
		if o != "" && strings.Contains(name, o) {
			return true
		}
	}
	return false
}
