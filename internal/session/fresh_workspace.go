package session

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/toold/toold/internal/store"
)

// A session created without a workspace gets a fresh directory, named
// after the session, in its tenant's tree: <tree>/<session id>. toold
// notes each one it makes in <root>/.toold-fresh/<session id> (the file
// holds the tenant), outside every tenant's tree, so that the delete and
// the sweep remove only directories toold made: never one a caller named,
// even one a caller made with a name like a session id. A fresh workspace
// lives and dies with its session.

const freshNotes = ".toold-fresh"

func freshWorkspace(tree, id string) string { return filepath.Join(tree, id) }

// SetLogger sets where the manager reports what a delete could not clean
// up; call it before serving.
func (m *Manager) SetLogger(l *slog.Logger) { m.log = l }

// makeFresh notes, then makes, the fresh workspace of session id.
func (m *Manager) makeFresh(tree, tenant, id string) (string, error) {
	notes := filepath.Join(m.root, freshNotes)
	if err := os.Mkdir(notes, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("create workspace: %w", err)
	}
	if err := os.WriteFile(filepath.Join(notes, id), []byte(tenant), 0o600); err != nil {
		return "", fmt.Errorf("create workspace: %w", err)
	}
	ws := freshWorkspace(tree, id)
	if err := os.Mkdir(ws, 0o755); err != nil {
		os.Remove(filepath.Join(notes, id))
		return "", fmt.Errorf("create workspace: %w", err)
	}
	return ws, nil
}

// freshOf returns the fresh workspace toold made for session id, from its
// note; false when there is no note or it names no tree.
func (m *Manager) freshOf(id string) (tree string, ok bool) {
	if CheckID(id) != nil {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(m.root, freshNotes, id))
	if err != nil {
		return "", false
	}
	t := string(b)
	if !m.tenantTrees {
		return m.root, true
	}
	if t == "" || t != filepath.Base(t) || t[0] == '.' {
		return "", false
	}
	return filepath.Join(m.root, t), true
}

// removeFresh removes session id's fresh workspace, if toold made one,
// through an os.Root at its tree so that nothing outside it is touched,
// whatever its commands left inside (symlinks are removed, never
// followed); then the note.
func (m *Manager) removeFresh(id string) {
	tree, ok := m.freshOf(id)
	if !ok {
		return
	}
	r, err := os.OpenRoot(tree)
	if err == nil {
		err = r.RemoveAll(id)
		r.Close()
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		m.log.Warn("remove the fresh workspace of an ended session", "session", id, "workspace", filepath.Join(tree, id), "err", err)
		return
	}
	os.Remove(filepath.Join(m.root, freshNotes, id))
}

// removeWorkspace removes the fresh workspace of a deleted session.
func (m *Manager) removeWorkspace(s *store.Session) {
	if tree, ok := m.freshOf(s.ID); ok && s.Workspace == freshWorkspace(tree, s.ID) {
		m.removeFresh(s.ID)
	}
}
