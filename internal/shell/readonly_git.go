package shell

import "strings"

// Read-only git: the subcommands and forms Claude Code 2.1.332 runs
// without asking. What git runs besides itself depends on the repository's
// configuration (core.fsmonitor, pagers, diff drivers, textconv, filters,
// gpg programs), which the command line cannot show: the policy checks
// the repository before it trusts this verdict (see Command.IsGit and
// policy's gitConfigSafe).
//
// Refused, as Claude Code refuses them: every global option before the
// subcommand (-c, -C, --no-pager, -p, --git-dir, --exec-path, ...), and
// the options that write a file or run a program: --output, --ext-diff,
// --textconv, grep's -O/--open-files-in-pager, --exec.
//
// A subcommand listed with a check accepts only its listing forms: git
// branch lists, git branch -d deletes.
var gitReadOnly = map[string]func(args []string) bool{
	"status":       gitAny,
	"diff":         gitDiffOK,
	"log":          gitAny,
	"show":         gitAny,
	"blame":        gitAny,
	"grep":         gitGrepOK,
	"shortlog":     gitAny,
	"describe":     gitAny,
	"rev-parse":    gitAny,
	"rev-list":     gitAny,
	"ls-files":     gitAny,
	"cat-file":     gitAny,
	"merge-base":   gitAny,
	"for-each-ref": gitAny,
	"reflog":       gitReflogOK,
	"branch":       gitBranchOK,
	"tag":          gitTagOK,
	"remote":       gitRemoteOK,
	"stash":        gitStashOK,
	"worktree":     gitWorktreeOK,
	"config":       gitConfigOK,
}

// gitOptRule: options that write a file or run a program, in every
// subcommand (prefixes count: git's parse-options takes unambiguous
// abbreviations of long options).
var gitOptRule = optRule{longs: []string{"output", "ext-diff", "textconv", "open-files-in-pager", "exec", "upload-pack", "receive-pack"}}

func gitAny(args []string) bool { return gitOptRule.allows(args) }

// gitDiffOK: git diff --no-index compares two files anywhere; the policy
// places them through the path arguments like any other read.
func gitDiffOK(args []string) bool { return gitAny(args) }

func gitGrepOK(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'O') {
			return false
		}
	}
	return gitAny(args)
}

// onlyFlags accepts args made of the listed options (and, with operands,
// anything that is not an option) and nothing else.
func onlyFlags(args []string, operands bool, flags ...string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			if !operands {
				return false
			}
			continue
		}
		ok := false
		for _, f := range flags {
			if a == f || strings.HasSuffix(f, "=") && strings.HasPrefix(a, f) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// git branch lists without operands; with one it creates a branch.
func gitBranchOK(args []string) bool {
	return onlyFlags(args, false, "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "--show-current",
		"--merged", "--no-merged", "--contains", "--no-contains", "--sort=", "--format=", "--color", "--no-color", "--column", "--no-column")
}

func gitTagOK(args []string) bool {
	if len(args) == 0 {
		return true
	}
	if args[0] != "-l" && args[0] != "--list" {
		return onlyFlags(args, false, "-n", "--sort=", "--format=", "--merged", "--no-merged", "--contains", "--no-contains", "--points-at", "--column", "--no-column")
	}
	return onlyFlags(args[1:], true, "-n", "--sort=", "--format=")
}

func gitRemoteOK(args []string) bool {
	switch {
	case len(args) == 0:
		return true
	case len(args) == 1 && (args[0] == "-v" || args[0] == "--verbose"):
		return true
	case args[0] == "get-url":
		return onlyFlags(args[1:], true, "--push", "--all")
	}
	return false
}

func gitStashOK(args []string) bool {
	if len(args) == 0 {
		return false // git stash pushes
	}
	switch args[0] {
	case "list", "show":
		return gitAny(args[1:])
	}
	return false
}

func gitReflogOK(args []string) bool {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "show" && args[0] != "HEAD" && !strings.Contains(args[0], "@") {
		// expire, delete, exists, or a ref name
		switch args[0] {
		case "expire", "delete", "drop", "write":
			return false
		}
	}
	return gitAny(args)
}

func gitWorktreeOK(args []string) bool {
	return len(args) > 0 && args[0] == "list" && onlyFlags(args[1:], false, "--porcelain", "-v", "--verbose", "-z")
}

func gitConfigOK(args []string) bool {
	if len(args) == 0 {
		return false
	}
	get := false
	for _, a := range args {
		switch a {
		case "--get", "--get-all", "--get-regexp", "-l", "--list", "get":
			get = true
		}
		if a == "--edit" || a == "-e" || strings.HasPrefix(a, "--file") || a == "-f" || a == "--blob" || strings.HasPrefix(a, "--blob=") {
			return false
		}
	}
	return get && (args[0] == "get" || strings.HasPrefix(args[0], "-"))
}

// gitReadOnlyArgs reports whether git's arguments (after "git") are a
// read-only form: a subcommand of the set first, no global option.
func gitReadOnlyArgs(args []string) bool {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return false
	}
	check, ok := gitReadOnly[args[0]]
	return ok && check(args[1:])
}

// IsGit reports whether the command runs git (by its bare name): its
// read-only verdict depends on the repository's configuration as well.
func (c *Command) IsGit() bool { return len(c.Argv) > 0 && c.Argv[0] == "git" }
