package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUlimitPrefix(t *testing.T) {
	lim := Limits{CPUSeconds: 60, AddressSpace: 1 << 30, OpenFiles: 1024, Processes: 100, FileSize: 1 << 20}
	want := "builtin ulimit -S -H -t 60 -v 1048576 -n 1024 -u 100 -f 1024 || builtin exit 126; "
	if got := lim.ulimitPrefix(false); got != want {
		t.Errorf("prefix:\n got %q\nwant %q", got, want)
	}
	// POSIX mode counts -f in 512-byte blocks; -v stays in KiB.
	if got := lim.ulimitPrefix(true); !strings.Contains(got, "-v 1048576 ") || !strings.Contains(got, "-f 2048 ") {
		t.Errorf("POSIX-mode prefix: %q", got)
	}
	if got := (Limits{MemoryMax: 1 << 20, PidsMax: 10}).ulimitPrefix(false); got != "" {
		t.Errorf("cgroup limits alone need no prefix, got %q", got)
	}
	if got := (Limits{FileSize: 100}).ulimitPrefix(false); !strings.Contains(got, "-f 1 ") {
		t.Errorf("a limit below one block must not become 0 (unlimited): %q", got)
	}
	if _, err := limitArgs([]string{"bash", "script.sh"}, "x"); err == nil {
		t.Error("limitArgs took a command that is not bash -c")
	}
}

// The limits hold for the command and cannot be raised from inside it; a
// write past the file-size limit fails.
func TestLimitsCannotBeRaised(t *testing.T) {
	f := newFixture(t, Options{Limits: Limits{OpenFiles: 512, FileSize: 64 << 10, CPUSeconds: 300}})
	r := f.run(t, context.Background(), `
echo "n=$(ulimit -Hn) $(ulimit -Sn) f=$(ulimit -Hf) t=$(ulimit -Ht)"
if ulimit -n 4096 2>/dev/null; then echo RAISED; fi
if ulimit -H -f unlimited 2>/dev/null; then echo RAISED; fi
head -c 1000000 /dev/zero > big; echo "big=$(stat -c %s big)"`)
	if !strings.Contains(r.stdout, "n=512 512 f=64 t=300") {
		t.Errorf("limits as the command sees them:\n%v", r)
	}
	if strings.Contains(r.stdout, "RAISED") {
		t.Errorf("the command raised a limit:\n%v", r)
	}
	if !strings.Contains(r.stdout, "big=65536") || !strings.Contains(r.stderr, "File size limit exceeded") && !strings.Contains(r.stderr, "File too large") {
		t.Errorf("a write past the file-size limit was not stopped at 64 KiB:\n%v", r)
	}
}

// Confinement is applied on a thread of the session's own, locked to one
// goroutine that only starts commands: toold's other threads keep
// no_new_privs off and can still write anywhere after many commands, and
// the session's thread ends with the session.
func TestToolsOwnThreadsStayUnconfined(t *testing.T) {
	f := newFixture(t, Options{})
	for range 20 {
		f.run(t, context.Background(), "true")
	}
	if f.l.Status().Cgroup {
		// One ruleset, one confined thread, however many commands.
		if c := confinedThreads(t); len(c) != 1 {
			t.Errorf("after 20 commands of one session, confined threads: %v, want one", c)
		}
	}
	if err := f.l.CloseSession("s1"); err != nil {
		t.Fatal(err)
	}
	// A confined thread ends soon after its goroutine, not at once.
	var confined []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		confined = confinedThreads(t)
		if len(confined) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(confined) > 0 {
		t.Errorf("threads of toold with no_new_privs set after the session closed: %v", confined)
	}
	out := filepath.Join(f.outside, "from-toold")
	if err := os.WriteFile(out, []byte("x"), 0o644); err != nil {
		t.Errorf("toold cannot write outside the workspace after running commands: %v", err)
	}
}

func confinedThreads(t *testing.T) []string {
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(tasks) == 0 {
		t.Fatalf("listing toold's threads: %v", err)
	}
	var out []string
	for _, task := range tasks {
		data, err := os.ReadFile(task)
		if err == nil && strings.Contains(string(data), "NoNewPrivs:\t1") {
			out = append(out, task)
		}
	}
	return out
}

// Variables that make bash run code before its first word would run it
// before the limits: a session may not set them, and the sandbox drops
// them.
func TestStartupVariablesCannotPrecedeTheLimits(t *testing.T) {
	for _, name := range []string{"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"} {
		if err := CheckVars(map[string]string{name: "x"}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("CheckVars accepted %s: %v", name, err)
		}
	}
	if err := CheckVars(map[string]string{"DEPLOY_ENV": "staging"}); err != nil {
		t.Errorf("CheckVars refused an ordinary variable: %v", err)
	}
	f := newFixture(t, Options{Limits: Limits{OpenFiles: 256}})
	early := filepath.Join(f.workspace, "early.sh")
	if err := os.WriteFile(early, []byte("echo EARLY; ulimit -n 4096 && echo RAISED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, context.Background(), `echo "n=$(ulimit -n)"`, "BASH_ENV="+early, "SHELLOPTS=xtrace", "PS4=$(echo TRACED) ")
	if strings.Contains(r.stdout+r.stderr, "EARLY") || strings.Contains(r.stdout+r.stderr, "TRACED") || !strings.Contains(r.stdout, "n=256") {
		t.Errorf("code ran before the limits, or they are not set:\n%v", r)
	}
}
