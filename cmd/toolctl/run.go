package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/client"
)

// Exit codes.
const (
	exitOK          = 0
	exitToolError   = 1 // a call failed, or toold refused the request
	exitUsage       = 2
	exitUnavailable = 3
)

const usage = `usage: toolctl [global flags] COMMAND ...

commands:
  session create [--mode MODE] [--workspace DIR] [--allow R]... [--ask R]... [--deny R]...
  session get SESSION
  session delete SESSION
  tools [--session SESSION] [--json]
  exec [--json] [--id TOOL_USE_ID] [--approve-all | --deny-all] SESSION TOOL JSON
  attach [--json] [--approve-all | --deny-all] SESSION TOOL_USE_ID
  cancel SESSION TOOL_USE_ID...
  explain [--json] SESSION TOOL JSON

global flags (each falls back to TOOLD_<NAME>, e.g. TOOLD_ADDR, TOOLD_TOKEN):
`

// stdio is the command's terminal.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// usageError is a mistake on the command line: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// toolError is a call that ran and failed: exit 1, its result already
// printed.
type toolError struct{}

func (toolError) Error() string { return "the tool call failed" }

func run(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	err := dispatch(ctx, args, io, getenv)
	code := exitCode(err)
	var te toolError
	switch {
	case err == nil, errors.As(err, &te):
	case code == exitUsage:
		fmt.Fprintf(io.err, "toolctl: %v\n", err)
	default:
		st, _ := status.FromError(err)
		fmt.Fprintf(io.err, "toolctl: %s: %s\n", st.Code(), st.Message())
	}
	return code
}

func exitCode(err error) int {
	var ue usageError
	var te toolError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &te):
		return exitToolError
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return exitUnavailable
	case codes.InvalidArgument:
		return exitUsage
	}
	return exitToolError
}

func dispatch(ctx context.Context, args []string, io stdio, getenv func(string) string) error {
	g, rest, err := parseGlobal(args, getenv)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usageError{"a command is required\n" + usage}
	}
	opts, err := g.options()
	if err != nil {
		return err
	}
	// A terminal user waits a few seconds for an unreachable toold, not a
	// library's half minute.
	opts = append(opts, client.WithBackoff(client.Backoff{Initial: 100 * time.Millisecond, Max: 2 * time.Second, Attempts: 5}))
	c, err := client.Dial(g.Addr, opts...)
	if err != nil {
		return usageError{err.Error()}
	}
	defer c.Close()
	cmd, args := rest[0], rest[1:]
	switch cmd {
	case "session":
		return sessionCmd(ctx, c, args, io)
	case "tools":
		return toolsCmd(ctx, c, args, io)
	case "exec":
		return execCmd(ctx, c, args, io)
	case "attach":
		return attachCmd(ctx, c, args, io)
	case "cancel":
		return cancelCmd(ctx, c, args, io)
	case "explain":
		return explainCmd(ctx, c, args, io)
	case "help", "-h", "--help":
		fmt.Fprint(io.out, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", cmd, usage)}
}
