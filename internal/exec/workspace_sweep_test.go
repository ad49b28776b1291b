package exec

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

// TestWorkspaceOpenSweeps: when a replica first opens a session's
// directories, what a killed writer left in them is swept.
func TestWorkspaceOpenSweeps(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	extra, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	left := []string{dir + "/.f.txt.toold-tmp-0123456789ab", dir + "/.f.txt.toold-lock", extra + "/.g.toold-tmp-abcdefabcdef"}
	for _, p := range left {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newWorkspaceCache(nil, slog.New(slog.DiscardHandler))
	defer c.closeAll()
	if _, err := c.get(&store.Session{ID: "s", Workspace: dir, AdditionalDirs: []string{extra}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(left, extra+"/.g.toold-lock") {
		for {
			if _, err := os.Lstat(p); os.IsNotExist(err) {
				break
			}
			time.Sleep(time.Millisecond) // the sweep runs in the background; the test's timeout bounds the wait
		}
	}
}
