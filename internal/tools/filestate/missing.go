package filestate

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// maxSuggestScan bounds the directory entries looked at for a suggestion.
const maxSuggestScan = 1000

// Missing reports a file that does not exist as Claude Code's Read and
// Edit do: the working directory, and a suggestion when one is found
// (underCwd, then similar).
func Missing(env *tool.Env, t Target) error {
	msg := "File does not exist. Note: your current working directory is " + env.Cwd + "."
	if s := underCwd(env, t.Given.Abs); s != "" {
		msg += " Did you mean " + s + "?"
	} else if name := similar(env, t); name != "" {
		msg += " Did you mean " + name + "?"
	}
	// Claude Code's Read throws it: the text reaches the model bare,
	// without <tool_use_error>.
	return tool.Errorf(tool.KindNotFound, "%s", msg)
}

// underCwd is Claude Code's first guess: a path beside the working
// directory (in its parent, outside it) that exists when moved under it,
// as when the model left out the working directory's own name.
func underCwd(env *tool.Env, abs string) string {
	cwd := filepath.Clean(env.Cwd)
	parent := filepath.Dir(cwd)
	prefix := parent
	if prefix != "/" {
		prefix += "/"
	}
	if !strings.HasPrefix(abs, prefix) || strings.HasPrefix(abs, cwd+"/") || abs == cwd {
		return ""
	}
	rel, err := filepath.Rel(parent, abs)
	if err != nil {
		return ""
	}
	cand := filepath.Join(cwd, rel)
	t, err := Locate(env, cand)
	if err != nil {
		return ""
	}
	if _, err := t.Real.Stat(); err != nil {
		return ""
	}
	return cand
}

// extPattern is the extension Claude Code accepts on a suggested name.
var extPattern = regexp.MustCompile(`^(\.[\p{L}\p{N}_+~#-]{1,32})?$`)

// similar is Claude Code's second guess: the first entry of the same
// directory, in directory order, with the same name but another extension
// (main.tsx for main.ts). It returns the entry's name.
func similar(env *tool.Env, t Target) string {
	dir, err := env.Files.Locate("", filepath.Dir(t.Real.Abs))
	if err != nil {
		return ""
	}
	f, err := dir.Open()
	if err != nil {
		return ""
	}
	defer f.Close()
	names, err := f.Readdirnames(maxSuggestScan)
	if err != nil && len(names) == 0 {
		return ""
	}
	want := filepath.Base(t.Real.Abs)
	wantStem := stem(want)
	for _, n := range names {
		if extPattern.MatchString(filepath.Ext(n)) && stem(n) == wantStem && n != want && !workspace.Reserved(n) {
			return n
		}
	}
	return ""
}

func stem(name string) string {
	return strings.TrimSuffix(name, filepath.Ext(name))
}
