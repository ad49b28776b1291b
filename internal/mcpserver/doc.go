// Package mcpserver serves a toold session's tools over MCP (streamable
// HTTP), for agent clients that speak MCP rather than gRPC.
//
// An MCP session is bound to one toold session when it initializes: the
// one named by the Toold-Session-Id header, or a new one created for it
// (and ended with it). tools/list answers the session's pool in order;
// tools/call runs a call through the Backend, which is the engine with its
// whole chain of policy, hooks and persistence. When the chain needs a
// person's answer, the question goes to the MCP client as an elicitation if
// the client declared it can answer one; otherwise the call is denied.
package mcpserver
