package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store/redistest"
)

var outputFileRe = regexp.MustCompile(`Output is being written to: (\S+)\. `)

// A background command's output file through grpcurl, in default mode,
// as root and as a non-root toold (uid 10001): the Bash result names it,
// Read reads it without asking while the command runs and after TaskStop
// (with Claude Code's last line), and another session's Read finds
// nothing.
func TestBackgroundOutputFile(t *testing.T) {
	t.Run("root", func(t *testing.T) { testBackgroundOutputFile(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testBackgroundOutputFile(t, 10001)
	})
}

func testBackgroundOutputFile(t *testing.T, uid int) {
	d := startTooldAs(t, uid)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	if err := setMode(ctx, t, d.addr, sid, "PERMISSION_MODE_DEFAULT"); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("300.%06d", rand.IntN(1000000))
	start := execute(t, ctx, d.addr, sid, "b1", "Bash", map[string]any{
		"command": "echo hello; echo err >&2; sleep " + marker, "run_in_background": true,
	})
	m := outputFileRe.FindStringSubmatch(start.Text)
	taskID, _ := start.Meta["task_id"].(string)
	if start.IsError || m == nil || taskID == "" {
		t.Fatalf("background start: %+v", start)
	}
	handle := m[1]
	var read callResult
	for i := 0; ; i++ {
		read = execute(t, ctx, d.addr, sid, fmt.Sprintf("r%d", i), "Read", map[string]any{"file_path": handle})
		if read.IsError {
			t.Fatalf("Read %s: %+v", handle, read)
		}
		if strings.Contains(read.Text, "2\terr") {
			break
		}
		if i > 100 {
			t.Fatalf("the output never came: %q", read.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.HasPrefix(read.Text, "1\thello\n2\terr") {
		t.Fatalf("Read while running: %q", read.Text)
	}

	stop := execute(t, ctx, d.addr, sid, "k1", "TaskStop", map[string]any{"task_id": taskID})
	if stop.IsError || !strings.Contains(stop.Text, `"message":"Successfully stopped task: `+taskID) {
		t.Fatalf("TaskStop: %+v", stop)
	}
	if left := pidsWith(marker); len(left) > 0 {
		t.Fatalf("processes %v outlived TaskStop", left)
	}
	after := execute(t, ctx, d.addr, sid, "r-end", "Read", map[string]any{"file_path": handle})
	if after.IsError || after.Text != "1\thello\n2\terr\n3\t\n4\t[killed]\n5\t" {
		t.Fatalf("Read after TaskStop: %+v", after)
	}
	again := execute(t, ctx, d.addr, sid, "k2", "KillShell", map[string]any{"shell_id": taskID})
	if !again.IsError || !strings.Contains(again.Text, "No task found with ID: "+taskID) {
		t.Fatalf("second stop: %+v", again)
	}

	other := createSession(t, ctx, d.addr)
	foreign := execute(t, ctx, d.addr, other, "x1", "Read", map[string]any{"file_path": handle})
	if !foreign.IsError || strings.Contains(foreign.Text, "hello") {
		t.Fatalf("another session read the output file: %+v", foreign)
	}
}

// The task list is in the store: two replicas on one Redis see and change
// the same list.
func TestRedisTaskListTwoReplicas(t *testing.T) {
	rs := redistest.StartServer(t)
	url := "redis://" + rs.Addr + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := startToold(t, "--redis-url", url)
	b := startToold(t, "--redis-url", url)
	sid := createSession(t, ctx, a.addr)
	if err := setMode(ctx, t, a.addr, sid, "PERMISSION_MODE_DEFAULT"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		addr, tool string
		input      map[string]any
		want       string
	}{
		{a.addr, "TaskCreate", map[string]any{"subject": "Write parser", "description": "Parse it"}, "Task #1 created successfully: Write parser"},
		{b.addr, "TaskCreate", map[string]any{"subject": "Write tests", "description": "Test it"}, "Task #2 created successfully: Write tests"},
		{b.addr, "TaskUpdate", map[string]any{"taskId": "2", "addBlockedBy": []string{"1"}, "owner": "bob"}, "Updated task #2 owner, blockedBy"},
		{a.addr, "TaskList", map[string]any{}, "#1 [pending] Write parser\n#2 [pending] Write tests (bob) [blocked by #1]"},
		{a.addr, "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}, "Updated task #1 status"},
		{b.addr, "TaskGet", map[string]any{"taskId": "2"}, "Task #2: Write tests\nStatus: pending\nDescription: Test it"},
	}
	for i, s := range steps {
		r := execute(t, ctx, s.addr, sid, fmt.Sprintf("t%d", i), s.tool, s.input)
		if r.IsError || r.Text != s.want {
			t.Fatalf("step %d %s: %+v, want %q", i, s.tool, r, s.want)
		}
	}
}

// Monitor through grpcurl in default mode: a read-only command runs without
// asking, the call returns at once while the monitor watches on, its
// events come as notifications (ListNotifications), its output file is
// readable, TaskStop ends it without a notification and no process of it
// is left. (That a command that writes asks, as a Bash command would, is
// in the conformance cases: tasks-monitor-asks.)
func TestMonitor(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	if err := setMode(ctx, t, d.addr, sid, "PERMISSION_MODE_DEFAULT"); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("300.%06d", rand.IntN(1000000))
	r := execute(t, ctx, d.addr, sid, "m1", "Monitor", map[string]any{
		"command": "echo warming; sleep 0.3; echo ready; sleep " + marker, "description": "ready line", "timeout_ms": 60000,
	})
	taskID, _ := r.Meta["task_id"].(string)
	if r.IsError || taskID == "" || !strings.HasPrefix(r.Text, "Monitor started (task "+taskID+", expires in 1m unless the source ends first;") {
		t.Fatalf("Monitor: %+v", r)
	}
	if len(pidsWith(marker)) == 0 {
		t.Fatal("the monitor stopped when the call returned")
	}
	// Each line is an event of its own (0.3 s apart), in order.
	var texts []string
	for after := 0; len(texts) < 2; {
		out, err := sh(t, ctx, fmt.Sprintf(`grpcurl -plaintext -d '{"session_id": "%s", "after_seq": %d, "wait_ms": 30000}' %s toold.v1.ToolService/ListNotifications`, sid, after, d.addr))
		if err != nil {
			t.Fatalf("ListNotifications: %v\n%s", err, out)
		}
		var page struct {
			Notifications []struct{ TaskNotification string }
			NextAfterSeq  string
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil || len(page.Notifications) == 0 {
			t.Fatalf("ListNotifications: %v\n%s", err, out)
		}
		for _, n := range page.Notifications {
			texts = append(texts, n.TaskNotification)
		}
		fmt.Sscan(page.NextAfterSeq, &after)
	}
	for i, line := range []string{"warming", "ready"} {
		if want := "<summary>Monitor event: \"ready line\"</summary>\n<event>" + line + "</event>"; !strings.Contains(texts[i], want) {
			t.Fatalf("notification %d: %q, want %q", i+1, texts[i], want)
		}
	}
	read := execute(t, ctx, d.addr, sid, "r1", "Read", map[string]any{"file_path": "toold-task://" + taskID + ".output"})
	if read.IsError || !strings.HasPrefix(read.Text, "1\twarming\n2\tready") {
		t.Fatalf("Read of the monitor's output: %+v", read)
	}
	stop := execute(t, ctx, d.addr, sid, "k1", "TaskStop", map[string]any{"task_id": taskID})
	if stop.IsError || !strings.Contains(stop.Text, `"task_type":"local_bash"`) {
		t.Fatalf("TaskStop: %+v", stop)
	}
	if left := pidsWith(marker); len(left) > 0 {
		t.Fatalf("processes %v outlived TaskStop", left)
	}
	out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "after_seq": 2, "wait_ms": 500}' `+d.addr+` toold.v1.ToolService/ListNotifications`)
	if strings.Contains(out, "taskNotification") {
		t.Fatalf("a notification after TaskStop:\n%s", out)
	}
}
