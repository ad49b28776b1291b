// Package bashbench measures what the Bash tool adds to a bare exec of
// `bash -c true`: both run interleaved in one benchmark, so that the load
// of the machine, which drifts between runs by more than the difference,
// falls on both alike. The bare exec runs in a session of its own, as the
// tool's commands do, so that neither side gets a scheduler group the
// other does not.
package bashbench

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
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
	// spent per call (user + system, RUSAGE_SELF: bash's own time is its
	// child's and not counted), the tool's whole call and the bare exec's.
	ToolCPU, BareCPU time.Duration
}

// Run interleaves a Bash tool call of `true` (Parse and Run) with a bare
// exec of `bash -c true` b.N times, alternating which goes first, and
// reports the figures as metrics: tool-p50-ns, bare-p50-ns,
// added-p50-ns, p50-ratio, tool-cpu-ns/op (toold's own CPU per call),
// bare-cpu-ns/op and added-cpu-ns/op.
func Run(b *testing.B, tl tool.Tool, env *tool.Env, bash string) Figures {
	raw := json.RawMessage(`{"command":"true"}`)
	ctx := context.Background()
	bare := func() (time.Duration, time.Duration) {
		cpu, start := selfCPU(), time.Now()
		cmd := exec.Command(bash, "-c", "true")
		procgroup.Session(cmd)
		// Through procgroup only so that a sandbox's reaper, which reaps
		// the children in other sessions that nobody waits for, leaves it
		// alone: a map entry and one kill(2) more than cmd.Run.
		if err := procgroup.Run(cmd); err != nil {
			b.Fatal(err)
		}
		return time.Since(start), selfCPU() - cpu
	}
	viaTool := func() (time.Duration, time.Duration) {
		cpu, start := selfCPU(), time.Now()
		inv, err := tl.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := inv.Run(ctx, env); err != nil || res.IsError {
			b.Fatal(err, res)
		}
		return time.Since(start), selfCPU() - cpu
	}
	// One of each first: the first call of a session prepares it.
	viaTool()
	bare()
	var tools, bares, diffs []time.Duration
	var toolCPU, bareCPU time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var tw, tc, bw, bc time.Duration
		if i%2 == 0 {
			bw, bc = bare()
			tw, tc = viaTool()
		} else {
			tw, tc = viaTool()
			bw, bc = bare()
		}
		tools, bares, diffs = append(tools, tw), append(bares, bw), append(diffs, tw-bw)
		toolCPU += tc
		bareCPU += bc
	}
	b.StopTimer()
	n := time.Duration(len(tools))
	f := Figures{
		ToolP50: median(tools), BareP50: median(bares), AddedP50: median(diffs),
		ToolCPU: toolCPU / n, BareCPU: bareCPU / n,
	}
	b.ReportMetric(float64(f.ToolP50.Nanoseconds()), "tool-p50-ns")
	b.ReportMetric(float64(f.BareP50.Nanoseconds()), "bare-p50-ns")
	b.ReportMetric(float64(f.AddedP50.Nanoseconds()), "added-p50-ns")
	b.ReportMetric(float64(f.ToolP50)/float64(f.BareP50), "p50-ratio")
	b.ReportMetric(float64(f.ToolCPU.Nanoseconds()), "tool-cpu-ns/op")
	b.ReportMetric(float64(f.BareCPU.Nanoseconds()), "bare-cpu-ns/op")
	b.ReportMetric(float64((f.ToolCPU - f.BareCPU).Nanoseconds()), "added-cpu-ns/op")
	return f
}

// selfCPU is the CPU time of this process so far, its children's not
// included.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
