package shells

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/toold/toold/internal/procgroup"
)

// Spec is what to start.
type Spec struct {
	// Path is the program (bash) and Args its argv, Args[0] included.
	Path string
	Args []string
	// Dir is the working directory; Env the whole environment (nil means
	// empty, never toold's own).
	Dir string
	Env []string
	// Command and Description are kept for listings and messages.
	Command     string
	Description string
	// Kind is what starts the shell (Bash by default).
	Kind Kind
	// ToolUseID is the call that started the shell, for its notification.
	ToolUseID string
	// OnStdout, when set, gets the command's standard output as it
	// arrives, from a pipe of its own (standard error then goes to the
	// spool only); it must not block, and must copy what it keeps. Nil:
	// standard output and error share one pipe.
	OnStdout func([]byte)
	// Process, when set, is the command prepared by a launcher (the
	// sandbox), which then starts, waits for and kills it; Path, Args,
	// Dir and Env are not used. Nil: the shell runs Path itself in a
	// process group of its own.
	Process Process
}

// Process is a command prepared by a launcher that confines it and keeps
// track of all of its processes.
type Process interface {
	// Exec is the command to give its output; Start and Wait are called
	// on the Process, not on it.
	Exec() *exec.Cmd
	Start() error
	// Wait waits for the command and kills whatever it left behind.
	Wait() error
	// Kill kills every process of the command.
	Kill() error
	// Status is the command's wait status once Wait has returned; false
	// when it could not be waited for.
	Status() (syscall.WaitStatus, bool)
}

// Start runs spec in its own process group with standard input empty and
// standard output and error going, interleaved, to the shell's spool. It
// returns at once.
func (r *Registry) Start(sessionID string, spec Spec) (Info, error) {
	if spec.Process == nil && (spec.Path == "" || len(spec.Args) == 0) {
		return Info{}, errors.New("shells: no program to start")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return Info{}, ErrClosed
	}
	sess := r.sessions[sessionID]
	if len(sess) >= r.maxShells && !r.evictLocked(sess) {
		return Info{}, fmt.Errorf("%w: this session already has %d running", ErrLimit, len(sess))
	}
	id, dir, err := r.makeDir()
	if err != nil {
		return Info{}, err
	}
	sh, err := startShell(id, dir, r.capBytes, spec, r.endHook(sessionID))
	if err != nil {
		os.RemoveAll(dir)
		return Info{}, err
	}
	if sess == nil {
		sess = make(map[string]*shell)
		r.sessions[sessionID] = sess
	}
	sess[id] = sh
	return sh.info(), nil
}

// evictLocked forgets the session's shell that ended first, to make room.
// It reports false when every shell is still running.
func (r *Registry) evictLocked(sess map[string]*shell) bool {
	var oldest *shell
	var oldestEnd time.Time
	for _, sh := range sess {
		info := sh.info()
		if info.State == Running {
			continue
		}
		if oldest == nil || info.Ended.Before(oldestEnd) {
			oldest, oldestEnd = sh, info.Ended
		}
	}
	if oldest == nil {
		return false
	}
	delete(sess, oldest.id)
	oldest.remove()
	return true
}

// makeDir picks a fresh id and makes the shell's output directory.
func (r *Registry) makeDir() (string, string, error) {
	for {
		var b [6]byte
		rand.Read(b[:])
		id := "bash_" + hex.EncodeToString(b[:])
		dir := filepath.Join(r.dir, id)
		err := os.Mkdir(dir, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("shells: output directory: %w", err)
		}
		return id, dir, nil
	}
}

func startShell(id, dir string, capBytes int64, spec Spec, ended func(Info)) (*shell, error) {
	env := spec.Env
	if env == nil {
		// A nil Env would hand toold's own environment to the command.
		env = []string{}
	}
	pr, pw, err := procgroup.Pipe()
	if err != nil {
		return nil, fmt.Errorf("shells: output pipe: %w", err)
	}
	var outR, outW *os.File
	if spec.OnStdout != nil {
		if outR, outW, err = procgroup.Pipe(); err != nil {
			pr.Close()
			pw.Close()
			return nil, fmt.Errorf("shells: output pipe: %w", err)
		}
	}
	proc := spec.Process
	if proc == nil {
		cmd := &exec.Cmd{Path: spec.Path, Args: spec.Args, Dir: spec.Dir, Env: env}
		procgroup.Prepare(cmd, 0)
		proc = GroupProcess(cmd)
	}
	cmd := proc.Exec()
	cmd.Stdout, cmd.Stderr = pw, pw
	if outW != nil {
		cmd.Stdout = outW
	}
	err = proc.Start()
	// The child holds its own copy of the write end; ours must go so that
	// the read end sees EOF when the last process writing to it ends.
	pw.Close()
	if outW != nil {
		outW.Close()
	}
	if err != nil {
		pr.Close()
		if outR != nil {
			outR.Close()
		}
		return nil, err
	}
	sh := &shell{
		id: id, command: spec.Command, description: spec.Description, dir: spec.Dir, kind: spec.Kind,
		toolUseID: spec.ToolUseID, onEnd: ended,
		hide:    scriptPrefix(proc),
		pid:     cmd.Process.Pid,
		started: time.Now(),
		out:     newSpool(dir, capBytes),
		done:    make(chan struct{}),
	}
	copied := make(chan struct{})
	go sh.copyOutput(pr, copied, nil)
	pipes := []pipe{{pr, copied}}
	if outR != nil {
		outCopied := make(chan struct{})
		go sh.copyOutput(outR, outCopied, spec.OnStdout)
		pipes = append(pipes, pipe{outR, outCopied})
	}
	sh.proc = proc
	go sh.wait(proc, pipes)
	return sh, nil
}

// GroupProcess is cmd, made ready by procgroup.Prepare, as a Process: a
// process group of its own, which is what Kill kills and what Wait kills
// the rest of once bash has been reaped.
func GroupProcess(cmd *exec.Cmd) Process { return groupProcess{cmd: cmd} }

// DrainedGroupProcess is GroupProcess whose Wait calls drain once bash has
// been reaped, before the rest of its group is killed (procgroup.WaitDrain):
// for a caller that reads the command's output through pipes of its own.
func DrainedGroupProcess(cmd *exec.Cmd, drain func() error) Process {
	return groupProcess{cmd: cmd, drain: drain}
}

type groupProcess struct {
	cmd   *exec.Cmd
	drain func() error
}

func (g groupProcess) Exec() *exec.Cmd                    { return g.cmd }
func (g groupProcess) Start() error                       { return procgroup.Start(g.cmd) }
func (g groupProcess) Wait() error                        { return procgroup.WaitDrain(g.cmd, g.drain) }
func (g groupProcess) Kill() error                        { return procgroup.Kill(g.cmd.Process.Pid) }
func (g groupProcess) Status() (syscall.WaitStatus, bool) { return procgroup.Status(g.cmd) }

// scriptPrefix is the text the sandbox put before the command's script.
func scriptPrefix(proc Process) []byte {
	if sp, ok := proc.(interface{ ScriptPrefix() string }); ok {
		return []byte(sp.ScriptPrefix())
	}
	return nil
}
