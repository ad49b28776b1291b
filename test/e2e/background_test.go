package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pidsWith lists the live processes whose command line contains marker
// (zombies are dead already and do not count).
func pidsWith(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// A background shell through grpcurl: Bash starts it and returns at once,
// TaskOutput reads what it printed (a second read only what is new),
// KillShell stops it, and no process of it is left.
func TestBackgroundShell(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)

	// The odd duration marks this test's processes in /proc.
	marker := fmt.Sprintf("300.%06d", rand.IntN(1000000))
	start := execute(t, ctx, d.addr, sid, "b1", "Bash", map[string]any{
		"command":           "for i in 1 2 3; do echo tick $i; sleep 0.3; done; sleep " + marker,
		"run_in_background": true,
	})
	taskID, _ := start.Meta["task_id"].(string)
	if start.IsError || taskID == "" || start.Meta["background"] != true {
		t.Fatalf("background start: %+v", start)
	}

	// Read until tick 1 has come, then until tick 3: no read repeats what
	// an earlier one returned.
	var reads []string
	seen := ""
	for i := 0; !strings.Contains(seen, "tick 3"); i++ {
		if ctx.Err() != nil {
			t.Fatalf("tick 3 never came; reads: %q", reads)
		}
		r := execute(t, ctx, d.addr, sid, fmt.Sprintf("o%d", i), "TaskOutput", map[string]any{"task_id": taskID, "block": true, "timeout": 500})
		if r.IsError || r.Meta["status"] != "running" {
			t.Fatalf("TaskOutput: %+v", r)
		}
		text := r.Text
		if strings.Contains(text, "(no new output)") {
			continue
		}
		for _, tick := range []string{"tick 1", "tick 2", "tick 3"} {
			if strings.Contains(text, tick) && strings.Contains(seen, tick) {
				t.Fatalf("%q was returned again: reads %q", tick, append(reads, text))
			}
		}
		reads = append(reads, text)
		seen += text
	}
	if len(reads) < 2 && !strings.Contains(reads[0], "tick 1\ntick 2\ntick 3") {
		t.Fatalf("reads: %q", reads)
	}

	var pids []int
	for pids = pidsWith(marker); len(pids) == 0; pids = pidsWith(marker) {
		if ctx.Err() != nil {
			t.Fatal("the background shell's sleep was never seen in /proc")
		}
		time.Sleep(50 * time.Millisecond)
	}
	kill := execute(t, ctx, d.addr, sid, "k1", "KillShell", map[string]any{"shell_id": taskID})
	if kill.IsError || kill.Meta["status"] != "killed" {
		t.Fatalf("KillShell: %+v", kill)
	}
	for left := pidsWith(marker); len(left) > 0; left = pidsWith(marker) {
		if ctx.Err() != nil {
			t.Fatalf("processes %v (of %v) outlived KillShell", left, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
	after := execute(t, ctx, d.addr, sid, "o-end", "TaskOutput", map[string]any{"task_id": taskID, "block": false})
	if after.Meta["status"] != "killed" || strings.Contains(after.Text, "tick") {
		t.Errorf("TaskOutput after KillShell: %+v", after)
	}

	// DeleteSession stops the shells the session still runs.
	marker2 := fmt.Sprintf("300.%06d", rand.IntN(1000000))
	execute(t, ctx, d.addr, sid, "b2", "Bash", map[string]any{"command": "sleep " + marker2, "run_in_background": true})
	for len(pidsWith(marker2)) == 0 {
		if ctx.Err() != nil {
			t.Fatal("the second background shell never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.SessionService/DeleteSession`); err != nil {
		t.Fatalf("DeleteSession: %v\n%s", err, out)
	}
	for left := pidsWith(marker2); len(left) > 0; left = pidsWith(marker2) {
		if ctx.Err() != nil {
			t.Fatalf("processes %v outlived DeleteSession", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
