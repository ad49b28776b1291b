package shells

import (
	"bytes"
	"os"
	"sync"
	"syscall"
	"time"
)

// State is where a shell is in its life.
type State int

const (
	Running State = iota
	// Completed: bash exited with status 0.
	Completed
	// Failed: bash exited with another status or was killed by a signal
	// it was not sent through Kill.
	Failed
	// Killed: stopped through Kill or because its session closed.
	Killed
)

func (s State) String() string {
	switch s {
	case Running:
		return "running"
	case Completed:
		return "completed"
	case Failed:
		return "failed"
	case Killed:
		return "killed"
	}
	return "unknown"
}

// Info describes a shell.
type Info struct {
	ID string
	// Kind is what started the shell.
	Kind Kind
	// ToolUseID is the call that started it.
	ToolUseID   string
	Command     string
	Description string
	Dir         string
	// PID is bash's process id, which is also its process group id.
	PID   int
	State State
	// ExitCode is bash's exit status once it has ended; a death by signal
	// N counts as 128+N, as bash reports it. -1 while running.
	ExitCode int
	// Signal is the signal that killed bash, once it has ended; 0 when
	// it exited.
	Signal  syscall.Signal
	Started time.Time
	Ended   time.Time
	// OutputBytes counts all the output the shell has written, including
	// any part dropped by the cap.
	OutputBytes int64
}

// shell is one background command.
type shell struct {
	id, command, description, dir string
	toolUseID                     string
	kind                          Kind
	// onEnd, when set, is told how the shell ended, once (Registry.OnEnd).
	onEnd   func(Info)
	pid     int
	proc    Process
	started time.Time
	out     *spool
	// hide is cut from the output: the sandbox's text before the script.
	hide []byte
	// done is closed once bash has been reaped, its group killed and its
	// output collected.
	done chan struct{}

	mu sync.Mutex
	// reaped is set once bash has been waited for: its pid may then be
	// reused, so no signal is sent to it any more.
	reaped   bool
	killing  bool
	state    State
	exitCode int
	signal   syscall.Signal
	ended    time.Time

	// wmu serialises writes to out from the shell's copy goroutines.
	wmu sync.Mutex

	// readMu serialises reads, so that two readers never get the same
	// output; cursor is the offset where the next read starts.
	readMu sync.Mutex
	cursor int64
}

func (sh *shell) info() Info {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	code := sh.exitCode
	if sh.state == Running {
		code = -1
	}
	return Info{
		ID: sh.id, Kind: sh.kind, ToolUseID: sh.toolUseID, Command: sh.command, Description: sh.description, Dir: sh.dir,
		PID: sh.pid, State: sh.state, ExitCode: code, Signal: sh.signal,
		Started: sh.started, Ended: sh.ended, OutputBytes: sh.out.written(),
	}
}

// kill kills the shell's processes (its process group, or all that its
// launcher tracks). It reports false when bash had already ended.
func (sh *shell) kill() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.reaped {
		return false
	}
	sh.killing = true
	sh.proc.Kill()
	return true
}

// copyOutput moves output from one pipe to the spool until every writer
// has closed it (or the pipe is closed under it). onData, when set, sees
// every piece too (a Monitor's standard output). A shell with a separate
// standard output pipe runs two of these, which wmu keeps from writing to
// the spool at once.
func (sh *shell) copyOutput(r *os.File, copied chan<- struct{}, onData func([]byte)) {
	defer close(copied)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p := buf[:n]
			// bash echoes the first line of the script with a syntax
			// error there, text the sandbox put before the command
			// included.
			if len(sh.hide) > 0 && bytes.Contains(p, sh.hide) {
				p = bytes.ReplaceAll(p, sh.hide, nil)
			}
			sh.wmu.Lock()
			sh.out.write(p)
			sh.wmu.Unlock()
			if onData != nil {
				onData(p)
			}
		}
		if err != nil {
			return
		}
	}
}

// pipe is one output pipe of a shell and the signal that its copy is done.
type pipe struct {
	r      *os.File
	copied <-chan struct{}
}

// wait reaps bash, kills what is left of it (a shell ends with its
// command, as a foreground Bash call does), collects the last of the output
// and records how the shell ended.
func (sh *shell) wait(proc Process, pipes []pipe) {
	proc.Wait()
	sh.mu.Lock()
	sh.reaped = true
	sh.mu.Unlock()
	timer := time.NewTimer(pipeGrace)
	for _, p := range pipes {
		select {
		case <-p.copied:
		case <-timer.C:
			// Closing the read ends makes the pending reads fail.
			for _, q := range pipes {
				q.r.Close()
			}
			<-p.copied
		}
	}
	timer.Stop()
	for _, p := range pipes {
		p.r.Close()
	}
	sh.out.finish()
	sh.end(proc)
}

// end records how the shell ended, once bash has been reaped and its
// output collected, and wakes its readers.
func (sh *shell) end(proc Process) {
	code := -1 // bash could not be waited for, which leaves its status unknown
	var sig syscall.Signal
	if status, ok := proc.Status(); ok {
		code = status.ExitStatus()
		if status.Signaled() {
			sig = status.Signal()
			code = 128 + int(sig)
		}
	}
	sh.mu.Lock()
	sh.exitCode, sh.signal = code, sig
	sh.ended = time.Now()
	switch {
	case sh.killing:
		sh.state = Killed
	case code == 0:
		sh.state = Completed
	default:
		sh.state = Failed
	}
	sh.mu.Unlock()
	close(sh.done)
	sh.out.notify()
	if sh.onEnd != nil {
		sh.onEnd(sh.info())
	}
}

// remove deletes the shell's output files. The shell must have ended.
func (sh *shell) remove() error {
	return os.RemoveAll(sh.out.dir)
}
