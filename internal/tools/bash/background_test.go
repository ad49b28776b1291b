package bash

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/shells"
)

func newBackgroundTool(t *testing.T) (tool.Tool, *shells.Registry) {
	t.Helper()
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	tl := New(Options{TempDir: t.TempDir(), Shells: reg})
	if err := tl.(*bashTool).initErr; err != nil {
		t.Fatal(err)
	}
	return tl, reg
}

// startBackground runs a background call and returns its shell id.
func startBackground(t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) string {
	t.Helper()
	in["run_in_background"] = true
	res, err := run(t, tl, env, in)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.Meta["task_id"].(string)
	if id == "" || res.IsError || !strings.Contains(tooltest.Text(res), id) || !strings.Contains(tooltest.Text(res), tool.TaskOutputHandle(id)) {
		t.Fatalf("background start result: %q %v", tooltest.Text(res), res.Meta)
	}
	return id
}

func readToEnd(t *testing.T, reg *shells.Registry, session, id string) shells.Output {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	out, err := reg.Read(ctx, session, id, shells.ReadOptions{Wait: hangGuard, Until: shells.UntilExit})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBackgroundSchema(t *testing.T) {
	with, _ := newBackgroundTool(t)
	without := newTool(t)
	for _, tc := range []struct {
		tl   tool.Tool
		want bool
	}{{with, true}, {without, false}} {
		d := tc.tl.Definition()
		var s struct {
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(d.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		_, has := s.Properties["run_in_background"]
		if has != tc.want || strings.Contains(d.Description, "run_in_background") != tc.want {
			t.Errorf("with shells %v: schema has run_in_background %v", tc.want, has)
		}
		if len(s.Properties) < 3 || len(s.Required) != 1 || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("schema lost its other parts: %s", d.InputSchema)
		}
		// Compiled as the engine does (draft 2020-12).
		sch, _ := tooltest.Schema(t, d)
		in, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"command":"npm run dev","run_in_background":true}`))
		if err := sch.Validate(in); (err == nil) != tc.want {
			t.Errorf("with shells %v: a background call validates as %v", tc.want, err)
		}
	}
}

func TestBackgroundReturnsAtOnce(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	env, _, _ := tooltest.Env(t)
	id := startBackground(t, tl, env, map[string]any{"command": "exec sleep 300", "description": "Sleep"})
	info, err := reg.Status(env.SessionID, id)
	if err != nil {
		t.Fatal(err)
	}
	if info.State != shells.Running || info.Command != "exec sleep 300" || info.Description != "Sleep" {
		t.Fatalf("shell: %+v", info)
	}
}

func TestBackgroundUsesTheSessionDirAndEnvironment(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	env, st, _ := tooltest.Env(t)
	sub := filepath.Join(env.Cwd, "sub")
	mustRun(t, tl, env, "mkdir sub")
	env.Cwd, st.Cwd = sub, sub
	env.Environ = append(env.Environ, "GREETING=hello")

	id := startBackground(t, tl, env, map[string]any{"command": `pwd; echo "$GREETING"; cd ..`})
	out := readToEnd(t, reg, env.SessionID, id)
	if out.Text != sub+"\nhello\n" || out.Info.State != shells.Completed {
		t.Fatalf("output %q, state %v", out.Text, out.Info.State)
	}
	if st.Cwd != sub {
		t.Fatalf("a background cd changed the session's directory to %s", st.Cwd)
	}
}

func TestBackgroundIgnoresTheTimeout(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	env, _, _ := tooltest.Env(t)
	id := startBackground(t, tl, env, map[string]any{"command": "sleep 0.3; echo done", "timeout": 10})
	out := readToEnd(t, reg, env.SessionID, id)
	if out.Text != "done\n" || out.Info.State != shells.Completed {
		t.Fatalf("output %q, state %v: the timeout cut a background command", out.Text, out.Info.State)
	}
}

func TestBackgroundActivity(t *testing.T) {
	tl, _ := newBackgroundTool(t)
	inv := parse(t, tl, map[string]any{"command": "npm run dev", "run_in_background": true})
	if got := inv.Activity().Summary; got != "Run in background: npm run dev" {
		t.Fatalf("summary = %q", got)
	}
}

func TestBackgroundWithoutRegistry(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	_, err := run(t, tl, env, map[string]any{"command": "true", "run_in_background": true})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
}

func TestBackgroundLimit(t *testing.T) {
	reg, err := shells.New(shells.Options{Dir: t.TempDir(), MaxShells: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	tl := New(Options{TempDir: t.TempDir(), Shells: reg})
	env, _, _ := tooltest.Env(t)
	startBackground(t, tl, env, map[string]any{"command": "exec sleep 300"})
	_, err = run(t, tl, env, map[string]any{"command": "true", "run_in_background": true})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindFailed || !strings.Contains(te.Msg, "TaskStop") {
		t.Fatalf("err = %v", err)
	}
}
