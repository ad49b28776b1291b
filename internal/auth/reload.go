package auth

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultReloadInterval is how often a credential file is checked for a
// change when the config does not say.
const DefaultReloadInterval = 2 * time.Second

// fileValue is the parsed content of files that an operator may replace
// while toold runs (a token list, a JWKS, a key pair). Callers ask for the
// value on every call; at most once per interval that asks the file
// system whether a file changed (another inode, size or modification
// time: a Kubernetes Secret update swaps a symlink, an editor rewrites in
// place) and parses them again. Polling needs no watcher goroutine to stop
// and works on every volume type.
//
// Files that no longer parse keep the last good value in force and are
// logged: a half-written edit must not lock every tenant out.
type fileValue[T any] struct {
	paths    []string
	parse    func(contents [][]byte) (T, error)
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger

	cur atomic.Pointer[T]

	mu      sync.Mutex // held while checking; TryLock so readers never wait
	stats   []os.FileInfo
	checked time.Time
}

type reloadOptions struct {
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger
}

func (o reloadOptions) withDefaults() reloadOptions {
	if o.interval <= 0 {
		o.interval = DefaultReloadInterval
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	return o
}

// loadFiles reads and parses the files once; that first load must succeed.
func loadFiles[T any](o reloadOptions, parse func([][]byte) (T, error), paths ...string) (*fileValue[T], error) {
	o = o.withDefaults()
	f := &fileValue[T]{paths: paths, parse: parse, interval: o.interval, now: o.now, log: o.log}
	stats, err := f.statAll()
	if err != nil {
		return nil, err
	}
	v, err := f.read()
	if err != nil {
		return nil, err
	}
	f.cur.Store(&v)
	f.stats, f.checked = stats, o.now()
	return f, nil
}

// loadFile is loadFiles for one file.
func loadFile[T any](o reloadOptions, parse func([]byte) (T, error), path string) (*fileValue[T], error) {
	return loadFiles(o, func(c [][]byte) (T, error) { return parse(c[0]) }, path)
}

func (f *fileValue[T]) statAll() ([]os.FileInfo, error) {
	out := make([]os.FileInfo, len(f.paths))
	for i, p := range f.paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		out[i] = fi
	}
	return out, nil
}

func (f *fileValue[T]) read() (T, error) {
	contents := make([][]byte, len(f.paths))
	for i, p := range f.paths {
		b, err := os.ReadFile(p)
		if err != nil {
			var zero T
			return zero, err
		}
		contents[i] = b
	}
	v, err := f.parse(contents)
	if err != nil {
		return v, fmt.Errorf("%s: %w", strings.Join(f.paths, ", "), err)
	}
	return v, nil
}

// get returns the current value, reloading it first when the interval has
// passed and a file changed.
func (f *fileValue[T]) get() T {
	if f.mu.TryLock() {
		f.refresh()
		f.mu.Unlock()
	}
	return *f.cur.Load()
}

func (f *fileValue[T]) refresh() {
	now := f.now()
	if now.Sub(f.checked) < f.interval {
		return
	}
	f.checked = now
	stats, err := f.statAll()
	if err != nil {
		f.log.Warn("credential file unreadable; keeping the last good content", "err", err)
		return
	}
	if sameFiles(f.stats, stats) {
		return
	}
	// Remember this version even if it does not parse, so that a broken
	// file is reported once, not on every check.
	f.stats = stats
	v, err := f.read()
	if err != nil {
		f.log.Warn("credential file changed but was not loaded; keeping the last good content", "err", err)
		return
	}
	f.cur.Store(&v)
	f.log.Info("credential file reloaded", "paths", f.paths)
}

func sameFiles(a, b []os.FileInfo) bool {
	for i := range a {
		if !os.SameFile(a[i], b[i]) || a[i].Size() != b[i].Size() || !a[i].ModTime().Equal(b[i].ModTime()) {
			return false
		}
	}
	return true
}
