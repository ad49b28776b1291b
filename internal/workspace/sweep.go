package workspace

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"time"

	"golang.org/x/sys/unix"
)

// SweepResult counts what a sweep found and removed.
type SweepResult struct {
	Temps, Locks int  // removed
	Busy         int  // left: a writer holds their lock
	Cut          bool // the entry budget ran out before the walk ended
}

// maxSweepEntries bounds the entries one sweep of a directory visits, so
// that a huge tree costs a bounded time.
const maxSweepEntries = 1_000_000

var (
	tempPattern = regexp.MustCompile(`^\.(.+)` + regexp.QuoteMeta(tempInfix) + `[0-9a-f]{12}$`)
	lockPattern = regexp.MustCompile(`^\.(.+)` + regexp.QuoteMeta(lockSuffix) + `$`)
	// legacyPattern is the temporary file of toold versions that wrote
	// without a lock (".<name>.toold-<12 hex>"). Nothing tells whether its
	// writer is alive, so only one older than legacyAge goes: no write
	// takes that long.
	legacyPattern = regexp.MustCompile(`^\..+\.toold-[0-9a-f]{12}$`)
)

const legacyAge = time.Hour

// Reserved reports whether base is the name of a lock or temporary file
// of the file tools. The tools do not write such names: a Write over a
// lock file would break the lock it stands for, and the sweep removes
// them.
func Reserved(base string) bool {
	return tempPattern.MatchString(base) || lockPattern.MatchString(base)
}

// Sweep removes, below each directory, the temporary and lock files that
// writers killed mid-way left (a Write of toold that was SIGKILLed, or
// whose replica died). A writer holds the lock of a file for the whole
// life of its temporary files, so a temporary file whose lock can be taken
// is nobody's: it and the lock file go. One whose lock is held belongs to
// a write in progress, here or on another replica, and stays. Symlinks are
// not followed. It stops when ctx ends.
func Sweep(ctx context.Context, dirs ...string) (SweepResult, error) {
	var res SweepResult
	for _, d := range dirs {
		if err := sweepDir(ctx, d, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func sweepDir(ctx context.Context, dir string, res *SweepResult) error {
	w, err := Open(dir)
	if err != nil {
		return err
	}
	defer w.Close()
	root := w.dirs[0].root
	seen := 0
	var cur *os.File // the directory being swept
	curRel := ""
	defer func() {
		if cur != nil {
			cur.Close()
		}
	}()
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if seen++; seen > maxSweepEntries {
			res.Cut = true
			return fs.SkipAll
		}
		if err != nil || !d.Type().IsRegular() {
			return nil // an unreadable directory is skipped, not fatal
		}
		name := d.Name()
		if legacyPattern.MatchString(name) {
			if fi, err := d.Info(); err == nil && time.Since(fi.ModTime()) > legacyAge && root.Remove(p) == nil {
				res.Temps++
			}
			return nil
		}
		key, temp := "", false
		if m := tempPattern.FindStringSubmatch(name); m != nil {
			key, temp = m[1], true
		} else if m := lockPattern.FindStringSubmatch(name); m != nil {
			key = m[1]
		} else {
			return nil
		}
		rel := filepath.FromSlash(path.Dir(p))
		if cur == nil || curRel != rel {
			if cur != nil {
				cur.Close()
			}
			if cur, err = root.Open(rel); err != nil {
				cur = nil
				return nil
			}
			curRel = rel
		}
		loc := Loc{Abs: filepath.Join(w.dirs[0].path, rel, key), Dir: w.dirs[0].path, Rel: filepath.Join(rel, key), root: root, ws: w}
		fl, ok, err := tryLock(loc, cur, key)
		if err != nil {
			return nil
		}
		if !ok {
			res.Busy++
			return nil
		}
		if temp {
			if unix.Unlinkat(int(cur.Fd()), name, 0) == nil {
				res.Temps++
			}
		} else {
			res.Locks++
		}
		fl.Unlock()
		return nil
	})
}
