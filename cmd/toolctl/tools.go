package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/toold/toold/client"
)

func toolsCmd(ctx context.Context, c *client.Client, args []string, io stdio) error {
	fs := newFlags("tools")
	session := fs.String("session", "", "the pool this session sees (default: the server's)")
	asJSON := fs.Bool("json", false, "print the Messages API tools array")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *asJSON {
		raw, err := c.Tools(ctx, *session)
		if err != nil {
			return err
		}
		fmt.Fprintln(io.out, string(raw))
		return nil
	}
	tools, err := c.ToolDefinitions(ctx, *session)
	if err != nil {
		return err
	}
	for _, t := range tools {
		first, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		if len(first) > 100 {
			first = first[:97] + "..."
		}
		fmt.Fprintf(io.out, "%-20s %s\n", t.Name, first)
	}
	return nil
}
