package tool

// Defer returns t with its definition marked deferred: listed by name
// only, its full definition found with ToolSearch. The operator chooses
// which built-in tools are deferred (by default the release's choice,
// ReleaseDeferred); the tool itself is unchanged.
func Defer(t Tool) Tool { return deferred{t} }

type deferred struct{ Tool }

func (d deferred) Definition() Definition {
	def := d.Tool.Definition()
	def.Deferred = true
	return def
}

// releaseDeferred are the tools Claude Code 2.1.332 sends the model by
// name only, behind ToolSearch, as its requests show when every tool is
// enabled (recorded with the oracle; docs/deferred-tools.md). The tools it
// loads up front are Agent, Bash, Edit, Glob, Grep, ListAgents, Read,
// ScheduleWakeup, Skill, ToolSearch and Write. KillShell is its alias of
// TaskStop; TaskOutput, which the release no longer has, goes with its
// sibling TaskStop.
var releaseDeferred = map[string]bool{
	"CronCreate": true, "CronDelete": true, "CronList": true,
	"EnterWorktree": true, "ExitWorktree": true,
	"Monitor": true, "NotebookEdit": true, "SendMessage": true,
	"TaskCreate": true, "TaskGet": true, "TaskList": true, "TaskUpdate": true,
	"TaskStop": true, "KillShell": true, "TaskOutput": true,
	"TodoWrite": true, "WebFetch": true, "WebSearch": true,
}

// ReleaseDeferred reports whether the pinned Claude Code release defers
// the tool named name.
func ReleaseDeferred(name string) bool { return releaseDeferred[name] }
