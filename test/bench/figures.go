package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// row is one line of the table.
type row struct {
	figure, toold, baseline, result, target string
	met                                     bool
}

// dist is one panel of the PNG: a figure's two latency distributions.
type dist struct {
	title           string
	tooldName       string
	toold, baseline samples
	baselineName    string
}

type bench struct {
	ctx     context.Context
	plain   *server // --sandbox off
	boxed   *server // the default sandbox (best-effort)
	grep    *server // plain, with a session on a copy of GOROOT/src
	scale   float64
	rows    []row
	dists   []dist
	smallRd call
	// senders are the ways the Read figures send their calls.
	senders []sender
	// floor is a gRPC server that only runs bash (floorServer), for the
	// Bash figures; nil when they are not run.
	floor *server
	// readFloor is the grpc-go server that does no work, for the Read
	// figures (read_floor.go); nil: none.
	readFloor *server
}

// floorNote is the target column of the Read floor's rows.
const floorNote = "(grpc-go alone)"

func floorRow(r row) row {
	r.figure = "grpc-go floor: " + r.figure
	r.target, r.met = floorNote, true
	return r
}

func (b *bench) n(base int) int { return max(5, int(float64(base)*b.scale)) }

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

func ratioRow(figure string, t, base time.Duration, target float64, atMost bool) row {
	r := float64(t) / float64(base)
	op := "≤"
	met := r <= target
	if !atMost {
		op, met = "≥", r >= target
	}
	return row{figure, ms(t), ms(base), fmt.Sprintf("%.2f×", r), fmt.Sprintf("%s %.1f×", op, target), met}
}

func (b *bench) health() error { return check(b.ctx, b.plain) }

func check(ctx context.Context, s *server) error {
	_, err := s.health.Check(ctx, &healthpb.HealthCheckRequest{})
	return err
}

// readAndFloor: a small Read and an Execute of an unknown tool, each
// against a health Check of the same server; with the floor, the same
// Read and Check of the floor server in the same rounds.
func (b *bench) readAndFloor() error {
	for _, via := range b.senders {
		read := func() error { return via.send(b.plain, b.ctx, false, b.smallRd) }
		ops := []func() error{read, b.health}
		if b.readFloor != nil {
			ops = append(ops, func() error { return via.send(b.readFloor, b.ctx, false, b.smallRd) }, func() error { return check(b.ctx, b.readFloor) })
		}
		s, err := interleaveN(b.n(2000), ops...)
		if err != nil {
			return fmt.Errorf("Read (%s): %w", via.name, err)
		}
		tr, th := s[0], s[1]
		b.rows = append(b.rows, ratioRow(via.name+" of a small Read, p50 / health Check p50", tr.p50(), th.p50(), 1.3, true))
		b.dists = append(b.dists, dist{"small Read (" + via.name + ") vs health Check", via.name + " Read", tr, th, "health Check"})
		if b.readFloor != nil {
			b.rows = append(b.rows, floorRow(ratioRow(via.name+" of the same events, p50 / health Check p50", s[2].p50(), s[3].p50(), 1.3, true)))
		}
	}

	unknown := func() error { return b.plain.execute(b.ctx, true, call{"NoSuchTool", map[string]any{}}) }
	tu, th2, err := interleave(b.n(1000), unknown, b.health)
	if err != nil {
		return fmt.Errorf("unknown tool: %w", err)
	}
	r := ratioRow("Execute of an unknown tool, p50 / health Check p50", tu.p50(), th2.p50(), 1.3, true)
	r.target, r.met = "(floor of the above)", true
	b.rows = append(b.rows, r)
	b.dists = append(b.dists, dist{"unknown tool vs health Check", "Execute NoSuchTool", tu, th2, "health Check"})
	return nil
}

// throughput: 64 callers for a while, Read and health Check in turns,
// with Read sent by Execute, then by the unary Call.
func (b *bench) throughput() error {
	for _, via := range b.senders {
		if err := b.throughputVia(via); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) throughputVia(via sender) error {
	const callers = 64
	phase := time.Duration(float64(1500*time.Millisecond) * b.scale)
	run := func(op func() error) (int64, time.Duration, error) {
		var done atomic.Int64
		var firstErr error
		var once sync.Once
		var wg sync.WaitGroup
		start := time.Now()
		deadline := start.Add(phase)
		for range callers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					if err := op(); err != nil {
						once.Do(func() { firstErr = err })
						return
					}
					done.Add(1)
				}
			})
		}
		wg.Wait()
		return done.Load(), time.Since(start), firstErr
	}
	read := func() error { return via.send(b.plain, b.ctx, false, b.smallRd) }
	// Phases in turns: toold's Check, toold's Read, then the floor's.
	ops := []func() error{b.health, read}
	if b.readFloor != nil {
		ops = append(ops, func() error { return check(b.ctx, b.readFloor) }, func() error { return via.send(b.readFloor, b.ctx, false, b.smallRd) })
	}
	n := make([]int64, len(ops))
	d := make([]time.Duration, len(ops))
	for i := range 3 * len(ops) {
		k, took, err := run(ops[i%len(ops)])
		if err != nil {
			return fmt.Errorf("64 callers (%s): %w", via.name, err)
		}
		n[i%len(ops)] += k
		d[i%len(ops)] += took
	}
	rate := func(i int) float64 { return float64(n[i]) / d[i].Seconds() }
	tputRow := func(figure string, tr, th float64) row {
		ratio := tr / th
		return row{figure, fmt.Sprintf("%.0f/s", tr), fmt.Sprintf("%.0f/s", th), fmt.Sprintf("%.2f×", ratio), "≥ 0.7×", ratio >= 0.7}
	}
	b.rows = append(b.rows, tputRow("Throughput at 64 callers, Read ("+via.name+") / health Check", rate(1), rate(0)))
	if b.readFloor != nil {
		b.rows = append(b.rows, floorRow(tputRow("throughput at 64 callers, the same events ("+via.name+") / health Check", rate(3), rate(2))))
	}
	return nil
}

// batch: ten Reads in one request against the slowest of the same ten
// Reads sent one by one, by Execute, then by the unary Call.
func (b *bench) batch() error {
	for _, via := range b.senders {
		if err := b.batchVia(via); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) batchVia(via sender) error {
	var files []call
	for i := range 10 {
		p := filepath.Join(b.plain.ws, fmt.Sprintf("batch%d.go", i))
		if err := os.WriteFile(p, smallSource(), 0o644); err != nil {
			return err
		}
		files = append(files, call{"Read", map[string]any{"file_path": p}})
	}
	// Per server (toold, the floor): the ten in one request, then each
	// of the ten on its own; the servers take turns, and which of the two
	// goes first alternates.
	servers := []*server{b.plain}
	if b.readFloor != nil {
		servers = append(servers, b.readFloor)
	}
	single := make([][]samples, len(servers))
	batch := make([]samples, len(servers))
	var ops []func() error
	for k, s := range servers {
		single[k] = make([]samples, len(files))
		one := func() error {
			t0 := time.Now()
			if err := via.send(s, b.ctx, false, files...); err != nil {
				return err
			}
			batch[k] = append(batch[k], time.Since(t0))
			return nil
		}
		each := func() error {
			for j, f := range files {
				t0 := time.Now()
				if err := via.send(s, b.ctx, false, f); err != nil {
					return err
				}
				single[k][j] = append(single[k][j], time.Since(t0))
			}
			return nil
		}
		ops = append(ops, one, each)
	}
	for i := range b.n(300) {
		for k := range servers {
			first, second := ops[2*k], ops[2*k+1]
			if i%2 == 1 {
				first, second = second, first
			}
			if err := first(); err != nil {
				return fmt.Errorf("batch: %w", err)
			}
			if err := second(); err != nil {
				return fmt.Errorf("batch: %w", err)
			}
		}
	}
	slowest := func(ss []samples) samples {
		s := ss[0]
		for _, o := range ss[1:] {
			if o.p50() > s.p50() {
				s = o
			}
		}
		return s
	}
	sl := slowest(single[0])
	b.rows = append(b.rows, ratioRow("Batch of ten Reads ("+via.name+"), p50 / slowest single Read p50", batch[0].p50(), sl.p50(), 1.5, true))
	b.dists = append(b.dists, dist{"ten Reads in one " + via.name + " vs one Read", "batch of ten", batch[0], sl, "slowest single"})
	if b.readFloor != nil {
		fs := slowest(single[1])
		b.rows = append(b.rows, floorRow(ratioRow("ten calls' events in one "+via.name+", p50 / slowest single p50", batch[1].p50(), fs.p50(), 1.5, true)))
	}
	return nil
}

// bareTrue is `bash -c true` started by this process in a session of its
// own, as toold starts a command.
func bareTrue() error {
	cmd := exec.Command("bash", "-c", "true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd.Run()
}

// bash: toold's CPU per Bash `true` and its p50 over a bare exec, each
// set against the floor server's, all three interleaved in one run.
func (b *bench) bash(s *server, label string, cpuTarget, addTarget time.Duration) error {
	trueCall := call{"Bash", map[string]any{"command": "true"}}
	tool := func() error { return s.execute(b.ctx, false, trueCall) }
	floor := func() error { return b.floor.execute(b.ctx, false, trueCall) }
	// Warm: the session's shell state, the sandbox's first setup.
	for range 20 {
		if err := tool(); err != nil {
			return fmt.Errorf("Bash %s: %w", label, err)
		}
		if err := floor(); err != nil {
			return fmt.Errorf("floor server: %w", err)
		}
	}
	c0, err := s.cpu()
	if err != nil {
		return err
	}
	f0, err := b.floor.cpu()
	if err != nil {
		return err
	}
	runs, err := interleaveN(b.n(600), tool, floor, bareTrue)
	if err != nil {
		return fmt.Errorf("Bash %s: %w", label, err)
	}
	tt, tf, tb := runs[0], runs[1], runs[2]
	c1, err := s.cpu()
	if err != nil {
		return err
	}
	f1, err := b.floor.cpu()
	if err != nil {
		return err
	}
	perCall := (c1 - c0) / time.Duration(len(tt))
	floorCall := (f1 - f0) / time.Duration(len(tf))
	b.rows = append(b.rows, row{"toold's CPU per Bash `true`" + label + " / the floor server's per `bash -c true`", ms(perCall), ms(floorCall),
		fmt.Sprintf("%.2f×", float64(perCall)/float64(floorCall)), "≤ " + ms(cpuTarget), perCall <= cpuTarget})
	added := tt.p50() - tb.p50()
	b.rows = append(b.rows, row{"Bash `true` p50 over a bare `bash -c true`" + label, ms(tt.p50()), ms(tb.p50()),
		fmt.Sprintf("%+.3f ms", float64(added)/float64(time.Millisecond)), "≤ +" + ms(addTarget), added <= addTarget})
	if label == "" {
		// The floor does the same in both runs; its latency is shown once.
		fadded := tf.p50() - tb.p50()
		b.rows = append(b.rows, row{"the floor server's p50 over a bare `bash -c true`", ms(tf.p50()), ms(tb.p50()),
			fmt.Sprintf("%+.3f ms", float64(fadded)/float64(time.Millisecond)), "(floor of the above)", true})
	}
	b.dists = append(b.dists, dist{"Bash true" + label + " vs bash -c true", "Execute Bash", tt, tb, "bare exec"})
	return nil
}

// grepFiles: Grep files_with_matches against rg -l, same pattern and
// filters, on a copy of the Go source tree.
func (b *bench) grepFiles(pattern string) error {
	rg, err := exec.LookPath("rg")
	if err != nil {
		return fmt.Errorf("rg not installed")
	}
	tool := func() error {
		return b.grep.execute(b.ctx, false, call{"Grep", map[string]any{"pattern": pattern, "output_mode": "files_with_matches", "head_limit": 0}})
	}
	rgCmd := func() *exec.Cmd {
		cmd := exec.Command(rg, "-l", "--no-config", "--hidden", "--no-ignore-global",
			"--glob=!.bzr", "--glob=!.git", "--glob=!.hg", "--glob=!.jj", "--glob=!.svn", "--regexp="+pattern, "--", ".")
		cmd.Dir = b.grep.ws
		// In this session, as toold's rg is (see startToold).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	// Its output read through a pipe, as toold reads it: ripgrep writing
	// to /dev/null is slower.
	bare := func() error { _, err := rgCmd().Output(); return err }
	// Once, and warming the page cache: both find the same files.
	text, err := b.grep.executeText(b.ctx, false, call{"Grep", map[string]any{"pattern": pattern, "output_mode": "files_with_matches", "head_limit": 0}})
	if err != nil {
		return err
	}
	listed, err := rgCmd().Output()
	if err != nil {
		return fmt.Errorf("rg -l: %w", err)
	}
	want := strings.Count(string(listed), "\n")
	if !strings.HasPrefix(text, fmt.Sprintf("Found %d files\n", want)) {
		return fmt.Errorf("Grep and rg -l differ: rg -l lists %d files, Grep says %.60q", want, text)
	}
	c0, err := b.grep.cpu()
	if err != nil {
		return err
	}
	tg, tr, err := interleave(b.n(40), tool, bare)
	if err != nil {
		return fmt.Errorf("Grep: %w", err)
	}
	c1, err := b.grep.cpu()
	if err != nil {
		return err
	}
	b.rows = append(b.rows, ratioRow(fmt.Sprintf("Grep files_with_matches %q, p50 / rg -l p50", pattern), tg.p50(), tr.p50(), 1.1, true))
	// What toold itself spends of that (rg's CPU is not in it).
	b.rows = append(b.rows, row{"toold's own CPU per Grep of the above", ms((c1 - c0) / time.Duration(len(tg))), "", "", "", true})
	b.dists = append(b.dists, dist{"Grep files mode vs rg -l", "Execute Grep", tg, tr, "rg -l"})
	return nil
}

func smallSource() []byte {
	var src []byte
	for i := range 40 {
		src = append(src, []byte("line "+string(rune('a'+i%26))+" of a small source file\n")...)
	}
	return src
}
