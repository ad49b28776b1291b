// Package glob implements the Glob tool: finding files by name with
// doublestar patterns, oldest first.
//
// Decisions, as Claude Code's Glob behaves by default: regular files only
// (no directories, no symbolic links, and linked directories are not
// entered); hidden files included; .gitignore not consulted; a pattern
// without a slash matches file names at any depth (*.txt is **/*.txt);
// paths are printed relative to the working directory (absolute when
// outside it). Results are ordered by modification time, oldest first,
// ties by path, and cut at 100 (the oldest are kept) with a note. An
// absolute pattern carries its own directory, which must be in the
// workspace, and path is then ignored; the part after that directory is
// matched as a pattern of its own (/ws/sub/*.txt matches at any depth
// below /ws/sub, as in Claude Code). Unlike Claude Code, version-control
// directories (.git, .hg, .svn, .jj, .bzr) are not walked unless the
// pattern names them: their contents are never the answer and can
// outnumber the project's files. Paths a Read deny rule hides
// (tool.Env.Hidden) are neither listed nor entered, nor counted.
package glob

import (
	"encoding/json"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toold/toold/internal/tool"
)

// maxResults is how many paths one call returns, as in Claude Code.
const maxResults = 100

// New returns the Glob tool.
func New() tool.Tool { return globTool{} }

type globTool struct{}

func (globTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "Glob",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		Paths:       tool.PathsRead,
		ListsPaths:  true,
	}
}

type input struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func (globTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Glob: %v", err)
	}
	if in.Pattern == "" {
		return nil, tool.InvalidInputf("pattern is empty: give a glob pattern such as **/*.go.")
	}
	if strings.ContainsRune(in.Pattern, 0) {
		return nil, tool.InvalidInputf("pattern contains a NUL byte.")
	}
	if strings.ContainsRune(in.Path, 0) {
		return nil, tool.InvalidInputf("path contains a NUL byte.")
	}
	if !doublestar.ValidatePattern(in.Pattern) {
		return nil, tool.InvalidInputf("Invalid glob pattern %q: check for an unclosed [ or {, or a trailing backslash.", in.Pattern)
	}
	return &call{pattern: in.Pattern, path: in.Path}, nil
}

// anyDepth makes a pattern without a slash match file names at any depth,
// as Claude Code's Glob does (*.txt finds sub/deep/a.txt too).
func anyDepth(pattern string) string {
	if strings.Contains(pattern, "/") {
		return pattern
	}
	return "**/" + pattern
}

// call is one parsed Glob.
type call struct {
	pattern string
	path    string // as given; empty means the session's cwd
}

func (c *call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true, Repeatable: true}
}

func (c *call) Activity() tool.Activity {
	s := "Glob " + c.pattern
	if c.path != "" {
		s += " in " + c.path
	}
	return tool.Activity{Summary: s, Search: true}
}
