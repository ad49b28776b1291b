package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// hiddenSet is the set of paths commands may never reach, however the
// directories around them are granted: toold's credentials, keys and
// configuration. Landlock only grants, and a rule on a directory grants
// everything beneath it, so a granted directory that holds a hidden path
// is not granted itself: each of its entries is, except the hidden one
// (and, recursively, except the entry that leads to it).
type hiddenSet struct {
	// paths are absolute and clean, each as given and as its symbolic
	// links resolve (a Kubernetes Secret volume's file is a link into a
	// timestamped directory).
	paths []string
}

func newHiddenSet(paths []string) hiddenSet {
	var h hiddenSet
	add := func(p string) {
		if p != "" && !slices.Contains(h.paths, p) {
			h.paths = append(h.paths, p)
		}
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		add(abs)
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			add(r)
		}
	}
	return h
}

// covers reports whether p is a hidden path or lies beneath one.
func (h hiddenSet) covers(p string) bool {
	for _, x := range h.paths {
		if within(p, x) {
			return true
		}
	}
	return false
}

// holds reports whether a hidden path lies strictly beneath dir.
func (h hiddenSet) holds(dir string) bool {
	for _, x := range h.paths {
		if x != dir && within(x, dir) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// grant is what a set of granted roots comes to once the hidden paths are
// cut out: directories granted whole and single files.
type grant struct {
	dirs, files []string
}

// split resolves each root and grants it whole when no hidden path lies
// in it; a root that is or lies in a hidden path is left out; a root that
// holds one is replaced by its entries, recursively. Symbolic links among
// the entries get no rule: what they point to is granted or not on its
// own. A missing root is skipped, as IgnoreIfMissing would.
func (h hiddenSet) split(roots []string) grant {
	var g grant
	for _, r := range roots {
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		h.grantPath(&g, real, fi.IsDir())
	}
	return g
}

func (h hiddenSet) grantPath(g *grant, p string, dir bool) {
	switch {
	case h.covers(p):
		return
	case !dir:
		g.files = append(g.files, p)
		return
	case !h.holds(p):
		g.dirs = append(g.dirs, p)
		return
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		// Unlistable: granting it whole would grant the hidden path.
		return
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		h.grantPath(g, filepath.Join(p, e.Name()), e.IsDir())
	}
}
