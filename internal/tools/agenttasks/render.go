package agenttasks

import (
	"fmt"
	"strings"

	"github.com/toold/toold/internal/store"
)

// TaskType is Claude Code's name of a background agent's task type (in
// TaskStop's result, recorded).
const TaskType = "local_agent"

// Output is what TaskOutput returns for an agent's task. Once it has ended
// it is the task-notification Claude Code 2.1.332 puts in the conversation
// when a background agent ends (recorded), without its output-file line
// (the subagent's transcript is the orchestrator's) and its note on
// resuming: the one way Claude Code's model reads a background agent's
// result. While it runs, it is laid out as TaskOutput lays out a running
// shell.
func Output(a *store.AgentTask, timedOut bool) string {
	var b strings.Builder
	if a.State == store.AgentRunning {
		fmt.Fprintf(&b, "<task_id>%s</task_id>\n<task_type>%s</task_type>\n<status>running</status>\n", a.ID, TaskType)
		if timedOut {
			b.WriteString("<retrieval_status>timeout</retrieval_status>\n")
		}
		b.WriteString("<output>\n(no report yet: the agent is still working)\n</output>")
		return b.String()
	}
	fmt.Fprintf(&b, "<task-notification>\n<task-id>%s</task-id>\n<tool-use-id>%s</tool-use-id>\n<status>%s</status>\n<summary>%s</summary>\n",
		a.ID, a.ToolUseID, a.State, summary(a))
	if a.State != store.AgentKilled {
		fmt.Fprintf(&b, "<result>%s</result>\n", a.Report)
	}
	if u := a.Usage; u != nil {
		fmt.Fprintf(&b, "<usage><subagent_tokens>%d</subagent_tokens><tool_uses>%d</tool_uses><duration_ms>%d</duration_ms></usage>\n", u.Tokens, u.ToolUses, u.DurationMS)
	}
	b.WriteString("</task-notification>")
	return b.String()
}

// summary is the notification's summary line: Claude Code's words for a
// finished and a stopped agent (recorded); a failed one's are toold's.
func summary(a *store.AgentTask) string {
	switch a.State {
	case store.AgentKilled:
		return "Agent \"" + a.Description + "\" was stopped by Claude"
	case store.AgentFailed:
		return "Agent \"" + a.Description + "\" failed"
	}
	return "Agent \"" + a.Description + "\" finished"
}

// NotRunning is Claude Code's refusal of a TaskStop of an agent that has
// ended (recorded).
func NotRunning(a *store.AgentTask) string {
	return fmt.Sprintf("Task %s is not running (status: %s)", a.ID, a.State)
}

// Notification is the notification of an ended agent's task, for the
// orchestrator to put into the parent's conversation as Claude Code does:
// its Output. A report too long for the store's queue is cut there, with
// a line saying that TaskOutput returns it whole.
func Notification(a *store.AgentTask) store.Notification {
	text := Output(a, false)
	if over := len(text) - store.MaxNotificationBytes; over > 0 {
		c := a.Clone()
		keep := max(0, len(a.Report)-over-len(reportCut))
		c.Report = strings.ToValidUTF8(a.Report[:keep], "") + reportCut
		text = Output(c, false)
	}
	return store.Notification{Kind: store.NoteAgentEnded, TaskID: a.ID, ToolUseID: a.ToolUseID, Status: a.State, Text: text}
}

// reportCut ends a report cut for the notification queue.
const reportCut = "\n[The report is cut here; TaskOutput with this task_id returns it whole.]"
