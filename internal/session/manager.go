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
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/toold/toold/internal/policy"
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

// RulesChecker compiles a session's rules to refuse one that does not parse
// before anything is stored, and gives the operator's mode settings (the
// policy engine).
type RulesChecker interface {
	Check(workspace string, rules policy.SessionRules) error
	DefaultMode() string
	BypassDisabled() bool
}

// Spec is what a client asks for.
type Spec struct {
	Workspace      string
	Mode           string
	Allow          []string
	Deny           []string
	Ask            []string
	AdditionalDirs []string
	User           store.RuleLists
	// Env is added to the environment of the session's commands.
	Env map[string]string
}

// Change is an UpdateSession request: a new mode ("" keeps it) and session
// rules to add and remove.
type Change struct {
	Mode   string
	Add    store.RuleLists
	Remove store.RuleLists
}

// Manager owns the session lifecycle.
type Manager struct {
	store store.Store
	root  string // canonical workspace root
	calls Canceller
	rules RulesChecker
	now   func() time.Time
	// onDelete runs for each deleted session (OnDelete).
	onDelete []func(sessionID string)
	// lifecycle runs the session hooks (SetLifecycle).
	lifecycle Lifecycle
	// tenants gives each tenant's own rules (SetTenantSettings).
	tenants TenantSettings
	// tenantTrees puts each tenant's workspaces in <root>/<tenant>
	// (SetTenantTrees, tenant_tree.go).
	tenantTrees bool
	// log reports what a delete could not clean up (SetLogger).
	log *slog.Logger
}

// NewManager checks the workspace root, creating it when missing. rules may
// be nil when no rules are enforced.
func NewManager(st store.Store, workspaceRoot string, calls Canceller, rules RulesChecker) (*Manager, error) {
	if err := os.MkdirAll(workspaceRoot, 0o755); err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	root, err := workspace.Canonical(workspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	return &Manager{store: st, root: root, calls: calls, rules: rules, now: time.Now, log: slog.New(slog.DiscardHandler)}, nil
}

// Root is the canonical workspace root.
func (m *Manager) Root() string { return m.root }

// Modes are the permission modes in Claude Code's spelling.
var Modes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"}

// Create validates spec and stores a new session. A spec without a
// workspace gets a fresh directory under the root, named after the session.
func (m *Manager) Create(ctx context.Context, spec Spec) (*store.Session, error) {
	id, err := newID()
	if err != nil {
		return nil, err
	}
	if spec.Mode == "" && m.rules != nil {
		spec.Mode = m.rules.DefaultMode()
	}
	if spec.Mode == "" {
		spec.Mode = "default"
	}
	if err := m.checkMode(spec.Mode); err != nil {
		return nil, err
	}
	if err := checkEnv(spec.Env); err != nil {
		return nil, err
	}
	user, err := m.userRules(ctx, spec.User)
	if err != nil {
		return nil, err
	}
	tree, treeName, err := m.tree(ctx)
	if err != nil {
		return nil, err
	}
	fresh := spec.Workspace == ""
	ws := spec.Workspace
	if fresh {
		if ws, err = m.makeFresh(tree, Tenant(ctx), id); err != nil {
			return nil, err
		}
	} else if ws, err = inTree(tree, treeName, "workspace", ws); err != nil {
		return nil, err
	}
	var extra []string
	for _, d := range spec.AdditionalDirs {
		c, err := inTree(tree, treeName, "additional directory", d)
		if err != nil {
			m.cleanup(fresh, id)
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
		User:           user,
		Env:            spec.Env,
		Tenant:         Tenant(ctx),
	}
	if err := m.checkRules(s); err != nil {
		m.cleanup(fresh, id)
		return nil, err
	}
	if err := m.store.CreateSession(ctx, s); err != nil {
		m.cleanup(fresh, id)
		return nil, err
	}
	m.started(ctx, s)
	return s, nil
}

func (m *Manager) cleanup(fresh bool, id string) {
	if fresh {
		m.removeFresh(id)
	}
}

// SessionRules is the policy's view of a stored session's rules.
func SessionRules(s *store.Session) policy.SessionRules {
	return policy.SessionRules{
		CLIArg:  policy.Settings{Allow: s.Allow, Deny: s.Deny, Ask: s.Ask},
		User:    policy.Settings{Allow: s.User.Allow, Deny: s.User.Deny, Ask: s.User.Ask},
		Session: policy.Settings{Allow: s.SessionRules.Allow, Deny: s.SessionRules.Deny, Ask: s.SessionRules.Ask},
	}
}

// CheckMode refuses a mode that is not one of Modes, or that the
// operator's settings disabled, as CreateSession and UpdateSession do.
func (m *Manager) CheckMode(mode string) error { return m.checkMode(mode) }

func (m *Manager) checkMode(mode string) error {
	if !contains(Modes, mode) {
		return invalidf("mode %q is not one of %s", mode, strings.Join(Modes, ", "))
	}
	if mode == "bypassPermissions" && m.rules != nil && m.rules.BypassDisabled() {
		return invalidf("mode bypassPermissions is disabled by the operator's settings (disableBypassPermissionsMode)")
	}
	if mode == "auto" {
		// Auto mode needs a classifier; a checker that cannot tell
		// (no rules at all) has none.
		a, ok := m.rules.(interface{ CheckAuto() error })
		if !ok {
			return invalidf("mode auto needs a classifier")
		}
		if err := a.CheckAuto(); err != nil {
			return invalidf("mode auto: %v", err)
		}
	}
	return nil
}

// RuleWarnings names the rules of s that do not parse and are skipped
// (the policy engine's Warnings; nil when the checker has none, or refuses
// such rules instead).
func (m *Manager) RuleWarnings(s *store.Session) []string {
	w, ok := m.rules.(interface {
		Warnings(workspace string, rules policy.SessionRules) []string
	})
	if !ok || s == nil {
		return nil
	}
	return w.Warnings(s.Workspace, SessionRules(s))
}

func (m *Manager) checkRules(s *store.Session) error {
	if m.rules == nil {
		return nil
	}
	if err := m.rules.Check(s.Workspace, SessionRules(s)); err != nil {
		return invalidf("permissions: %v", err)
	}
	return nil
}

// Update changes the mode and the session rules atomically; a rule that
// does not parse changes nothing.
func (m *Manager) Update(ctx context.Context, id string, ch Change) (*store.Session, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	if ch.Mode != "" {
		if err := m.checkMode(ch.Mode); err != nil {
			return nil, err
		}
	}
	return m.store.UpdateSession(ctx, id, func(s *store.Session) error {
		if err := CheckOwner(ctx, s); err != nil {
			return err
		}
		if ch.Mode != "" {
			s.Mode = ch.Mode
		}
		// Rules added through toold's own API must parse: only rules
		// that come from settings are skipped with a warning.
		for _, l := range []struct {
			b     policy.Behavior
			rules []string
		}{{policy.Allow, ch.Add.Allow}, {policy.Deny, ch.Add.Deny}, {policy.Ask, ch.Add.Ask}} {
			for _, text := range l.rules {
				if _, err := policy.ParseRule(text, l.b, policy.SourceSession, s.Workspace); err != nil {
					return invalidf("permissions: %v", err)
				}
			}
		}
		r := &s.SessionRules
		r.Allow = edit(r.Allow, ch.Add.Allow, ch.Remove.Allow)
		r.Deny = edit(r.Deny, ch.Add.Deny, ch.Remove.Deny)
		r.Ask = edit(r.Ask, ch.Add.Ask, ch.Remove.Ask)
		return m.checkRules(s)
	})
}

// edit removes, then adds what is not there yet, keeping order.
func edit(list, add, remove []string) []string {
	out := list[:0:0]
	for _, x := range list {
		if !contains(remove, x) {
			out = append(out, x)
		}
	}
	for _, x := range add {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Get returns a session.
func (m *Manager) Get(ctx context.Context, id string) (*store.Session, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	s, err := m.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := CheckOwner(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// Delete stops the session's running calls, waits for their processes,
// drops its state and removes the workspace directory toold created for it
// (never one the caller named: that belongs to whoever put files there).
//
// A delete of a session that was deleted a moment ago (within
// store.DeletedKeep), by its own tenant, succeeds again: a client that
// lost the first answer and retries is told "done", not NOT_FOUND. The
// retry also finishes what an interrupted first delete left. Anyone else
// is told, as for any session not theirs, that it does not exist.
func (m *Manager) Delete(ctx context.Context, id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	sess, err := m.store.GetSession(ctx, id)
	again := false
	if errors.Is(err, store.ErrNotFound) {
		gone, gerr := m.store.DeletedSession(ctx, id)
		if errors.Is(gerr, store.ErrNotFound) {
			return err
		}
		sess, err, again = gone, gerr, true
	}
	if err != nil {
		return err
	}
	if err := CheckOwner(ctx, sess); err != nil {
		return err
	}
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := m.calls.CancelSession(stopCtx, id); err != nil {
		return fmt.Errorf("stop the session's calls: %w", err)
	}
	for _, fn := range m.onDelete {
		fn(id)
	}
	err = m.store.DeleteSession(ctx, id)
	switch {
	case errors.Is(err, store.ErrDeleted):
		// Another delete marked it first; it runs the SessionEnd hooks.
		again = true
	case err != nil:
		return err
	}
	// The SessionEnd hooks run in the workspace: before it is removed.
	if !again {
		m.ended(ctx, sess)
	}
	m.removeWorkspace(sess)
	return nil
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
