package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/toold/toold/client"
)

// cancelCmd cancels calls by tool_use_id (ToolService.Cancel) and prints
// what toold found for each: cancelling, finished or not started.
func cancelCmd(ctx context.Context, c *client.Client, args []string, io stdio) error {
	fs := newFlags("cancel")
	if err := fs.Parse(args); err != nil {
		return usageError{fmt.Sprintf("cancel: %v", err)}
	}
	if fs.NArg() < 2 {
		return usageError{"usage: toolctl cancel SESSION TOOL_USE_ID..."}
	}
	calls, err := c.Cancel(ctx, fs.Arg(0), fs.Args()[1:]...)
	if err != nil {
		return err
	}
	for _, cc := range calls {
		state := strings.ToLower(strings.TrimPrefix(cc.GetState().String(), "CANCEL_STATE_"))
		fmt.Fprintf(io.out, "%s %s\n", cc.GetToolUseId(), strings.ReplaceAll(state, "_", " "))
	}
	return nil
}
