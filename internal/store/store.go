// Package store holds the state sessions share between calls and, with a
// shared backend, between replicas. The interface is small on purpose: each
// method is one atomic step, so a backend can implement it with one round
// trip.
package store

import (
	"context"
	"errors"
	"time"
)

// Typed errors every backend returns; the server maps them to gRPC codes.
var (
	// ErrNotFound: no session has that id.
	ErrNotFound = errors.New("not found")
	// ErrExists: a session with that id exists already.
	ErrExists = errors.New("already exists")
	// ErrUnavailable: the backend could not be reached; nothing was changed
	// that the caller can rely on.
	ErrUnavailable = errors.New("state store unavailable")
	// ErrDeleted: DeleteSession found the session deleted already, within
	// DeletedKeep. It does not wrap ErrNotFound.
	ErrDeleted = errors.New("already deleted")
)

// DeletedKeep is how long a deleted session's mark is kept: a delete
// retried within it (a client that lost the first answer) is told the
// session is gone, not that it never was.
const DeletedKeep = 15 * time.Minute

// Session is the stored form of a session.
type Session struct {
	ID        string
	Workspace string
	// Mode is the permission mode in Claude Code's spelling: default,
	// acceptEdits, plan, bypassPermissions, dontAsk, auto.
	Mode           string
	Allow          []string
	Deny           []string
	Ask            []string
	AdditionalDirs []string
	Cwd            string
	// Worktree is the git worktree (absolute, inside Workspace) the
	// session works in after EnterWorktree, "" when none: while it is set
	// the session's primary directory, its policy root and its sandbox
	// grants are the worktree's instead of the workspace's.
	Worktree string
	// WorktreeGitDir is the repository's git directory (absolute, inside
	// Workspace) while the session is in a worktree: git in the worktree
	// writes its objects and refs there, so it is one of the session's
	// directories too (Dirs).
	WorktreeGitDir string
	// WorktreeKind says how the session came into its worktree, which
	// decides what ExitWorktree may do with it: WorktreeMade (""),
	// WorktreeEntered or WorktreeHook.
	WorktreeKind string
	// WorktreeBranch is the branch the worktree was made or entered on,
	// "" when it had none (a detached HEAD, a hook's worktree).
	WorktreeBranch string
	// WorktreeReturn is where ExitWorktree takes the session back to;
	// "" means Workspace.
	WorktreeReturn string
	CreatedAt      time.Time
	// User is the "user" settings source; SessionRules the "session" source
	// (answers with scope session, UpdateSession).
	User         RuleLists
	SessionRules RuleLists
	// Tenant owns the session; another tenant is told it does not exist.
	Tenant string
	// Env holds variables for the session's commands, given at creation.
	Env map[string]string
	// Revision grows with every UpdateSession, so compiled rule sets can be
	// cached per (session, revision).
	Revision int64
	// ETag is set by the store on every read and differs whenever anything
	// of the stored session differs (its cwd included); it is not stored.
	// CommitCall compares it.
	ETag string
	// Parent is the session whose Agent call created this one (a
	// subagent's), with the agent's type and description; Children are
	// the sessions this one created that way, oldest first.
	Parent           string
	AgentType        string
	AgentDescription string
	Children         []string
}

// The kinds of worktree a session can be in (Session.WorktreeKind).
const (
	// WorktreeMade: EnterWorktree made it with git; ExitWorktree may
	// remove it.
	WorktreeMade = ""
	// WorktreeEntered: an existing worktree EnterWorktree entered by its
	// path; ExitWorktree only leaves it.
	WorktreeEntered = "entered"
	// WorktreeHook: a WorktreeCreate hook made it; WorktreeRemove hooks
	// remove it.
	WorktreeHook = "hook"
)

// Root is the session's primary directory: its worktree while it is in
// one, else its workspace.
func (s *Session) Root() string {
	if s.Worktree != "" {
		return s.Worktree
	}
	return s.Workspace
}

// Dirs are the session's directories, primary first: its root, the git
// directory of its worktree when it is in one, then its additional
// directories.
func (s *Session) Dirs() []string {
	out := make([]string, 0, 2+len(s.AdditionalDirs))
	out = append(out, s.Root())
	if s.Worktree != "" && s.WorktreeGitDir != "" {
		out = append(out, s.WorktreeGitDir)
	}
	return append(out, s.AdditionalDirs...)
}

// RuleLists are permission rules of one settings source.
type RuleLists struct {
	Allow []string
	Deny  []string
	Ask   []string
}

func (r RuleLists) clone() RuleLists {
	return RuleLists{
		Allow: append([]string(nil), r.Allow...),
		Deny:  append([]string(nil), r.Deny...),
		Ask:   append([]string(nil), r.Ask...),
	}
}

// Clone returns a deep copy, so that callers never share slices with the
// store.
func (s *Session) Clone() *Session {
	c := *s
	c.Allow = append([]string(nil), s.Allow...)
	c.Deny = append([]string(nil), s.Deny...)
	c.Ask = append([]string(nil), s.Ask...)
	c.AdditionalDirs = append([]string(nil), s.AdditionalDirs...)
	c.Children = append([]string(nil), s.Children...)
	c.User = s.User.clone()
	c.SessionRules = s.SessionRules.clone()
	if s.Env != nil {
		c.Env = make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			c.Env[k] = v
		}
	}
	return &c
}

// FileStamp records the version of a file the model has seen.
type FileStamp struct {
	ModTime time.Time
	Size    int64
	// Hash is a hash of the content seen (opaque to the store), or empty
	// when the file was too large to hash.
	Hash string
}

// Store is the state backend.
type Store interface {
	// CreateSession stores a new session; ErrExists if the id is taken.
	CreateSession(ctx context.Context, s *Session) error
	// GetSession returns a copy of the session; ErrNotFound if absent.
	GetSession(ctx context.Context, id string) (*Session, error)
	// DeleteSession drops the session and all its state. It first marks
	// the session deleted in one atomic step, so that from then on every
	// method finds it absent, keeps that mark (the session as it was) for
	// DeletedKeep, and drops the rest in bounded steps that stall no other
	// session. ErrNotFound if there is neither a session nor a mark;
	// ErrDeleted if only the mark is there (an earlier delete did it): the
	// call then finishes dropping what that delete may have left. A backend
	// that retries a lost reply on its own reports the delete it retried
	// as its own (nil), not ErrDeleted.
	DeleteSession(ctx context.Context, id string) error
	// DeletedSession returns the session as it was when it was deleted,
	// while its mark is kept; ErrNotFound otherwise. A retried
	// DeleteSession uses it to tell its owner "done" rather than "no such
	// session", and nobody else anything.
	DeletedSession(ctx context.Context, id string) (*Session, error)
	// SessionExists reports whether the session exists, without refreshing
	// its idle TTL: the sweep of expired sessions' leftovers asks it.
	SessionExists(ctx context.Context, id string) (bool, error)
	// UpdateSession applies fn to a copy of the session and stores the
	// result atomically, with Revision incremented. An error from fn
	// changes nothing and is returned as is. ErrNotFound if absent.
	UpdateSession(ctx context.Context, id string, fn func(*Session) error) (*Session, error)
	// RecordDenial counts one denial of the kind at time at and returns
	// how many denials of that kind the session had in (at-window, at].
	// Older ones of the kind are dropped; the kinds are counted apart.
	RecordDenial(ctx context.Context, id string, kind DenialKind, at time.Time, window time.Duration) (int, error)
	// CountDenials returns how many denials of the kind the session had in
	// (now-window, now].
	CountDenials(ctx context.Context, id string, kind DenialKind, now time.Time, window time.Duration) (int, error)
	// SetCwd changes the session's current directory; ErrNotFound if the
	// session is absent.
	SetCwd(ctx context.Context, id, cwd string) error
	// RecordRead stores the stamp of a file the session has read or
	// written; ErrNotFound if the session is absent.
	RecordRead(ctx context.Context, id, path string, st FileStamp) error
	// ReadStamp returns the stamp recorded for path, and whether there is
	// one.
	ReadStamp(ctx context.Context, id, path string) (FileStamp, bool, error)
	// GetBlob returns a value a call stored under key (Effects.Blobs), and
	// whether there is one. Blobs live and die with their session.
	GetBlob(ctx context.Context, id, key string) ([]byte, bool, error)
	// Offers says what else the store can do (see Offers).
	Offers() Offers
	// Close releases the backend. It is called last at shutdown.
	Close() error

	Journal
	TaskLists
	AgentTasks
	Board
	Notifications
}
