package shells

import (
	"bytes"
	"fmt"
	"io"
)

// Kind is what started a shell: it decides who tells the model of its end
// (the registry's OnEnd for a Bash command, the Monitor for its own).
type Kind int

const (
	// KindBash: a Bash command run in the background or moved there.
	KindBash Kind = iota
	// KindMonitor: a Monitor's command.
	KindMonitor
)

// TaskType is Claude Code's name of the kind in TaskStop's result:
// local_bash for both, a Monitor's command being a shell too (recorded
// with 2.1.332, test/conformance/recorded_notifications.json).
func (k Kind) TaskType() string { return "local_bash" }

// OpenOutput returns the shell's output file as Read shows it: the output
// kept so far (standard output and error in the order written), with a
// first line saying how much the cap dropped, if it dropped anything, and,
// once the shell has ended, a last line saying how, as Claude Code ends a
// task's output file ("[exited with code 0]", "[killed]"). size is the
// length when opened; a read returns at most that. Reading it does not move
// the position TaskOutput reads from.
func (r *Registry) OpenOutput(sessionID, id string) (rd io.Reader, size int64, err error) {
	sh, err := r.lookup(sessionID, id)
	if err != nil {
		return nil, 0, err
	}
	// Whether it has ended is taken first: the output of an ended shell is
	// final, so the trailer then follows all of it.
	ended := isClosed(sh.done)
	v := sh.out.snapshot()
	var head, tail []byte
	if v.oldest > 0 {
		head = fmt.Appendf(nil, "[%d bytes of earlier output were dropped: only the newest part is kept]\n", v.oldest)
	}
	if ended {
		tail = fmt.Appendf(nil, "\n[%s]\n", endNote(sh.info()))
	}
	body := sh.out.reader(v, v.oldest, v.total)
	size = int64(len(head)) + v.total - v.oldest + int64(len(tail))
	return io.MultiReader(bytes.NewReader(head), body, bytes.NewReader(tail)), size, nil
}

// endNote says how a shell ended, in the words of Claude Code's output
// files where it has them.
func endNote(info Info) string {
	switch {
	case info.State == Killed:
		return "killed"
	case info.Signal != 0:
		return KilledBy(info.Signal)
	}
	return fmt.Sprintf("exited with code %d", info.ExitCode)
}
