package mcpserver

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// The MCP tool annotations of toold's built-in tools, from what toold
// knows of each (the traits its calls report, the reach of the tool):
// readOnlyHint for the tools whose every call only reads (Bash's calls are
// read-only only for some commands, so Bash is not), destructiveHint for
// those that may overwrite or delete (Bash, the file writers, TaskStop),
// idempotentHint for reads that change nothing when repeated, and
// openWorldHint for the tools that reach beyond the session's workspace
// (Bash's commands may use the network; WebFetch does). Tools toold does not
// know (MCP servers' tools) get no annotations.
var builtinAnnotations = map[string]*sdk.ToolAnnotations{
	"Bash":         writes(true, true),
	"Edit":         writes(true, false),
	"MultiEdit":    writes(true, false),
	"NotebookEdit": writes(true, false),
	"Write":        writes(true, false),
	"TaskStop":     writes(true, false),
	"Monitor":      writes(true, true),
	"TodoWrite":    writes(false, false),
	"TaskCreate":   writes(false, false),
	"TaskUpdate":   writes(false, false),
	"TaskGet":      reads(true, false),
	"TaskList":     reads(true, false),
	"Read":         reads(true, false),
	"Glob":         reads(true, false),
	"Grep":         reads(true, false),
	"ToolSearch":   reads(true, false),
	"TaskOutput":   reads(false, false),
	"WebFetch":     reads(false, true),
}

func writes(destructive, openWorld bool) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{DestructiveHint: &destructive, OpenWorldHint: &openWorld}
}

func reads(idempotent, openWorld bool) *sdk.ToolAnnotations {
	no := false
	return &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: idempotent, DestructiveHint: &no, OpenWorldHint: &openWorld}
}

// annotations returns a copy of the tool's annotations, or nil.
func annotations(name string) *sdk.ToolAnnotations {
	a, ok := builtinAnnotations[name]
	if !ok {
		return nil
	}
	c := *a
	return &c
}
