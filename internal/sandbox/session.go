package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// session is a session's share of the sandbox: its temporary directory
// (HOME and TMPDIR of its commands), and its running commands.
type session struct {
	dir, home, tmp string
	uid, gid       int
	owned          bool

	mu       sync.Mutex
	closed   bool
	prepared map[string]bool
	cmds     map[*Cmd]bool
	// rulesets are the Landlock rulesets built for the session's commands,
	// by their writable directories; a ruleset can be enforced any number
	// of times, and building one opens every directory it names.
	rulesets map[string]*ruleset
}

type ruleset struct {
	fd    int
	flags uint32
	// key names the ruleset to a helper, which keeps a starter per key.
	key string
	// starter is made on the first command toold starts itself.
	starter *starter
}

// errClosed: the session or the launcher was closed.
var errClosed = errors.New("sandbox: closed")

// session returns the session's state, making its directory on first use.
func (l *Launcher) session(id string) (*session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errClosed
	}
	if s := l.sessions[id]; s != nil {
		return s, nil
	}
	// The name is derived, not the id itself, which may hold anything.
	sum := sha256.Sum256([]byte(id))
	dir := filepath.Join(l.stateDir, "s-"+hex.EncodeToString(sum[:12]))
	s := &session{
		dir: dir, home: filepath.Join(dir, "home"), tmp: filepath.Join(dir, "tmp"),
		uid: l.status.UID, gid: l.status.GID, owned: l.status.UserSwitch,
		prepared: make(map[string]bool), cmds: make(map[*Cmd]bool), rulesets: make(map[string]*ruleset),
	}
	for _, d := range []string{s.dir, s.home, s.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("sandbox: session directory: %w", err)
		}
		if s.owned {
			if err := os.Lchown(d, s.uid, s.gid); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("sandbox: session directory: %w", err)
			}
		}
	}
	l.sessions[id] = s
	return s, nil
}

// TempFile makes a file in the session's temporary area that the session's
// commands can write and toold can read, such as the file through which
// the Bash tool learns the shell's final directory. The caller removes it.
func (l *Launcher) TempFile(sessionID, pattern string) (*os.File, error) {
	s, err := l.session(sessionID)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(s.dir, pattern)
	if err != nil {
		return nil, err
	}
	if s.owned {
		if err := f.Chown(s.uid, s.gid); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	return f, nil
}

// prepare makes the session's directories writable for the sandbox user,
// once per directory, by giving it what toold owns there.
func (s *session) prepare(dirs []string) error {
	if !s.owned {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range dirs {
		if s.prepared[d] {
			continue
		}
		if err := chownTree(d, s.uid, s.gid); err != nil {
			return fmt.Errorf("sandbox: making %s writable for the sandbox user: %w", d, err)
		}
		s.prepared[d] = true
	}
	return nil
}

// chownTree hands the entries under root that toold's user owns to uid:gid.
// It does not follow symbolic links, leaves other file systems alone, and
// skips files with more than one link: a hard link to a file outside the
// tree must not give that file away.
func chownTree(root string, uid, gid int) error {
	self := os.Geteuid()
	var dev uint64
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if path == root {
			dev = st.Dev
		} else if st.Dev != dev {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if int(st.Uid) != self || (!d.IsDir() && st.Nlink > 1) {
			return nil
		}
		if err := os.Lchown(path, uid, gid); err != nil && path == root {
			return err
		}
		return nil
	})
}

// ruleset returns the Landlock ruleset for spec, built on first use; fd
// -1 when spec asks for none. The descriptor stays the session's: it is
// closed with the session, after every command that could use it has
// ended.
func (s *session) ruleset(spec *helperSpec) (*ruleset, error) {
	key := strings.Join(spec.WriteDirs, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.rulesets[key]; ok {
		return r, nil
	}
	fd, flags, err := spec.rulesetFD()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(s.dir + "\x00" + key))
	r := &ruleset{fd: fd, flags: flags, key: hex.EncodeToString(sum[:12])}
	s.rulesets[key] = r
	return r, nil
}

// start clones cmd from the ruleset's confined thread, made on first use
// and again after it ended idle.
func (s *session) start(r *ruleset, ports layer, cmd *exec.Cmd) error {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return errClosed
		}
		st := r.starter
		if st == nil {
			var err error
			if st, err = newStarter(layer{r.fd, r.flags}, ports); err != nil {
				s.mu.Unlock()
				return err
			}
			r.starter = st
		}
		s.mu.Unlock()
		err := st.start(cmd)
		if !errors.Is(err, errStarterGone) {
			return err
		}
		s.mu.Lock()
		if r.starter == st {
			r.starter = nil
		}
		s.mu.Unlock()
	}
}

func (s *session) add(c *Cmd) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.cmds[c] = true
	return nil
}

func (s *session) remove(c *Cmd) {
	s.mu.Lock()
	delete(s.cmds, c)
	s.mu.Unlock()
}

// close kills the session's running commands and removes its directory.
func (s *session) close() error {
	s.mu.Lock()
	s.closed = true
	cmds := make([]*Cmd, 0, len(s.cmds))
	for c := range s.cmds {
		cmds = append(cmds, c)
	}
	s.mu.Unlock()
	for _, c := range cmds {
		c.Kill()
	}
	for _, c := range cmds {
		<-c.done
	}
	s.mu.Lock()
	for _, r := range s.rulesets {
		if r.starter != nil {
			r.starter.close()
		}
		if r.fd >= 0 {
			unix.Close(r.fd)
		}
	}
	clear(s.rulesets)
	s.mu.Unlock()
	return os.RemoveAll(s.dir)
}
