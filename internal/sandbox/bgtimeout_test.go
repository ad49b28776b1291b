package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/shells"
)

// A sandboxed command moved to the background at its timeout stays under
// the sandbox: it goes on running and KillShell's Kill ends every process
// of it, one that left its process group with setsid included.
func TestMovedCommandStaysSandboxed(t *testing.T) {
	tl, reg, _, env := newSandboxedBash(t)
	pidFile := filepath.Join(env.Files.Primary(), "pid")
	res, err := tooltest.Run(t, tl, env, map[string]any{
		"command": "echo started; setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > " + pidFile + "; sleep 1000",
		"timeout": 1000,
	})
	if err != nil || res.IsError {
		t.Fatalf("moved call: %v %v", err, res)
	}
	id, _ := res.Meta["task_id"].(string)
	if id == "" || !strings.Contains(tooltest.Text(res), "was moved to the background") {
		t.Fatalf("moved call: %q %v", tooltest.Text(res), res.Meta)
	}
	var pid string
	for deadline := time.Now().Add(10 * time.Second); pid == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(pidFile)
		pid = strings.TrimSpace(string(data))
	}
	if pid == "" {
		t.Fatal("the command never wrote its pid")
	}
	if info, err := reg.Status(env.SessionID, id); err != nil || info.State != shells.Running {
		t.Fatalf("shell: %+v %v", info, err)
	}
	if _, err := reg.Kill(context.Background(), env.SessionID, id); err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err == nil && !strings.Contains(string(stat), ") Z ") {
		t.Errorf("the setsid'd sleep %s outlived KillShell: %s", pid, stat)
	}
}
