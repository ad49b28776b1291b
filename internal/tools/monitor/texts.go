package monitor

import (
	"fmt"
	"math"
	"time"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// The texts are Claude Code 2.1.332's, as recorded with the oracle
// (test/conformance/recorded_notifications.json), but that the task's
// output file is toold's handle, which Read takes.

// started is the call's result: the monitor runs, its events follow as
// notifications.
func started(id string, timeout time.Duration) string {
	return fmt.Sprintf("Monitor started (task %s, expires in %s unless the source ends first; you get one notice at expiry \u2014 re-arm if you still need the watch). You will be notified on each event. Keep working \u2014 do not poll or sleep. Events may arrive while you are waiting for the user \u2014 an event is not their reply.", id, notify.Duration(timeout))
}

// event is a notification with a batch of lines, or with one of the
// monitor's notices (notice).
func event(id, description, text string, notice bool) store.Notification {
	e := notify.Element{
		TaskID:  id,
		Summary: "Monitor event: \"" + description + "\"",
		Body:    "\n<event>" + notify.Escape(text) + "</event>",
	}
	kind := store.NoteMonitorEvent
	if notice {
		kind = store.NoteMonitorNotice
	}
	return store.Notification{Kind: kind, TaskID: id, Text: e.String()}
}

// suppressedNotice precedes the first batch delivered after some were
// suppressed.
func suppressedNotice(n int) string {
	return fmt.Sprintf("[%d events suppressed \u2014 output rate too high. Consider using TaskStop to restart this monitor with a more selective filter.]", n)
}

// stoppedNotice is the last notification of a monitor stopped for its
// output rate.
func stoppedNotice(n int, over time.Duration) string {
	return fmt.Sprintf("[Monitor stopped \u2014 too much output (%d events suppressed over %ds). Restart with a more selective source.]", n, int64(math.Round(over.Seconds())))
}

// expiredNotice is the notice at expiry; stderr is the output file's
// handle when the command wrote to standard error, which is no event.
func expiredNotice(timeout time.Duration, delivered int, stderr string) string {
	if delivered == 0 {
		hint := ""
		if stderr != "" {
			hint = fmt.Sprintf("Its command wrote to stderr, which isn't delivered as events and may mean it failed: see `%s`. ", stderr)
		}
		return fmt.Sprintf("[Monitor expired after %s with no events delivered. %sRe-arm it if you still need the watch \u2014 and widen the filter if silence was unexpected.]", notify.Duration(timeout), hint)
	}
	noun := "events"
	if delivered == 1 {
		noun = "event"
	}
	return fmt.Sprintf("[Monitor expired after %s with %d %s delivered. Re-arm it if you still need the watch.]", notify.Duration(timeout), delivered, noun)
}

// ended is the notification of a command that ended by itself, with the
// last lines (last) as its event.
func ended(toolUseID, description string, info shells.Info, stdout int64, last string) store.Notification {
	var summary string
	switch {
	case info.State == shells.Completed && stdout > 0:
		summary = fmt.Sprintf("Monitor \"%s\" stream ended", description)
	case info.State == shells.Completed:
		summary = fmt.Sprintf("Monitor \"%s\" ended without producing output (exit 0)", description)
	case info.ExitCode >= 0:
		summary = fmt.Sprintf("Monitor \"%s\" script failed (exit %d)", description, info.ExitCode)
	default:
		summary = fmt.Sprintf("Monitor \"%s\" script failed", description)
	}
	e := notify.Element{
		TaskID: info.ID, ToolUseID: toolUseID, OutputFile: tool.TaskOutputHandle(info.ID),
		Status: info.State.String(), Summary: notify.Summary(summary),
	}
	if last != "" {
		e.Body = "\n<event>" + notify.Escape(last) + "</event>"
	}
	return store.Notification{
		Kind: store.NoteMonitorEnded, TaskID: info.ID, ToolUseID: toolUseID,
		Status: info.State.String(), Text: e.String(),
	}
}
