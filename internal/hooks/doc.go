// Package hooks runs Claude Code's hooks around tool calls: small programs
// (or gRPC services) that see each call before and after it runs and may
// block it, rewrite its input or add context for the model.
//
// The protocol is the one of https://code.claude.com/docs/en/hooks: the
// settings shape (event → matcher groups → handlers), the JSON a command
// hook reads on stdin, the environment ($CLAUDE_PROJECT_DIR), the meaning
// of exit codes 0, 2 and the rest, and the JSON a hook may print. A hook
// written for Claude Code runs here unchanged.
//
// The package knows nothing about gRPC streams, spans or the engine: a
// Runner returns plain outcomes, each with one Report per hook that ran,
// and the caller turns those into events, log lines and spans.
package hooks
