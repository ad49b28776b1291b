package glob

import (
	"context"
	"sync"

	"github.com/toold/toold/internal/tools/glob/dirfd"
)

// walker lists the files below a directory that a matcher accepts,
// reading directories in parallel. Directories are opened through dirfd,
// which cannot leave the workspace; symbolic links are neither listed nor
// entered.
type walker struct {
	ctx context.Context
	m   *matcher
	// hidden, when set, reports the paths (relative to the root) that a
	// Read deny rule hides: hidden files are not listed and hidden
	// directories not entered, everything below one being hidden too.
	hidden func(rel string) bool
	// pool bounds the goroutines reading directories.
	pool *dirfd.Pool

	mu  sync.Mutex
	top topK
}

func newWalker(ctx context.Context, m *matcher, keep int) *walker {
	return &walker{
		ctx:  ctx,
		m:    m,
		pool: dirfd.NewPool(),
		top:  topK{max: keep},
	}
}

// run walks the tree below root, closes it, and returns what it kept.
func (w *walker) run(root dirfd.Dir) *topK {
	w.dir(root, ".", nil, w.m.root())
	w.pool.Wait()
	return &w.top
}

// dir walks d, which it closes.
func (w *walker) dir(d dirfd.Dir, rel string, order []int32, st int) {
	defer d.Close()
	if w.ctx.Err() != nil {
		return
	}
	// Unreadable directories are skipped, as ripgrep does.
	entries, _ := d.ReadDir()
	var found []match
	at := func(i int) []int32 {
		o := make([]int32, len(order)+1)
		copy(o, order)
		o[len(order)] = int32(i)
		return o
	}
	for i, e := range entries {
		switch {
		case e.Type.IsDir():
			if cst, ok := w.m.descend(st, e.Name); ok {
				p := join(rel, e.Name)
				if w.hidden != nil && w.hidden(p) {
					continue
				}
				if sub, err := d.OpenDir(e.Name); err == nil {
					w.spawn(sub, p, at(i), cst)
				}
			}
		case e.Type.IsRegular():
			p := join(rel, e.Name)
			if !w.m.file(st, p, e.Name) || (w.hidden != nil && w.hidden(p)) {
				continue
			}
			// Only matches are stat'ed, for their modification time.
			if info, err := d.Lstat(e.Name); err == nil && info.Mode.IsRegular() {
				found = append(found, match{rel: p, mtime: info.ModTime.UnixNano(), order: at(i)})
			}
		}
	}
	if len(found) > 0 {
		w.mu.Lock()
		for _, f := range found {
			w.top.add(f)
		}
		w.mu.Unlock()
	}
}

func (w *walker) spawn(d dirfd.Dir, rel string, order []int32, st int) {
	w.pool.Go(func() { w.dir(d, rel, order, st) })
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
