package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A command that outlives its timeout moves to the background: the call
// returns the output so far and the shell's id, not an error; the command
// keeps running, TaskOutput later shows what it printed after the move,
// and a retry of the same call returns the same result without a second
// copy. A sleep is killed at the timeout instead.
func TestTimeoutMovesToBackground(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)

	in := map[string]any{"command": "bash -c 'echo a; sleep 3; echo b'", "timeout": 1000}
	moved := execute(t, ctx, d.addr, sid, "m1", "Bash", in)
	taskID, _ := moved.Meta["task_id"].(string)
	if moved.IsError || taskID == "" || !strings.Contains(moved.Text, "was moved to the background (ID: "+taskID+")") {
		t.Fatalf("moved call: %+v", moved)
	}
	again := execute(t, ctx, d.addr, sid, "m1", "Bash", in)
	if again.Text != moved.Text {
		t.Errorf("retry of the same call: %q, first %q", again.Text, moved.Text)
	}

	seen := ""
	for i := 0; !strings.Contains(seen, "b\n"); i++ {
		if ctx.Err() != nil {
			t.Fatalf("b never came: %q", seen)
		}
		r := execute(t, ctx, d.addr, sid, fmt.Sprintf("o%d", i), "TaskOutput", map[string]any{"task_id": taskID, "block": true, "timeout": 5000})
		if r.IsError {
			t.Fatalf("TaskOutput: %+v", r)
		}
		seen += r.Text
		if r.Meta["status"] == "completed" {
			break
		}
	}
	if !strings.Contains(seen, "a\n") || !strings.Contains(seen, "b\n") {
		t.Errorf("TaskOutput: %q", seen)
	}

	killed := execute(t, ctx, d.addr, sid, "s1", "Bash", map[string]any{"command": "sleep 5", "timeout": 1000})
	if !killed.IsError || killed.Text != "Exit code 143\nCommand timed out after 1s" {
		t.Errorf("sleep: %+v", killed)
	}
}
