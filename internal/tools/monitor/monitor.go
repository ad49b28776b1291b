// Package monitor implements the Monitor tool: it runs a command in the
// background and watches its standard output, each line an event, until
// the command ends or the monitor expires.
//
// As in Claude Code 2.1.332, the call returns at once ("Monitor started
// ...") and the events follow as notifications for the model: batches of
// lines (those that come within 200 ms of a batch's first), notices (the
// expiry, events suppressed for the output rate) and the command's end,
// each a <task-notification> in Claude Code's words, queued in the store
// (notify.Queue) for the orchestrator, which puts them into the
// conversation. The monitor is a background task like a Bash command run
// in the background: it watches until it expires, its command ends or
// TaskStop stops it; every line it writes (standard error too, which is
// not an event) is in its output file, which Read takes, and TaskOutput
// reads what is new. Its command is decided as a Bash command (Bash
// rules, the read-only command set, the sandbox), as in Claude Code.
// Claude Code's ws source (a WebSocket) is not offered.
package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/toold/toold/internal/notify"
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
	// Notify queues the monitors' notifications for the orchestrator;
	// required.
	Notify *notify.Queue
}

// New returns the Monitor tool.
func New(opts Options) tool.Tool {
	t := &monitorTool{shells: opts.Shells, bash: opts.BashPath, queue: opts.Notify}
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
	queue   *notify.Queue
	// finished, when set (tests), is told of each monitor whose watch has
	// posted its last notification.
	finished func(taskID string)
}

func (t *monitorTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "watch wait log tail event background until",
		DecideAs:    "Bash",
		Command:     true,
		MayOmit:     []string{"timeout_ms"},
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
	if reg == nil || c.tool.queue == nil {
		return nil, tool.Errorf(tool.KindUnavailable, "Monitor is not available on this server: it keeps no background tasks or has no notification queue.")
	}
	w := &watch{
		reg: reg, queue: c.tool.queue, sessionID: env.SessionID, toolUseID: env.ToolUseID,
		description: c.description, timeout: c.timeout,
		lines: newLines(), now: time.Now,
	}
	spec, err := c.spec(env, w.lines)
	if err != nil {
		return nil, err
	}
	w.limit = newLimiter(w.now())
	info, err := reg.Start(env.SessionID, spec)
	switch {
	case errors.Is(err, shells.ErrLimit):
		return nil, tool.Failf("The monitor was not started: this session already has %d background tasks running, as many as it may have. Stop one with the TaskStop tool first.", len(reg.List(env.SessionID)))
	case errors.Is(err, shells.ErrClosed):
		return nil, tool.Errorf(tool.KindUnavailable, "The server is shutting down; monitors cannot be started.")
	case err != nil:
		return nil, tool.Errorf(tool.KindUnavailable, "the monitor's command could not be started: %v", err)
	}
	done, err := reg.Done(env.SessionID, info.ID)
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "the monitor could not be followed: %v", err)
	}
	w.id = info.ID
	// The monitor outlives the call, which returns at once.
	go func() {
		w.run(done)
		if f := c.tool.finished; f != nil {
			f(w.id)
		}
	}()
	return tool.Text(started(info.ID, c.timeout)).
		WithMeta("task_id", info.ID).
		WithMeta("status", shells.Running.String()).
		WithMeta("background", true), nil
}

// spec is the monitor's command, run as Bash runs a background command.
func (c *call) spec(env *tool.Env, ev *lines) (shells.Spec, error) {
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
		Command: c.command, Description: c.description, ToolUseID: env.ToolUseID,
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
