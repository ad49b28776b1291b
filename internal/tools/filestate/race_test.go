package filestate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/edit"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/multiedit"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/write"
	"github.com/toold/toold/internal/workspace"
)

// session is one session's view of a shared directory: its own
// workspace handles and read stamps, as two sessions (or two replicas)
// have.
func session(t *testing.T, dir string) *tool.Env {
	t.Helper()
	ws, err := workspace.Open(dir)
	must(t, err)
	t.Cleanup(func() { ws.Close() })
	return &tool.Env{SessionID: "s", Files: ws, Cwd: dir, State: &tooltest.State{}, Progress: tool.NopProgress{}}
}

func isStale(err error) bool {
	var te *tool.Error
	return errors.As(err, &te) && te.Kind == tool.KindConflict && te.Msg == filestate.ModifiedMessage
}

var strict = filestate.Policy{RequireRead: true}

const raceRounds = 200

// TestRacingWritersLoseNothing: two sessions read one file, then change it
// at the same moment. Under the stricter policy, in every round exactly one
// wins and the other is told the file changed; the file holds the winner's
// change, whole. Under Claude Code's rule two edits of different lines both
// apply, one after the other (each to the file as the other left it), and
// a Write still loses to whatever came first.
func TestRacingWritersLoseNothing(t *testing.T) {
	type change func(env *tool.Env, p string, i, who int) (map[string]any, tool.Tool, string)
	editLine := func(p filestate.Policy) change {
		return func(env *tool.Env, path string, i, who int) (map[string]any, tool.Tool, string) {
			mark := fmt.Sprintf("edit %d by %d", i, who)
			return map[string]any{"file_path": path, "old_string": "line " + fmt.Sprint(who), "new_string": mark}, edit.NewWith(p), mark
		}
	}
	writeAll := func(p filestate.Policy) change {
		return func(env *tool.Env, path string, i, who int) (map[string]any, tool.Tool, string) {
			mark := fmt.Sprintf("write %d by %d\n", i, who)
			return map[string]any{"file_path": path, "content": mark}, write.NewWith(p), mark
		}
	}
	cc := filestate.Policy{}
	for _, tc := range []struct {
		name string
		a, b change
		both bool // both apply
	}{
		{"strict: Edit vs Edit", editLine(strict), editLine(strict), false},
		{"strict: Write vs Write", writeAll(strict), writeAll(strict), false},
		{"strict: Edit vs Write", editLine(strict), writeAll(strict), false},
		{"Edit vs Edit", editLine(cc), editLine(cc), true},
		{"Write vs Write", writeAll(cc), writeAll(cc), false},
		{"Edit vs Write", editLine(cc), writeAll(cc), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			p := dir + "/shared.txt"
			sa, sb := session(t, dir), session(t, dir)
			lost, bothFailed := 0, 0
			for i := range raceRounds {
				must(t, os.WriteFile(p, []byte("line 0\nline 1\n"), 0o644))
				for _, env := range []*tool.Env{sa, sb} {
					if _, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": p}); err != nil {
						t.Fatal(err)
					}
				}
				var wg sync.WaitGroup
				var errs [2]error
				var marks [2]string
				start := make(chan struct{})
				for who, c := range []change{tc.a, tc.b} {
					env := []*tool.Env{sa, sb}[who]
					in, tl, mark := c(env, p, i, who)
					marks[who] = mark
					wg.Go(func() {
						<-start
						_, errs[who] = tooltest.Run(t, tl, env, in)
					})
				}
				close(start)
				wg.Wait()
				body, _ := os.ReadFile(p)
				won, missing := 0, false
				for who, err := range errs {
					switch {
					case err == nil:
						won++
						missing = missing || !strings.Contains(string(body), marks[who])
					case !isStale(err):
						t.Fatalf("round %d: writer %d: %v", i, who, err)
					}
				}
				if won == 0 {
					bothFailed++
				}
				if (won == 2 && !tc.both) || (won < 2 && tc.both) || missing {
					lost++ // both were told they succeeded, or a winner's change is gone
				}
			}
			if lost > 0 || bothFailed > 0 {
				t.Fatalf("%d of %d rounds lost an update, %d had no winner", lost, raceRounds, bothFailed)
			}
			if left, _ := filepath.Glob(dir + "/.*toold*"); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// TestWriteFromStaleRead: a session that read an older version cannot
// overwrite a newer one, even when the newer one has the same size and
// modification time (two writes in one clock tick).
func TestWriteFromStaleRead(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	p := dir + "/f.txt"
	sa, sb := session(t, dir), session(t, dir)
	for i := range raceRounds {
		must(t, os.WriteFile(p, []byte("v0\n"), 0o644))
		fi, _ := os.Stat(p)
		if _, err := tooltest.Run(t, read.New(read.Options{}), sa, map[string]any{"file_path": p}); err != nil {
			t.Fatal(err)
		}
		if _, err := tooltest.Run(t, read.New(read.Options{}), sb, map[string]any{"file_path": p}); err != nil {
			t.Fatal(err)
		}
		if _, err := tooltest.Run(t, write.New(), sb, map[string]any{"file_path": p, "content": "v1\n"}); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
		// Claude Code's rule refuses this Write too: the file was read.
		_, err := tooltest.Run(t, write.New(), sa, map[string]any{"file_path": p, "content": fmt.Sprintf("a%d\n", i%10)})
		if !isStale(err) {
			t.Fatalf("round %d: a write from a stale read = %v", i, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "v1\n" {
			t.Fatalf("round %d: the newer version was overwritten: %q", i, b)
		}
	}
}

// TestLockHeldBlocksAndCancels: a writer waits while another holds the
// file's lock, and a cancelled call stops waiting.
func TestLockHeldBlocksAndCancels(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	env := session(t, dir)
	loc, err := env.Files.Locate(dir, "f.txt")
	must(t, err)
	fl, err := loc.Lock(context.Background())
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		inv, err := write.New().Parse([]byte(`{"file_path":"` + dir + `/f.txt","content":"x"}`))
		if err == nil {
			_, err = inv.Run(ctx, env)
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a write went ahead under a held lock: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter = %v", err)
	}
	if _, err := os.Stat(dir + "/f.txt"); err == nil {
		t.Fatal("the file was written while the lock was held")
	}
	fl.Unlock()
	if _, err := tooltest.Run(t, write.New(), env, map[string]any{"file_path": dir + "/f.txt", "content": "x"}); err != nil {
		t.Fatal(err)
	}
}

// TestFailedChangeLeavesNothing: a change refused before writing (missing
// file, not read) creates no directory and leaves no lock or temporary
// file. (The directory's modification time does change: the lock file
// was made and removed in it.)
func TestFailedChangeLeavesNothing(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	must(t, os.WriteFile(ws+"/unread.txt", []byte("CANARY\n"), 0o644))
	before := names(t, ws)
	strictTools := map[string]tool.Tool{"Write": write.NewWith(strict), "Edit": edit.NewWith(strict), "MultiEdit": multiedit.NewWith(strict)}
	for _, tc := range linkTools[1:] {
		if s, ok := strictTools[tc.name]; ok {
			tc.tool = s // Claude Code's rule changes an unread file
		}
		for _, p := range []string{ws + "/newdir/deeper/x.ipynb", ws + "/unread.txt"} {
			in := tc.in(p)
			if tc.name == "Write" && p != ws+"/unread.txt" {
				continue // Write creates
			}
			if _, err := tooltest.Run(t, tc.tool, env, in); err == nil {
				t.Errorf("%s(%s) succeeded", tc.name, p)
			}
		}
	}
	if after := names(t, ws); after != before {
		t.Fatalf("a refused change left:\n%s\nwas:\n%s", after, before)
	}
}

// names lists the paths below dir with the content of each file.
func names(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v", p, d.Type())
		if d.Type().IsRegular() {
			body, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", body)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

// TestReservedNamesRefused: the tools do not write the names of lock and
// temporary files, which would break a lock or be swept away.
func TestReservedNamesRefused(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	for _, name := range []string{".f.txt.toold-lock", ".f.txt.toold-tmp-0123456789ab"} {
		for _, tc := range linkTools[1:2] {
			_, err := tooltest.Run(t, tc.tool, env, tc.in(env.Cwd+"/"+name))
			var te *tool.Error
			if !errors.As(err, &te) || !strings.Contains(te.Msg, "reserved") {
				t.Errorf("%s(%s) = %v", tc.name, name, err)
			}
			if _, err := os.Lstat(env.Cwd + "/" + name); err == nil {
				t.Errorf("%s was written", name)
			}
		}
	}
	if _, err := tooltest.Run(t, write.New(), env, map[string]any{"file_path": env.Cwd + "/f.txt.toold-lock", "content": "x"}); err != nil {
		t.Errorf("an ordinary name was refused: %v", err)
	}
}
