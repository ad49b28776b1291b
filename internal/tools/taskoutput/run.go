package taskoutput

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/tools/agenttasks"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	opts := shells.ReadOptions{Filter: c.filter, MaxBytes: maxOutputBytes}
	if c.block {
		opts.Wait, opts.Until = c.wait, shells.UntilExit
		if c.filter != nil {
			opts.Until = shells.UntilOutput
		}
	}
	out, err := c.tool.reg.Read(ctx, env.SessionID, c.id, opts)
	switch {
	case errors.Is(err, shells.ErrNotFound) && c.tool.agents != nil:
		return c.agentOutput(ctx, env)
	case errors.Is(err, shells.ErrNotFound):
		return nil, tool.InvalidInputf("%s", c.tool.reg.Unknown(env.SessionID, c.id))
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, tool.Errorf(tool.KindInternal, "the output of %s could not be read: %v", c.id, err)
	}
	return result(out), nil
}

// result lays out a read the way the model reads a shell's state: status
// and exit code in tags, then the output.
func result(out shells.Output) *tool.Result {
	info := out.Info
	var b strings.Builder
	fmt.Fprintf(&b, "<task_id>%s</task_id>\n<status>%s</status>\n", info.ID, info.State)
	if info.State != shells.Running {
		fmt.Fprintf(&b, "<exit_code>%d</exit_code>\n", info.ExitCode)
	}
	if out.TimedOut {
		b.WriteString("<retrieval_status>timeout</retrieval_status>\n")
	}
	b.WriteString("<output>\n")
	if note := endNote(info); note != "" {
		b.WriteString(note + "\n")
	}
	for _, note := range notes(out) {
		b.WriteString(note + "\n")
	}
	switch {
	case out.Text != "":
		b.WriteString(strings.ToValidUTF8(strings.TrimSuffix(out.Text, "\n"), "\uFFFD") + "\n")
	case info.State == shells.Running:
		b.WriteString("(no new output)\n")
	default:
		b.WriteString("(no new output; the command has ended)\n")
	}
	b.WriteString("</output>")
	r := tool.Text(b.String())
	r.Meta = map[string]any{
		"task_id":       info.ID,
		"status":        info.State.String(),
		"dropped_bytes": out.Dropped,
		"omitted_bytes": out.Omitted,
		"timed_out":     out.TimedOut,
	}
	if info.State != shells.Running {
		r.Meta["exit_code"] = info.ExitCode
	}
	if info.Signal != 0 {
		r.Meta["signal"] = unix.SignalName(info.Signal)
	}
	return r
}

// endNote says how an ended shell ended when that was not by its own
// exit: stopped on request, killed by a signal (a limit of the sandbox,
// the out-of-memory killer), or a process of it killed. "" otherwise.
func endNote(info shells.Info) string {
	switch {
	case info.State == shells.Running:
		return ""
	case info.State == shells.Killed:
		return "[The command was stopped: KillShell was called, or its session ended.]"
	case info.Signal != 0:
		return "[The command was " + shells.KilledBy(info.Signal) + ".]"
	case shells.ExitSignal(info.ExitCode) != 0:
		sig := shells.ExitSignal(info.ExitCode)
		return fmt.Sprintf("[Exit code %d is 128+%d: a process of the command was %s.]", info.ExitCode, int(sig), shells.KilledBy(sig))
	}
	return ""
}

// notes explain what the output leaves out.
func notes(out shells.Output) []string {
	var n []string
	if out.Dropped > 0 {
		n = append(n, "[Earlier output dropped: "+byteCount(out.Dropped)+" were written and removed before they were read, because a background shell keeps only the newest part of its output.]")
	}
	if out.Omitted > 0 {
		n = append(n, "[Left out: the "+byteCount(out.Omitted)+" of new output before the newest "+strconv.Itoa(maxOutputBytes)+" bytes. Read more often or use filter to see everything.]")
	}
	if out.SaveErr != nil {
		n = append(n, "[Part of the output could not be saved and is lost: "+out.SaveErr.Error()+"]")
	}
	return n
}

func byteCount(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// agentOutput reads a background agent's task: its report once the
// orchestrator has given it (through any replica), waiting for it as for a
// shell's end when the call blocks.
func (c *call) agentOutput(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	var wait time.Duration
	if c.block {
		wait = c.wait
	}
	a, timedOut, err := agenttasks.Wait(ctx, c.tool.agents, env.SessionID, c.id, wait)
	switch {
	case errors.Is(err, agenttasks.ErrNotFound):
		return nil, tool.InvalidInputf("%s", c.tool.reg.Unknown(env.SessionID, c.id))
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, tool.Errorf(tool.KindUnavailable, "the state of agent %s could not be read: %v", c.id, err)
	}
	r := tool.Text(agenttasks.Output(a, timedOut))
	r.Meta = map[string]any{"task_id": a.ID, "task_type": agenttasks.TaskType, "status": a.State, "timed_out": timedOut}
	return r, nil
}
