// Package mcp brings the tools of MCP servers into toold's tool pool.
//
// Servers are configured in the shape of Claude Code's "mcpServers"
// (.mcp.json): stdio servers (command, args, env) and remote servers over
// streamable HTTP (type "http", url, headers). A Manager keeps the
// operator's remote servers connected once for every session and starts
// stdio servers per session, in the session's workspace, on the session's
// first use; it restarts servers that die with a backoff and reports each
// server's state.
//
// Each MCP tool becomes a tool.Tool named mcp__<server>__<tool>: its input
// schema is passed through, its annotations become traits (fail-closed when
// absent) and its results become tool_result blocks. Assemble builds a
// session's pool from the built-in tools and the MCP tools in the order the
// model must see: built-ins by name, then MCP tools by name.
//
// The protocol itself is the official SDK's
// (github.com/modelcontextprotocol/go-sdk); this package decides which
// servers run where, and what their tools look like to toold.
package mcp
