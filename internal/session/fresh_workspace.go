package session

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/toold/toold/internal/store"
)

// A session created without a workspace gets a fresh directory, named
// after the session, in its tenant's tree: <tree>/<session id>. That name
// is how toold knows later that it made the directory: no caller can name
// it before the session exists, since ids are random and issued by toold.
// A fresh workspace lives and dies with its session; a directory a caller
// named is never removed.

func freshWorkspace(tree, id string) string { return filepath.Join(tree, id) }

// SetLogger sets where the manager reports what a delete could not clean
// up; call it before serving.
func (m *Manager) SetLogger(l *slog.Logger) { m.log = l }

// created reports whether toold made s's workspace for it.
func (m *Manager) created(s *store.Session) bool {
	return filepath.Base(s.Workspace) == s.ID && CheckID(s.ID) == nil &&
		m.inTenantTree(filepath.Dir(s.Workspace), s.Tenant)
}

// inTenantTree reports whether dir is the tree sessions of tenant get
// their fresh workspaces in.
func (m *Manager) inTenantTree(dir, tenant string) bool {
	if !m.tenantTrees {
		return dir == m.root
	}
	return dir == filepath.Join(m.root, tenant) && tenant != "" && tenant == filepath.Base(tenant)
}

// removeWorkspace removes the fresh workspace of a deleted session, through
// an os.Root at its tree so that nothing outside it is touched, whatever
// its commands left inside (symlinks are removed, never followed).
func (m *Manager) removeWorkspace(s *store.Session) {
	if !m.created(s) {
		return
	}
	tree := filepath.Dir(s.Workspace)
	r, err := os.OpenRoot(tree)
	if err == nil {
		err = r.RemoveAll(s.ID)
		r.Close()
	}
	if err != nil {
		m.log.Warn("remove the workspace of a deleted session", "session", s.ID, "workspace", s.Workspace, "err", err)
	}
}
