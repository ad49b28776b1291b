package bash

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool/tooltest"
)

// BenchmarkBashTrue is a whole call of `true`: Parse (with the read-only
// analysis) and Run. Compare with BenchmarkExecBashTrue for the tool's
// own cost per call.
func BenchmarkBashTrue(b *testing.B) { benchCommand(b, "true") }

// BenchmarkBashCdTrue adds the cwd capture, which a command that may cd
// needs: the EXIT trap and its per-call file.
func BenchmarkBashCdTrue(b *testing.B) { benchCommand(b, "cd . && true") }

func benchCommand(b *testing.B, command string) {
	tl := New(Options{}) // the default private directory, as in production
	b.Cleanup(func() { os.RemoveAll(tl.(*bashTool).stateDir) })
	env, _, _ := tooltest.Env(b)
	raw, _ := json.Marshal(map[string]string{"command": command})
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		inv, err := tl.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		res, err := inv.Run(ctx, env)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkExecBashTrue is the floor: starting bash and waiting for it.
func BenchmarkExecBashTrue(b *testing.B) {
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU adds the CPU time per op of the benchmark process and its
// children (user + system). Unlike ns/op it hardly moves with the load of
// other processes on the machine.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		syscall.Getrusage(who, &ru)
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}

// BenchmarkClassify is the read-only analysis of a typical pipeline.
func BenchmarkClassify(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		classify(`grep -rn "func New" internal | sort | head -20`)
	}
}

// BenchmarkBashTrueOverhead runs a bare exec of `bash -c true` and a tool
// call of `true` in pairs, alternating which goes first, and reports
// percentiles of the per-pair differences. On a busy machine the two
// benchmarks above drift apart between runs by more than the overhead;
// pairing cancels most of that drift.
func BenchmarkBashTrueOverhead(b *testing.B) {
	tl := New(Options{})
	b.Cleanup(func() { os.RemoveAll(tl.(*bashTool).stateDir) })
	env, _, _ := tooltest.Env(b)
	bash := tl.(*bashTool).bash
	raw := json.RawMessage(`{"command":"true"}`)
	ctx := context.Background()
	bare := func() time.Duration {
		start := time.Now()
		if err := exec.Command(bash, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	viaTool := func() time.Duration {
		start := time.Now()
		inv, err := tl.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := inv.Run(ctx, env); err != nil || res.IsError {
			b.Fatal(err, res)
		}
		return time.Since(start)
	}
	var diffs []time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			e := bare()
			diffs = append(diffs, viaTool()-e)
		} else {
			tt := viaTool()
			diffs = append(diffs, tt-bare())
		}
	}
	slices.Sort(diffs)
	b.ReportMetric(float64(diffs[len(diffs)/4].Nanoseconds()), "p25-overhead-ns")
	b.ReportMetric(float64(diffs[len(diffs)/2].Nanoseconds()), "p50-overhead-ns")
	b.ReportMetric(float64(diffs[len(diffs)*3/4].Nanoseconds()), "p75-overhead-ns")
}
