// Package bashbench measures what the Bash tool adds to a bare exec of
// `bash -c true`: both run interleaved in one benchmark, so that the load
// of the machine, which drifts between runs by more than the difference,
// falls on both alike. The bare exec runs in a session of its own, as the
// tool's commands do, so that neither side gets a scheduler group the
// other does not.
package bashbench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/procgroup"
	"github.com/toold/toold/internal/tool"
)

// Figures are the medians and per-call CPU of one interleaved run.
type Figures struct {
	// ToolP50 and BareP50 are the median wall times of a tool call and
	// of a bare exec; AddedP50 is the median of the per-pair differences.
	ToolP50, BareP50, AddedP50 time.Duration
	// ToolCPU and BareCPU are the CPU time the benchmark process itself
	// spends per tool call and per bare exec (user + system,
	// RUSAGE_SELF: bash's own time is its child's and not counted), with
	// whatever work a call leaves to background goroutines (sweeps,
	// helper refills), measured in runs of each alone.
	ToolCPU, BareCPU time.Duration
	// HelperCPU is the CPU time per call of the children that outlive a
	// call (the sandbox's warm helpers, which are part of toold's cost
	// but not of its own process); 0 where there are none.
	HelperCPU time.Duration
	// ToolSwitches and BareSwitches are the context switches of the
	// benchmark process's threads per call (voluntary and involuntary,
	// RUSAGE_SELF), in the same runs as the CPU: a count that the load of
	// the machine moves less than time, and that much of the CPU follows
	// (each switch puts a thread to sleep or wakes one).
	ToolSwitches, BareSwitches float64
}

// Run interleaves a Bash tool call of `true` (Parse and Run) with a bare
// exec of `bash -c true` b.N times, alternating which goes first, and
// reports the latency figures as metrics: tool-p50-ns, bare-p50-ns,
// added-p50-ns (the median of the per-pair differences) and p50-ratio.
// Around that run it measures CPU in 2×150 calls of each alone:
// tool-cpu-ns/op (toold's own CPU per call), bare-cpu-ns/op and
// helper-cpu-ns/op (the sandbox's warm helpers, 10 ms ticks), and the
// context switches of the process per call, tool-switches/op and
// bare-switches/op.
func Run(b *testing.B, tl tool.Tool, env *tool.Env, bash string) Figures {
	raw := json.RawMessage(`{"command":"true"}`)
	ctx := context.Background()
	bare := func() time.Duration {
		start := time.Now()
		cmd := exec.Command(bash, "-c", "true")
		procgroup.Session(cmd)
		// Through procgroup only so that a sandbox's reaper, which reaps
		// the children in other sessions that nobody waits for, leaves it
		// alone: a map entry and one kill(2) more than cmd.Run.
		if err := procgroup.Run(cmd); err != nil {
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
	// The first call of a session prepares it; the pool fills.
	for range 5 {
		viaTool()
	}
	// CPU is measured in runs of each alone, half before and half after
	// the interleaved run (so that a drift of the machine's speed falls
	// on both): the process's CPU time over a run, whatever goroutine
	// spent it, divided by the calls. In the interleaved run one side's
	// leftovers (garbage, cold caches) would be charged to the other.
	const aloneRuns = 150
	alone := func(call func() time.Duration) (self, helpers time.Duration, switches int64) {
		cpu, kids, sw := selfCPU(), liveChildrenCPU(), selfSwitches()
		for range aloneRuns {
			call()
		}
		return selfCPU() - cpu, liveChildrenCPU() - kids, selfSwitches() - sw
	}
	var f Figures
	var bareCPU, toolCPU, helperCPU time.Duration
	var bareSw, toolSw int64
	measure := func() {
		s, _, sw := alone(bare)
		bareCPU += s
		bareSw += sw
		s, h, sw := alone(viaTool)
		toolCPU += s
		toolSw += sw
		helperCPU += max(h, 0)
	}
	measure()
	var tools, bares, diffs []time.Duration
	for i := 0; b.Loop(); i++ {
		var tw, bw time.Duration
		if i%2 == 0 {
			bw = bare()
			tw = viaTool()
		} else {
			tw = viaTool()
			bw = bare()
		}
		tools, bares, diffs = append(tools, tw), append(bares, bw), append(diffs, tw-bw)
	}
	measure()
	f.BareCPU = bareCPU / (2 * aloneRuns)
	f.ToolCPU = toolCPU / (2 * aloneRuns)
	f.HelperCPU = helperCPU / (2 * aloneRuns)
	f.BareSwitches = float64(bareSw) / (2 * aloneRuns)
	f.ToolSwitches = float64(toolSw) / (2 * aloneRuns)
	f.ToolP50, f.BareP50, f.AddedP50 = median(tools), median(bares), median(diffs)
	b.ReportMetric(float64(f.ToolP50.Nanoseconds()), "tool-p50-ns")
	b.ReportMetric(float64(f.BareP50.Nanoseconds()), "bare-p50-ns")
	b.ReportMetric(float64(f.AddedP50.Nanoseconds()), "added-p50-ns")
	b.ReportMetric(float64(f.ToolP50)/float64(f.BareP50), "p50-ratio")
	b.ReportMetric(float64(f.ToolCPU.Nanoseconds()), "tool-cpu-ns/op")
	b.ReportMetric(float64(f.BareCPU.Nanoseconds()), "bare-cpu-ns/op")
	b.ReportMetric(float64(f.HelperCPU.Nanoseconds()), "helper-cpu-ns/op")
	b.ReportMetric(f.ToolSwitches, "tool-switches/op")
	b.ReportMetric(f.BareSwitches, "bare-switches/op")
	return f
}

// selfCPU is the CPU time of this process so far, its children's not
// included.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfSwitches counts the context switches of this process's threads so
// far, voluntary and involuntary.
func selfSwitches() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Nvcsw + ru.Nivcsw
}

// liveChildrenCPU is the CPU time so far of this process's children that
// are alive now (utime + stime from /proc/PID/stat).
func liveChildrenCPU() time.Duration {
	tasks, _ := os.ReadDir("/proc/self/task")
	var total time.Duration
	for _, t := range tasks {
		data, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		for _, pid := range strings.Fields(string(data)) {
			stat, err := os.ReadFile("/proc/" + pid + "/stat")
			if err != nil {
				continue
			}
			i := bytes.LastIndexByte(stat, ')')
			f := strings.Fields(string(stat[i+1:]))
			if i < 0 || len(f) < 13 {
				continue
			}
			// Fields 14 and 15 of stat, counted from the state (field 3).
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			total += time.Duration(u+s) * time.Second / clockTicks
		}
	}
	return total
}

// clockTicks is USER_HZ, the unit of /proc's times, 100 on Linux.
const clockTicks = 100

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
