// Package storetest is the conformance suite every store backend passes.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

// Run runs the suite. newStore returns a fresh, empty store for each subtest.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"CreateGetRoundTrip", testCreateGet},
		{"CreateDuplicate", testCreateDuplicate},
		{"GetMissing", testGetMissing},
		{"ReturnedCopiesAreIndependent", testCopies},
		{"DeleteDropsState", testDelete},
		{"SetCwd", testSetCwd},
		{"ReadStamps", testReadStamps},
		{"StampsArePerSession", testStampsPerSession},
		{"ConcurrentUse", testConcurrent},
		{"UpdateSession", testUpdate},
		{"UpdateSessionErrorChangesNothing", testUpdateError},
		{"ConcurrentUpdatesAreNotLost", testConcurrentUpdates},
		{"DenialWindow", testDenials},
		{"DenialsAtTheSameInstant", testDenialsSameInstant},
		{"DeleteDropsDenials", testDeleteDenials},
		{"DenialKindsAreCountedApart", testDenialKinds},
		{"UnknownDenialKind", testUnknownDenialKind},
		{"MissingSessionReadsFail", testMissingReads},
		{"SetCwdKeepsEverythingElse", testSetCwdKeeps},
		{"UpdateKeepsIDAndRevision", testUpdateKeepsID},
		{"ZeroTimesRoundTrip", testZeroTimes},
		{"WorktreeRoundTrip", testWorktree},
	}
	tests = append(tests, journalTests...)
	tests = append(tests, deleteTests...)
	tests = append(tests, offersTests...)
	tests = append(tests, childTests...)
	tests = append(tests, boardTests...)
	tests = append(tests, agentTests...)
	tests = append(tests, taskTests...)
	tests = append(tests, notificationTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s)
		})
	}
}

func sample(id string) *store.Session {
	return &store.Session{
		ID:             id,
		Workspace:      "/ws/" + id,
		Mode:           "acceptEdits",
		Allow:          []string{"Bash(npm test *)", "Read"},
		Deny:           []string{"Read(./.env)"},
		Ask:            []string{"Bash(git push *)"},
		AdditionalDirs: []string{"/shared"},
		Cwd:            "/ws/" + id,
		CreatedAt:      time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
		Tenant:         "team-a",
		Env:            map[string]string{"GOFLAGS": "-mod=mod", "EMPTY": ""},
	}
}

func mustCreate(t *testing.T, s store.Store, sess *store.Session) {
	t.Helper()
	if err := s.CreateSession(context.Background(), sess); err != nil {
		t.Fatalf("CreateSession(%s): %v", sess.ID, err)
	}
}

func testUpdate(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	got, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error {
		x.Mode = "plan"
		x.SessionRules.Allow = append(x.SessionRules.Allow, "Bash(make *)")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Mode != "plan" || got.Revision != 1 || len(got.SessionRules.Allow) != 1 {
		t.Fatalf("UpdateSession returned %+v", got)
	}
	again, _ := s.GetSession(ctx, "s1")
	if again.Mode != "plan" || again.Revision != 1 || again.SessionRules.Allow[0] != "Bash(make *)" || again.Workspace != "/ws/s1" {
		t.Fatalf("stored %+v", again)
	}
	if _, err := s.UpdateSession(ctx, "nope", func(*store.Session) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update of a missing session = %v", err)
	}
}

func testUpdateError(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	boom := errors.New("boom")
	_, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error {
		x.Mode = "plan"
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	got, _ := s.GetSession(ctx, "s1")
	if got.Mode != "acceptEdits" || got.Revision != 0 {
		t.Fatalf("a failed update changed the session: %+v", got)
	}
}

func testConcurrentUpdates(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error {
				x.SessionRules.Allow = append(x.SessionRules.Allow, fmt.Sprintf("Bash(cmd%d)", i))
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := s.GetSession(ctx, "s1")
	if len(got.SessionRules.Allow) != 10 || got.Revision != 10 {
		t.Fatalf("lost updates: %d rules, revision %d", len(got.SessionRules.Allow), got.Revision)
	}
}

func testDenials(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, sample("s2"))
	t0 := time.Unix(1_800_000_000, 0)
	w := 5 * time.Minute
	for i, at := range []time.Time{t0, t0.Add(time.Minute), t0.Add(2 * time.Minute)} {
		n, err := s.RecordDenial(ctx, "s1", store.PersonDenials, at, w)
		if err != nil || n != i+1 {
			t.Fatalf("RecordDenial #%d = %d, %v", i, n, err)
		}
	}
	if n, _ := s.CountDenials(ctx, "s1", store.PersonDenials, t0.Add(4*time.Minute), w); n != 3 {
		t.Fatalf("count within the window = %d", n)
	}
	// At t0+5m the first denial leaves the window.
	if n, _ := s.CountDenials(ctx, "s1", store.PersonDenials, t0.Add(5*time.Minute), w); n != 2 {
		t.Fatalf("count after the first left the window = %d", n)
	}
	if n, _ := s.CountDenials(ctx, "s1", store.PersonDenials, t0.Add(20*time.Minute), w); n != 0 {
		t.Fatalf("count long after = %d", n)
	}
	if n, _ := s.CountDenials(ctx, "s2", store.PersonDenials, t0.Add(time.Minute), w); n != 0 {
		t.Fatalf("denials leak across sessions: %d", n)
	}
	if n, err := s.RecordDenial(ctx, "s1", store.PersonDenials, t0.Add(20*time.Minute), w); err != nil || n != 1 {
		t.Fatalf("a new denial after the window = %d, %v", n, err)
	}
	if _, err := s.RecordDenial(ctx, "nope", store.PersonDenials, t0, w); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("RecordDenial on a missing session = %v", err)
	}
}

func testCreateGet(t *testing.T, s store.Store) {
	want := sample("s1")
	mustCreate(t, s, want)
	got, err := s.GetSession(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(noETag(got)) != fmt.Sprint(want) || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("GetSession = %+v, want %+v", got, want)
	}
}

func testCreateDuplicate(t *testing.T, s store.Store) {
	mustCreate(t, s, sample("s1"))
	other := sample("s1")
	other.Workspace = "/elsewhere"
	if err := s.CreateSession(context.Background(), other); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second CreateSession = %v, want ErrExists", err)
	}
	got, _ := s.GetSession(context.Background(), "s1")
	if got.Workspace != "/ws/s1" {
		t.Errorf("duplicate create changed the session: workspace %q", got.Workspace)
	}
}

func testGetMissing(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.GetSession(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetSession = %v, want ErrNotFound", err)
	}
	if err := s.DeleteSession(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteSession = %v, want ErrNotFound", err)
	}
	if err := s.SetCwd(ctx, "nope", "/x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetCwd = %v, want ErrNotFound", err)
	}
	if err := s.RecordRead(ctx, "nope", "/x", store.FileStamp{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RecordRead = %v, want ErrNotFound", err)
	}
}

func testCopies(t *testing.T, s store.Store) {
	in := sample("s1")
	mustCreate(t, s, in)
	in.Allow[0] = "changed by caller"
	got, _ := s.GetSession(context.Background(), "s1")
	if got.Allow[0] != "Bash(npm test *)" {
		t.Fatalf("store shares the caller's slice: %q", got.Allow[0])
	}
	got.Deny[0] = "changed by reader"
	again, _ := s.GetSession(context.Background(), "s1")
	if again.Deny[0] != "Read(./.env)" {
		t.Fatalf("store shares the returned slice: %q", again.Deny[0])
	}
}

func testDelete(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	if err := s.RecordRead(ctx, "s1", "/ws/s1/a", store.FileStamp{Size: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSession(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after delete GetSession = %v", err)
	}
	// A new session under the same id starts with no stamps.
	mustCreate(t, s, sample("s1"))
	if _, ok, err := s.ReadStamp(ctx, "s1", "/ws/s1/a"); err != nil || ok {
		t.Fatalf("stamp survived delete: ok=%v err=%v", ok, err)
	}
}

func testSetCwd(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	if err := s.SetCwd(ctx, "s1", "/ws/s1/sub"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetSession(ctx, "s1")
	if got.Cwd != "/ws/s1/sub" {
		t.Errorf("Cwd = %q", got.Cwd)
	}
}

func testReadStamps(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	if _, ok, err := s.ReadStamp(ctx, "s1", "/ws/s1/a"); err != nil || ok {
		t.Fatalf("fresh session has a stamp: ok=%v err=%v", ok, err)
	}
	want := store.FileStamp{ModTime: time.Unix(1700000000, 123456789), Size: 42, Hash: sha("a")}
	if err := s.RecordRead(ctx, "s1", "/ws/s1/a", want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.ReadStamp(ctx, "s1", "/ws/s1/a")
	if err != nil || !ok || !got.ModTime.Equal(want.ModTime) || got.Size != want.Size || got.Hash != want.Hash {
		t.Fatalf("ReadStamp = %+v %v %v, want %+v", got, ok, err, want)
	}
	// A stamp without a hash (a file too large to hash) replaces one
	// with a hash whole: no old hash may survive to vouch for new content.
	newer := store.FileStamp{ModTime: want.ModTime.Add(time.Second), Size: 43}
	if err := s.RecordRead(ctx, "s1", "/ws/s1/a", newer); err != nil {
		t.Fatal(err)
	}
	got, _, _ = s.ReadStamp(ctx, "s1", "/ws/s1/a")
	if got.Size != 43 || got.Hash != "" {
		t.Errorf("stamp not replaced: %+v", got)
	}
}

// sha is the hex SHA-256 of s, as file stamps carry it.
func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func testStampsPerSession(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, sample("s2"))
	if err := s.RecordRead(ctx, "s1", "/shared/f", store.FileStamp{Size: 1}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.ReadStamp(ctx, "s2", "/shared/f"); ok {
		t.Fatal("a read in s1 counts for s2")
	}
}

func testConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf("/ws/s1/f%d", i)
			for j := range 20 {
				if err := s.RecordRead(ctx, "s1", p, store.FileStamp{Size: int64(j)}); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.GetSession(ctx, "s1"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for i := range 16 {
		st, ok, err := s.ReadStamp(ctx, "s1", fmt.Sprintf("/ws/s1/f%d", i))
		if err != nil || !ok || st.Size != 19 {
			t.Errorf("f%d: %+v %v %v", i, st, ok, err)
		}
	}
}

// The cases below guard encodings and key layouts of shared backends.

func testDenialsSameInstant(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	at := time.Unix(1_800_000_000, 0)
	for i := range 3 {
		if n, err := s.RecordDenial(ctx, "s1", store.PersonDenials, at, time.Minute); err != nil || n != i+1 {
			t.Fatalf("RecordDenial #%d at the same instant = %d, %v", i, n, err)
		}
	}
	if n, err := s.CountDenials(ctx, "s1", store.PersonDenials, at, time.Minute); err != nil || n != 3 {
		t.Fatalf("CountDenials = %d, %v", n, err)
	}
}

func testDeleteDenials(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	at := time.Unix(1_800_000_000, 0)
	for _, kind := range []store.DenialKind{store.PersonDenials, store.ClassifierDenials} {
		if _, err := s.RecordDenial(ctx, "s1", kind, at, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, sample("s1"))
	for _, kind := range []store.DenialKind{store.PersonDenials, store.ClassifierDenials} {
		if n, err := s.CountDenials(ctx, "s1", kind, at, time.Minute); err != nil || n != 0 {
			t.Fatalf("%s denials survived delete: %d, %v", kind, n, err)
		}
	}
}

// Each kind of denial is its own counter with its own window: recording
// one kind neither adds to the other nor drops the other's old entries.
func testDenialKinds(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	t0 := time.Unix(1_800_000_000, 0)
	for i := range 3 {
		if n, err := s.RecordDenial(ctx, "s1", store.ClassifierDenials, t0.Add(time.Duration(i)*time.Second), 10*time.Minute); err != nil || n != i+1 {
			t.Fatalf("classifier denial #%d = %d, %v", i, n, err)
		}
	}
	if n, err := s.CountDenials(ctx, "s1", store.PersonDenials, t0.Add(time.Minute), 10*time.Minute); err != nil || n != 0 {
		t.Fatalf("person denials after classifier ones = %d, %v", n, err)
	}
	// A person's denial with a shorter window trims only its own kind.
	if n, err := s.RecordDenial(ctx, "s1", store.PersonDenials, t0.Add(5*time.Minute), time.Minute); err != nil || n != 1 {
		t.Fatalf("person denial = %d, %v", n, err)
	}
	if n, err := s.CountDenials(ctx, "s1", store.ClassifierDenials, t0.Add(5*time.Minute), 10*time.Minute); err != nil || n != 3 {
		t.Fatalf("classifier denials after a person's = %d, %v", n, err)
	}
	if n, err := s.CountDenials(ctx, "s1", store.ClassifierDenials, t0.Add(10*time.Minute+time.Second/2), 10*time.Minute); err != nil || n != 2 {
		t.Fatalf("classifier denials as the window moves = %d, %v", n, err)
	}
	if _, err := s.RecordDenial(ctx, "nope", store.ClassifierDenials, t0, time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("RecordDenial on a missing session = %v", err)
	}
	if _, err := s.CountDenials(ctx, "nope", store.ClassifierDenials, t0, time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CountDenials on a missing session = %v", err)
	}
}

// A kind the store does not know is an error that records nothing.
func testUnknownDenialKind(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	at := time.Unix(1_800_000_000, 0)
	bad := store.ClassifierDenials + 1
	if _, err := s.RecordDenial(ctx, "s1", bad, at, time.Minute); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("RecordDenial of an unknown kind = %v", err)
	}
	if _, err := s.CountDenials(ctx, "s1", bad, at, time.Minute); err == nil {
		t.Fatal("CountDenials of an unknown kind succeeded")
	}
	for _, kind := range []store.DenialKind{store.PersonDenials, store.ClassifierDenials} {
		if n, err := s.CountDenials(ctx, "s1", kind, at, time.Minute); err != nil || n != 0 {
			t.Fatalf("%s denials after an unknown kind = %d, %v", kind, n, err)
		}
	}
}

func testMissingReads(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, ok, err := s.ReadStamp(ctx, "nope", "/x"); !errors.Is(err, store.ErrNotFound) || ok {
		t.Errorf("ReadStamp = %v, %v, want ErrNotFound", ok, err)
	}
	if _, err := s.CountDenials(ctx, "nope", store.PersonDenials, time.Now(), time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CountDenials = %v, want ErrNotFound", err)
	}
}

// testSetCwdKeeps checks that SetCwd changes the cwd only, whatever the
// other fields hold (a backend may rewrite the stored form to do it).
func testSetCwdKeeps(t *testing.T, s store.Store) {
	ctx := context.Background()
	want := sample("s1")
	want.Allow = []string{`Bash(echo "a\\b" 'c' | tr / _)`, "Read(//tmp/**)", "Écrire(日本語)", "\x00\t<>&"}
	want.Ask = nil
	want.User = store.RuleLists{Deny: []string{"WebFetch(domain:example.com)"}}
	mustCreate(t, s, want)
	if err := s.SetCwd(ctx, "s1", "/ws/s1/ü ber"); err != nil {
		t.Fatal(err)
	}
	want.Cwd = "/ws/s1/ü ber"
	got, err := s.GetSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(noETag(got)) != fmt.Sprint(want) || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("after SetCwd\n got %+v\nwant %+v", got, want)
	}
	upd, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error {
		x.Mode = "plan"
		return nil
	})
	if err != nil || upd.Revision != 1 || upd.Cwd != want.Cwd || upd.Allow[2] != want.Allow[2] {
		t.Fatalf("UpdateSession after SetCwd = %+v, %v", upd, err)
	}
}

func testUpdateKeepsID(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	got, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error {
		x.ID = "other"
		x.Revision = 99
		return nil
	})
	if err != nil || got.ID != "s1" || got.Revision != 1 {
		t.Fatalf("UpdateSession = %+v, %v", got, err)
	}
	if _, err := s.GetSession(ctx, "other"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the update created another session: %v", err)
	}
}

func testZeroTimes(t *testing.T, s store.Store) {
	ctx := context.Background()
	sess := sample("s1")
	sess.CreatedAt = time.Time{}
	mustCreate(t, s, sess)
	got, err := s.GetSession(ctx, "s1")
	if err != nil || !got.CreatedAt.IsZero() {
		t.Fatalf("CreatedAt = %v, %v", got.CreatedAt, err)
	}
	if err := s.RecordRead(ctx, "s1", "/f", store.FileStamp{Size: 7}); err != nil {
		t.Fatal(err)
	}
	st, ok, err := s.ReadStamp(ctx, "s1", "/f")
	if err != nil || !ok || !st.ModTime.IsZero() || st.Size != 7 {
		t.Fatalf("ReadStamp = %+v, %v, %v", st, ok, err)
	}
}

// noETag returns a copy without the ETag, which a test's literal session
// cannot know.
func noETag(s *store.Session) *store.Session {
	c := s.Clone()
	c.ETag = ""
	return c
}

// testWorktree checks that a session's worktree is stored, kept by SetCwd
// and by a call's effects, and cleared again.
func testWorktree(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	upd, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error {
		x.Worktree = "/ws/s1/.claude/worktrees/feat"
		x.WorktreeGitDir = "/ws/s1/.git"
		x.WorktreeKind, x.WorktreeBranch, x.WorktreeReturn = store.WorktreeEntered, "feat", "/ws/s1/sub"
		x.Cwd = x.Worktree
		return nil
	})
	if err != nil || upd.Worktree != "/ws/s1/.claude/worktrees/feat" || upd.Root() != upd.Worktree ||
		strings.Join(upd.Dirs(), ",") != "/ws/s1/.claude/worktrees/feat,/ws/s1/.git,/shared" {
		t.Fatalf("UpdateSession = %+v, %v", upd, err)
	}
	if err := s.SetCwd(ctx, "s1", "/ws/s1/.claude/worktrees/feat/sub"); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSession(ctx, "s1")
	if err != nil || got.Worktree != "/ws/s1/.claude/worktrees/feat" || got.Cwd != "/ws/s1/.claude/worktrees/feat/sub" ||
		got.WorktreeKind != store.WorktreeEntered || got.WorktreeBranch != "feat" || got.WorktreeReturn != "/ws/s1/sub" {
		t.Fatalf("after SetCwd: %+v, %v", got, err)
	}
	if c := got.Clone(); c.Worktree != got.Worktree || c.WorktreeGitDir != "/ws/s1/.git" {
		t.Fatalf("Clone dropped the worktree: %+v", c)
	}
	upd, err = s.UpdateSession(ctx, "s1", func(x *store.Session) error {
		x.Worktree, x.WorktreeGitDir = "", ""
		x.WorktreeKind, x.WorktreeBranch, x.WorktreeReturn = "", "", ""
		x.Cwd = x.Workspace
		return nil
	})
	if err != nil || upd.Worktree != "" || upd.Root() != "/ws/s1" || strings.Join(upd.Dirs(), ",") != "/ws/s1,/shared" {
		t.Fatalf("clearing the worktree = %+v, %v", upd, err)
	}
	if got, err := s.GetSession(ctx, "s1"); err != nil || got.Worktree != "" || got.WorktreeKind != "" || got.WorktreeReturn != "" {
		t.Fatalf("after clearing: %+v, %v", got, err)
	}
}
