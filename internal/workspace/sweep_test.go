package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweep: temporary and lock files whose lock is free are removed;
// those of a write in progress (lock held) stay; nothing else is touched.
func TestSweep(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dir+"/sub", 0o755)
	files := map[string]bool{ // name -> must survive
		"/a.txt":                            true,
		"/.a.txt.toold-tmp-0123456789ab":    false, // killed writer
		"/sub/.b.go.toold-tmp-abcdefabcdef": false,
		"/sub/.b.go.toold-lock":             false, // stale lock file
		"/.busy.txt.toold-tmp-aaaaaaaaaaaa": true,  // writer alive
		"/.x.toold-tmp-notarandomsuffix":    true,  // not ours
		"/.toold-tmp-0123456789ab":          true,  // no file name
		"/sub/plain.toold-lock-not":         true,
		"/.old.txt.toold-0123456789ab":      false, // an older toold's, an hour old
		"/.new.txt.toold-0123456789ab":      true,  // an older toold's, maybe running
	}
	for name := range files {
		if err := os.WriteFile(dir+name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(dir+"/.old.txt.toold-0123456789ab", old, old)
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	busy, _ := w.Locate(dir, "busy.txt")
	fl, err := busy.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Sweep(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, keep := range files {
		_, err := os.Lstat(dir + name)
		if (err == nil) != keep {
			t.Errorf("%s: exists=%v, want %v", name, err == nil, keep)
		}
	}
	if res.Temps != 3 || res.Locks != 1 || res.Busy != 2 {
		t.Errorf("result %+v, want 3 temporary files and 1 lock file removed, 2 busy (a temporary file and its lock)", res)
	}
	fl.Unlock()
	if _, err := os.Lstat(dir + "/.busy.txt.toold-lock"); err == nil {
		t.Error("Unlock left its lock file")
	}
	if res, _ := Sweep(context.Background(), dir); res.Temps != 1 {
		t.Errorf("after the writer is gone: %+v, want its temporary file removed", res)
	}
}
