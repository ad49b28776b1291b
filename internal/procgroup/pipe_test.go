package procgroup

import (
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The write end of Pipe stays blocking (so it is not in Go's poller) and
// the read end does not (so a read parks the goroutine); neither reaches
// a child through exec other than as the output it is given.
func TestPipeEnds(t *testing.T) {
	r, w, err := Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, c := range []struct {
		name        string
		fd          uintptr
		nonblocking bool
	}{{"read end", r.Fd(), true}, {"write end", w.Fd(), false}} {
		fl, err := unix.FcntlInt(c.fd, unix.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := fl&unix.O_NONBLOCK != 0; got != c.nonblocking {
			t.Errorf("%s: O_NONBLOCK %v, want %v", c.name, got, c.nonblocking)
		}
		fd, err := unix.FcntlInt(c.fd, unix.F_GETFD, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fd&unix.FD_CLOEXEC == 0 {
			t.Errorf("%s: not close-on-exec", c.name)
		}
	}
}

// WaitDrain drains between the reap and the kill: a process that bash
// left in its group can still finish writing to the pipe while drain
// reads it, and is killed after.
func TestWaitDrainReadsBeforeTheGroupIsKilled(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	r, w, err := Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", "(sleep 0.05; echo late; exec sleep 1000) & echo $!")
	cmd.Stdout = w
	Prepare(cmd, 0)
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var out []byte
	err = WaitDrain(cmd, func() error {
		// Until "late" has come: the writer is alive until the kill.
		for !strings.Contains(string(out), "late\n") {
			buf := make([]byte, 512)
			n, err := r.Read(buf)
			out = append(out, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r) // EOF: the kill ended the sleep holding the pipe
	r.Close()
	lines := strings.Fields(string(out) + string(rest))
	if len(lines) != 2 || lines[1] != "late" {
		t.Fatalf("output %q, want the background pid then late", lines)
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}
