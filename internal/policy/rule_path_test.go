package policy

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestPathMatch(t *testing.T) {
	const (
		cwd  = "/proj"
		home = "/home/alice"
	)
	tests := []struct {
		rule string
		b    Behavior
		root string // the rule's anchor for /path; "/proj" when empty
		tool string
		path string
		cwd  string // cwd when not the default
		want bool
	}{
		// https://code.claude.com/docs/en/permissions "Read and Edit" (//path from the filesystem root)
		{rule: "Read(//Users/alice/secrets/**)", b: Deny, tool: "Read", path: "/Users/alice/secrets/a/b.txt", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Read(//Users/alice/secrets/**)", b: Deny, tool: "Read", path: "/Users/alice/secrets", want: true},
		// security.md §1 #1 (no string-prefix comparison)
		{rule: "Read(//Users/alice/secrets/**)", b: Deny, tool: "Read", path: "/Users/alice/secrets-public/x", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (~/path from home)
		{rule: "Read(~/.zshrc)", b: Deny, tool: "Read", path: "/home/alice/.zshrc", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Read(~/.zshrc)", b: Deny, tool: "Read", path: "/home/alice/sub/.zshrc", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (/path from the settings source, not the root)
		{rule: "Read(/secrets/**)", b: Deny, root: "/home/alice/.claude", tool: "Read", path: "/home/alice/.claude/secrets/k", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Read(/secrets/**)", b: Deny, root: "/home/alice/.claude", tool: "Read", path: "/secrets/k", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (path and ./path from the cwd)
		{rule: "Edit(docs/**)", b: Allow, tool: "Edit", path: "/proj/docs/a/b.md", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (single-segment dir: allow only at <cwd>/docs)
		{rule: "Edit(docs/**)", b: Allow, tool: "Edit", path: "/proj/pkg/docs/b.md", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (single-segment dir: deny at any depth)
		{rule: "Edit(docs/**)", b: Deny, tool: "Edit", path: "/proj/pkg/docs/b.md", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Edit(docs/)", b: Ask, tool: "Write", path: "/proj/a/docs/b.md", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (multi-segment: only at the anchor)
		{rule: "Edit(src/components/**)", b: Deny, tool: "Edit", path: "/proj/x/src/components/a.tsx", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Edit(src/components/**)", b: Deny, tool: "Edit", path: "/proj/src/components/a.tsx", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (**/src/** at any depth)
		{rule: "Edit(**/src/**)", b: Allow, tool: "Edit", path: "/proj/a/b/src/c.go", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (bare filename at any depth)
		{rule: "Read(.env)", b: Deny, tool: "Read", path: "/proj/a/b/.env", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (not another project)
		{rule: "Read(.env)", b: Deny, tool: "Read", path: "/other/.env", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Read(.env)", b: Deny, tool: "Read", path: "/proj/.env.example", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (a matching directory covers its contents)
		{rule: "Read(.env)", b: Deny, tool: "Read", path: "/proj/.env/prod", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (//**/.env anywhere)
		{rule: "Read(//**/.env)", b: Deny, tool: "Read", path: "/etc/app/.env", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" ("*" within a segment)
		{rule: "Read(/src/*.go)", b: Allow, tool: "Read", path: "/proj/src/a.go", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Read(/src/*.go)", b: Allow, tool: "Read", path: "/proj/src/sub/a.go", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (./ anchors allow at the cwd; decision on compilePath)
		{rule: "Read(./.env)", b: Allow, tool: "Read", path: "/proj/a/.env", want: false},
		// decision on compilePath: ./x is x for deny
		{rule: "Read(./.env)", b: Deny, tool: "Read", path: "/proj/a/.env", want: true},
		// decision on compilePath: leading ../ steps
		{rule: "Edit(../shared/**)", b: Allow, tool: "Edit", path: "/shared/x", want: true},
		// decision on compilePath
		{rule: "Edit(../shared/**)", b: Allow, tool: "Edit", path: "/proj/shared/x", want: false},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (relative to the call's cwd)
		{rule: "Edit(build/**)", b: Allow, tool: "Edit", path: "/proj/pkg/build/x", cwd: "/proj/pkg", want: true},
		// gitignore escapes (https://code.claude.com/docs/en/permissions "Read and Edit", v2.1.202)
		{rule: `Read(//tmp/a\[1\].txt)`, b: Allow, tool: "Read", path: "/tmp/a[1].txt", want: true},
		// gitignore escapes
		{rule: `Read(//tmp/a\[1\].txt)`, b: Allow, tool: "Read", path: "/tmp/a1.txt", want: false},

		// https://code.claude.com/docs/en/permissions "Read and Edit" (Edit rules cover Edit, Write, NotebookEdit)
		{rule: "Edit(//etc/**)", b: Deny, tool: "NotebookEdit", path: "/etc/x.ipynb", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Edit(//etc/**)", b: Deny, tool: "MultiEdit", path: "/etc/x", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (Read rules cover Read, Grep, Glob)
		{rule: "Read(//etc/**)", b: Deny, tool: "Grep", path: "/etc", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{rule: "Read(//etc/**)", b: Deny, tool: "Glob", path: "/etc/ssl", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (Read deny blocks Edit, v2.1.208, and Write, v2.1.228)
		{rule: "Read(//etc/**)", b: Deny, tool: "Write", path: "/etc/passwd", want: true},
		// coversFamily: toold also blocks NotebookEdit (safer than the docs)
		{rule: "Read(//etc/**)", b: Deny, tool: "NotebookEdit", path: "/etc/x.ipynb", want: true},
		// coversFamily: a Read ask also asks for edits
		{rule: "Read(//etc/**)", b: Ask, tool: "Edit", path: "/etc/passwd", want: true},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (a Read allow grants no edit)
		{rule: "Read(//etc/**)", b: Allow, tool: "Edit", path: "/etc/passwd", want: false},
		// https://code.claude.com/docs/en/tools-reference (an Edit allow also grants Read)
		{rule: "Edit(/src/**)", b: Allow, tool: "Read", path: "/proj/src/a.go", want: true},
		// https://code.claude.com/docs/en/tools-reference
		{rule: "Edit(/src/**)", b: Allow, tool: "Grep", path: "/proj/src", want: true},
		// coversFamily: an Edit deny does not deny reads
		{rule: "Edit(/src/**)", b: Deny, tool: "Read", path: "/proj/src/a.go", want: false},
		// path rules decide only file tools
		{rule: "Read(//etc/**)", b: Deny, tool: "Bash", path: "/etc/passwd", want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (bare Read: every path)
		{rule: "Read", b: Deny, tool: "Grep", path: "/x", want: true},
		// coversFamily (bare Read deny covers edits too)
		{rule: "Read", b: Deny, tool: "Edit", path: "/x", want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (Read(*) ≡ Read)
		{rule: "Read(*)", b: Allow, tool: "Glob", path: "/anywhere", want: true},

		// fail closed (Query doc): a relative path cannot be placed
		{rule: "Read(//etc/**)", b: Deny, tool: "Read", path: "etc/passwd", want: true},
		// fail closed
		{rule: "Read(//etc/**)", b: Allow, tool: "Read", path: "etc/passwd", want: false},
		// fail closed: no cwd for a relative pattern
		{rule: "Read(.env)", b: Deny, tool: "Read", path: "/proj/.env", cwd: "-", want: true},
		// fail closed
		{rule: "Read(.env)", b: Allow, tool: "Read", path: "/proj/.env", cwd: "-", want: false},
		// security.md §1 #1: unclean paths are cleaned before matching
		{rule: "Read(//etc/**)", b: Deny, tool: "Read", path: "/tmp/../etc/passwd", want: true},
		// security.md §1 #1
		{rule: "Edit(/src/**)", b: Allow, tool: "Edit", path: "/proj/src/../../etc/passwd", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.b.String()+" "+tc.rule+" "+tc.tool+" "+tc.path, func(t *testing.T) {
			root := tc.root
			if root == "" {
				root = "/proj"
			}
			r, err := ParseRule(tc.rule, tc.b, SourceProject, root)
			if err != nil {
				t.Fatal(err)
			}
			c := cwd
			switch tc.cwd {
			case "":
			case "-":
				c = ""
			default:
				c = tc.cwd
			}
			q := Query{Tool: tc.tool, Path: tc.path, Cwd: c, Home: home}
			if got := r.matches(&q); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPathHomeMissing: a "~/" pattern with no home fails closed (Query doc).
func TestPathHomeMissing(t *testing.T) {
	deny := mustRule(t, "Read(~/.ssh/**)", Deny)
	allow := mustRule(t, "Read(~/.ssh/**)", Allow)
	q := Query{Tool: "Read", Path: "/root/.ssh/id_rsa", Cwd: "/proj"}
	if !deny.matches(&q) || allow.matches(&q) {
		t.Error("a ~/ pattern without a home must match deny and not allow")
	}
}

// TestDoublestarAssumptions pins the doublestar behaviour compilePath
// relies on.
func TestDoublestarAssumptions(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"**/.env", ".env", true}, // "**/" matches zero directories
		{"**/.env", "a/b/.env", true},
		{"*", "a/b", false},     // '*' stays within a segment
		{"a/**", "a", true},     // ... documented for "/**" at the end
		{"*.go", ".x.go", true}, // no special dotfile handling, as in gitignore
		{`a\*`, "a*", true},     // escapes
		{`a\*`, "ab", false},
	} {
		if got := doublestar.MatchUnvalidated(tc.pat, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
}
