package main

import (
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/bash"
	"github.com/toold/toold/internal/tools/edit"
	"github.com/toold/toold/internal/tools/glob"
	"github.com/toold/toold/internal/tools/grep"
	"github.com/toold/toold/internal/tools/killshell"
	"github.com/toold/toold/internal/tools/monitor"
	"github.com/toold/toold/internal/tools/multiedit"
	"github.com/toold/toold/internal/tools/notebookedit"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/skill"
	"github.com/toold/toold/internal/tools/taskcreate"
	"github.com/toold/toold/internal/tools/taskget"
	"github.com/toold/toold/internal/tools/tasklist"
	"github.com/toold/toold/internal/tools/taskoutput"
	"github.com/toold/toold/internal/tools/taskupdate"
	"github.com/toold/toold/internal/tools/todowrite"
	"github.com/toold/toold/internal/tools/worktree"
	"github.com/toold/toold/internal/tools/write"
)

// builtinTools is the registry of built-in tools, registered explicitly.
func builtinTools(rt *toolRuntime) (*tool.Registry, error) {
	tools := []tool.Tool{
		// Bash keeps up to 1 Mi characters of output: past 30000 the
		// engine stores the result whole and the model pages through it.
		bash.New(bash.Options{Shells: rt.shells, Sandbox: rt.sandbox, MaxOutputChars: 1 << 20, TimeoutKills: rt.bashTimeoutKills}),
		taskoutput.NewWithAgents(rt.shells, rt.agents),
		killshell.NewWithAgents(rt.shells, rt.agents, rt.notes),
		monitor.New(monitor.Options{Shells: rt.shells, Sandbox: rt.sandbox, Notify: rt.notes}),
		read.New(readOptions(rt)),
		write.NewWith(rt.files),
		edit.NewWith(rt.files),
	}
	if rt.multi {
		// Not a Claude Code 2.1.332 tool: offered on request (--multiedit).
		tools = append(tools, multiedit.NewWith(rt.files))
	}
	tools = append(tools,
		notebookedit.New(),
		glob.New(),
		grep.New(grep.Options{}),
		rt.webfetch,
		skill.New(rt.skills),
	)
	if rt.todoWrite {
		// As Claude Code with CLAUDE_CODE_ENABLE_TASKS=0: TodoWrite
		// alone.
		tools = append(tools, todowrite.New())
	} else {
		// Claude Code 2.1.332's task list, kept in the store for each
		// session. TodoWrite stays for the clients whose models call it:
		// deferred, so the model sees one task list, and run when called.
		tools = append(tools,
			taskcreate.New(rt.tasks), taskget.New(rt.tasks), tasklist.New(rt.tasks), taskupdate.New(rt.tasks),
			tool.Defer(todowrite.New()))
	}
	if rt.sessions != nil {
		enter, exit := worktree.New(rt.worktrees, rt.sessions)
		tools = append(tools, enter, exit)
	}
	tools = append(tools, rt.delegated...)
	return tool.NewRegistry(tools...)
}

// readOptions are Read's options, with the background tasks whose output
// files Read also reads (by their handles).
func readOptions(rt *toolRuntime) read.Options {
	o := rt.read
	if rt.shells != nil {
		o.Tasks = rt.shells
	}
	return o
}
