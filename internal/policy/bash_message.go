package policy

import (
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/shell"
)

// Claude Code's refusal texts for a Bash call that asks and is not granted
// (claude -p, or a host that answers without a message), 2.1.332. Each
// names the first reason Claude Code finds; bashMessage finds the same
// reason in toold's decision.
const (
	msgRequiresApproval = "This command requires approval"
	msgAskRule          = "Claude requested permissions to use Bash, but you haven't granted it yet."
	msgNested           = "A nested command in this command can't be checked before it runs"
	msgProcessSubst     = "A command used as a file in this command can't be checked before it runs"
	msgCdGit            = "This command changes directory before running a version-control command, which can pick up untrusted hooks or repository configuration from the target directory. Approve only if you trust it."
	msgPlan             = "Auto mode is unavailable: its safety check does not run for this session, so Bash was not run. Other actions that need the check will be denied too, and retrying won't help. Finish what you can without them, then tell the user what is blocked and that they can switch to another permission mode."
	msgCriticalSystem   = "This command would remove a critical system directory. This requires explicit approval and cannot be auto-allowed by permission rules."
	msgCriticalWork     = "This command would remove a workspace directory (the working directory, an additional working directory, or one of their parent directories). This requires explicit approval and cannot be auto-allowed by permission rules."
)

// blockedVerbs are the read-only commands whose reads outside the working
// directories Claude Code words as "X in 'p' was blocked".
var blockedVerbs = map[string]string{
	"cat":  "concatenate files from",
	"head": "read the beginning of files from",
	"tail": "read the end of files from",
	"grep": "search for patterns in files from",
	"wc":   "count lines/words/bytes in files from",
	"find": "search files in",
	"stat": "read file stats from",
	"diff": "compare files from",
	"sort": "sort contents of files from",
	"file": "examine file types in",
	"ls":   "list files in",
	"cd":   "change directories to",
}

// bashMessage is the Message of an ask decision d for the analysed call a.
func (in *input) bashMessage(a *shell.Analysis, d Decision) string {
	if d.Rule != "" {
		return msgAskRule
	}
	if d.Source == "criticalPath" {
		return in.criticalMessage(a)
	}
	if d.Source == "analysis" {
		cmd := in.shellCommand()
		switch {
		case strings.Contains(cmd, "$(") || strings.Contains(cmd, "`"):
			return msgNested
		case strings.Contains(cmd, "<(") || strings.Contains(cmd, ">("):
			return msgProcessSubst
		}
		return msgRequiresApproval
	}
	if in.req.Mode == "plan" {
		return msgPlan
	}
	var asking []int
	for i, p := range d.Parts {
		if p.Behavior != Allow && i < len(a.Commands) {
			asking = append(asking, i)
		}
	}
	for _, i := range asking {
		if in.cdBeforeGit(&a.Commands[i]) {
			return msgCdGit
		}
	}
	if len(asking) == 0 {
		return msgRequiresApproval
	}
	// A cd out of the working directories is named before the rest (cd /
	// && ls: the cd, not both parts).
	for _, i := range asking {
		if c := &a.Commands[i]; c.Name() == "cd" && c.Argv[0] == "cd" {
			if m := in.pathMessage(c); m != "" {
				return m
			}
		}
	}
	if len(a.Commands) > 1 {
		if len(asking) > 1 {
			texts := make([]string, len(asking))
			for j, i := range asking {
				texts[j] = partText(&a.Commands[i])
			}
			return "This Bash command contains multiple operations. The following parts require approval: " + strings.Join(texts, ", ")
		}
		c := &a.Commands[asking[0]]
		if m := in.pathMessage(c); m != "" {
			return m
		}
		return "This Bash command contains multiple operations. The following part requires approval: " + partText(c)
	}
	if m := in.pathMessage(&a.Commands[asking[0]]); m != "" {
		return m
	}
	return msgRequiresApproval
}

// cdBeforeGit: git whose form is read-only, run after a change of
// directory.
func (in *input) cdBeforeGit(c *shell.Command) bool {
	if !c.IsGit() || !c.ReadOnly() {
		return false
	}
	pl := in.placementOf(c)
	return len(pl.cwds) != 1 || pl.cwds[0] != in.req.Cwd
}

// pathMessage words the ask of one command about a file: a write by
// redirection, a filesystem command's path, a protected file, a read
// outside the working directories. "" when the command asks for another
// reason.
func (in *input) pathMessage(c *shell.Command) string {
	pl := in.placementOf(c)
	cwd := in.req.Cwd
	if len(pl.cwds) > 0 {
		cwd = pl.cwds[0]
	}
	for _, pa := range pl.args {
		if !pa.arg.Redirect || pa.arg.Access&shell.Write == 0 || alwaysInScope[pa.arg.Path] || pa.unknown != "" {
			continue
		}
		return "Output redirection to '" + in.shownPath(pa.arg.Path, cwd) + "' needs approval. " + in.scopeSuffix(pa.paths)
	}
	name := c.Name()
	if acceptEditsCommands[name] && c.Argv[0] == name {
		var first *placed
		for i := range pl.args {
			pa := &pl.args[i]
			if pa.arg.Redirect || pa.unknown != "" || len(pa.paths) == 0 || pa.arg.Access == shell.Mention {
				continue
			}
			if in.req.Mode == "acceptEdits" && pa.arg.Access&shell.Write != 0 {
				for _, p := range pa.paths {
					if isProtected(p) {
						return "Claude requested permissions to edit " + in.shownPath(pa.arg.Path, cwd) + " which is a sensitive file."
					}
				}
			}
			if !in.inScope("Edit", pa.paths) {
				return name + " in '" + in.shownPath(pa.arg.Path, cwd) + "' needs approval. " + in.scopeSuffix(pa.paths)
			}
			if first == nil {
				first = pa
			}
		}
		if first != nil && in.req.Mode != "acceptEdits" {
			return name + " in '" + in.shownPath(first.arg.Path, cwd) + "' needs approval. " + in.scopeSuffix(first.paths)
		}
		return ""
	}
	if verb, ok := blockedVerbs[name]; ok && c.Argv[0] == name {
		for _, pa := range pl.args {
			if pa.arg.Redirect || pa.unknown != "" || len(pa.paths) == 0 {
				continue
			}
			if !in.inScope("Read", pa.paths) {
				return name + " in '" + in.shownPath(pa.arg.Path, cwd) + "' was blocked. For security, Claude Code may only " + verb +
					" the allowed working directories for this session: " + in.quotedDirs() + "."
			}
		}
	}
	return ""
}

// scopeSuffix is the second sentence of a "needs approval" text.
func (in *input) scopeSuffix(paths []string) string {
	if in.inScope("Edit", paths) {
		return "The path is inside the working directories for this session (" + in.quotedDirs() +
			"), and Claude Code asks before a shell command creates, changes or removes files there."
	}
	return "The path is outside the working directories for this session (" + in.quotedDirs() + "). Allowing runs the command as written."
}

func (in *input) quotedDirs() string {
	q := make([]string, len(in.req.Dirs))
	for i, d := range in.req.Dirs {
		q[i] = "'" + d + "'"
	}
	return strings.Join(q, ", ")
}

// shownPath is a path as Claude Code shows it: as written when absolute,
// ~ expanded, else joined to the directory the command runs in.
func (in *input) shownPath(p, cwd string) string {
	switch {
	case filepath.IsAbs(p):
		return p
	case p == "~":
		return in.home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(in.home, p[2:])
	}
	return filepath.Join(cwd, p)
}

// criticalMessage names the first critical removal target.
func (in *input) criticalMessage(a *shell.Analysis) string {
	all := append(append([]shell.Command(nil), a.Commands...), a.Hidden...)
	for i := range all {
		c := &all[i]
		for _, t := range c.RemovalTargets() {
			if !isCritical(t, in.req.Cwd, in.home, in.req.Dirs) {
				continue
			}
			cwd := in.req.Cwd
			if pl := in.placementOf(c); len(pl.cwds) > 0 {
				cwd = pl.cwds[0]
			}
			p := filepath.Clean(in.shownPath(t, cwd))
			why := msgCriticalWork
			if p == "/" || strings.Count(p, "/") == 1 || in.home != "" && p == filepath.Clean(in.home) || strings.ContainsAny(t, "$*?[") {
				why = msgCriticalSystem
			}
			return "Dangerous rm operation detected: '" + p + "'\n\n" + why
		}
	}
	return msgRequiresApproval
}

// partText is a part as Claude Code names it: the command as written,
// without its redirections.
func partText(c *shell.Command) string {
	raw := strings.Join(strings.Fields(c.Raw), " ")
	if len(c.Redirects) == 0 {
		return raw
	}
	words := strings.Fields(raw)
	var keep []string
	for i := 0; i < len(words); i++ {
		w := strings.TrimLeft(words[i], "0123456789&")
		if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") {
			if strings.Trim(w, "<>|&-") == "" && i+1 < len(words) {
				i++ // the target is the next word
			}
			continue
		}
		keep = append(keep, words[i])
	}
	return strings.Join(keep, " ")
}
