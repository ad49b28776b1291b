package grep

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/glob/dirfd"
	"github.com/toold/toold/internal/workspace"
)

// nativeBackend searches with Go's regexp engine, walking the workspace
// through dirfd (an os.Root underneath) with ripgrep's rules for what to
// skip.
type nativeBackend struct{}

func (nativeBackend) search(ctx context.Context, env *tool.Env, t *target, q *query, p *pattern) (*results, error) {
	fsys, err := t.dir.FS()
	if err != nil {
		return nil, err
	}
	root, err := dirfd.Open(fsys)
	if err != nil {
		return nil, err
	}
	s := &searcher{p: p, q: q}
	if t.file != "" {
		defer root.Close()
		data, info, err := root.ReadFile(t.file, nil)
		if err != nil {
			return nil, err
		}
		r := &results{}
		if hit := s.search(data, true); hit != nil {
			hit.mtime = info.ModTime.UnixNano()
			r.hits = append(r.hits, hit)
		}
		return r, nil
	}
	w := &walk{
		ctx:  ctx,
		s:    s,
		fsys: fsys,
		pool: dirfd.NewPool(),
	}
	if hidden := env.Hidden; hidden != nil {
		w.hidden = func(rel string) bool { return hidden(t.display(rel)) }
	}
	if len(q.globs) > 0 {
		w.overrides = &ruleSet{}
		for _, g := range q.globs {
			w.overrides.add(g)
		}
	}
	if q.fileType != "" {
		w.types, _ = newTypeFilter(q.fileType)
	}
	w.dir(root, ".", ancestors(env, t.dir))
	w.pool.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &results{hits: w.hits, capped: w.full.Load()}, nil
}

// ancestors loads the ignore files of the directories from the workspace
// directory down to the parent of the search root. Those above the
// workspace are never read.
func ancestors(env *tool.Env, root workspace.Loc) *ignoreNode {
	if root.Rel == "." {
		return nil
	}
	parts := strings.Split(filepath.ToSlash(root.Rel), "/")
	var node *ignoreNode
	for i := range parts {
		loc, err := env.Files.Locate("", filepath.Join(root.Dir, filepath.Join(parts[:i]...)))
		if err != nil {
			continue
		}
		fsys, err := loc.FS()
		if err != nil {
			continue
		}
		present := map[string]bool{}
		for _, n := range ignoreNames {
			if _, err := fs.Stat(fsys, n); err == nil {
				present[n] = true
			}
		}
		node = loadNode(fsSource{fsys}, present, node, "", strings.Join(parts[i:], "/"))
	}
	return node
}

// maxCollected bounds the output text a search holds before it stops.
const maxCollected = 64 << 20

// walk is one parallel search of a directory tree.
type walk struct {
	ctx       context.Context
	s         *searcher
	fsys      fs.FS
	overrides *ruleSet // the glob argument, as rg --glob
	types     *typeFilter
	// hidden, when set, reports the paths (relative to the root) that a
	// Read deny rule hides: hidden files are not read and hidden
	// directories not entered, everything below one being hidden too.
	hidden func(rel string) bool

	// pool bounds the goroutines reading directories.
	pool *dirfd.Pool

	mu        sync.Mutex
	hits      []*fileHit
	collected int
	full      atomic.Bool
}

var readBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooled keeps a huge file's buffer from being held after its search.
const maxPooled = 8 << 20

func (w *walk) stopped() bool { return w.full.Load() || w.ctx.Err() != nil }

// dir searches directory d (rel to the root), which it closes.
func (w *walk) dir(d dirfd.Dir, rel string, node *ignoreNode) {
	defer d.Close()
	if w.stopped() {
		return
	}
	entries, _ := d.ReadDir()
	present := map[string]bool{}
	for _, e := range entries {
		for _, n := range ignoreNames {
			if e.Name == n {
				present[n] = true
			}
		}
	}
	if len(present) > 0 {
		node = loadNode(&dirSource{d: d, entries: entries, fsys: w.fsys, rel: rel}, present, node, rel, "")
	}
	for _, e := range entries {
		if w.stopped() {
			return
		}
		isDir := e.Type.IsDir()
		if (!isDir && !e.Type.IsRegular()) || vcsDirs[e.Name] {
			continue // symbolic links, devices, FIFOs; VCS metadata
		}
		p := join(rel, e.Name)
		if !w.include(p, e.Name, isDir, node) || (w.hidden != nil && w.hidden(p)) {
			continue
		}
		if isDir {
			if sub, err := d.OpenDir(e.Name); err == nil {
				w.spawn(sub, p, node)
			}
			continue
		}
		w.file(d, p, e.Name)
	}
}

// include applies, in ripgrep's order: the glob argument (its verdict is
// final), the ignore files, then the file type.
func (w *walk) include(p, name string, isDir bool, node *ignoreNode) bool {
	if w.overrides != nil {
		// A glob selects what it matches and "!glob" excludes it: the
		// reverse of an ignore file.
		switch w.overrides.match(p, name, isDir) {
		case ignored:
			return true
		case whitelisted:
			return false
		}
		if w.overrides.positives > 0 && !isDir {
			return false
		}
	}
	if node != nil && node.match(p, name, isDir) == ignored {
		return false
	}
	return isDir || w.types == nil || w.types.matches(name)
}

func (w *walk) spawn(d dirfd.Dir, rel string, node *ignoreNode) {
	w.pool.Go(func() { w.dir(d, rel, node) })
}

func (w *walk) file(d dirfd.Dir, p, name string) {
	f, err := d.OpenFile(name)
	if err != nil {
		return
	}
	bp := readBufs.Get().(*[]byte)
	data, binary, err := readText(f, *bp)
	mtime := f.Info().ModTime.UnixNano()
	f.Close()
	var hit *fileHit
	if err == nil && !binary {
		hit = w.s.search(data, false)
	}
	if cap(data) <= maxPooled {
		*bp = data[:0]
	} else {
		*bp = nil
	}
	readBufs.Put(bp)
	if hit == nil {
		return
	}
	hit.rel = p
	hit.mtime = mtime
	size := len(p) + 16
	for _, l := range hit.lines {
		size += len(l.text) + len(p) + 16
	}
	w.mu.Lock()
	w.hits = append(w.hits, hit)
	w.collected += size
	if w.collected > maxCollected {
		w.full.Store(true)
	}
	w.mu.Unlock()
}

// readText reads a file into buf, checking its first 64 KiB for binary
// content before reading on: a large binary file costs one read. It
// returns the buffer (reallocated if it had to grow) in any case.
func readText(f dirfd.File, buf []byte) (data []byte, binary bool, err error) {
	if want := int(f.Info().Size) + 1; cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	checked := false
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		limit := cap(buf)
		if !checked {
			limit = min(limit, binaryWindow)
		}
		n, err := f.Read(buf[len(buf):limit])
		buf = buf[:len(buf)+n]
		eof := err == io.EOF
		if err != nil && !eof {
			return buf, false, err
		}
		if !checked && (len(buf) >= binaryWindow || eof) {
			checked = true
			if bytes.IndexByte(decodeBOM(buf), 0) >= 0 {
				return buf, true, nil
			}
		}
		if eof {
			return buf, false, nil
		}
	}
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
