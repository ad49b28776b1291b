// Command toolctl drives a toold from the terminal or a script, through the
// Go client: sessions, tool calls with live output and approvals, permission
// checks, and following a call that is already running.
//
//	toolctl [--addr HOST:PORT] [--token T] [TLS flags] COMMAND ...
//
// Exit codes: 0 ok, 1 a tool call failed (or toold refused the request),
// 2 usage, 3 toold unavailable.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv)
	stop()
	os.Exit(code)
}
