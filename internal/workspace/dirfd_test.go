package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The one-call open reads what os.Root would: nested paths, links that
// stay inside, `..` that stays inside; an absolute link it leaves to
// os.Root, which refuses it as before.
func TestOpenBeneathAgreesWithRoot(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	mkdir(t, filepath.Join(ws, "a", "b"))
	writeFile(t, filepath.Join(ws, "a", "b", "f.txt"), "deep")
	symlink(t, "a/b/f.txt", filepath.Join(ws, "rel-in"))
	symlink(t, filepath.Join(ws, "a", "b", "f.txt"), filepath.Join(ws, "abs-in"))
	w := open(t, ws)
	for _, p := range []string{"a/b/f.txt", "rel-in", "abs-in", "a/../a/b/f.txt"} {
		loc, err := w.Locate(ws, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := loc.ReadFile(0)
		if p == "abs-in" {
			// os.Root refuses absolute links, inside or not.
			if !errors.Is(err, ErrOutside) {
				t.Errorf("abs-in: %q, %v, want an escape error", got, err)
			}
		} else if err != nil || string(got) != "deep" {
			t.Errorf("%s: %q, %v", p, got, err)
		}
		f, ok, err := openBeneath(loc.dfd, loc.Rel, loc.Abs)
		if p == "abs-in" {
			if ok {
				t.Errorf("openat2 decided an absolute link itself (%v)", err)
			}
			continue
		}
		if !ok || err != nil {
			t.Fatalf("%s: openat2 ok %v, %v", p, ok, err)
		}
		f.Close()
	}
	loc, _ := w.Locate(ws, "missing")
	if _, err := loc.ReadFile(0); !os.IsNotExist(err) {
		t.Errorf("missing: %v", err)
	}
}

// Verify catches a directory replaced by another real directory (not a
// link: the identity differs) and a parent swapped after the open.
func TestVerifyCatchesEverySwap(t *testing.T) {
	b := base(t)
	mine := mkdir(t, filepath.Join(b, "p", "ws"))
	w, err := OpenStable(mine)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Verify(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(mine, mine+".old"); err != nil {
		t.Fatal(err)
	}
	mkdir(t, mine)
	if err := w.Verify(); err == nil || !strings.Contains(err.Error(), "no longer resolves to itself") {
		t.Fatalf("replaced by another directory: Verify = %v", err)
	}
	os.Remove(mine)
	os.Rename(mine+".old", mine)
	if err := w.Verify(); err != nil {
		t.Fatalf("put back: %v", err)
	}
	p := filepath.Join(b, "p")
	if err := os.Rename(p, p+".old"); err != nil {
		t.Fatal(err)
	}
	symlink(t, p+".old", p)
	if err := w.Verify(); err == nil || !strings.Contains(err.Error(), "no longer resolves to itself") {
		t.Fatalf("parent swapped for a link: Verify = %v", err)
	}
}
