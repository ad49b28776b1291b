package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/shell"
)

// input is one decision's facts, gathered once.
type input struct {
	req   Request
	rules *RuleSet
	home  string
	// resolve follows symlinks for path rules (both the path and its target
	// are checked); it returns the path unchanged when it cannot.
	resolve func(string) string
	// pathRules: some rule has a path specifier.
	pathRules bool
	// skills: Options.Skills.
	skills SkillAsker

	// Per-decision caches of Bash path placement (bash_paths.go).
	// first is the command line's first command: only a later one can
	// read a file the line itself makes.
	first        *shell.Command
	physDirs     map[string]string
	physWorkDirs []string
	physCwd      string
	physHome     string
	anchorsDone  bool
	placements   map[*shell.Command]*placement
}

// outcome constructors keep the wording of reasons in one place.
func allow(reason, rule, source string) Decision {
	return Decision{Behavior: Allow, Reason: reason, Rule: rule, Source: source}
}

func byRule(b Behavior, r *Rule, what string) Decision {
	verb := map[Behavior]string{Allow: "allowed", Deny: "denied", Ask: "needs approval"}[b]
	return Decision{Behavior: b, Reason: fmt.Sprintf("%s %s by the %s rule %s", what, verb, r.Source, r.Text), Rule: r.Text, Source: r.Source.String()}
}

// ask is the fallback: ask, except in dontAsk, which denies whatever would
// ask (https://code.claude.com/docs/en/permission-modes, dontAsk).
func (in *input) ask(d Decision) Decision {
	d.Behavior = Ask
	if in.req.Mode == "dontAsk" {
		d.Behavior = Deny
		d.Reason += " (dontAsk mode denies whatever would ask)"
		d.Message = fmt.Sprintf(msgDontAsk, in.req.Tool)
	}
	return d
}

// msgDontAsk is Claude Code's refusal in dontAsk mode (2.1.332).
const msgDontAsk = "Permission to use %s has been denied because Claude Code is running in don't ask mode. IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed."

// decide is the whole decision for one call. The order follows Claude
// Code's documented evaluation (https://code.claude.com/docs/en/permissions
// "Manage permissions"; SDK "How permissions are evaluated"): a bare deny
// removes the tool; then deny rules, ask rules, the mode, allow rules, and
// asking last. Deny and ask rules win over every mode.
func (in *input) decide() Decision {
	tool := in.req.Tool
	if r := in.rules.ToolDenied(tool); r != nil {
		return byRule(Deny, r, tool)
	}
	switch {
	case tool == "Bash":
		return in.bash()
	case familyOf(tool) != famNone:
		return in.file()
	case tool == "WebFetch":
		return in.webFetch()
	case tool == skillTool:
		return in.skill()
	}
	return in.generic()
}

func (in *input) query() Query {
	q := Query{Tool: in.req.Tool, Input: in.req.Args, Cwd: in.req.Cwd, Home: in.home}
	if in.req.Tool == "Bash" {
		// Exact rules for wrapped commands compare the whole command.
		q.Script = in.shellCommand()
	}
	return q
}

// generic decides tools without a specifier of their own.
func (in *input) generic() Decision {
	q := in.query()
	if r := in.rules.Match(Deny, q); r != nil {
		d := byRule(Deny, r, in.req.Tool)
		d.Message = agentDeniedMessage(r, q)
		return d
	}
	if r := in.rules.Match(Ask, q); r != nil {
		return in.ask(byRule(Ask, r, in.req.Tool))
	}
	switch {
	case in.req.Mode == "bypassPermissions":
		return allow("bypassPermissions mode", "", "mode")
	case in.req.SafetyCheck:
		return in.ask(Decision{Reason: in.req.Tool + " needs approval that allow rules do not give (a safety check)", Source: "safetyCheck"})
	case in.req.ReadOnly:
		return allow(in.req.Tool+" only reads", "", "readOnly")
	case in.req.Mode == "plan":
		return in.ask(Decision{Reason: "plan mode runs nothing that changes state", Source: "mode"})
	}
	if r := in.rules.Match(Allow, q); r != nil {
		return byRule(Allow, r, in.req.Tool)
	}
	return in.ask(Decision{Reason: in.req.Tool + " needs approval", Suggestions: []string{in.req.Tool}})
}

// filePath is the path a file tool touches: file_path, notebook_path, or
// path (Glob and Grep, defaulting to the current directory).
func (in *input) filePath() string {
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		if s, ok := in.req.Args[k].(string); ok && s != "" {
			return absolute(in.req.Cwd, s)
		}
	}
	return in.req.Cwd
}

// pathsOf is the path as named and, when different, its symlink target:
// deny and ask fire when either matches, allow needs both
// (https://code.claude.com/docs/en/permissions "Read and Edit").
func (in *input) pathsOf(p string) []string {
	if r := in.resolve(p); r != p {
		return []string{p, r}
	}
	return []string{p}
}

func (in *input) matchAny(b Behavior, tool string, paths []string) *Rule {
	q := in.query()
	q.Tool, q.PathsOnly = tool, tool != in.req.Tool
	for _, p := range paths {
		q.Path = p
		if r := in.rules.Match(b, q); r != nil {
			return r
		}
	}
	return nil
}

func (in *input) matchAll(b Behavior, tool string, paths []string) *Rule {
	var first *Rule
	q := in.query()
	q.Tool, q.PathsOnly = tool, tool != in.req.Tool
	for _, p := range paths {
		q.Path = p
		r := in.rules.Match(b, q)
		if r == nil {
			return nil
		}
		if first == nil {
			first = r
		}
	}
	return first
}

func (in *input) file() Decision {
	p := in.filePath()
	if familyOf(in.req.Tool) == famRead && !in.pathRules {
		// No rule can match either spelling of a read, and containment
		// (os.Root) refuses symlinks that lead out of the working
		// directories: resolving (a system call per component) is skipped.
		// Writes always resolve, for the protected-path check.
		return in.pathDecision(in.req.Tool, false, []string{p})
	}
	paths := in.pathsOf(p)
	if familyOf(in.req.Tool) == famEdit && in.req.Isolated != "" {
		for _, q := range paths {
			if inside(q, []string{in.req.Isolated}) && !inside(q, in.req.Dirs) {
				return Decision{Behavior: Deny, Source: "worktree",
					Reason:  in.req.Tool + " of " + q + " is in the checkout the session's worktree isolates it from",
					Message: "<tool_use_error>This session is isolated in the worktree " + in.req.Workspace + ". Edit the worktree copy of this file instead of the shared-checkout path.</tool_use_error>"}
			}
		}
	}
	return in.pathDecision(in.req.Tool, familyOf(in.req.Tool) == famEdit, paths)
}

// pathDecision decides a read or a write of paths by tool (also used for
// Bash redirect targets and acceptEdits filesystem commands, as Edit).
func (in *input) pathDecision(tool string, write bool, paths []string) Decision {
	what := fmt.Sprintf("%s of %s", tool, paths[0])
	if r := in.matchAny(Deny, tool, paths); r != nil {
		return byRule(Deny, r, what)
	}
	if r := in.matchAny(Ask, tool, paths); r != nil {
		return in.ask(byRule(Ask, r, what))
	}
	inScope := true
	for _, p := range paths {
		inScope = inScope && inside(p, in.req.Dirs)
	}
	suggest := []string{suggestPathRule(tool, write, paths[0], in.req.Cwd)}
	if !write {
		switch {
		case in.req.Mode == "bypassPermissions":
			return allow("bypassPermissions mode", "", "mode")
		case inScope:
			return allow("reads inside the working directories need no approval", "", "workingDirectory")
		}
		if r := in.matchAll(Allow, tool, paths); r != nil {
			return byRule(Allow, r, what)
		}
		return in.ask(Decision{Reason: what + " is outside the working directories", Source: "workingDirectory", Suggestions: suggest})
	}
	protected := false
	for _, p := range paths {
		protected = protected || isProtected(p)
	}
	switch {
	case in.req.Mode == "bypassPermissions":
		return allow("bypassPermissions mode", "", "mode")
	case protected:
		return in.ask(Decision{Reason: what + " writes a protected path; allow rules do not cover it", Source: "protectedPath"})
	case in.req.Mode == "plan":
		return in.ask(Decision{Reason: "plan mode does not edit files", Source: "mode", Suggestions: suggest})
	case in.req.Mode == "acceptEdits" && inScope:
		return allow("acceptEdits mode approves edits inside the working directories", "", "mode")
	}
	if r := in.matchAll(Allow, tool, paths); r != nil {
		return byRule(Allow, r, what)
	}
	reason := what + " needs approval"
	if !inScope {
		reason = what + " is outside the working directories"
	}
	return in.ask(Decision{Reason: reason, Source: "workingDirectory", Suggestions: suggest})
}

// suggestPathRule proposes an Edit or Read rule for the file's directory.
func suggestPathRule(tool string, write bool, p, cwd string) string {
	fam := "Read"
	if write {
		fam = "Edit"
	}
	dir := filepath.Dir(p)
	if rel, err := filepath.Rel(cwd, dir); err == nil && !strings.HasPrefix(rel, "..") {
		if rel == "." {
			return fam + "(./**)"
		}
		return fam + "(./" + filepath.ToSlash(rel) + "/**)"
	}
	return fam + "(/" + filepath.ToSlash(dir) + "/**)"
}

func (in *input) webFetch() Decision {
	host := ""
	if u, ok := in.req.Args["url"].(string); ok {
		host = hostOf(u)
	}
	q := in.query()
	q.Domain = host
	what := "WebFetch of " + host
	if r := in.rules.Match(Deny, q); r != nil {
		return byRule(Deny, r, what)
	}
	if r := in.rules.Match(Ask, q); r != nil {
		return in.ask(byRule(Ask, r, what))
	}
	if in.req.Mode == "bypassPermissions" {
		return allow("bypassPermissions mode", "", "mode")
	}
	if r := in.rules.Match(Allow, q); r != nil {
		return byRule(Allow, r, what)
	}
	return in.ask(Decision{Reason: what + " needs approval", Suggestions: []string{"WebFetch(domain:" + host + ")"}})
}

// hostOf extracts a URL's host without a full parse: WebFetch validates the
// URL itself; an unparsable one gets an empty host, which no domain rule
// allows.
func hostOf(u string) string {
	rest, ok := strings.CutPrefix(strings.ToLower(u), "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(strings.ToLower(u), "http://"); !ok {
			return ""
		}
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if strings.ContainsAny(rest, "@\\%") {
		return ""
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") {
		rest = rest[:i]
	}
	return strings.TrimSuffix(rest, ".")
}

// shellCommand is the command of a Bash call.
func (in *input) shellCommand() string {
	s, _ := in.req.Args["command"].(string)
	return s
}
