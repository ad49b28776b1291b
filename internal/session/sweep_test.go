package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A session that ended without a delete (expired in Redis, forgotten by a
// restart) has its fresh workspace removed and its OnDelete functions run
// by the sweep; live sessions, young notes and directories toold did not
// make stay.
func TestSweepReleasesSessionsThatEndedWithoutADelete(t *testing.T) {
	for _, trees := range []bool{true, false} {
		m, root := treeManager(t, trees)
		var released []string
		m.OnDelete(func(id string) { released = append(released, id) })
		ended, err := m.Create(ctxA, Spec{})
		if err != nil {
			t.Fatal(err)
		}
		live, err := m.Create(ctxA, Spec{})
		if err != nil {
			t.Fatal(err)
		}
		// A directory with a session id's shape that a caller made, in
		// the tree, with no session: not toold's.
		callers := filepath.Join(filepath.Dir(ended.Workspace), "abcdefghijklmnopqrstuvwxyz")
		mkdir(t, callers)
		// The session ends without DeleteSession.
		if err := m.store.DeleteSession(context.Background(), ended.ID); err != nil {
			t.Fatal(err)
		}
		// Young notes are left alone.
		if n, err := m.Sweep(context.Background()); err != nil || n != 0 {
			t.Fatalf("sweep of young notes = %d, %v", n, err)
		}
		m.now = func() time.Time { return time.Now().Add(SweepMinAge + time.Minute) }
		n, err := m.Sweep(context.Background())
		if err != nil || n != 1 {
			t.Fatalf("trees=%v: Sweep = %d, %v", trees, n, err)
		}
		if _, err := os.Stat(ended.Workspace); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("trees=%v: the ended session's workspace stays: %v", trees, err)
		}
		if len(released) != 1 || released[0] != ended.ID {
			t.Errorf("OnDelete ran for %v", released)
		}
		for _, keep := range []string{live.Workspace, callers} {
			if _, err := os.Stat(keep); err != nil {
				t.Errorf("trees=%v: the sweep removed %s: %v", trees, keep, err)
			}
		}
		if n, err := m.Sweep(context.Background()); err != nil || n != 0 {
			t.Errorf("second sweep = %d, %v", n, err)
		}
		_ = root
	}
}
