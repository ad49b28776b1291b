package mcp

import "strings"

// NormalizeName makes a server or tool name fit the API's tool-name
// alphabet as Claude Code does: every character other than an ASCII
// letter, digit, '_' or '-' becomes '_'.
func NormalizeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
}

// ToolName is the name the model sees for tool of server.
func ToolName(server, tool string) string {
	return "mcp__" + NormalizeName(server) + "__" + NormalizeName(tool)
}

// IsMCPName reports whether a tool name is an MCP tool's.
func IsMCPName(name string) bool { return strings.HasPrefix(name, "mcp__") }
