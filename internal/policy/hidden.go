package policy

import (
	"os"
	"path/filepath"
	"sync"
)

// HiddenFunc returns what Grep and Glob leave out of their results for the
// call described by req: a path is hidden when a Read deny rule with a path
// specifier matches it or its symlink-resolved form
// (https://code.claude.com/docs/en/permissions "Read and Edit": a Read
// deny rule also hides the path from Grep and Glob results). It returns nil
// when no such rule exists, so that the tools skip the check entirely.
//
// The rules that can hide anything are picked once here; the func only
// matches them. A bare Read deny is not among them: it removes Grep and
// Glob altogether (RuleSet.ToolDenied). When the session's rules cannot be
// compiled the func hides everything (fail closed); the call's decision
// has failed on the same error already, so this is not expected to run.
//
// The func is safe for concurrent use and meant for one call: it caches the
// resolved form of the directories it has seen.
func (e *Engine) HiddenFunc(req Request) func(abs string) bool {
	rs, err := e.rulesFor(req)
	if err != nil {
		return func(string) bool { return true }
	}
	var rules []*Rule
	for _, r := range rs.Rules(Deny) {
		if r.kind == kindPath && r.appliesTo("Read") {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	h := &hider{rules: rules, cwd: req.Cwd, home: e.opts.Home, dirs: map[string]resolvedDir{}}
	return h.hidden
}

// hider matches paths against the Read deny path rules of one call.
type hider struct {
	rules     []*Rule
	cwd, home string

	mu   sync.Mutex
	dirs map[string]resolvedDir // directory → its resolved form
}

type resolvedDir struct {
	path string
	ok   bool // false: the directory could not be resolved
}

func (h *hider) hidden(abs string) bool {
	if h.match(abs) {
		return true
	}
	r := h.resolve(abs)
	return r != abs && h.match(r)
}

// match is RuleSet.Match(Deny, Query{Tool: "Read", ...}) != nil over the
// rules that can match such a query with a path.
func (h *hider) match(p string) bool {
	q := Query{Tool: "Read", Path: p, Cwd: h.cwd, Home: h.home}
	for _, r := range h.rules {
		if r.matches(&q) {
			return true
		}
	}
	return false
}

// resolve is resolveSymlinks(p), computed from the cached resolved form
// of p's directory and one Lstat of p: results come many to a directory.
func (h *hider) resolve(p string) string {
	dir, base := filepath.Split(p)
	if base == "" {
		return resolveSymlinks(p) // "/"
	}
	fi, err := os.Lstat(p)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return resolveSymlinks(p)
	}
	rd := h.resolveDir(filepath.Clean(dir))
	if !rd.ok {
		if err == nil {
			// p exists, so its directory does: resolve it the long way.
			return resolveSymlinks(p)
		}
		return p
	}
	return filepath.Join(rd.path, base)
}

func (h *hider) resolveDir(dir string) resolvedDir {
	h.mu.Lock()
	rd, ok := h.dirs[dir]
	h.mu.Unlock()
	if ok {
		return rd
	}
	r, err := filepath.EvalSymlinks(dir)
	rd = resolvedDir{path: r, ok: err == nil}
	h.mu.Lock()
	h.dirs[dir] = rd
	h.mu.Unlock()
	return rd
}
