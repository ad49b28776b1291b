package client_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/client"
	"github.com/toold/toold/internal/tooldtest"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// CallToolUses answers reads in one unary response; a batch with a call
// that asks falls back to the stream: the asking call is answered through the handler, and the one after it
// runs after it.
func TestCallToolUses(t *testing.T) {
	d := tooldtest.Start(t)
	c := dial(t, d.Addr)
	sess, err := c.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{
		Mode:        tooldv1.PermissionMode_PERMISSION_MODE_DEFAULT,
		Permissions: &tooldv1.Permissions{Allow: []string{"Bash"}, Ask: []string{"Bash(touch *)"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := sess.GetWorkspace()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uses, err := client.ParseToolUses([]byte(`[
		{"type":"tool_use","id":"toolu_r1","name":"Read","input":{"file_path":"` + filepath.Join(ws, "a.txt") + `"}},
		{"type":"tool_use","id":"toolu_g1","name":"Glob","input":{"pattern":"*.txt"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	var started []string
	res, err := c.CallToolUses(ctx(t), sess.GetId(), uses, &client.Handlers{
		Started: func(id string, _ *tooldv1.ToolStarted) { started = append(started, id) },
	})
	if err != nil {
		t.Fatal(err)
	}
	rs := parse(t, []byte("["+string(res[0])+","+string(res[1])+"]"))
	if rs[0].ToolUseID != "toolu_r1" || !strings.Contains(rs[0].text(), "alpha") || rs[1].ToolUseID != "toolu_g1" || !strings.Contains(rs[1].text(), "a.txt") {
		t.Fatalf("results %s %s", res[0], res[1])
	}
	if len(started) != 2 {
		t.Fatalf("started %v", started)
	}

	uses, err = client.ParseToolUses([]byte(`[
		{"type":"tool_use","id":"toolu_b1","name":"Read","input":{"file_path":"` + filepath.Join(ws, "a.txt") + `"}},
		{"type":"tool_use","id":"toolu_t1","name":"Bash","input":{"command":"touch made"}},
		{"type":"tool_use","id":"toolu_b2","name":"Bash","input":{"command":"ls made"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	res, err = c.CallToolUses(ctx(t), sess.GetId(), uses, &client.Handlers{
		Permission: func(_ context.Context, id string, _ *tooldv1.PermissionRequest) client.Answer {
			asked = append(asked, id)
			return client.AllowOnce()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "toolu_t1" {
		t.Fatalf("asked %v", asked)
	}
	for i, r := range res {
		if parse(t, []byte("["+string(r)+"]"))[0].IsError {
			t.Fatalf("result %d: %s", i, r)
		}
	}
	if !strings.Contains(parse(t, []byte("["+string(res[2])+"]"))[0].text(), "made") {
		t.Fatalf("the call after the ask ran before it: %s", res[2])
	}
}
