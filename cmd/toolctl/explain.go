package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toold/toold/client"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func explainCmd(ctx context.Context, c *client.Client, args []string, io stdio) error {
	fs := newFlags("explain")
	asJSON := fs.Bool("json", false, "print the decision as JSON")
	pos, err := parseFlags(fs, args, "SESSION", "TOOL", "JSON")
	if err != nil {
		return err
	}
	if !json.Valid([]byte(pos[2])) {
		return usageError{fmt.Sprintf("JSON: %q is not valid JSON", pos[2])}
	}
	d, err := c.CheckPermission(ctx, pos[0], pos[1], []byte(pos[2]))
	if err != nil {
		return err
	}
	if *asJSON {
		return printProto(io, d)
	}
	fmt.Fprintln(io.out, describe(d))
	for _, p := range d.GetParts() {
		fmt.Fprintf(io.out, "  %s: %s\n", p.GetCommand(), decided(p.GetBehavior(), p.GetRule(), p.GetSource(), p.GetReason()))
	}
	for _, w := range d.GetWarnings() {
		fmt.Fprintf(io.out, "  warning: %s\n", w)
	}
	return nil
}

// describe is a decision in one line: "ask — rule Bash(git push *) from
// cliArg: why".
func describe(d *tooldv1.Decision) string {
	return decided(d.GetBehavior(), d.GetRule(), d.GetSource(), d.GetReason())
}

func decided(b tooldv1.Behavior, rule, source, reason string) string {
	var s strings.Builder
	s.WriteString(strings.ToLower(strings.TrimPrefix(b.String(), "BEHAVIOR_")))
	switch {
	case rule != "" && source != "":
		fmt.Fprintf(&s, " — rule %s from %s", rule, source)
	case rule != "":
		fmt.Fprintf(&s, " — rule %s", rule)
	case source != "":
		fmt.Fprintf(&s, " — by %s", source)
	}
	if reason != "" {
		fmt.Fprintf(&s, ": %s", reason)
	}
	return s.String()
}
