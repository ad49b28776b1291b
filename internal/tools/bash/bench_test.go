package bash

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/bash/bashbench"
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
	start, self := cpuTime(), selfTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64((selfTime()-self).Nanoseconds())/float64(b.N), "self-cpu-ns/op")
	}
}

// selfTime is the CPU time of the benchmark process alone (user +
// system), its children's not included: toold's own cost.
func selfTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

// BenchmarkBashTrueVsBare interleaves a tool call of `true` with a bare
// exec of `bash -c true` in a session of its own, and reports the medians,
// the added p50 and toold's own CPU per call (see bashbench.Run).
func BenchmarkBashTrueVsBare(b *testing.B) {
	tl := New(Options{})
	b.Cleanup(func() { os.RemoveAll(tl.(*bashTool).stateDir) })
	env, _, _ := tooltest.Env(b)
	bashbench.Run(b, tl, env, tl.(*bashTool).bash)
}
