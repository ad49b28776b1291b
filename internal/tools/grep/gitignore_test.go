package grep

import (
	"path"
	"testing"
)

func TestRuleSet(t *testing.T) {
	tests := []struct {
		rules string
		path  string
		dir   bool
		want  verdict
	}{
		{"*.log", "a.log", false, ignored},
		{"*.log", "x/y/a.log", false, ignored},
		{"*.log", "a.log.txt", false, noMatch},
		{"*.log\n!keep.log", "keep.log", false, whitelisted},
		{"!keep.log\n*.log", "keep.log", false, ignored}, // the last match wins
		{"build/", "build", true, ignored},
		{"build/", "build", false, noMatch}, // directories only
		{"build/", "src/build", true, ignored},
		{"/build", "build", true, ignored},
		{"/build", "src/build", true, noMatch}, // anchored
		{"src/gen", "src/gen", true, ignored},
		{"src/gen", "x/src/gen", true, noMatch}, // an inner slash anchors too
		{"docs/**", "docs", true, noMatch},
		{"docs/**", "docs/a/b.md", false, ignored},
		{"**/tmp", "a/b/tmp", true, ignored},
		{"a/**/z", "a/z", false, ignored},
		{"a/**/z", "a/b/c/z", false, ignored},
		{"# comment", "# comment", false, noMatch},
		{`\#hash`, "#hash", false, ignored},
		{`\!bang`, "!bang", false, ignored},
		{"trailing   ", "trailing", false, ignored},
		{`space\ `, "space ", false, ignored},
		{"*.o\r", "x.o", false, ignored},
		{"[abc].txt", "b.txt", false, ignored},
		{"[!abc].txt", "d.txt", false, ignored},
		{"?.md", "a.md", false, ignored},
		{"?.md", "ab.md", false, noMatch},
		{"*", "anything/at/all", false, ignored},
		{"[", "[", false, noMatch}, // an invalid glob is skipped
		{"\n\n", "x", false, noMatch},
	}
	for _, tt := range tests {
		rs := parseRules([]byte(tt.rules))
		if got := rs.match(tt.path, path.Base(tt.path), tt.dir); got != tt.want {
			t.Errorf("rules %q, path %q (dir %v): got %v, want %v", tt.rules, tt.path, tt.dir, got, tt.want)
		}
	}
}

func TestIgnoreNodePrecedence(t *testing.T) {
	root := &ignoreNode{dir: ".", git: parseRules([]byte("*.log\n")), hasGit: true, inRepo: true}
	sub := &ignoreNode{parent: root, dir: "sub", git: parseRules([]byte("!keep.log\n")), inRepo: true}
	nested := &ignoreNode{parent: root, dir: "nested", hasGit: true, inRepo: true}
	dot := &ignoreNode{parent: root, dir: "d", ignore: parseRules([]byte("!*.log\n")), git: parseRules([]byte("x.log\n")), inRepo: true}
	up := &ignoreNode{up: "ws/sub", git: parseRules([]byte("/ws/sub/top.txt\n")), inRepo: true}
	noRepo := &ignoreNode{dir: ".", git: parseRules([]byte("*.log\n"))}
	tests := []struct {
		node *ignoreNode
		path string
		want verdict
	}{
		{root, "a.log", ignored},
		{sub, "sub/a.log", ignored},
		{sub, "sub/keep.log", whitelisted}, // the deeper file decides
		{nested, "nested/a.log", noMatch},  // .gitignore stops at a nested repository
		{dot, "d/x.log", whitelisted},      // .ignore beats .gitignore
		{up, "top.txt", ignored},           // rules of an ancestor of the search root
		{up, "sub/top.txt", noMatch},
		{noRepo, "a.log", noMatch}, // .gitignore counts only in a repository
	}
	for _, tt := range tests {
		if got := tt.node.match(tt.path, path.Base(tt.path), false); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestSplitGlobs(t *testing.T) {
	tests := map[string][]string{
		"*.go":              {"*.go"},
		"*.go *.rs":         {"*.go", "*.rs"},
		"*.go,*.rs":         {"*.go", "*.rs"},
		"*.{ts,tsx}":        {"*.{ts,tsx}"},
		"*.{ts,tsx} !a/**":  {"*.{ts,tsx}", "!a/**"},
		"  ":                nil,
		"a,,b":              {"a", "b"},
		"src/**/*.go\t*.md": {"src/**/*.go", "*.md"},
	}
	for in, want := range tests {
		got := splitGlobs(in)
		if len(got) != len(want) {
			t.Errorf("%q: got %q, want %q", in, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q: got %q, want %q", in, got, want)
			}
		}
	}
}

func TestTypeFilter(t *testing.T) {
	tests := []struct {
		typ, name string
		want      bool
	}{
		{"go", "main.go", true},
		{"go", "main.rs", false},
		{"c", "x.h", true},
		{"make", "Makefile", true},
		{"make", "GNUmakefile", true},
		{"docker", "Dockerfile.dev", true},
		{"sh", ".bashrc", true},
		{"ts", "a.tsx", true},
	}
	for _, tt := range tests {
		tf, ok := newTypeFilter(tt.typ)
		if !ok {
			t.Fatalf("type %s unknown", tt.typ)
		}
		if got := tf.matches(tt.name); got != tt.want {
			t.Errorf("%s %s: got %v", tt.typ, tt.name, got)
		}
	}
	if _, ok := newTypeFilter("nope"); ok {
		t.Error("unknown type accepted")
	}
}
