package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exit statuses of a helper that could not start the command, as a shell
// reports a command it cannot run.
const (
	exitSetup    = 126
	exitNotFound = 127
)

// HelperMain is the hidden subcommand `toold sandbox-exec`. toold must call
// it before it parses flags or starts anything else, and exit with its
// result.
//
// toold needs it only where no cgroup can hold a command, and starts it
// before a command needs it (see warmPool). The helper is a child
// subreaper: a process that a command orphans (double fork, setsid) is
// re-parented to the helper rather than to toold, so it stays attributed
// to that command. The helper stays toold's user and unconfined, so that a
// command switched to another user cannot kill it (it runs no code but
// this), and serves one command at a time over the socket on descriptor
// 3: it starts bash confined as the request says, as toold does where
// cgroups exist, waits for it, kills every process left under it and sends
// back bash's wait status. It exits when toold closes the socket or goes
// away.
func HelperMain(args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(os.Stderr, "toold sandbox-exec: internal command of toold; not for direct use")
		return exitSetup
	}
	// One command at a time: a second processor would only let idle
	// threads spin looking for work at every handoff.
	runtime.GOMAXPROCS(1)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return setupFailed(os.Stderr, fmt.Errorf("becoming a child subreaper: %w", err))
	}
	if err := watchParent(); err != nil {
		return setupFailed(os.Stderr, fmt.Errorf("watching toold: %w", err))
	}
	// Signals meant for the command's group reach the helper too; it must
	// outlive the command to clean up after it.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	// FileConn works on a duplicate; descriptor 3 itself must not reach
	// bash.
	f := os.NewFile(3, "toold")
	sock, err := net.FileConn(f)
	f.Close()
	conn, ok := sock.(*net.UnixConn)
	if err != nil || !ok {
		return setupFailed(os.Stderr, fmt.Errorf("no connection to toold on descriptor 3: %v", err))
	}
	starters := make(starterCache)
	for {
		req, files, err := receiveRequest(conn)
		if errors.Is(err, io.EOF) {
			return 0 // toold closed the pool or ended
		}
		if err != nil {
			// toold and the helper no longer agree on the protocol.
			out := io.Writer(os.Stderr)
			if files.stdio[2] != nil {
				out = files.stdio[2]
			}
			return setupFailed(out, err)
		}
		status := run(req, files, starters)
		if _, err := conn.Write(binary.BigEndian.AppendUint32(nil, uint32(status))); err != nil {
			return exitSetup
		}
	}
}

// run runs one command and returns its wait status once every process it
// left is gone.
func run(req *helperRequest, files helperFiles, starters starterCache) syscall.WaitStatus {
	stdio := files.stdio
	defer func() {
		for _, f := range stdio {
			f.Close()
		}
		for _, fd := range []int{files.ruleset, files.ports} {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	spec := &req.Spec
	cmd := &exec.Cmd{
		Path: spec.Path, Args: req.Args, Env: req.Env, Dir: req.Dir,
		Stdin: stdio[0], Stdout: stdio[1], Stderr: stdio[2],
		SysProcAttr: &syscall.SysProcAttr{Credential: spec.credential()},
	}
	if err := starters.start(req, files.layers(req), cmd); err != nil {
		fmt.Fprintf(stdio[2], "bash: %s: %v\n", spec.Path, err)
		if errors.Is(err, syscall.ENOENT) {
			return exitNotFound << 8
		}
		return exitSetup << 8
	}
	// bash has its own copies; toold's reader sees the end of the output
	// when the command's processes are gone, not when the helper is.
	for _, f := range stdio {
		f.Close()
	}
	cmd.Wait()
	killDescendants()
	status, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return status
}

func setupFailed(w io.Writer, err error) int {
	fmt.Fprintln(w, "toold sandbox-exec: the command was not started:", err)
	return exitSetup
}

// starterCache holds a helper's confined threads by ruleset key. A helper
// serves commands of any session, one at a time; a few sessions' threads
// are kept, and past that one is ended to make room.
type starterCache map[string]*starter

const maxHelperStarters = 8

func (sc starterCache) start(req *helperRequest, layers []layer, cmd *exec.Cmd) error {
	if req.RulesetKey == "" {
		return startConfined(cmd, layers...)
	}
	if s := sc[req.RulesetKey]; s != nil {
		if err := s.start(cmd); !errors.Is(err, errStarterGone) {
			return err
		}
		// It ended idle; a new one takes its place.
		delete(sc, req.RulesetKey)
	}
	if len(sc) >= maxHelperStarters {
		for k, old := range sc {
			old.close()
			delete(sc, k)
			break
		}
	}
	s, err := newStarter(layers...)
	if err != nil {
		return err
	}
	sc[req.RulesetKey] = s
	return s.start(cmd)
}
