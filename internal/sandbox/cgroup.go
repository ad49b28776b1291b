package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupTree is the cgroup v2 directory toold makes per-command cgroups in.
// Its layout under toold's own (delegated) cgroup:
//
//	<own>/                 toold's cgroup, possibly the pod's
//	<own>/toold.server/    toold itself, moved here only when controllers
//	                       must be enabled in <own> (no process may stay
//	                       in a cgroup whose children get controllers)
//	<own>/toold-<pid>/     base: one child per command, c<n>
type cgroupTree struct {
	base string
	// memory and pids say whether memory.max and pids.max can be set in
	// the commands' cgroups.
	memory, pids bool
	// note explains a missing controller, for Status.
	note string
	seq  atomic.Uint64
	// swept counts the directories of dead toolds removed at start.
	swept int
}

// ownCgroupDir finds toold's cgroup v2 directory from /proc/self/cgroup and
// the cgroup2 mount in /proc/self/mountinfo.
func ownCgroupDir() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	rel := ""
	found := false
	for line := range strings.Lines(string(data)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", errors.New("toold is in no cgroup v2 hierarchy (/proc/self/cgroup has no 0:: line)")
	}
	mnt, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	return filepath.Join(mnt, rel), nil
}

// cgroup2Mount returns where the cgroup v2 hierarchy is mounted: on hybrid
// hosts that is /sys/fs/cgroup/unified, not /sys/fs/cgroup.
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// mount ID, parent, major:minor, root, mount point, options,
		// optional fields, "-", fs type, source, super options.
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		if fs := strings.Fields(post); len(fs) > 0 && fs[0] == "cgroup2" {
			if f := strings.Fields(pre); len(f) >= 5 {
				return unescapeMount(f[4]), nil
			}
		}
	}
	return "", errors.New("no cgroup2 file system is mounted")
}

// unescapeMount undoes the octal escapes of mountinfo (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// newCgroupTree makes the base directory under own and enables the memory
// and pids controllers for it where the hierarchy offers them. It fails when
// own is not writable or cgroup.kill is missing (Linux before 5.14): without
// cgroup.kill a cgroup cannot end a command's tree at once.
func newCgroupTree(own string) (*cgroupTree, error) {
	swept := sweepStale(own)
	base := filepath.Join(own, "toold-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("cgroup %s is not writable: %w", own, err)
	}
	if _, err := os.Stat(filepath.Join(base, "cgroup.kill")); err != nil {
		os.Remove(base)
		return nil, fmt.Errorf("cgroup v2 has no cgroup.kill (Linux 5.14 or later is needed): %w", err)
	}
	t := &cgroupTree{base: base, swept: swept}
	t.memory, t.pids, t.note = enableControllers(own, base)
	return t, nil
}

// enableControllers turns on memory and pids for base's children. Each
// level must pass a controller down through cgroup.subtree_control, and
// a non-root cgroup with processes cannot: toold then moves itself into a
// leaf of its own first.
func enableControllers(own, base string) (memory, pids bool, note string) {
	want := []string{"memory", "pids"}
	avail := fieldsOf(filepath.Join(own, "cgroup.controllers"))
	var missing []string
	for _, c := range want {
		if !slices.Contains(avail, c) {
			missing = append(missing, c)
		}
	}
	want = slices.DeleteFunc(want, func(c string) bool { return slices.Contains(missing, c) })
	if len(want) > 0 {
		if err := passDown(own, want); err != nil {
			note = err.Error()
			want = nil
		} else if err := writeControllers(base, want); err != nil {
			note = err.Error()
			want = nil
		}
	}
	if len(missing) > 0 {
		m := fmt.Sprintf("the cgroup v2 hierarchy at %s does not offer the %s controller (on this host it is bound to cgroup v1 or not delegated)", own, strings.Join(missing, " and "))
		note = strings.TrimPrefix(note+"; "+m, "; ")
	}
	return slices.Contains(want, "memory"), slices.Contains(want, "pids"), note
}

// passDown enables the controllers in own's subtree_control, moving toold
// into own/toold.server first when own is not the root and holds toold.
func passDown(own string, ctrls []string) error {
	enabled := fieldsOf(filepath.Join(own, "cgroup.subtree_control"))
	if !slices.ContainsFunc(ctrls, func(c string) bool { return !slices.Contains(enabled, c) }) {
		return nil
	}
	if err := writeControllers(own, ctrls); err == nil {
		return nil
	} else if !errors.Is(err, unix.EBUSY) {
		return err
	}
	leaf := filepath.Join(own, "toold.server")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cannot make a leaf cgroup for toold: %w", err)
	}
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		return fmt.Errorf("cannot move toold into %s: %w", leaf, err)
	}
	if err := writeControllers(own, ctrls); err != nil {
		return fmt.Errorf("other processes share toold's cgroup %s, so it cannot enable controllers for its children: %w", own, err)
	}
	return nil
}

func writeControllers(dir string, ctrls []string) error {
	var b strings.Builder
	for i, c := range ctrls {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("+" + c)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(b.String()), 0); err != nil {
		return fmt.Errorf("enabling %s in %s: %w", b.String(), dir, err)
	}
	return nil
}

// fieldsOf returns the words of a small cgroup file, nil when unreadable.
func fieldsOf(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(data))
}

// commandCgroup is one command's cgroup.
type commandCgroup struct {
	dir string
	fd  int
}

// create makes a fresh cgroup with the limits set and opens it for
// CLONE_INTO_CGROUP.
func (t *cgroupTree) create(l Limits) (*commandCgroup, error) {
	dir := filepath.Join(t.base, "c"+strconv.FormatUint(t.seq.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the command's cgroup: %w", err)
	}
	cg := &commandCgroup{dir: dir, fd: -1}
	set := func(file, value string) error {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
			return fmt.Errorf("setting %s: %w", file, err)
		}
		return nil
	}
	var err error
	if t.memory && l.MemoryMax > 0 {
		err = set("memory.max", strconv.FormatInt(l.MemoryMax, 10))
		// Without this a memory hog would move to swap instead of
		// being stopped; hosts without swap have no such file.
		if err == nil {
			if serr := set("memory.swap.max", "0"); serr != nil && !errors.Is(serr, os.ErrNotExist) {
				err = serr
			}
		}
	}
	if err == nil && t.pids && l.PidsMax > 0 {
		err = set("pids.max", strconv.FormatInt(l.PidsMax, 10))
	}
	if err == nil {
		cg.fd, err = unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

// closeFD drops the directory handle once the command has been cloned.
func (cg *commandCgroup) closeFD() {
	if cg.fd >= 0 {
		unix.Close(cg.fd)
		cg.fd = -1
	}
}

// kill SIGKILLs every process in the cgroup, including those that left the
// process group or session.
func (cg *commandCgroup) kill() error {
	err := os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// remove kills what is left, waits for the cgroup to empty and removes it.
// A cgroup that still has members cannot be removed (EBUSY), so the first
// rmdir also tells whether anything is left to kill: usually nothing is,
// bash having been reaped, and writing cgroup.kill (an open, a write and a
// close) would cost more than the rmdir itself. Dying processes leave
// within milliseconds.
func (cg *commandCgroup) remove() error {
	cg.closeFD()
	err := unix.Rmdir(cg.dir)
	if err == nil || errors.Is(err, syscall.ENOENT) {
		return nil
	}
	if !errors.Is(err, syscall.EBUSY) {
		return fmt.Errorf("removing cgroup %s: %w", cg.dir, err)
	}
	if err := cg.kill(); err != nil {
		return err
	}
	delay := 100 * time.Microsecond
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := unix.Rmdir(cg.dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("removing cgroup %s: %w", cg.dir, err)
		}
		time.Sleep(delay)
		delay = min(2*delay, 10*time.Millisecond)
	}
}

// close removes the base directory; every command cgroup must be gone.
func (t *cgroupTree) close() error {
	err := unix.Rmdir(t.base)
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return err
}
