package main

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

type verdict struct{ verdict, reason string }

func allow(r string) verdict { return verdict{"allow", r} }
func deny(r string) verdict  { return verdict{"deny", r} }
func ask(r string) verdict   { return verdict{"ask", r} }

// judge applies the rules of thumb to one call.
func judge(req *tooldv1.ClassifyRequest) verdict {
	in := req.GetInput().AsMap()
	str := func(k string) string { s, _ := in[k].(string); return s }
	cwd := str("cwd")
	if cwd == "" {
		cwd = req.GetCwd()
	}
	switch req.GetToolName() {
	case "Bash":
		return bash(str("command"), cwd)
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		p := str("file_path")
		if p == "" {
			p = str("notebook_path")
		}
		for _, k := range []string{"content", "new_string", "edits", "new_source"} {
			if strings.Contains(str(k), "PRIVATE KEY-----") {
				return deny("the change writes a private key")
			}
		}
		return file(p, req.GetCwd())
	case "WebFetch":
		return fetch(str("url"))
	}
	return ask("no rule of thumb for " + req.GetToolName())
}

var (
	// network tools send data out or fetch code in.
	network = []string{"curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "telnet", "ftp"}
	shells  = []string{"sh", "bash", "zsh", "dash", "python", "python3", "node", "perl", "ruby"}
	// readers only look.
	readers = []string{"ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "pwd", "echo", "diff", "stat", "file", "tree", "du", "which", "true"}
	// tests and builds, with the subcommands that are such.
	builds = map[string][]string{
		"npm": {"test", "t", "ci", "run"}, "pnpm": {"test", "run"}, "yarn": {"test", "run"},
		"go": {"test", "vet", "build", "fmt", "list", "version", "env"}, "cargo": {"test", "build", "check", "clippy", "fmt"},
		"make": {"test", "check", "build", "lint", ""}, "git": {"status", "diff", "log", "show", "branch"},
		"pytest": {""}, "tox": {""},
	}
	runScripts = []string{"test", "lint", "build", "check", "typecheck", "format"}
)

// bash judges a command line: any denied command denies the whole line,
// and only a line of allowed commands is allowed.
func bash(command, cwd string) verdict {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return ask("the command does not parse")
	}
	var calls [][]string
	dynamic := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			var words []string
			for _, w := range x.Args {
				lit, ok := literal(w)
				if !ok {
					dynamic = dynamic || len(words) == 0
					lit = "$?"
				}
				words = append(words, lit)
			}
			if len(words) > 0 {
				calls = append(calls, words)
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			dynamic = true
		}
		return true
	})
	piped := pipesIntoShell(f)
	undecided := dynamic
	for _, w := range calls {
		name := path.Base(w[0])
		switch {
		case slices.Contains(network, name):
			return deny(name + " reaches the network; fetch what you need with WebFetch, or ask the user")
		case name == "sudo" || name == "su":
			return deny(name + " raises privileges")
		case name == "rm" && recursive(w) && slices.ContainsFunc(w[1:], func(a string) bool { return outside(a, cwd) }):
			return deny("rm -r of a path outside the working directory")
		case slices.Contains(readers, name):
		case buildCommand(name, w[1:]):
		default:
			undecided = true
		}
	}
	switch {
	case piped:
		return deny("the command pipes into a shell or interpreter")
	case undecided || len(calls) == 0:
		return ask("not a command known to only read, test or build")
	}
	return allow("reads, tests or builds only")
}

func buildCommand(name string, args []string) bool {
	subs, ok := builds[name]
	if !ok {
		return false
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	if !slices.Contains(subs, sub) {
		return false
	}
	if sub == "run" {
		return len(args) > 1 && slices.Contains(runScripts, args[1])
	}
	return true
}

// pipesIntoShell finds `... | sh` and the like.
func pipesIntoShell(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		b, ok := n.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
			return true
		}
		if c, ok := b.Y.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if lit, ok := literal(c.Args[0]); ok && slices.Contains(shells, path.Base(lit)) {
				found = true
			}
		}
		return true
	})
	return found
}

func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func recursive(words []string) bool {
	for _, a := range words[1:] {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR") || a == "--recursive" {
			return true
		}
	}
	return false
}

// outside: an argument that names the root, home, a parent, or an
// absolute path not under cwd.
func outside(arg, cwd string) bool {
	if strings.HasPrefix(arg, "-") {
		return false
	}
	if arg == "~" || strings.HasPrefix(arg, "~/") || arg == "$?" {
		return true
	}
	p := arg
	if !path.IsAbs(p) {
		p = path.Join(cwd, p)
	}
	p = path.Clean(p)
	return cwd == "" || !(p != cwd && strings.HasPrefix(p, strings.TrimSuffix(cwd, "/")+"/"))
}

func file(p, cwd string) verdict {
	if p == "" || cwd == "" {
		return ask("no path")
	}
	if !path.IsAbs(p) {
		p = path.Join(cwd, p)
	}
	p = path.Clean(p)
	if !strings.HasPrefix(p, strings.TrimSuffix(cwd, "/")+"/") {
		return ask(p + " is outside the working directory")
	}
	if slices.Contains(strings.Split(p, "/"), ".git") {
		return ask(p + " is inside .git")
	}
	return allow("a file of the project")
}

var docHosts = []string{"go.dev", "pkg.go.dev", "docs.python.org", "developer.mozilla.org", "nodejs.org", "docs.rs"}

func fetch(raw string) verdict {
	u, err := url.Parse(raw)
	if err != nil {
		return ask("the URL does not parse")
	}
	switch {
	case u.Scheme == "http":
		return deny("plain http; use https")
	case u.Scheme == "https" && slices.Contains(docHosts, strings.ToLower(u.Hostname())):
		return allow("documentation")
	}
	return ask(u.Hostname() + " is not a documentation host")
}
