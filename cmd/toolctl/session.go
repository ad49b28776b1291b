package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/toold/toold/client"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// rules is a repeatable flag.
type rules []string

func (r *rules) String() string     { return strings.Join(*r, ",") }
func (r *rules) Set(v string) error { *r = append(*r, v); return nil }

// newFlags is a command's flag set; its errors are usage errors.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string, positional ...string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, usageError{fmt.Sprintf("%s: %v\n%s", fs.Name(), err, flagUsage(fs))}
	}
	if fs.NArg() != len(positional) {
		return nil, usageError{fmt.Sprintf("usage: toolctl %s [flags] %s\n%s", fs.Name(), strings.Join(positional, " "), flagUsage(fs))}
	}
	return fs.Args(), nil
}

func sessionCmd(ctx context.Context, c *client.Client, args []string, io stdio) error {
	if len(args) == 0 {
		return usageError{"usage: toolctl session create|get|delete ..."}
	}
	switch args[0] {
	case "create":
		fs := newFlags("session create")
		mode := fs.String("mode", "default", "permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto")
		workspace := fs.String("workspace", "", "absolute workspace path (default: a fresh directory)")
		asJSON := fs.Bool("json", false, "print the session as JSON, not just its id")
		var allow, ask, deny rules
		fs.Var(&allow, "allow", "allow rule, e.g. 'Bash(npm test *)' (repeatable)")
		fs.Var(&ask, "ask", "ask rule (repeatable)")
		fs.Var(&deny, "deny", "deny rule (repeatable)")
		if _, err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		m, err := parseMode(*mode)
		if err != nil {
			return err
		}
		sess, err := c.CreateSession(ctx, &tooldv1.CreateSessionRequest{
			Workspace:   *workspace,
			Mode:        m,
			Permissions: &tooldv1.Permissions{Allow: allow, Ask: ask, Deny: deny},
		})
		if err != nil {
			return err
		}
		if *asJSON {
			return printProto(io, sess)
		}
		fmt.Fprintln(io.out, sess.GetId())
		return nil
	case "get":
		pos, err := parseFlags(newFlags("session get"), args[1:], "SESSION")
		if err != nil {
			return err
		}
		sess, err := c.GetSession(ctx, pos[0])
		if err != nil {
			return err
		}
		return printProto(io, sess)
	case "delete":
		pos, err := parseFlags(newFlags("session delete"), args[1:], "SESSION")
		if err != nil {
			return err
		}
		return c.DeleteSession(ctx, pos[0])
	}
	return usageError{fmt.Sprintf("unknown session command %q: want create, get or delete", args[0])}
}

var modes = map[string]tooldv1.PermissionMode{
	"default":           tooldv1.PermissionMode_PERMISSION_MODE_DEFAULT,
	"acceptEdits":       tooldv1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS,
	"plan":              tooldv1.PermissionMode_PERMISSION_MODE_PLAN,
	"bypassPermissions": tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS,
	"dontAsk":           tooldv1.PermissionMode_PERMISSION_MODE_DONT_ASK,
	"auto":              tooldv1.PermissionMode_PERMISSION_MODE_AUTO,
}

func parseMode(s string) (tooldv1.PermissionMode, error) {
	if m, ok := modes[s]; ok {
		return m, nil
	}
	return 0, usageError{fmt.Sprintf("--mode %q: want default, acceptEdits, plan, bypassPermissions, dontAsk or auto", s)}
}

func printProto(io stdio, m proto.Message) error {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return err
	}
	// protojson varies its spacing on purpose; scripts and people want one.
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	fmt.Fprintln(io.out, out.String())
	return nil
}
