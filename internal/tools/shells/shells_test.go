package shells

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadOnlyNewOutput(t *testing.T) {
	r := newRegistry(t, Options{})
	info, dir := start(t, r, "s1", "echo first; "+waitFor("go")+"echo second")
	if info.State != Running || info.ExitCode != -1 || info.PID <= 0 {
		t.Fatalf("started shell: %+v", info)
	}

	first := read(t, r, "s1", info.ID, ReadOptions{Wait: hangGuard, Until: UntilOutput})
	if first.Text != "first\n" || first.Info.State != Running || first.TimedOut {
		t.Fatalf("first read = %q %v timedOut=%v", first.Text, first.Info.State, first.TimedOut)
	}
	release(t, dir, "go")
	second := waitExit(t, r, "s1", info.ID)
	if second.Text != "second\n" {
		t.Fatalf("second read = %q, want only the new output", second.Text)
	}
	if second.Info.State != Completed || second.Info.ExitCode != 0 || second.Info.Ended.IsZero() {
		t.Fatalf("ended shell: %+v", second.Info)
	}
	if third := read(t, r, "s1", info.ID, ReadOptions{}); third.Text != "" {
		t.Fatalf("third read = %q, want nothing", third.Text)
	}
}

func TestStdoutAndStderrInterleaved(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "echo out; echo err >&2; echo out2")
	if got := waitExit(t, r, "s1", info.ID).Text; got != "out\nerr\nout2\n" {
		t.Fatalf("output = %q", got)
	}
}

func TestCwdAndEnvironment(t *testing.T) {
	r := newRegistry(t, Options{})
	dir := t.TempDir()
	info, err := r.Start("s1", Spec{
		Path: bashPath(t), Args: []string{"bash", "-c", `pwd; echo "$FOO"; echo "${HOME-unset}"`},
		Dir: dir, Env: []string{"FOO=bar"},
	})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := real + "\nbar\nunset\n"
	if got := waitExit(t, r, "s1", info.ID).Text; got != want {
		t.Fatalf("output = %q, want %q", got, want)
	}
}

func TestExitStates(t *testing.T) {
	r := newRegistry(t, Options{})
	cases := []struct {
		command string
		state   State
		code    int
	}{
		{"true", Completed, 0},
		{"exit 3", Failed, 3},
		{"kill -TERM $$", Failed, 128 + 15},
	}
	for _, tc := range cases {
		info, _ := start(t, r, "s1", tc.command)
		got := waitExit(t, r, "s1", info.ID).Info
		if got.State != tc.state || got.ExitCode != tc.code {
			t.Errorf("%q: state %v code %d, want %v %d", tc.command, got.State, got.ExitCode, tc.state, tc.code)
		}
	}
}

func TestFilter(t *testing.T) {
	r := newRegistry(t, Options{})
	const command = `printf 'apple 1\nbanana 2\napple 3\ntail apple'`
	info, _ := start(t, r, "s1", command)
	out := read(t, r, "s1", info.ID, ReadOptions{Wait: hangGuard, Until: UntilExit, Filter: regexp.MustCompile(`^apple`)})
	if out.Text != "apple 1\napple 3\n" {
		t.Fatalf("filtered = %q", out.Text)
	}
	if got := read(t, r, "s1", info.ID, ReadOptions{}).Text; got != "" {
		t.Fatalf("lines the filter left out were read again: %q", got)
	}
}

func TestFilterLeavesAnUnfinishedLine(t *testing.T) {
	r := newRegistry(t, Options{})
	info, dir := start(t, r, "s1", "printf 'ready 1\\nread'; "+waitFor("go")+"printf 'y 2\\n'")
	re := regexp.MustCompile(`^ready`)
	first := read(t, r, "s1", info.ID, ReadOptions{Wait: hangGuard, Filter: re})
	if first.Text != "ready 1\n" {
		t.Fatalf("first filtered read = %q", first.Text)
	}
	release(t, dir, "go")
	if got := waitExitFiltered(t, r, info.ID, re); got != "ready 2\n" {
		t.Fatalf("a line written in two parts was not matched whole: %q", got)
	}
}

func waitExitFiltered(t *testing.T, r *Registry, id string, re *regexp.Regexp) string {
	t.Helper()
	return read(t, r, "s1", id, ReadOptions{Wait: hangGuard, Until: UntilExit, Filter: re}).Text
}

func TestWaitForOutput(t *testing.T) {
	r := newRegistry(t, Options{})
	info, dir := start(t, r, "s1", waitFor("go")+"echo late; exec sleep 300")

	now := read(t, r, "s1", info.ID, ReadOptions{})
	if now.Text != "" || now.Info.State != Running || now.TimedOut {
		t.Fatalf("read without wait = %+v", now)
	}
	done := make(chan Output, 1)
	go func() {
		out, _ := r.Read(ctx(t), "s1", info.ID, ReadOptions{Wait: hangGuard, Until: UntilOutput})
		done <- out
	}()
	release(t, dir, "go")
	out := <-done
	if out.Text != "late\n" || out.TimedOut || out.Info.State != Running {
		t.Fatalf("waiting read = %q timedOut=%v state=%v", out.Text, out.TimedOut, out.Info.State)
	}
}

func TestWaitForMatchingOutput(t *testing.T) {
	r := newRegistry(t, Options{})
	info, dir := start(t, r, "s1", "echo noise; "+waitFor("go")+"echo listening on 8080; exec sleep 300")
	done := make(chan Output, 1)
	go func() {
		out, _ := r.Read(ctx(t), "s1", info.ID, ReadOptions{Wait: hangGuard, Filter: regexp.MustCompile("listening")})
		done <- out
	}()
	release(t, dir, "go")
	if out := <-done; out.Text != "listening on 8080\n" {
		t.Fatalf("read = %q, want the matching line", out.Text)
	}
}

func TestWaitTimesOut(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "exec sleep 300")
	for _, until := range []Until{UntilOutput, UntilExit} {
		out := read(t, r, "s1", info.ID, ReadOptions{Wait: 20 * time.Millisecond, Until: until})
		if !out.TimedOut || out.Text != "" || out.Info.State != Running {
			t.Fatalf("until %d: %+v", until, out)
		}
	}
}

func TestWaitEndsWithTheShell(t *testing.T) {
	r := newRegistry(t, Options{})
	info, dir := start(t, r, "s1", waitFor("go")+"exit 4")
	done := make(chan Output, 1)
	go func() {
		out, _ := r.Read(ctx(t), "s1", info.ID, ReadOptions{Wait: hangGuard, Until: UntilOutput})
		done <- out
	}()
	release(t, dir, "go")
	out := <-done
	if out.TimedOut || out.Info.State != Failed || out.Info.ExitCode != 4 {
		t.Fatalf("read = %+v", out)
	}
}

func TestKillTakesTheWholeTree(t *testing.T) {
	r := newRegistry(t, Options{})
	// bash, a child bash, its two sleeps, and a sleep of the top shell.
	info, _ := start(t, r, "s1", "bash -c 'sleep 300 & sleep 300; wait' & sleep 300; wait")
	waitGroupSize(t, info.PID, 5)

	got, err := r.Kill(ctx(t), "s1", info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Killed || got.ExitCode != 128+9 {
		t.Fatalf("killed shell: %+v", got)
	}
	waitGroupGone(t, info.PID)

	if _, err := r.Kill(ctx(t), "s1", info.ID); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("second kill: %v, want ErrNotRunning", err)
	}
	if st, _ := r.Status("s1", info.ID); st.State != Killed {
		t.Fatalf("a killed shell stays listed as killed, got %v", st.State)
	}
}

func TestKillAnEndedShell(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "echo done")
	waitExit(t, r, "s1", info.ID)
	got, err := r.Kill(ctx(t), "s1", info.ID)
	if !errors.Is(err, ErrNotRunning) || got.State != Completed {
		t.Fatalf("kill of a completed shell: %v %v", got.State, err)
	}
}

func TestLeftoversDieWithTheShell(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "sleep 300 & echo started")
	out := waitExit(t, r, "s1", info.ID)
	if out.Text != "started\n" || out.Info.State != Completed {
		t.Fatalf("read = %+v", out)
	}
	waitGroupGone(t, info.PID)
}

func TestCapDropsTheOldest(t *testing.T) {
	const capBytes = 4096
	r := newRegistry(t, Options{MaxOutputBytes: capBytes})
	info, _ := start(t, r, "s1", "seq 1 3000")
	var full strings.Builder
	for i := 1; i <= 3000; i++ {
		full.WriteString(strconv.Itoa(i) + "\n")
	}

	out := waitExit(t, r, "s1", info.ID)
	if out.Info.OutputBytes != int64(full.Len()) {
		t.Fatalf("OutputBytes = %d, want %d", out.Info.OutputBytes, full.Len())
	}
	if out.Dropped == 0 || len(out.Text) > capBytes || len(out.Text) < capBytes/2 {
		t.Fatalf("dropped %d, kept %d bytes of %d with a cap of %d", out.Dropped, len(out.Text), full.Len(), capBytes)
	}
	if !strings.HasSuffix(full.String(), out.Text) || out.Dropped+int64(len(out.Text)) != int64(full.Len()) {
		t.Fatalf("kept text is not the newest part of the output: dropped %d + kept %d", out.Dropped, len(out.Text))
	}
	if onDisk := dirSize(t, filepath.Join(r.dir, info.ID)); onDisk > capBytes {
		t.Fatalf("%d bytes on disk, more than the cap", onDisk)
	}
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

func TestMaxBytesKeepsTheNewest(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "seq 1 1000")
	out := read(t, r, "s1", info.ID, ReadOptions{Wait: hangGuard, Until: UntilExit, MaxBytes: 10})
	if out.Text != "\n999\n1000\n" || out.Omitted != int64(out.Info.OutputBytes-10) {
		t.Fatalf("read = %q omitted %d of %d", out.Text, out.Omitted, out.Info.OutputBytes)
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "exec sleep 300")

	_, unknown := r.Read(ctx(t), "s1", "bash_000000000000", ReadOptions{})
	if !errors.Is(unknown, ErrNotFound) {
		t.Fatalf("unknown id: %v", unknown)
	}
	want := ErrNotFound.Error() + ": " + info.ID
	_, readErr := r.Read(ctx(t), "s2", info.ID, ReadOptions{})
	_, statusErr := r.Status("s2", info.ID)
	_, killErr := r.Kill(ctx(t), "s2", info.ID)
	for name, err := range map[string]error{"read": readErr, "status": statusErr, "kill": killErr} {
		if !errors.Is(err, ErrNotFound) || err.Error() != want {
			t.Errorf("%s from another session: %v, want %q", name, err, want)
		}
	}
	if l := r.List("s2"); len(l) != 0 {
		t.Fatalf("another session lists %v", l)
	}
	if st, _ := r.Status("s1", info.ID); st.State != Running {
		t.Fatalf("another session's kill reached the shell: %v", st.State)
	}
	if l := r.List("s1"); len(l) != 1 || l[0].ID != info.ID {
		t.Fatalf("own list = %v", l)
	}
}

func TestCloseSessionKillsEverything(t *testing.T) {
	r := newRegistry(t, Options{})
	a, _ := start(t, r, "s1", "sleep 300 & sleep 300")
	b, _ := start(t, r, "s1", "bash -c 'sleep 300' ; true")
	c, _ := start(t, r, "s2", "exec sleep 300")
	waitGroupSize(t, a.PID, 3)
	waitGroupSize(t, b.PID, 2)

	if err := r.CloseSession("s1"); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, a.PID)
	waitGroupGone(t, b.PID)
	for _, id := range []string{a.ID, b.ID} {
		if _, err := os.Stat(filepath.Join(r.dir, id)); !os.IsNotExist(err) {
			t.Errorf("output of %s left on disk: %v", id, err)
		}
		if _, err := r.Read(ctx(t), "s1", id, ReadOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("read after CloseSession: %v", err)
		}
	}
	if l := r.List("s1"); len(l) != 0 {
		t.Fatalf("closed session lists %v", l)
	}
	if st, _ := r.Status("s2", c.ID); st.State != Running {
		t.Fatalf("another session's shell was touched: %v", st.State)
	}

	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, c.PID)
	if _, err := os.Stat(r.dir); !os.IsNotExist(err) {
		t.Fatalf("registry directory left: %v", err)
	}
	if _, err := r.Start("s2", Spec{Path: bashPath(t), Args: []string{"bash", "-c", "true"}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("start after Close: %v", err)
	}
}

func TestLimitForgetsEndedShellsFirst(t *testing.T) {
	r := newRegistry(t, Options{MaxShells: 2})
	ended, _ := start(t, r, "s1", "true")
	waitExit(t, r, "s1", ended.ID)
	start(t, r, "s1", "exec sleep 300")
	start(t, r, "s1", "exec sleep 300") // takes the ended shell's place
	if _, err := r.Status("s1", ended.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the ended shell was kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ended.ID)); !os.IsNotExist(err) {
		t.Fatalf("its output was kept: %v", err)
	}
	_, err := r.Start("s1", Spec{Path: bashPath(t), Args: []string{"bash", "-c", "true"}})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("third running shell: %v, want ErrLimit", err)
	}
	start(t, r, "s2", "true") // the limit is per session
}

func TestStartFailure(t *testing.T) {
	r := newRegistry(t, Options{})
	_, err := r.Start("s1", Spec{Path: bashPath(t), Args: []string{"bash", "-c", "true"}, Dir: filepath.Join(t.TempDir(), "gone")})
	if err == nil {
		t.Fatal("start in a missing directory succeeded")
	}
	if l := r.List("s1"); len(l) != 0 {
		t.Fatalf("a failed start is listed: %v", l)
	}
	if entries, _ := os.ReadDir(r.dir); len(entries) != 0 {
		t.Fatalf("a failed start left %d entries on disk", len(entries))
	}
}

func TestProcessThatLeftTheGroupDoesNotHoldTheShell(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	r := newRegistry(t, Options{})
	// The escaped sleep keeps the output pipe open after bash has exited.
	// bash waits until it has its own session (field 6 of its stat), so
	// that the group kill at bash's exit does not catch it first.
	info, _ := start(t, r, "s1", `setsid sleep 300 & while [ "$(cut -d' ' -f6 /proc/$!/stat)" != $! ]; do sleep 0.01; done; echo $!`)
	out := waitExit(t, r, "s1", info.ID)
	pid, err := strconv.Atoi(strings.TrimSpace(out.Text))
	if err != nil {
		t.Fatalf("output %q", out.Text)
	}
	// It left the group, so killing the group does not reach it.
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if out.Info.State != Completed {
		t.Fatalf("state %v", out.Info.State)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
		t.Fatalf("the escaped process is gone, so it held nothing open: %v", err)
	}
}
