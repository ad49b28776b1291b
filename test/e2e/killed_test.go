package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestKilledCommandsSayWhy: a command that the output cap, a resource
// limit of the sandbox or a signal kills says so in its result, in text
// and metadata, through the API, foreground and background, with toold as
// root and as a non-root user.
func TestKilledCommandsSayWhy(t *testing.T) {
	limits := []string{"--sandbox-rlimit-fsize", "4KiB", "--sandbox-rlimit-cpu", "1"}
	t.Run("root", func(t *testing.T) { checkKilledSayWhy(t, startToold(t, limits...)) })
	t.Run("non-root", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("the tests do not run as root: the root case already ran as this user")
		}
		checkKilledSayWhy(t, startTooldAs(t, 10001, limits...))
	})
}

func checkKilledSayWhy(t *testing.T, d *daemon) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	cases := []struct {
		id, command, text, killedBy string
	}{
		{"cap", "yes", "The command was killed because its output passed 64 MiB.", "output_cap"},
		{"fsize", "head -c 100000 /dev/zero > big; exit $?", "(128+25: a process of the command was killed by signal 25 (SIGXFSZ): the command wrote past its file size limit)", ""},
		{"cpu", "while :; do :; done", "Command was killed by signal", "signal"},
		{"kill", "kill -KILL $$", "Command was killed by signal 9 (SIGKILL): sent by the kernel when the command runs out of memory", "signal"},
	}
	for _, c := range cases {
		r := execute(t, ctx, d.addr, sid, c.id, "Bash", map[string]any{"command": c.command, "timeout": 600000})
		if !r.IsError || !strings.Contains(r.Text, c.text) || c.killedBy != "" && r.Meta["killed_by"] != c.killedBy {
			t.Errorf("%s: error %v, meta %v, text %.600q", c.command, r.IsError, r.Meta, r.Text)
		}
	}
	// A background shell killed by a signal: TaskOutput says so.
	bg := execute(t, ctx, d.addr, sid, "bg", "Bash", map[string]any{"command": "kill -KILL $$", "run_in_background": true})
	task, _ := bg.Meta["task_id"].(string)
	if task == "" {
		t.Fatalf("no task id: %+v", bg)
	}
	r := execute(t, ctx, d.addr, sid, "out", "TaskOutput", map[string]any{"task_id": task, "block": true, "timeout": 600000})
	if !strings.Contains(r.Text, "[The command was killed by signal 9 (SIGKILL)") || r.Meta["signal"] != "SIGKILL" {
		t.Errorf("TaskOutput of a killed shell: meta %v, text %q", r.Meta, r.Text)
	}
}
