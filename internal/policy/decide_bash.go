package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/shell"
)

// acceptEditsCommands are the filesystem commands acceptEdits approves on
// paths inside the working directories
// (https://code.claude.com/docs/en/permission-modes, acceptEdits).
var acceptEditsCommands = map[string]bool{"mkdir": true, "touch": true, "rm": true, "rmdir": true, "mv": true, "cp": true, "sed": true}

// bash decides a Bash call from the parsed command: every simple command
// must be covered for the call to run without asking, and any one denied
// denies the call (security.md P1, P2).
func (in *input) bash() Decision {
	a := in.req.Shell
	if a == nil {
		a = shell.Analyze(in.shellCommand())
	}
	if len(a.Commands) > 0 {
		in.first = &a.Commands[0]
	}
	d := in.bashDecision(a)
	d.Warnings = a.Destructive()
	if d.Parts == nil {
		// The whole call was decided early (a deny, a critical path, an
		// ask rule); the parts still explain each command.
		q := in.query()
		for i := range a.Commands {
			q.Command = &a.Commands[i]
			d.Parts = append(d.Parts, in.part(&a.Commands[i], q))
		}
	}
	if d.Behavior == Ask && in.req.Mode == "plan" && d.Rule == "" && planAsks(d.Parts) && !in.anyAllowRule(a) {
		// Claude Code 2.1.332 denies a command plan mode does not run,
		// with the text of its (unavailable) auto-mode check, even to a
		// host that could answer.
		d.Behavior, d.Message = Deny, msgPlan
	}
	if d.Behavior == Ask && d.Message == "" {
		d.Message = in.bashMessage(a, d)
	}
	return d
}

func (in *input) bashDecision(a *shell.Analysis) Decision {
	q := in.query()
	// Deny first, on every command including those hidden in
	// substitutions: deny analysis is at least as deep as allow analysis
	// (security.md R12).
	// Pointers into the analysis: placements are cached per command.
	all := make([]*shell.Command, 0, len(a.Commands)+len(a.Hidden))
	for i := range a.Commands {
		all = append(all, &a.Commands[i])
	}
	for i := range a.Hidden {
		all = append(all, &a.Hidden[i])
	}
	var fileAsk *Decision
	for _, c := range all {
		q.Command = c
		if r := in.rules.Match(Deny, q); r != nil {
			d := byRule(Deny, r, "Bash command "+quote(c.Line()))
			d.Parts = []Part{{Command: c.Line(), Behavior: Deny, Reason: d.Reason, Rule: r.Text, Source: r.Source.String()}}
			d.Message = denyMessage(c)
			return d
		}
		// Read and Edit rules bind the files the command reads and
		// writes (bash_files.go).
		if d := in.fileRules(c); d != nil {
			if d.Behavior == Deny {
				d.Message = denyMessage(c)
				return *d
			}
			if fileAsk == nil {
				fileAsk = d
			}
		}
	}
	// Removing a critical path asks in every mode, bypass included; no
	// allow rule approves it.
	for _, c := range all {
		for _, t := range c.RemovalTargets() {
			if isCritical(t, in.req.Cwd, in.home, in.req.Dirs) {
				return in.ask(Decision{Reason: fmt.Sprintf("%s removes the critical path %s", quote(c.Line()), t), Source: "criticalPath"})
			}
		}
	}
	// A file a Read or Edit rule asks for, or that toold cannot place
	// while such rules exist, asks in every mode, bypass included: the
	// rules win over every mode.
	if fileAsk != nil {
		return in.ask(*fileAsk)
	}
	for _, c := range all {
		q.Command = c
		if r := in.rules.Match(Ask, q); r != nil {
			return in.ask(byRule(Ask, r, "Bash command "+quote(c.Line())))
		}
	}
	if !a.Proven() {
		// bypassPermissions runs what it cannot analyse only when no deny
		// rule for Bash exists: with one, an unprovable command could hide
		// the denied program (security.md R6, P2).
		// Read and Edit rules count the same way: what cannot be
		// analysed could read or write the file they cover.
		if in.req.Mode != "bypassPermissions" || in.hasDeny("Bash") || in.guarded("Read") || in.guarded("Edit") {
			return in.ask(Decision{Reason: "the command cannot be fully analysed: " + strings.Join(a.Unprovable, "; "), Source: "analysis"})
		}
	}
	if in.req.Mode == "bypassPermissions" {
		return allow("bypassPermissions mode", "", "mode")
	}
	return in.bashParts(a)
}

// bashParts decides each command on its own; the call runs only when every
// part is allowed.
func (in *input) bashParts(a *shell.Analysis) Decision {
	q := in.query()
	out := Decision{Behavior: Allow}
	var pending []string
	var suggestions []string
	for i := range a.Commands {
		c := &a.Commands[i]
		q.Command = c
		p := in.part(c, q)
		out.Parts = append(out.Parts, p)
		if p.Behavior != Allow {
			pending = append(pending, fmt.Sprintf("%s (%s)", quote(p.Command), p.Reason))
			if s := suggestBash(c); s != "" {
				suggestions = append(suggestions, s)
			}
		}
	}
	if len(pending) == 0 {
		out.Reason = "every command is allowed"
		out.Rule, out.Source = allowedBy(out.Parts)
		if len(out.Parts) == 1 {
			out.Reason = out.Parts[0].Reason
		}
		return out
	}
	parts := out.Parts
	d := in.ask(Decision{Reason: "needs approval: " + strings.Join(pending, "; "), Source: "rules", Suggestions: suggestions})
	d.Parts = parts
	return d
}

// allowedBy names what allowed a line whose every command is allowed: the
// parts' one source when they agree (readOnly for `ls && cat f`), else the
// first part that a rule allowed, whose rule and source decided more than
// the built-in read-only set did. A decision always has a source.
func allowedBy(parts []Part) (rule, source string) {
	if len(parts) == 0 {
		return "", "readOnly"
	}
	same := true
	for _, p := range parts[1:] {
		same = same && p.Source == parts[0].Source && p.Rule == parts[0].Rule
	}
	if same {
		return parts[0].Rule, parts[0].Source
	}
	for _, p := range parts {
		if p.Rule != "" {
			return p.Rule, p.Source
		}
	}
	return parts[0].Rule, parts[0].Source
}

func (in *input) part(c *shell.Command, q Query) Part {
	p := Part{Command: c.Line()}
	if r := in.rules.Match(Deny, q); r != nil {
		p.Behavior, p.Reason, p.Rule, p.Source = Deny, "denied by the "+r.Source.String()+" rule "+r.Text, r.Text, r.Source.String()
		return p
	}
	if d := in.fileRules(c); d != nil {
		p.Behavior, p.Reason, p.Rule, p.Source = d.Behavior, d.Reason, d.Rule, d.Source
		return p
	}
	for _, t := range c.RemovalTargets() {
		if isCritical(t, in.req.Cwd, in.home, in.req.Dirs) {
			p.Behavior, p.Reason, p.Source = Ask, "removes the critical path "+t, "criticalPath"
			return p
		}
	}
	if r := in.rules.Match(Ask, q); r != nil {
		p.Behavior, p.Reason, p.Rule, p.Source = Ask, "needs approval by the "+r.Source.String()+" rule "+r.Text, r.Text, r.Source.String()
		return p
	}
	if in.req.Mode == "bypassPermissions" {
		p.Behavior, p.Reason, p.Source = Allow, "bypassPermissions mode", "mode"
		return p
	}
	// A write redirection is an Edit of its target, wherever the command
	// runs after the cds before it.
	for _, pa := range in.placementOf(c).args {
		if !pa.arg.Redirect || pa.arg.Access&shell.Write == 0 || alwaysInScope[pa.arg.Path] {
			continue // /dev/stderr and the like are not files of the machine
		}
		if pa.unknown != "" {
			p.Behavior, p.Reason, p.Source = Ask, "writes to "+pa.arg.Path+", which toold cannot place: "+pa.unknown, "redirection"
			return p
		}
		d := in.pathDecision("Edit", true, pa.paths)
		if d.Behavior != Allow {
			p.Behavior, p.Reason, p.Source = Ask, "writes "+pa.arg.Path+": "+d.Reason, d.Source
			return p
		}
	}
	if in.req.Mode == "plan" && !in.readOnly(c) {
		p.Behavior, p.Reason, p.Source = Ask, "plan mode runs only read-only commands", "mode"
		return p
	}
	// Neither an allow rule nor the read-only set carries a command out
	// of the working directories.
	if why := in.outsideReason(c); why != "" {
		p.Behavior, p.Reason, p.Source = Ask, why, "workingDirectory"
		return p
	}
	if r := in.rules.Match(Allow, q); r != nil {
		p.Behavior, p.Reason, p.Rule, p.Source = Allow, "allowed by the "+r.Source.String()+" rule "+r.Text, r.Text, r.Source.String()
		return p
	}
	if in.readOnly(c) {
		p.Behavior, p.Reason, p.Source = Allow, "a built-in read-only command", "readOnly"
		return p
	}
	if in.req.Mode == "acceptEdits" && c.ReadOnlyButRedirects() && !(c.IsGit() && !in.readOnly(stripRedirects(c))) {
		// Every write redirection passed the Edit check above.
		p.Behavior, p.Reason, p.Source = Allow, "acceptEdits mode approves writes by redirection inside the working directories", "mode"
		return p
	}
	if in.req.Mode == "acceptEdits" && in.acceptEditsCommand(c) && !in.touchesProtected(c) {
		p.Behavior, p.Reason, p.Source = Allow, "acceptEdits mode approves filesystem commands inside the working directories", "mode"
		return p
	}
	p.Behavior, p.Reason = Ask, "no rule allows it"
	return p
}

// readOnly is the read-only check of one command in this call's
// directories: the shell's verdict, plus, for git, a repository whose
// configuration runs no program and no change of directory before it
// (git_safe.go), and cd into a working directory.
func (in *input) readOnly(c *shell.Command) bool {
	if c.Name() == "cd" && c.Argv[0] == "cd" {
		return in.cdReadOnly(c)
	}
	if !c.ReadOnly() {
		return false
	}
	if c.IsGit() {
		pl := in.placementOf(c)
		if len(pl.cwds) != 1 || pl.cwds[0] != in.req.Cwd {
			return false
		}
		ok, _ := gitConfigSafe(in.req.Cwd)
		return ok
	}
	return true
}

// cdReadOnly: cd with one literal operand that leads into a working
// directory, wherever the command runs, changes nothing but the shell's
// directory (Claude Code: "cd into the working or an additional directory
// is read-only"). cd -, cd with no operand (home), options and
// redirections are not.
func (in *input) cdReadOnly(c *shell.Command) bool {
	if len(c.Argv) != 2 || c.Dynamic || len(c.Assigns) > 0 || len(c.Wrappers) > 0 || len(c.Redirects) > 0 {
		return false
	}
	t := c.Argv[1]
	if t == "" || t == "-" || strings.HasPrefix(t, "-") || strings.HasPrefix(t, "~") {
		return false
	}
	pl := in.placementOf(c)
	if pl.cwds == nil {
		return false
	}
	for _, cwd := range pl.cwds {
		target := t
		if !filepath.IsAbs(target) {
			target = filepath.Join(cwd, target)
		}
		target = filepath.Clean(target)
		if !inside(target, in.dirs()) && !inside(in.physical("/", target), in.dirs()) {
			return false
		}
	}
	return true
}

// acceptEditsWrappers are the wrappers under which acceptEdits still
// approves its filesystem commands (Claude Code 2.1.332; env, stdbuf,
// time and xargs ask).
var acceptEditsWrappers = map[string]bool{"timeout": true, "nice": true, "nohup": true}

// acceptEditsCommand: one of the filesystem commands acceptEdits approves,
// by its bare name, with at most safe environment prefixes and the
// wrappers above. touch is approved bare only: Claude Code 2.1.332 asks
// for LANG=C touch f and timeout 5 touch f while it runs LANG=C rm f.
func (in *input) acceptEditsCommand(c *shell.Command) bool {
	if !acceptEditsCommands[c.Name()] || c.Argv[0] != c.Name() || !shell.SafeAssigns(c.Assigns) {
		return false
	}
	if c.Name() == "touch" && (len(c.Assigns) > 0 || len(c.Wrappers) > 0) {
		return false
	}
	for _, w := range c.Wrappers {
		if !acceptEditsWrappers[w] {
			return false
		}
	}
	return true
}

// stripRedirects is c without its redirections.
func stripRedirects(c *shell.Command) *shell.Command {
	s := *c
	s.Redirects = nil
	return &s
}

// denyMessage is Claude Code's text for a Bash command a deny rule stops.
func denyMessage(c *shell.Command) string {
	return "Permission to use Bash with command " + partText(c) + " has been denied."
}

// planAsks: some part asks only because plan mode runs read-only commands
// alone.
func planAsks(parts []Part) bool {
	for _, p := range parts {
		if p.Behavior == Ask && p.Source != "mode" && p.Source != "" || p.Behavior == Ask && p.Rule != "" {
			return false
		}
	}
	for _, p := range parts {
		if p.Behavior == Ask && p.Source == "mode" {
			return true
		}
	}
	return false
}

// anyAllowRule: an allow rule matches one of the commands.
func (in *input) anyAllowRule(a *shell.Analysis) bool {
	q := in.query()
	for i := range a.Commands {
		q.Command = &a.Commands[i]
		if in.rules.Match(Allow, q) != nil {
			return true
		}
	}
	return false
}

// hasDeny reports whether any deny rule could apply to tool.
func (in *input) hasDeny(tool string) bool {
	for _, r := range in.rules.Rules(Deny) {
		if r.appliesTo(tool) {
			return true
		}
	}
	return false
}

func (in *input) touchesProtected(c *shell.Command) bool {
	for _, pa := range in.placementOf(c).args {
		if pa.unknown != "" {
			return true
		}
		for _, path := range pa.paths {
			if isProtected(path) {
				return true
			}
		}
	}
	return false
}

// suggestBash proposes a prefix rule from the program and its first
// argument that is not an option, in the documented space form.
func suggestBash(c *shell.Command) string {
	if len(c.Argv) == 0 || c.Dynamic || strings.Contains(c.Argv[0], "/") {
		return ""
	}
	words := []string{c.Argv[0]}
	if len(c.Argv) > 1 && !strings.HasPrefix(c.Argv[1], "-") && !strings.ContainsAny(c.Argv[1], "/*?") {
		words = append(words, c.Argv[1])
	}
	return "Bash(" + strings.Join(words, " ") + " *)"
}

func quote(s string) string {
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return "`" + s + "`"
}
