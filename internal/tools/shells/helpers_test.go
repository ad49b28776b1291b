package shells

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hangGuard bounds every wait in these tests. It is not a speed
// requirement: a test that needs it has hung.
const hangGuard = time.Minute

func newRegistry(t *testing.T, opts Options) *Registry {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func bashPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	return p
}

// start runs command in a fresh directory and returns the shell and that
// directory.
func start(t *testing.T, r *Registry, session, command string) (Info, string) {
	t.Helper()
	dir := t.TempDir()
	info, err := r.Start(session, Spec{
		Path:    bashPath(t),
		Args:    []string{"bash", "-c", command},
		Dir:     dir,
		Env:     []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		Command: command,
	})
	if err != nil {
		t.Fatal(err)
	}
	return info, dir
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return c
}

// read reads with opts, failing the test on error.
func read(t *testing.T, r *Registry, session, id string, opts ReadOptions) Output {
	t.Helper()
	out, err := r.Read(ctx(t), session, id, opts)
	if err != nil {
		t.Fatalf("Read %s: %v", id, err)
	}
	return out
}

// waitExit reads everything up to the end of the shell.
func waitExit(t *testing.T, r *Registry, session, id string) Output {
	t.Helper()
	out := read(t, r, session, id, ReadOptions{Wait: hangGuard, Until: UntilExit})
	if out.Info.State == Running {
		t.Fatalf("%s still running after %v", id, hangGuard)
	}
	return out
}

// release creates the file a command waits for with waitFor.
func release(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitFor is shell text that waits until the file name exists in the
// command's directory: the test decides when the command goes on.
func waitFor(name string) string {
	return "while [ ! -e " + name + " ]; do sleep 0.01; done; "
}

// groupMembers lists the live (not zombie) processes of process group
// pgid, from /proc.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// The fields after the command name, which is in parentheses and
		// may itself contain them: state, ppid, pgrp, ...
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGroupGone waits until process group pgid has no live member; SIGKILL
// is asynchronous, so members may take a moment to die.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		left := groupMembers(t, pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has live processes %v", pgid, left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGroupSize waits until process group pgid has at least n live
// members, so that a test kills a tree that has been fully started.
func waitGroupSize(t *testing.T, pgid, n int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for len(groupMembers(t, pgid)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d has %v, want %d processes", pgid, groupMembers(t, pgid), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
