package killshell

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/bash"
	"github.com/toold/toold/internal/tools/shells"
	"github.com/toold/toold/internal/tools/taskoutput"
)

// hangGuard bounds every wait in these tests. It is not a speed
// requirement: a test that needs it has hung.
const hangGuard = time.Minute

type fixture struct {
	reg                  *shells.Registry
	bash, output, killer tool.Tool
	env                  *tool.Env
}

func setup(t *testing.T) *fixture {
	t.Helper()
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	env, _, _ := tooltest.Env(t)
	return &fixture{
		reg:    reg,
		bash:   bash.New(bash.Options{TempDir: t.TempDir(), Shells: reg}),
		output: taskoutput.New(reg),
		killer: New(reg),
		env:    env,
	}
}

// background starts command through the Bash tool and returns its id.
func (f *fixture) background(t *testing.T, command string) string {
	t.Helper()
	res, err := tooltest.Run(t, f.bash, f.env, map[string]any{"command": command, "run_in_background": true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Meta["task_id"].(string)
}

func (f *fixture) kill(t *testing.T, env *tool.Env, in map[string]any) (*tool.Result, error) {
	t.Helper()
	return tooltest.Run(t, f.killer, env, in)
}

func TestDefinition(t *testing.T) {
	f := setup(t)
	d := f.killer.Definition()
	if d.Name != "TaskStop" || len(d.Aliases) != 1 || d.Aliases[0] != "KillShell" {
		t.Fatalf("definition: %s %v", d.Name, d.Aliases)
	}
	r, err := tool.NewRegistry(f.bash, f.output, f.killer)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Lookup("KillShell"); !ok || got != f.killer {
		t.Fatal("KillShell does not reach TaskStop")
	}
}

// TestParseErrors: neither id is Claude Code's "Missing required
// parameter: task_id"; with both, task_id is the one stopped.
func TestParseErrors(t *testing.T) {
	f := setup(t)
	for name, in := range map[string]map[string]any{
		"no id":     {},
		"empty id":  {"shell_id": ""},
		"empty ids": {"shell_id": "", "task_id": ""},
	} {
		_, err := f.kill(t, f.env, in)
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || te.Msg != "Missing required parameter: task_id" {
			t.Errorf("%s: err = %v, want invalid input", name, err)
		}
	}
	_, err := f.kill(t, f.env, map[string]any{"task_id": "a", "shell_id": "b"})
	if err == nil || err.Error() != "No task found with ID: a" {
		t.Errorf("both ids: %v, want task_id's", err)
	}
}

func TestKillsTheWholeTree(t *testing.T) {
	for _, field := range []string{"shell_id", "task_id"} {
		t.Run(field, func(t *testing.T) {
			f := setup(t)
			const cmd = "bash -c 'sleep 300 & sleep 300; wait' & sleep 300; wait"
			id := f.background(t, cmd)
			info, err := f.reg.Status(f.env.SessionID, id)
			if err != nil {
				t.Fatal(err)
			}
			waitGroup(t, info.PID, func(n int) bool { return n >= 5 })

			res, err := f.kill(t, f.env, map[string]any{field: id})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"message":"Successfully stopped task: ` + id + ` (` + cmd + `)","task_id":"` + id + `","task_type":"local_bash","command":"` + cmd + `"}`
			if text := tooltest.Text(res); text != want || res.Meta["status"] != "killed" {
				t.Fatalf("result: %q %v", text, res.Meta)
			}
			waitGroup(t, info.PID, func(n int) bool { return n == 0 })

			out, err := tooltest.Run(t, f.output, f.env, map[string]any{"task_id": id})
			if err != nil || !strings.Contains(tooltest.Text(out), "<status>killed</status>") {
				t.Fatalf("TaskOutput after the kill: %v %q", err, tooltest.Text(out))
			}
			_, err = f.kill(t, f.env, map[string]any{field: id})
			var te *tool.Error
			if !errors.As(err, &te) || te.Kind != tool.KindNotFound || te.Msg != "No task found with ID: "+id {
				t.Fatalf("second kill: %v", err)
			}
		})
	}
}

func TestEndedShell(t *testing.T) {
	f := setup(t)
	id := f.background(t, "exit 2")
	if _, err := tooltest.Run(t, f.output, f.env, map[string]any{"task_id": id, "timeout": float64(hangGuard / time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	_, err := f.kill(t, f.env, map[string]any{"shell_id": id})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindNotFound || te.Msg != "No task found with ID: "+id {
		t.Fatalf("kill of an ended shell: %v", err)
	}
}

func TestOtherSessionCannotKill(t *testing.T) {
	f := setup(t)
	id := f.background(t, "exec sleep 300")
	other, _, _ := tooltest.Env(t)
	other.SessionID = "other-session"

	_, foreign := f.kill(t, other, map[string]any{"shell_id": id})
	const never = "bash_ffffffffffff"
	_, unknown := f.kill(t, other, map[string]any{"shell_id": never})
	var te *tool.Error
	if !errors.As(foreign, &te) || te.Kind != tool.KindNotFound || foreign.Error() != strings.ReplaceAll(unknown.Error(), never, id) {
		t.Fatalf("foreign kill: %v\nunknown: %v", foreign, unknown)
	}
	if info, _ := f.reg.Status(f.env.SessionID, id); info.State != shells.Running {
		t.Fatalf("another session stopped the shell: %v", info.State)
	}
}

// waitGroup waits until the number of live processes in group pgid
// satisfies ok.
func waitGroup(t *testing.T, pgid int, ok func(int) bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		n := liveInGroup(t, pgid)
		if ok(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d has %d live processes", pgid, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// liveInGroup counts the processes of group pgid that are not zombies,
// from /proc.
func liveInGroup(t *testing.T, pgid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			n++
		}
	}
	return n
}
