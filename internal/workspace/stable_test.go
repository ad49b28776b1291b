package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session's directory swapped for a symlink after it was recorded (a
// command of a session whose workspace holds it can do that) is not
// opened, as primary or additional directory; Open alone would follow it.
func TestOpenStableRefusesASwappedDirectory(t *testing.T) {
	base := t.TempDir()
	mine := filepath.Join(base, "a", "proj")
	other := filepath.Join(base, "b")
	for _, d := range []string{mine, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, "secret"), []byte("B"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(base, "a", "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, victim := range []string{mine, extra} {
		open, err := OpenStable(mine, extra)
		if err != nil {
			t.Fatalf("OpenStable before the swap: %v", err)
		}
		if err := open.Verify(); err != nil {
			t.Fatalf("Verify before the swap: %v", err)
		}
		if err := os.Rename(victim, victim+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, victim); err != nil {
			t.Fatal(err)
		}
		if err := open.Verify(); err == nil || !strings.Contains(err.Error(), "no longer resolves to itself") {
			t.Errorf("%s swapped after it was opened: Verify = %v", victim, err)
		}
		open.Close()
		if w, err := Open(mine, extra); err == nil {
			w.Close() // Open follows the link: what OpenStable is for.
		}
		if w, err := OpenStable(mine, extra); err == nil || !strings.Contains(err.Error(), "no longer resolves to itself") {
			if w != nil {
				w.Close()
			}
			t.Fatalf("%s swapped for a symlink: OpenStable = %v", victim, err)
		}
		os.Remove(victim)
		os.Rename(victim+".old", victim)
	}
	// A parent swapped for a symlink is refused too.
	a := filepath.Join(base, "a")
	if err := os.Rename(a, a+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a+".old", a); err != nil {
		t.Fatal(err)
	}
	if w, err := OpenStable(mine); err == nil {
		w.Close()
		t.Fatal("a path through a symlinked parent was opened")
	}
}
