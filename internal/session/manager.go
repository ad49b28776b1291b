// Package session creates, reads and deletes sessions: it checks what a
// client asks for against the operator's workspace root and turns it into
// the stored form.
package session

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/workspace"
)

// InvalidError is a request the client must change; nothing was created.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

func invalidf(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// Canceller stops a session's running calls (the engine).
type Canceller interface {
	CancelSession(ctx context.Context, sessionID string) error
}

// Spec is what a client asks for.
type Spec struct {
	Workspace      string
	Mode           string
	Allow          []string
	Deny           []string
	Ask            []string
	AdditionalDirs []string
}

// Manager owns the session lifecycle.
type Manager struct {
	store store.Store
	root  string // canonical workspace root
	calls Canceller
	now   func() time.Time
}

// NewManager checks the workspace root, creating it when missing.
func NewManager(st store.Store, workspaceRoot string, calls Canceller) (*Manager, error) {
	if err := os.MkdirAll(workspaceRoot, 0o755); err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	root, err := workspace.Canonical(workspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	return &Manager{store: st, root: root, calls: calls, now: time.Now}, nil
}

// Root is the canonical workspace root.
func (m *Manager) Root() string { return m.root }

// Modes are the permission modes in Claude Code's spelling.
var Modes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// Create validates spec and stores a new session. A spec without a
// workspace gets a fresh directory under the root, named after the session.
func (m *Manager) Create(ctx context.Context, spec Spec) (*store.Session, error) {
	id, err := newID()
	if err != nil {
		return nil, err
	}
	if spec.Mode == "" {
		spec.Mode = "default"
	}
	if !contains(Modes, spec.Mode) {
		return nil, invalidf("mode %q is not one of %s", spec.Mode, strings.Join(Modes, ", "))
	}
	fresh := spec.Workspace == ""
	ws := spec.Workspace
	if fresh {
		ws = filepath.Join(m.root, id)
		if err := os.Mkdir(ws, 0o755); err != nil {
			return nil, fmt.Errorf("create workspace: %w", err)
		}
	} else if ws, err = m.inRoot("workspace", ws); err != nil {
		return nil, err
	}
	var extra []string
	for _, d := range spec.AdditionalDirs {
		c, err := m.inRoot("additional directory", d)
		if err != nil {
			m.cleanup(fresh, ws)
			return nil, err
		}
		extra = append(extra, c)
	}
	s := &store.Session{
		ID:             id,
		Workspace:      ws,
		Mode:           spec.Mode,
		Allow:          spec.Allow,
		Deny:           spec.Deny,
		Ask:            spec.Ask,
		AdditionalDirs: extra,
		Cwd:            ws,
		CreatedAt:      m.now().UTC(),
	}
	if err := m.store.CreateSession(ctx, s); err != nil {
		m.cleanup(fresh, ws)
		return nil, err
	}
	return s, nil
}

func (m *Manager) cleanup(fresh bool, dir string) {
	if fresh {
		os.RemoveAll(dir)
	}
}

// inRoot checks that p names an existing directory inside the root and
// returns its canonical form.
func (m *Manager) inRoot(what, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", invalidf("%s %q must be an absolute path", what, p)
	}
	c, err := workspace.Canonical(p)
	if err != nil {
		return "", invalidf("%s: %v", what, err)
	}
	rel, err := filepath.Rel(m.root, c)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", invalidf("%s %s is outside the server's workspace root %s", what, p, m.root)
	}
	return c, nil
}

// Get returns a session.
func (m *Manager) Get(ctx context.Context, id string) (*store.Session, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	return m.store.GetSession(ctx, id)
}

// Delete stops the session's running calls, waits for their processes and
// drops its state. The workspace directory is left as it is: it belongs to
// whoever put files there.
func (m *Manager) Delete(ctx context.Context, id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	if _, err := m.store.GetSession(ctx, id); err != nil {
		return err
	}
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := m.calls.CancelSession(stopCtx, id); err != nil {
		return fmt.Errorf("stop the session's calls: %w", err)
	}
	return m.store.DeleteSession(ctx, id)
}

var idPattern = regexp.MustCompile(`^[a-z2-7]{26}$`)

// CheckID refuses ids that the server cannot have issued, before they reach
// the store or a path.
func CheckID(id string) error {
	if id == "" {
		return invalidf("session_id is required")
	}
	if !idPattern.MatchString(id) {
		return invalidf("session_id %q is malformed", id)
	}
	return nil
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return strings.ToLower(idEncoding.EncodeToString(b[:])), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// IsInvalid reports whether err is a client error.
func IsInvalid(err error) bool {
	var ie *InvalidError
	return errors.As(err, &ie)
}
