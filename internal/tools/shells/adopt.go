package shells

import (
	"fmt"
	"sync"
	"time"
)

// Adopted is a command that was started elsewhere (a foreground Bash call
// that outlived its timeout) and is handed to the registry while it runs.
// From then on it is a shell like any other: listed, readable, killable,
// and killed with its session or on shutdown.
type Adopted struct {
	// Command, Description and Dir are kept for listings and messages.
	Command     string
	Description string
	Dir         string
	// ToolUseID is the call that started the command, for its
	// notification.
	ToolUseID string
	// Process has been started by the caller, who also waits for it.
	Process Process
	// Started is when the command started.
	Started time.Time
	// Output is what the command wrote before it was adopted; it opens
	// the shell's output.
	Output []byte
	// Exited is closed once Process.Wait has returned: bash has been
	// reaped, its group killed and its output pipes drained.
	Exited <-chan struct{}
	// OnEnd, when set, is called once the shell has ended (cleanup of the
	// caller's per-call files).
	OnEnd func()
}

// Adopt registers a running command as a background shell of the session.
// It returns the shell's Info and the writer the rest of the command's
// output must go to (safe for concurrent use; writes after the command has
// ended are dropped). On an error the command is not adopted and stays the
// caller's.
func (r *Registry) Adopt(sessionID string, a Adopted) (Info, *Sink, error) {
	if a.Process == nil || a.Exited == nil {
		return Info{}, nil, fmt.Errorf("shells: nothing to adopt")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return Info{}, nil, ErrClosed
	}
	sess := r.sessions[sessionID]
	if len(sess) >= r.maxShells && !r.evictLocked(sess) {
		return Info{}, nil, fmt.Errorf("%w: this session already has %d running", ErrLimit, len(sess))
	}
	id, dir, err := r.makeDir()
	if err != nil {
		return Info{}, nil, err
	}
	pid := 0
	if cmd := a.Process.Exec(); cmd != nil && cmd.Process != nil {
		pid = cmd.Process.Pid
	}
	started := a.Started
	if started.IsZero() {
		started = time.Now()
	}
	sh := &shell{
		id: id, command: a.Command, description: a.Description, dir: a.Dir,
		toolUseID: a.ToolUseID, onEnd: r.endHook(sessionID),
		pid:     pid,
		proc:    a.Process,
		started: started,
		out:     newSpool(dir, r.capBytes),
		done:    make(chan struct{}),
	}
	sink := &Sink{sh: sh}
	if len(a.Output) > 0 {
		sh.out.write(a.Output)
	}
	if sess == nil {
		sess = make(map[string]*shell)
		r.sessions[sessionID] = sess
	}
	sess[id] = sh
	go sh.waitAdopted(a.Exited, sink, a.OnEnd)
	return sh.info(), sink, nil
}

// Sink is where an adopted command's output goes.
type Sink struct {
	mu     sync.Mutex
	sh     *shell
	closed bool
}

// Write appends p to the shell's output. It never fails, so that the
// command's writers never block or stop.
func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && len(p) > 0 {
		s.sh.out.write(p)
	}
	return len(p), nil
}

func (s *Sink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// waitAdopted waits for the adopted command to end and records how it
// ended, as wait does for a shell the registry started.
func (sh *shell) waitAdopted(exited <-chan struct{}, sink *Sink, onEnd func()) {
	<-exited
	sh.mu.Lock()
	sh.reaped = true
	sh.mu.Unlock()
	sink.close()
	sh.out.finish()
	sh.end(sh.proc)
	if onEnd != nil {
		onEnd()
	}
}
