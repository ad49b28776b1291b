package policy

// ToolRemoved reports whether the session's deny rules take tool away
// from the model altogether, as Claude Code's filterToolsByDenyRules
// does: a deny rule naming the tool with no specifier (or Tool(*)), a
// tool-name glob that matches it, or an MCP server rule (mcp__server,
// mcp__server__*) for one of the server's tools. Such a tool is left out
// of the session's tool list, and a call of it is answered as a call of
// a disabled tool. A bare Read or Edit rule removes that tool only: the
// other tools of its family stay, and are refused by the rule when they
// run. req needs SessionID, Workspace, Rules and Revision; rules that do
// not compile remove nothing here (the call's decision fails on them).
func (e *Engine) ToolRemoved(req Request, tool string) bool {
	rs, err := e.rulesFor(req)
	if err != nil || rs == nil {
		return false
	}
	for _, r := range rs.byBehavior[Deny] {
		if r.kind != kindTool || (r.Spec != "" && r.Spec != "*") {
			continue
		}
		if r.family != famNone {
			if r.tool.matches(tool) {
				return true
			}
			continue
		}
		if r.appliesTo(tool) {
			return true
		}
	}
	return false
}
