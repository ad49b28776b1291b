package shell

import (
	"path"
	"slices"
	"strings"
)

// Destructive returns warnings for the commands that destroy data, for
// permission requests: rm -r/-f, rm/rmdir of a path that looks critical
// (see CriticalLooking), git reset --hard, git push --force (and +refspec),
// git clean -f, git checkout/restore of ., git branch -D, dd of=, mkfs,
// chmod/chown/chgrp -R, find -delete and find -exec rm, truncate, shred,
// and > redirections that truncate a file. Commands in substitutions
// (Hidden) are included. It stays at the shell level: it does not read
// SQL given to psql -c and the like. It returns nil when there is none.
func (a *Analysis) Destructive() []string {
	var out []string
	add := func(c *Command, why string) {
		msg := quoteLine(c) + ": " + why
		if !slices.Contains(out, msg) {
			out = append(out, msg)
		}
	}
	for _, list := range [][]Command{a.Commands, a.Hidden} {
		for i := range list {
			c := &list[i]
			for _, why := range c.destructive() {
				add(c, why)
			}
			for _, r := range c.Redirects {
				if r.Write && (r.Op == ">" || r.Op == ">|" || r.Op == "&>" || r.Op == ">&") {
					add(c, "the redirection "+r.Op+" "+r.Target+" replaces the file's contents")
				}
			}
		}
	}
	return out
}

// quoteLine shortens the command for a message.
func quoteLine(c *Command) string {
	l := c.Line()
	if len(l) > 80 {
		l = l[:77] + "..."
	}
	return "`" + l + "`"
}

func (c *Command) destructive() []string {
	var out []string
	args := []string{}
	if len(c.Argv) > 1 {
		args = c.Argv[1:]
	}
	switch name := c.Name(); {
	case name == "rm":
		recursive, force := rmFlags(args)
		switch {
		case recursive && force:
			out = append(out, "deletes recursively and without asking for confirmation")
		case recursive:
			out = append(out, "deletes recursively")
		case force:
			out = append(out, "deletes without asking for confirmation")
		}
		fallthrough
	case name == "rmdir":
		for _, t := range c.RemovalTargets() {
			if CriticalLooking(t) {
				out = append(out, "removes "+t+", which may be the root, a top-level directory, the home or the working directory")
			}
		}
	case name == "git":
		out = append(out, gitDestructive(args)...)
	case name == "dd":
		for _, a := range args {
			if strings.HasPrefix(a, "of=") {
				out = append(out, "writes raw data over "+a[3:])
			}
		}
	case strings.HasPrefix(name, "mkfs"):
		out = append(out, "creates a file system, erasing the device")
	case name == "chmod", name == "chown", name == "chgrp":
		if hasShortOrLong(args, 'R', "recursive") {
			out = append(out, "changes permissions or ownership recursively")
		}
	case name == "find":
		for i, a := range args {
			if a == "-delete" {
				out = append(out, "deletes every file it finds")
			}
			if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(args) && path.Base(args[i+1]) == "rm" {
				out = append(out, "runs rm on every file it finds")
			}
		}
	case name == "truncate":
		out = append(out, "truncates files")
	case name == "shred":
		out = append(out, "overwrites files to destroy their contents")
	}
	return out
}

// rmFlags reads rm's -r/-R/--recursive and -f/--force, in any order and
// cluster, before --.
func rmFlags(args []string) (recursive, force bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		switch {
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a[2:], "=")
			if len(name) >= 3 && strings.HasPrefix("recursive", name) {
				recursive = true
			}
			if len(name) >= 2 && strings.HasPrefix("force", name) {
				force = true
			}
		case len(a) > 1 && a[0] == '-':
			recursive = recursive || strings.ContainsAny(a[1:], "rR")
			force = force || strings.IndexByte(a[1:], 'f') >= 0
		}
	}
	return recursive, force
}

// hasShortOrLong reports -X in a cluster or --long (or a prefix of it).
func hasShortOrLong(args []string, short byte, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a[2:], "=")
			if len(name) >= 3 && strings.HasPrefix(long, name) {
				return true
			}
		} else if len(a) > 1 && a[0] == '-' && strings.IndexByte(a[1:], short) >= 0 {
			return true
		}
	}
	return false
}

// RemovalTargets returns, for rm and rmdir (by base name, so /bin/rm too),
// the operands: the arguments that are not options, all of them after --.
// GNU rm takes options after operands too (rm x -rf). Non-literal operands
// are returned as written ("$DIR"/*), so that a policy can see a glob or
// slash right after a variable.
func (c Command) RemovalTargets() []string {
	if n := c.Name(); n != "rm" && n != "rmdir" {
		return nil
	}
	var out []string
	opts := true
	for _, a := range c.Argv[1:] {
		switch {
		case opts && a == "--":
			opts = false
		case opts && len(a) > 1 && a[0] == '-':
		default:
			out = append(out, a)
		}
	}
	return out
}

// CriticalLooking reports a removal target that is critical whatever the
// working directory (https://code.claude.com/docs/en/permission-modes
// "Critical paths"): the root, a top-level directory, the home directory
// (~, $HOME), the working directory or a parent (., .., and globs of
// them), and a glob or trailing slash right after a variable ("$DIR"/*).
// The policy, which knows the working and home directories, checks
// resolved paths as well.
func CriticalLooking(t string) bool {
	s := strings.NewReplacer(`"`, "", `'`, "").Replace(t)
	s = strings.TrimRight(s, "/")
	s = strings.TrimSuffix(s, "/*")
	s = strings.TrimRight(s, "/")
	switch s {
	case "", "*", ".", "..", "~", "$HOME", "${HOME}":
		return true
	}
	if strings.HasPrefix(s, "/") {
		clean := path.Clean(s)
		return strings.Count(clean, "/") <= 1
	}
	if strings.HasPrefix(t, "$") || strings.HasPrefix(t, `"$`) {
		// $DIR/ or "$DIR"/*: an empty variable makes it / or /*.
		return strings.HasSuffix(t, "/") || strings.HasSuffix(t, "/*")
	}
	if strings.HasPrefix(s, "~") && !strings.Contains(s, "/") {
		return true // ~user
	}
	return strings.Trim(s, "./") == ""
}

// gitDestructive looks at the git subcommand after the global options
// (git -C dir reset --hard is still reset --hard; security.md §1 #8).
func gitDestructive(args []string) []string {
	i := gitSubcommand(args)
	if i >= len(args) {
		return nil
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "reset":
		if slices.Contains(rest, "--hard") {
			return []string{"discards uncommitted changes (reset --hard)"}
		}
	case "push":
		for _, a := range rest {
			if a == "--" {
				break
			}
			if a == "--force" || a == "--force-with-lease" || strings.HasPrefix(a, "--force-with-lease=") ||
				a == "--mirror" || a == "--delete" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "fd")) {
				return []string{"rewrites or deletes remote history (push --force/--delete)"}
			}
			if strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") {
				return []string{"force-pushes or deletes a remote ref (" + a + ")"}
			}
		}
	case "clean":
		if hasShortOrLong(rest, 'f', "force") {
			return []string{"deletes untracked files (clean -f)"}
		}
	case "checkout", "restore":
		for _, a := range rest {
			if a == "." || a == ":/" || a == "*" {
				return []string{"discards uncommitted changes in the working tree (" + sub + " " + a + ")"}
			}
		}
		if sub == "checkout" && hasShortOrLong(rest, 'f', "force") {
			return []string{"discards uncommitted changes (checkout --force)"}
		}
	case "branch":
		if hasShortOrLong(rest, 'D', "-") || (hasShortOrLong(rest, 'd', "delete") && hasShortOrLong(rest, 'f', "force")) {
			return []string{"deletes a branch even if it is not merged (branch -D)"}
		}
	case "stash":
		if len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear") {
			return []string{"deletes stashed changes (stash " + rest[0] + ")"}
		}
	}
	return nil
}

// gitSubcommand returns the index of the subcommand after git's global
// options.
func gitSubcommand(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" ||
			a == "--super-prefix" || a == "--config-env":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return i
		}
	}
	return len(args)
}
