// Package monitor implements the Monitor tool: it runs a command in the
// background and watches its standard output, each line an event, until
// the command ends or the monitor expires.
//
// Claude Code's Monitor returns at once and delivers each event later, as
// a notification in the conversation. toold has no way to speak to the
// model between calls, so its Monitor call waits instead: it returns with
// the first events (the lines that arrive within 200 ms of the first, as
// Claude Code batches them), or when the command ends, or at expiry. The
// monitor is a background task like a Bash command run in the background:
// it goes on watching after the call returns, until it expires, its
// command ends or TaskStop stops it; every line it writes (standard error
// too, which is not an event) is in its output file, which Read takes,
// and TaskOutput reads what is new. Its command is decided as a Bash
// command (Bash rules, the read-only command set, the sandbox), as in
// Claude Code. Claude Code's ws source (a WebSocket) is not offered.
package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// Name is the tool's name.
const Name = "Monitor"

const (
	defaultTimeoutMS = 300000
	// maxTimeoutMS is where Claude Code caps timeout_ms; its schema takes
	// minTimeoutMS to schemaMaxMS.
	maxTimeoutMS = 600000
	minTimeoutMS = 1000
	schemaMaxMS  = 3600000
	// batch is how long after the first event more lines are gathered
	// into the same result, as Claude Code batches lines into one
	// notification.
	batch = 200 * time.Millisecond
)

// Options configure the tool.
type Options struct {
	// Shells keeps the monitors as background tasks; required.
	Shells *shells.Registry
	// Sandbox confines the commands, as Bash's. Nil (or off): they run as
	// toold's user in a process group of their own.
	Sandbox *sandbox.Launcher
	// BashPath is the bash binary. Empty: /bin/bash, else bash in PATH.
	BashPath string
}

// New returns the Monitor tool.
func New(opts Options) tool.Tool {
	t := &monitorTool{shells: opts.Shells, bash: opts.BashPath}
	if opts.Sandbox.Enabled() {
		t.sandbox = opts.Sandbox
	}
	if t.bash == "" {
		t.bash = "/bin/bash"
		if p, err := exec.LookPath("bash"); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				t.bash = abs
			}
		}
	}
	return t
}

type monitorTool struct {
	shells  *shells.Registry
	sandbox *sandbox.Launcher
	bash    string
}

func (t *monitorTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "watch wait log tail event background until",
		DecideAs:    "Bash",
		Command:     true,
	}
}

type input struct {
	Description string   `json:"description"`
	TimeoutMS   *float64 `json:"timeout_ms"`
	Command     *string  `json:"command"`
}

func (t *monitorTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Monitor: %v", err)
	}
	// Claude Code checks the bounds of timeout_ms (which the engine
	// leaves to the tool at the top level) before it asks for a source.
	if in.TimeoutMS != nil && *in.TimeoutMS < minTimeoutMS {
		return nil, tool.InvalidInputf("%s", zodBound("too_small", "minimum", minTimeoutMS, "Too small: expected number to be >=1000"))
	}
	if in.TimeoutMS != nil && *in.TimeoutMS > schemaMaxMS {
		return nil, tool.InvalidInputf("%s", zodBound("too_big", "maximum", schemaMaxMS, "timeout_ms must be ≤ 3600000"))
	}
	if in.Command == nil {
		// Claude Code's refinement, in its words: a source is required.
		return nil, tool.InvalidInputf("InputValidationError: [\n  {\n    \"code\": \"custom\",\n    \"path\": [],\n    \"message\": \"exactly one of command or ws\"\n  }\n]")
	}
	ms := float64(defaultTimeoutMS)
	if in.TimeoutMS != nil {
		ms = min(*in.TimeoutMS, maxTimeoutMS)
	}
	return &call{tool: t, description: in.Description, command: *in.Command, timeout: time.Duration(ms * float64(time.Millisecond))}, nil
}

// zodBound is Claude Code's refusal of a timeout_ms out of bounds, as its
// schema library words it.
func zodBound(code, bound string, limit int, message string) string {
	return fmt.Sprintf("InputValidationError: [\n  {\n    \"origin\": \"number\",\n    \"code\": %q,\n    %q: %d,\n    \"inclusive\": true,\n    \"path\": [\n      \"timeout_ms\"\n    ],\n    \"message\": %q\n  }\n]", code, bound, limit, message)
}

type call struct {
	tool        *monitorTool
	description string
	command     string
	timeout     time.Duration
}

// Traits: the command may write, so the zero (fail-closed) traits.
func (c *call) Traits() tool.Traits { return tool.Traits{} }

func (c *call) Activity() tool.Activity { return tool.Activity{Summary: "Monitor: " + c.description} }

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	reg := c.tool.shells
	if reg == nil {
		return nil, tool.Errorf(tool.KindUnavailable, "Monitor is not available on this server: it keeps no background tasks.")
	}
	ev := newEvents()
	spec, err := c.spec(env, ev)
	if err != nil {
		return nil, err
	}
	info, err := reg.Start(env.SessionID, spec)
	switch {
	case errors.Is(err, shells.ErrLimit):
		return nil, tool.Failf("The monitor was not started: this session already has %d background tasks running, as many as it may have. Stop one with the TaskStop tool first.", len(reg.List(env.SessionID)))
	case errors.Is(err, shells.ErrClosed):
		return nil, tool.Errorf(tool.KindUnavailable, "The server is shutting down; monitors cannot be started.")
	case err != nil:
		return nil, tool.Errorf(tool.KindUnavailable, "the monitor's command could not be started: %v", err)
	}
	// The monitor outlives the call; expiry ends it wherever it is.
	expire := time.AfterFunc(c.timeout, func() { reg.Kill(context.Background(), env.SessionID, info.ID) })
	return c.watch(ctx, env, info.ID, ev, expire)
}

// spec is the monitor's command, run as Bash runs a background command.
func (c *call) spec(env *tool.Env, ev *events) (shells.Spec, error) {
	cwd := env.Cwd
	if cwd == "" {
		cwd = env.Files.Primary()
	}
	environ := env.Environ
	if environ == nil {
		environ = []string{}
	}
	spec := shells.Spec{
		Path: c.tool.bash, Args: []string{c.tool.bash, "-c", c.command},
		Dir: cwd, Env: environ,
		Command: c.command, Description: c.description,
		Kind: shells.KindMonitor, OnStdout: ev.feed,
	}
	if sb := c.tool.sandbox; sb != nil {
		proc, err := sb.Command(context.Background(), sandbox.Request{
			SessionID: env.SessionID, Dirs: env.Files.Dirs(), Dir: cwd, Env: environ,
			Path: spec.Path, Args: spec.Args,
		})
		if err != nil {
			return spec, tool.Errorf(tool.KindUnavailable, "the monitor's command could not be prepared: %v", err)
		}
		spec.Process = proc
	}
	return spec, nil
}

// watch waits for the first events, the command's end or expiry, and
// says which came.
func (c *call) watch(ctx context.Context, env *tool.Env, id string, ev *events, expire *time.Timer) (*tool.Result, error) {
	reg := c.tool.shells
	ended := make(chan shells.Info, 1)
	waitCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		// A read that waits for the end consumes nothing it would not
		// have: the events are taken from ev, not from the spool.
		info, err := waitEnd(waitCtx, reg, env.SessionID, id)
		if err == nil {
			ended <- info
		}
	}()
	var info shells.Info
	select {
	case <-ev.first:
		t := time.NewTimer(batch)
		select {
		case <-t.C:
		case info = <-ended:
		case <-ctx.Done():
		}
		t.Stop()
	case info = <-ended:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		// Nobody waits for the events any more: the monitor goes too.
		expire.Stop()
		reg.Kill(context.WithoutCancel(ctx), env.SessionID, id)
		return nil, err
	}
	if info.ID == "" {
		info, _ = reg.Status(env.SessionID, id)
	}
	lines, omitted := ev.take()
	return c.result(id, info, lines, omitted), nil
}

// waitEnd waits for the shell to end.
func waitEnd(ctx context.Context, reg *shells.Registry, sessionID, id string) (shells.Info, error) {
	for {
		info, err := reg.Status(sessionID, id)
		if err != nil || info.State != shells.Running {
			return info, err
		}
		done, err := reg.Done(sessionID, id)
		if err != nil {
			return info, err
		}
		select {
		case <-done:
		case <-ctx.Done():
			return info, ctx.Err()
		}
	}
}

func (c *call) result(id string, info shells.Info, lines string, omitted int64) *tool.Result {
	handle := tool.TaskOutputHandle(id)
	var text string
	switch {
	case lines == "" && info.State == shells.Killed:
		text = fmt.Sprintf("Monitor expired after %s with no events delivered. Re-arm it if you still need the watch — and widen the filter if silence was unexpected.", seconds(c.timeout))
	case lines == "":
		text = fmt.Sprintf("Monitor %q (task %s) ended with no events: its command exited with code %d. Its output file, with anything it wrote to standard error, is %s.", c.description, id, info.ExitCode, handle)
	default:
		text = fmt.Sprintf("Monitor event: %q (task %s)\n%s", c.description, id, lines)
		if omitted > 0 {
			text += fmt.Sprintf("\n[%d more bytes of events are in the output file]", omitted)
		}
		if info.State == shells.Running {
			text += fmt.Sprintf("\n\nThe monitor keeps watching until it expires (%s after it started) or its command ends. Its output file %s holds every line, later events included: read it with Read, or wait for what is new with TaskOutput (task_id %q). Stop it with TaskStop when it is no longer needed.", seconds(c.timeout), handle, id)
		} else {
			text += fmt.Sprintf("\n\nThe monitor's command has ended (%s); its output file is %s.", ended(info), handle)
		}
	}
	return tool.Text(text).
		WithMeta("task_id", id).
		WithMeta("status", info.State.String()).
		WithMeta("background", info.State == shells.Running)
}

func ended(info shells.Info) string {
	if info.State == shells.Killed {
		return "stopped"
	}
	return fmt.Sprintf("exit code %d", info.ExitCode)
}

// seconds writes a duration in whole seconds, rounded down, as Claude
// Code's monitor notices do ("expires in 1s" for 1500 ms).
func seconds(d time.Duration) string {
	return fmt.Sprintf("%ds", int64(d/time.Second))
}
