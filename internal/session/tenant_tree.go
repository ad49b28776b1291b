package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Workspaces belong to tenants. With tenant trees on (every deployment
// that authenticates callers), tenant T's workspaces and additional
// directories must lie in <root>/T, and the fresh workspace of a session
// that names none is <root>/T/<session id>. The rule needs no state of its
// own: every replica derives it from the root and the caller's tenant, so
// it holds across replicas and restarts, and a session's directories are
// checked once, at creation (UpdateSession cannot change them).
//
// Without tenant trees (--auth none: one tenant, "default") the whole root
// is the tenant's tree, as it always was.

// SetTenantTrees turns per-tenant trees on or off; call it before serving.
func (m *Manager) SetTenantTrees(on bool) { m.tenantTrees = on }

// tree returns the directory the caller's workspaces must lie in, creating
// it on first use, and the phrase errors use for it.
func (m *Manager) tree(ctx context.Context) (dir, name string, err error) {
	if !m.tenantTrees {
		return m.root, "the server's workspace root " + m.root, nil
	}
	t := Tenant(ctx)
	// Authentication admits only letters, digits and . _ @ - (never a
	// leading dot), so a tenant always names one entry of the root; the
	// check is repeated here because a path is at stake.
	if t == "" || t != filepath.Base(t) || t[0] == '.' || strings.ContainsAny(t, "/\\\x00") {
		return "", "", invalidf("tenant %q cannot own a workspace directory", t)
	}
	dir = filepath.Join(m.root, t)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", "", fmt.Errorf("workspace directory of tenant %s: %w", t, err)
	}
	// Nobody's workspace is the root itself, so nobody's command can put a
	// symlink here; if one is there anyway, fail closed.
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", "", fmt.Errorf("workspace directory of tenant %s: %w", t, err)
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("workspace directory of tenant %s: %s is not a directory", t, dir)
	}
	return dir, "the workspace directory of tenant " + t + ", " + dir, nil
}

// inTree checks that p names an existing directory inside tree and returns
// its canonical form. p is resolved through an os.Root opened at tree, so
// a `..` or a symlink that leads out (to another tenant's tree, or
// anywhere) is refused with the same words whether or not its target
// exists: the answer tells nothing about what lies outside.
func inTree(tree, treeName, what, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", invalidf("%s %q must be an absolute path", what, p)
	}
	if strings.ContainsRune(p, 0) {
		return "", invalidf("%s %q contains a NUL byte", what, p)
	}
	outside := invalidf("%s %s is outside %s", what, p, treeName)
	rel, err := filepath.Rel(tree, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", outside
	}
	r, err := os.OpenRoot(tree)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", treeName, err)
	}
	defer r.Close()
	f, err := r.Open(rel)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", invalidf("%s %s: no such file or directory", what, p)
	case err != nil:
		return "", outside
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", outside
	}
	if !fi.IsDir() {
		return "", invalidf("%s %s is not a directory", what, p)
	}
	// The os.Root walk proved that p leads to a directory inside tree;
	// the canonical spelling must name that same directory, or p changed
	// under us.
	c, err := filepath.EvalSymlinks(filepath.Join(tree, rel))
	if err != nil {
		return "", outside
	}
	if rel, err := filepath.Rel(tree, c); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", outside
	}
	if cfi, err := os.Stat(c); err != nil || !os.SameFile(fi, cfi) {
		return "", outside
	}
	return c, nil
}
