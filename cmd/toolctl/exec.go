package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/toold/toold/client"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// callFlags are the flags exec and attach share.
type callFlags struct {
	json       *bool
	approveAll *bool
	denyAll    *bool
}

func addCallFlags(fs *flag.FlagSet) callFlags {
	return callFlags{
		json:       fs.Bool("json", false, "print only the tool_result block, as JSON (no live output)"),
		approveAll: fs.Bool("approve-all", false, "allow every call that asks, once, without prompting"),
		denyAll:    fs.Bool("deny-all", false, "deny every call that asks, without prompting"),
	}
}

// handlers shows the call live (unless --json) and answers its permission
// requests as the flags say, or by prompting on the terminal.
func (f callFlags) handlers(io stdio) (*client.Handlers, error) {
	if *f.approveAll && *f.denyAll {
		return nil, usageError{"--approve-all and --deny-all exclude each other"}
	}
	h := &client.Handlers{}
	switch {
	case *f.approveAll:
		h.Permission = func(context.Context, string, *tooldv1.PermissionRequest) client.Answer { return client.AllowOnce() }
	case *f.denyAll:
		h.Permission = func(context.Context, string, *tooldv1.PermissionRequest) client.Answer {
			return client.Deny("denied by toolctl --deny-all")
		}
	default:
		h.Permission = newPrompter(io).ask
	}
	if *f.json {
		return h, nil
	}
	h.Started = func(_ string, s *tooldv1.ToolStarted) { fmt.Fprintf(io.err, "▶ %s\n", s.GetSummary()) }
	h.Progress = func(_ string, p *tooldv1.ToolProgress) {
		switch c := p.GetChunk().(type) {
		case *tooldv1.ToolProgress_Stdout:
			io.out.Write(c.Stdout)
		case *tooldv1.ToolProgress_Stderr:
			io.err.Write(c.Stderr)
		case *tooldv1.ToolProgress_Message:
			fmt.Fprintf(io.err, "… %s\n", c.Message)
		}
	}
	h.HookRun = func(_ string, r *tooldv1.HookRun) {
		fmt.Fprintf(io.err, "hook %s %s: %s", r.GetEvent(), r.GetHook(), r.GetStatus())
		if r.GetDecision() != "" {
			fmt.Fprintf(io.err, " (%s)", r.GetDecision())
		}
		if r.GetMessage() != "" {
			fmt.Fprintf(io.err, ": %s", r.GetMessage())
		}
		fmt.Fprintln(io.err)
	}
	return h, nil
}

// printResult prints the tool_result block and says whether it failed.
func printResult(io stdio, block json.RawMessage, asJSON bool) error {
	var r struct {
		IsError bool `json:"is_error"`
	}
	if err := json.Unmarshal(block, &r); err != nil {
		return err
	}
	if asJSON {
		fmt.Fprintln(io.out, string(block))
	} else {
		var b bytes.Buffer
		json.Indent(&b, block, "", "  ")
		fmt.Fprintf(io.out, "\n%s\n", b.String())
	}
	if r.IsError {
		return toolError{}
	}
	return nil
}

func execCmd(ctx context.Context, c *client.Client, args []string, io stdio) error {
	fs := newFlags("exec")
	cf := addCallFlags(fs)
	id := fs.String("id", "", "tool_use_id of the call (default: a new one); the same id never runs twice")
	pos, err := parseFlags(fs, args, "SESSION", "TOOL", "JSON")
	if err != nil {
		return err
	}
	if !json.Valid([]byte(pos[2])) {
		return usageError{fmt.Sprintf("JSON: %q is not valid JSON", pos[2])}
	}
	h, err := cf.handlers(io)
	if err != nil {
		return err
	}
	if *id == "" {
		*id = newToolUseID()
	}
	if !*cf.json {
		fmt.Fprintf(io.err, "tool_use_id %s (toolctl attach %s %s follows it)\n", *id, pos[0], *id)
	}
	results, err := c.RunToolUses(ctx, pos[0], []client.ToolUse{{ID: *id, Name: pos[1], Input: json.RawMessage(pos[2])}}, h)
	if err != nil {
		return err
	}
	return printResult(io, results[0], *cf.json)
}

func attachCmd(ctx context.Context, c *client.Client, args []string, io stdio) error {
	fs := newFlags("attach")
	cf := addCallFlags(fs)
	pos, err := parseFlags(fs, args, "SESSION", "TOOL_USE_ID")
	if err != nil {
		return err
	}
	h, err := cf.handlers(io)
	if err != nil {
		return err
	}
	block, err := c.Attach(ctx, pos[0], pos[1], h)
	if err != nil {
		return err
	}
	return printResult(io, block, *cf.json)
}

// newToolUseID makes an id in the shape the Messages API gives.
func newToolUseID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "toolu_ctl_" + hex.EncodeToString(b)
}
