package shells

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
)

func outputFile(t *testing.T, r *Registry, session, id string) string {
	t.Helper()
	rd, size, err := r.OpenOutput(session, id)
	if err != nil {
		t.Fatalf("OpenOutput %s: %v", id, err)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != size {
		t.Errorf("OpenOutput said %d bytes, read %d", size, len(b))
	}
	return string(b)
}

// TestOutputFileEndsWithHowTheTaskEnded: the output file is the output,
// then, once the command has ended, Claude Code's last line.
func TestOutputFileEndsWithHowTheTaskEnded(t *testing.T) {
	r := newRegistry(t, Options{})
	for cmd, want := range map[string]string{
		"echo out; echo err >&2": "out\nerr\n\n[exited with code 0]\n",
		"printf 'no newline'":    "no newline\n[exited with code 0]\n",
		"echo x; exit 3":         "x\n\n[exited with code 3]\n",
		"true":                   "\n[exited with code 0]\n",
	} {
		info, _ := start(t, r, "s1", cmd)
		waitExit(t, r, "s1", info.ID)
		if got := outputFile(t, r, "s1", info.ID); got != want {
			t.Errorf("%s: output file %q, want %q", cmd, got, want)
		}
	}
}

func TestOutputFileWhileRunningAndKilled(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "echo hello; exec sleep 300")
	read(t, r, "s1", info.ID, ReadOptions{Wait: hangGuard})
	if got := outputFile(t, r, "s1", info.ID); got != "hello\n" {
		t.Fatalf("while running: %q", got)
	}
	if _, err := r.Kill(ctx(t), "s1", info.ID); err != nil {
		t.Fatal(err)
	}
	if got := outputFile(t, r, "s1", info.ID); got != "hello\n\n[killed]\n" {
		t.Fatalf("after a kill: %q", got)
	}
}

// TestOutputFileDoesNotMoveTheReadPosition: reading the output file leaves
// the output new to TaskOutput.
func TestOutputFileDoesNotMoveTheReadPosition(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "echo twice")
	sh, err := r.lookup("s1", info.ID)
	if err != nil {
		t.Fatal(err)
	}
	<-sh.done
	for range 2 {
		if got := outputFile(t, r, "s1", info.ID); got != "twice\n\n[exited with code 0]\n" {
			t.Fatalf("output file %q", got)
		}
	}
	if out := waitExit(t, r, "s1", info.ID); out.Text != "twice\n" {
		t.Fatalf("TaskOutput after reading the file: %q", out.Text)
	}
}

func TestOutputFileOfAnotherSession(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _ := start(t, r, "s1", "echo secret")
	waitExit(t, r, "s1", info.ID)
	_, _, err := r.OpenOutput("s2", info.ID)
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("another session's output file: %v", err)
	}
	if _, _, err := r.OpenOutput("s1", "bash_000000000000"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("an unknown task's output file: %v", err)
	}
}

func TestOutputFileSaysWhatTheCapDropped(t *testing.T) {
	r := newRegistry(t, Options{MaxOutputBytes: 4096})
	info, _ := start(t, r, "s1", "for i in $(seq 1 2000); do echo line $i; done")
	waitExit(t, r, "s1", info.ID)
	got := outputFile(t, r, "s1", info.ID)
	first, rest, _ := strings.Cut(got, "\n")
	if !strings.HasPrefix(first, "[") || !strings.Contains(first, "bytes of earlier output were dropped") {
		t.Fatalf("first line %q", first)
	}
	if !strings.HasSuffix(rest, "line 2000\n\n[exited with code 0]\n") || len(rest) > 4096+64 {
		t.Fatalf("kept %d bytes ending %q", len(rest), rest[max(0, len(rest)-40):])
	}
}
