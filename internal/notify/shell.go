package notify

import (
	"context"
	"fmt"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// ShellEnded posts the notification of a background Bash command that
// ended by itself, as Claude Code 2.1.332 words it (recorded):
//
//	<summary>Background command "Say hi" completed (exit code 0)</summary>
//	<summary>Background command "Fail" failed with exit code 3</summary>
//
// (the command names it when it has no description). A command TaskStop
// stopped, or that its session's end killed, gets none, as in Claude
// Code; neither does a Monitor's, which posts its own. Give it to
// shells.Registry.OnEnd.
func (q *Queue) ShellEnded(sessionID string, info shells.Info) {
	n, ok := ShellNotification(info)
	if ok {
		q.Post(context.Background(), sessionID, n)
	}
}

// ShellNotification is ShellEnded's notification, and whether the shell
// gets one.
func ShellNotification(info shells.Info) (store.Notification, bool) {
	if info.Kind != shells.KindBash {
		return store.Notification{}, false
	}
	what := info.Description
	if what == "" {
		what = info.Command
	}
	var summary string
	switch info.State {
	case shells.Completed:
		summary = fmt.Sprintf("Background command \"%s\" completed (exit code %d)", what, info.ExitCode)
	case shells.Failed:
		summary = fmt.Sprintf("Background command \"%s\" failed", what)
		if info.ExitCode >= 0 {
			summary += fmt.Sprintf(" with exit code %d", info.ExitCode)
		}
	default:
		return store.Notification{}, false
	}
	e := Element{
		TaskID: info.ID, ToolUseID: info.ToolUseID, OutputFile: tool.TaskOutputHandle(info.ID),
		Status: info.State.String(), Summary: Summary(summary),
	}
	return store.Notification{
		Kind: store.NoteShellEnded, TaskID: info.ID, ToolUseID: info.ToolUseID,
		Status: info.State.String(), Text: e.String(),
	}, true
}
