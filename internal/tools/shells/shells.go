// Package shells keeps the background shells of each session: commands the
// Bash tool started with run_in_background, their output on disk, their
// status, and the means to read and stop them. A shell belongs to the
// session that started it; to any other session it does not exist.
package shells

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

const (
	// DefaultMaxOutputBytes is the output kept per shell when Options
	// leaves it unset.
	DefaultMaxOutputBytes = 16 << 20
	// DefaultMaxShells is how many shells a session keeps when Options
	// leaves it unset.
	DefaultMaxShells = 32
	// pipeGrace is how long a shell's output is still collected after bash
	// and its process group are gone, from processes that left the group
	// (setsid) while holding the output open.
	pipeGrace = 250 * time.Millisecond
)

var (
	// ErrNotFound: no shell of that id in that session. A shell of another
	// session gets the same error.
	// It is a kind of fs.ErrNotExist: no such task means no such output
	// file.
	ErrNotFound = fmt.Errorf("shells: no such shell: %w", fs.ErrNotExist)
	// ErrNotRunning: the shell has already ended.
	ErrNotRunning = errors.New("shells: shell is not running")
	// ErrLimit: the session has as many running shells as it may keep.
	ErrLimit = errors.New("shells: too many background shells")
	// ErrClosed: the registry has been closed.
	ErrClosed = errors.New("shells: registry closed")
)

// Options configure a Registry. The zero value is ready to use.
type Options struct {
	// Dir is where the registry makes its private directory for output
	// files. Empty: os.TempDir().
	Dir string
	// MaxOutputBytes caps the output kept on disk per shell; past it the
	// oldest part is dropped. Zero: DefaultMaxOutputBytes.
	MaxOutputBytes int64
	// MaxShells bounds the shells one session keeps, running or ended.
	// When a new shell would pass it the oldest ended shell is forgotten;
	// when all are running the start fails with ErrLimit. Zero:
	// DefaultMaxShells.
	MaxShells int
}

// Registry holds the background shells of every session. It is safe for
// concurrent use.
type Registry struct {
	dir       string
	capBytes  int64
	maxShells int

	mu       sync.Mutex
	closed   bool
	sessions map[string]map[string]*shell
	onEnd    func(sessionID string, info Info)
}

// OnEnd sets the function told, once, how each shell ended (its Info, with
// State final), after its output is complete: a Bash command's end is a
// notification for the model. It runs on the goroutine that waited for
// the shell, which it should not hold for long.
func (r *Registry) OnEnd(fn func(sessionID string, info Info)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onEnd = fn
}

// endHook is what a shell of the session calls when it ends.
func (r *Registry) endHook(sessionID string) func(Info) {
	return func(info Info) {
		r.mu.Lock()
		fn := r.onEnd
		r.mu.Unlock()
		if fn != nil {
			fn(sessionID, info)
		}
	}
}

// New makes the registry's private directory (mode 0700) under opts.Dir.
func New(opts Options) (*Registry, error) {
	if opts.MaxOutputBytes < 0 || opts.MaxShells < 0 {
		return nil, fmt.Errorf("shells: negative limits")
	}
	dir, err := os.MkdirTemp(opts.Dir, "toold-shells-")
	if err != nil {
		return nil, fmt.Errorf("shells: output directory: %w", err)
	}
	r := &Registry{
		dir:       dir,
		capBytes:  orDefault(opts.MaxOutputBytes, DefaultMaxOutputBytes),
		maxShells: int(orDefault(int64(opts.MaxShells), DefaultMaxShells)),
		sessions:  make(map[string]map[string]*shell),
	}
	return r, nil
}

// orDefault returns v, or def when v is zero.
func orDefault(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// lookup finds a shell of a session.
func (r *Registry) lookup(sessionID, id string) (*shell, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sh, ok := r.sessions[sessionID][id]; ok {
		return sh, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
}

// Status reports a shell's state without reading its output.
func (r *Registry) Status(sessionID, id string) (Info, error) {
	sh, err := r.lookup(sessionID, id)
	if err != nil {
		return Info{}, err
	}
	return sh.info(), nil
}

// Done returns a channel closed once the shell has ended and its output
// is final.
func (r *Registry) Done(sessionID, id string) (<-chan struct{}, error) {
	sh, err := r.lookup(sessionID, id)
	if err != nil {
		return nil, err
	}
	return sh.done, nil
}

// List returns a session's shells, oldest first.
func (r *Registry) List(sessionID string) []Info {
	r.mu.Lock()
	list := make([]*shell, 0, len(r.sessions[sessionID]))
	for _, sh := range r.sessions[sessionID] {
		list = append(list, sh)
	}
	r.mu.Unlock()
	out := make([]Info, len(list))
	for i, sh := range list {
		out[i] = sh.info()
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Kill stops a running shell: its whole process group is killed, and Kill
// returns once bash has been reaped and its output collected. The shell
// stays listed, with its output readable, until its session closes.
func (r *Registry) Kill(ctx context.Context, sessionID, id string) (Info, error) {
	sh, err := r.lookup(sessionID, id)
	if err != nil {
		return Info{}, err
	}
	if !sh.kill() {
		// bash has exited; its state is final once done is closed, a
		// moment later.
		<-sh.done
		return sh.info(), fmt.Errorf("%w: %s is %s", ErrNotRunning, id, sh.info().State)
	}
	select {
	case <-sh.done:
		return sh.info(), nil
	case <-ctx.Done():
		return sh.info(), ctx.Err()
	}
}

// CloseSession kills every shell of a session, waits for them to end and
// removes their output. Call it when the session is deleted or expires.
func (r *Registry) CloseSession(sessionID string) error {
	r.mu.Lock()
	sess := r.sessions[sessionID]
	delete(r.sessions, sessionID)
	r.mu.Unlock()
	return discard(sess)
}

// Close kills every shell of every session, removes all output and makes
// later starts fail with ErrClosed. Call it on shutdown.
func (r *Registry) Close() error {
	r.mu.Lock()
	r.closed = true
	all := r.sessions
	r.sessions = make(map[string]map[string]*shell)
	r.mu.Unlock()
	var errs []error
	for _, sess := range all {
		errs = append(errs, discard(sess))
	}
	errs = append(errs, os.RemoveAll(r.dir))
	return errors.Join(errs...)
}

// discard kills the shells (all first, so that they die together), waits
// for them and removes their files.
func discard(sess map[string]*shell) error {
	for _, sh := range sess {
		sh.kill()
	}
	var errs []error
	for _, sh := range sess {
		<-sh.done
		errs = append(errs, sh.remove())
	}
	return errors.Join(errs...)
}

// Unknown is the message for a shell id the session does not have: it
// lists the session's own shells, and nothing of any other session.
func (r *Registry) Unknown(sessionID, id string) string {
	list := r.List(sessionID)
	if len(list) == 0 {
		return fmt.Sprintf("No background shell with ID %s: this session has none.", id)
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.ID + " (" + s.State.String() + ")"
	}
	return fmt.Sprintf("No background shell with ID %s. This session's shells: %s.", id, strings.Join(names, ", "))
}
