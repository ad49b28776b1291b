package sandbox

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkBashTrue measures `bash -c true` started directly and through
// the sandbox, and reports the median of each and the median the sandbox
// adds (added-p50-ns), with the default limits.
//
// cgroup: toold confines the command itself (Landlock ruleset, user
// switch, a cgroup entered at clone and removed after; the ulimit prefix).
// helper: there is no cgroup, and one of the pool's helpers runs the
// command (request and descriptors over its socket, the same confinement,
// the status sent back).
//
// The -ports variants deny connects to two ports (toold's, the store's)
// with the network on: 65,533 Landlock port rules, built and enforced
// once per session, so what a call adds should not change.
func BenchmarkBashTrue(b *testing.B) {
	ports := []int{50051, 6379}
	b.Run("cgroup", func(b *testing.B) { benchBashTrue(b, "", nil) })
	b.Run("helper", func(b *testing.B) { benchBashTrue(b, "-", nil) })
	b.Run("cgroup-ports", func(b *testing.B) { benchBashTrue(b, "", ports) })
	b.Run("helper-ports", func(b *testing.B) { benchBashTrue(b, "-", ports) })
}

func benchBashTrue(b *testing.B, cgroupDir string, denied []int) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Fatal(err)
	}
	f := newFixture(b, Options{CgroupDir: cgroupDir, Limits: DefaultLimits(), Network: true, DeniedPorts: denied})
	// The launcher's first command builds the port ruleset; a session's
	// first command builds its own ruleset and confines its thread. Both
	// are measured apart, the second on a new session.
	start := time.Now()
	f.run(b, context.Background(), "true")
	first := time.Since(start)
	start = time.Now()
	c, err := f.l.Command(context.Background(), Request{SessionID: "s2", Dirs: []string{f.workspace}, Dir: f.workspace, Path: bash, Args: []string{"bash", "-c", "true"}})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		b.Fatal(err)
	}
	b.Logf("first command of the launcher: %v; of a later session: %v", first, time.Since(start))
	if cgroupDir == "" && !f.l.Status().Cgroup {
		b.Logf("MISSING on this machine: per-command cgroups (%v); this figure is the helper's", f.l.Status().Missing)
	}
	direct := make([]time.Duration, 0, b.N)
	helped := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if err := exec.Command(bash, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))

		start = time.Now()
		c, err := f.command(context.Background(), "true")
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		if err := c.Wait(); err != nil {
			b.Fatal(err)
		}
		helped = append(helped, time.Since(start))
	}
	b.StopTimer()
	d, h := median(direct), median(helped)
	b.ReportMetric(float64(d.Nanoseconds()), "direct-p50-ns")
	b.ReportMetric(float64(h.Nanoseconds()), "helper-p50-ns")
	b.ReportMetric(float64((h - d).Nanoseconds()), "added-p50-ns")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
