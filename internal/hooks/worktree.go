package hooks

import (
	"context"
	"strings"
)

// WorktreeCreateEvent asks the WorktreeCreate hooks for a worktree.
// Session.Cwd is the session's directory (the input's "cwd");
// Session.Workspace is where the hooks run ($CLAUDE_PROJECT_DIR).
type WorktreeCreateEvent struct {
	Session Session
	// Name is the worktree's name, as EnterWorktree was given it or made
	// it up.
	Name string
}

// WorktreeCreateOutcome is what the WorktreeCreate hooks answered.
type WorktreeCreateOutcome struct {
	Common
	// Ran: at least one hook was configured and run. When false, no hook
	// is in force for the session and the caller makes the worktree
	// itself (git).
	Ran bool
	// Path is the worktree a hook made, as it printed it: the last
	// non-empty line of the stdout of the first hook (in configuration
	// order) that exited 0 with one. "" when none did. It may be
	// relative; the caller resolves and checks it.
	Path string
	// Failures are the hooks that did not exit 0, each "<command>: <its
	// stderr>" ("no output" when it wrote none), in configuration order.
	Failures []string
}

// WorktreeCreate runs the WorktreeCreate hooks, all in parallel, as Claude
// Code does. A command hook answers with the worktree's path on stdout
// (plain text, not JSON: Claude Code reads no JSON from a WorktreeCreate
// command hook). A hook that exits non-zero made no worktree, whatever it
// printed; another hook's path still counts.
func (r *Runner) WorktreeCreate(ctx context.Context, e WorktreeCreateEvent) (WorktreeCreateOutcome, error) {
	var o WorktreeCreateOutcome
	in := sessionInput(WorktreeCreate, e.Session)
	in.PermissionMode = ""
	in.Name = e.Name
	sh, err := r.session(e.Session)
	if err != nil {
		return o, err
	}
	runs := r.runAll(ctx, r.choose(sh, in, nil), in)
	o.Ran = len(runs) > 0
	for _, run := range runs {
		rep := worktreeReport(run, WorktreeCreate)
		o.Reports = append(o.Reports, rep)
		if rep.Status != StatusOK {
			o.Failures = append(o.Failures, rep.Hook+": "+firstNonEmpty(failureOutput(run), "no output"))
			continue
		}
		if p := lastLine(string(run.stdout)); p != "" && o.Path == "" {
			o.Path = p
		}
	}
	return o, nil
}

// WorktreeRemoveEvent asks the WorktreeRemove hooks to remove the worktree
// at Path. Session.Cwd is where the session was (the worktree).
type WorktreeRemoveEvent struct {
	Session Session
	Path    string
}

// WorktreeRemoveOutcome is what the WorktreeRemove hooks did.
type WorktreeRemoveOutcome struct {
	Common
	// Ran: at least one hook was configured and run.
	Ran bool
	// Failures are the hooks that did not exit 0, as in
	// WorktreeCreateOutcome.
	Failures []string
}

// WorktreeRemove runs the WorktreeRemove hooks, all in parallel. The
// worktree counts as removed when every hook exited 0 (the caller checks
// that the directory is gone when one did not).
func (r *Runner) WorktreeRemove(ctx context.Context, e WorktreeRemoveEvent) (WorktreeRemoveOutcome, error) {
	var o WorktreeRemoveOutcome
	in := sessionInput(WorktreeRemove, e.Session)
	in.PermissionMode = ""
	in.WorktreePath = e.Path
	sh, err := r.session(e.Session)
	if err != nil {
		return o, err
	}
	runs := r.runAll(ctx, r.choose(sh, in, nil), in)
	o.Ran = len(runs) > 0
	for _, run := range runs {
		rep := worktreeReport(run, WorktreeRemove)
		o.Reports = append(o.Reports, rep)
		if rep.Status != StatusOK && rep.Status != StatusAsync {
			o.Failures = append(o.Failures, rep.Hook+": "+firstNonEmpty(failureOutput(run), "no output"))
		}
	}
	return o, nil
}

// worktreeReport reads one worktree hook's run. Unlike the other events,
// stdout is not the hook's JSON (it is the path), so only the exit code
// and how the hook ended count: 0 is success, anything else a failure.
func worktreeReport(run ran, ev Event) Report {
	h := run.handler
	rep := Report{
		Event: ev, Hook: h.Name(), Type: h.Type, Matcher: run.group.Matcher,
		Path: h.Path, Origin: h.Origin, StatusMessage: h.StatusMessage,
		ExitCode: run.exitCode, Started: run.started, Duration: run.duration,
	}
	switch {
	case run.async:
		rep.Status = StatusAsync
	case run.failure != nil && run.timedOut:
		rep.Status, rep.Message = StatusTimedOut, capText(run.failure.Error())
	case run.failure != nil:
		rep.Status, rep.Message = StatusFailed, capText(run.failure.Error())
	case run.exitCode == 0:
		rep.Status, rep.Message = StatusOK, capText(strings.TrimSpace(string(run.stdout)))
	case run.exitCode == 2:
		rep.Status, rep.Message = StatusBlocked, capText(strings.TrimSpace(string(run.stderr)))
	default:
		rep.Status, rep.Message = StatusNonBlocking, capText(strings.TrimSpace(string(run.stderr)))
	}
	return rep
}

// failureOutput is what Claude Code quotes of a hook that failed: its
// stderr, or why it did not run to an exit of its own.
func failureOutput(run ran) string {
	if run.failure != nil {
		return run.failure.Error()
	}
	return capText(strings.TrimSpace(string(run.stderr)))
}

// lastLine is the last line of s with anything but spaces, trimmed.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
