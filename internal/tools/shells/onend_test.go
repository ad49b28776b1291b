package shells

import (
	"os/exec"
	"sync"
	"syscall"
	"testing"
)

// endLog records what OnEnd is told.
type endLog struct {
	mu   sync.Mutex
	ends []string
	info map[string]Info
}

func (l *endLog) record(session string, info Info) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ends = append(l.ends, session+"/"+info.ID)
	if l.info == nil {
		l.info = map[string]Info{}
	}
	l.info[info.ID] = info
}

func (l *endLog) get(id string) (Info, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.ends {
		if e[len(e)-len(id):] == id {
			n++
		}
	}
	return l.info[id], n
}

// OnEnd hears, once per shell and with its final state, of every shell:
// started ones that exit or are killed, adopted ones, each with the call
// that started it.
func TestOnEndHearsEveryShellOnce(t *testing.T) {
	r := newRegistry(t, Options{})
	var log endLog
	r.OnEnd(log.record)
	ok, err := r.Start("s1", Spec{Path: bashPath(t), Args: []string{"bash", "-c", "exit 3"}, Dir: t.TempDir(), Command: "exit 3", ToolUseID: "toolu_a"})
	if err != nil {
		t.Fatal(err)
	}
	long, err := r.Start("s2", Spec{Path: bashPath(t), Args: []string{"bash", "-c", "exec sleep 300"}, Dir: t.TempDir(), Command: "sleep", ToolUseID: "toolu_b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Kill(ctx(t), "s2", long.ID); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bashPath(t), "-c", "true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	proc := groupProcess{cmd: cmd}
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { proc.Wait(); close(exited) }()
	moved, _, err := r.Adopt("s1", Adopted{Command: "true", Process: proc, Exited: exited, ToolUseID: "toolu_c"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		id, toolUse string
		state       State
		code        int
	}{{ok.ID, "toolu_a", Failed, 3}, {long.ID, "toolu_b", Killed, 128 + 9}, {moved.ID, "toolu_c", Completed, 0}} {
		waitUntil(t, func() bool { _, n := log.get(want.id); return n > 0 })
		info, n := log.get(want.id)
		if n != 1 || info.State != want.state || info.ExitCode != want.code || info.ToolUseID != want.toolUse || info.Ended.IsZero() {
			t.Errorf("%s: told %d times, %+v; want once, %v, exit %d, %s", want.id, n, info, want.state, want.code, want.toolUse)
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	want := map[string]bool{"s1/" + ok.ID: true, "s2/" + long.ID: true, "s1/" + moved.ID: true}
	for _, e := range log.ends {
		if !want[e] {
			t.Errorf("told of %s (session/id): not one of %v", e, want)
		}
	}
}
