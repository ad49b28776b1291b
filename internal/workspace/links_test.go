package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckOpenedRace replays the interleavings around an open of a hard
// link: the check on the open descriptor refuses the file whether the
// inside name is still there (two links), gone (one link, the outside
// one), or replaced by another file.
func TestCheckOpenedRace(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := base + "/ws"
	os.Mkdir(ws, 0o755)
	outside := base + "/outside.txt"
	w, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct {
		name  string
		after func(inside string) // between the open and the check
	}{
		{"still linked", func(string) {}},
		{"inside name unlinked", func(inside string) { os.Remove(inside) }},
		{"inside name replaced", func(inside string) {
			os.Remove(inside)
			os.WriteFile(inside, []byte("decoy"), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(outside, []byte("CANARY"), 0o644)
			defer os.Remove(outside)
			inside := ws + "/hard.txt"
			os.Remove(inside)
			if err := os.Link(outside, inside); err != nil {
				t.Fatal(err)
			}
			loc, err := w.Locate(ws, "hard.txt")
			if err != nil {
				t.Fatal(err)
			}
			f, err := loc.root.Open(loc.Rel)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tc.after(inside)
			if _, err := loc.checkOpened(f); err == nil {
				t.Fatal("the open file was accepted")
			}
		})
	}
	// A file with one name, which the name still leads to, is fine.
	os.WriteFile(ws+"/own.txt", []byte("x"), 0o644)
	loc, _ := w.Locate(ws, "own.txt")
	f, _, err := loc.OpenStat()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Link(ws+"/own.txt", ws+"/second.txt")
	if _, _, err := loc.OpenStat(); !errors.Is(err, ErrHardLink) || !errors.Is(err, ErrOutside) {
		t.Fatalf("OpenStat of a file with two names = %v", err)
	}
}
