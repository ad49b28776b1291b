package hooks

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/shell"
)

// The `if` field holds one permission rule; a hook with one runs only for
// the tool calls the rule matches (https://code.claude.com/docs/en/hooks
// "Filter hooks with if"). toold matches it with the permission engine's own
// matcher, with the reading of a deny rule: every simple command of a Bash
// call is tried on its own, leading VAR= assignments do not hide a command,
// and commands inside $(...) and backticks count. Where the command cannot
// be fully analysed the hook runs, as in Claude Code: the filter only saves
// work, so when in doubt the hook decides.

// checkIf parses an `if` rule as the configuration is read, so that a bad
// rule stops the server rather than silently never (or always) matching.
func checkIf(rule string) error {
	_, err := ifRules(rule, "/")
	return err
}

func ifRules(rule, root string) (*policy.RuleSet, error) {
	if root == "" || !filepath.IsAbs(root) {
		root = "/"
	}
	return policy.Compile([]policy.SourceSettings{{
		Source:   policy.SourcePolicy,
		Root:     root,
		Settings: policy.Settings{Deny: []string{rule}},
		Origin:   "if",
	}})
}

// ifMatches reports whether the hook's `if` rule covers the call. A rule
// that fails to compile for this workspace runs the hook.
func ifMatches(rule string, te *ToolEvent) bool {
	s, tool := te.Session, te.ToolName
	rs, err := ifRules(rule, s.Workspace)
	if err != nil {
		return true
	}
	args := te.Args
	if args == nil {
		_ = json.Unmarshal(te.ToolInput, &args)
	}
	cwd := s.cwd()
	home, _ := os.UserHomeDir()
	q := policy.Query{Tool: tool, Input: args, Cwd: cwd, Home: home}
	switch tool {
	case "Bash":
		command, _ := args["command"].(string)
		return bashIfMatches(rs, q, command, te.Shell)
	case "WebFetch":
		if u, ok := args["url"].(string); ok {
			if p, err := url.Parse(u); err == nil {
				q.Domain = strings.TrimSuffix(strings.ToLower(p.Hostname()), ".")
			}
		}
	default:
		if p := filePath(args, cwd); p != "" {
			q.Path = p
		}
	}
	return rs.Match(policy.Deny, q) != nil
}

func bashIfMatches(rs *policy.RuleSet, q policy.Query, command string, a *shell.Analysis) bool {
	q.Script = command
	if rs.Match(policy.Deny, q) != nil {
		return true // a bare Bash rule
	}
	if a == nil {
		a = shell.Analyze(command)
	}
	if !a.Proven() {
		// What runs cannot be known: a Bash rule runs the hook. A rule for
		// another tool could only have matched as a bare or glob rule,
		// which the match above tried.
		for _, r := range rs.Rules(policy.Deny) {
			if r.Tool == "Bash" {
				return true
			}
		}
		return false
	}
	all := append(append([]shell.Command(nil), a.Commands...), a.Hidden...)
	for i := range all {
		q.Command = &all[i]
		if rs.Match(policy.Deny, q) != nil {
			return true
		}
	}
	return false
}

// filePath is the path a file tool touches, absolute: file_path,
// notebook_path, or path (Glob and Grep, whose default is the cwd).
func filePath(args map[string]any, cwd string) string {
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		if s, ok := args[k].(string); ok && s != "" {
			if !filepath.IsAbs(s) {
				s = filepath.Join(cwd, s)
			}
			return filepath.Clean(s)
		}
	}
	return cwd
}
