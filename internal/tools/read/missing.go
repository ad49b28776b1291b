package read

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// maxSuggestScan bounds the directory entries looked at for a suggestion.
const maxSuggestScan = 1000

// missing reports a file that does not exist, suggesting a file of the same
// directory whose name differs only in case or extension: models often
// guess main.ts for main.tsx, or readme.md for README.md.
func missing(env *tool.Env, t filestate.Target) error {
	msg := "File does not exist: " + t.Given.Abs + "."
	if name := similar(env, t); name != "" {
		msg += " Did you mean " + filepath.Join(filepath.Dir(t.Given.Abs), name) + "?"
	} else {
		msg += " The current working directory is " + env.Cwd + "."
	}
	return tool.Failf("%s", msg)
}

func similar(env *tool.Env, t filestate.Target) string {
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
	if err != nil {
		return ""
	}
	slices.Sort(names)
	want := filepath.Base(t.Real.Abs)
	wantStem := stem(want)
	for _, n := range names {
		if strings.EqualFold(n, want) {
			return n
		}
	}
	if wantStem == "" {
		return ""
	}
	for _, n := range names {
		if strings.EqualFold(stem(n), wantStem) {
			return n
		}
	}
	return ""
}

func stem(name string) string {
	return strings.TrimSuffix(name, filepath.Ext(name))
}
