package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
)

type noCalls struct{}

func (noCalls) CancelSession(context.Context, string) error { return nil }

func treeManager(t *testing.T, trees bool) (*Manager, string) {
	t.Helper()
	m, err := NewManager(memstore.New(), filepath.Join(t.TempDir(), "root"), noCalls{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.SetTenantTrees(trees)
	return m, m.Root()
}

var (
	ctxA = WithTenant(context.Background(), "tenant-a")
	ctxB = WithTenant(context.Background(), "tenant-b")
)

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each way tenant A could name a directory of tenant B's tree (or anything
// outside its own) is refused with the same words, whether or not the
// target exists.
func TestWorkspaceOfAnotherTenant(t *testing.T) {
	m, root := treeManager(t, true)
	b, err := m.Create(ctxB, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "tenant-b", b.ID); b.Workspace != want {
		t.Fatalf("fresh workspace of B = %s, want %s", b.Workspace, want)
	}
	bdir := mkdir(t, filepath.Join(root, "tenant-b", "repo"))
	if err := os.WriteFile(filepath.Join(bdir, "secret"), []byte("B's"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := m.Create(ctxA, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	atree := filepath.Join(root, "tenant-a")
	// A's own commands may plant symlinks in A's tree.
	links := map[string]string{
		"rel-link":     "../tenant-b/repo",
		"abs-link":     bdir,
		"missing-link": "../tenant-b/does-not-exist",
		"root-link":    "..",
		"etc-link":     "/etc",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(atree, name)); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(t, filepath.Join(atree, "own"))
	paths := []string{
		bdir,
		b.Workspace,
		filepath.Join(root, "tenant-b", "does-not-exist"),
		filepath.Join(root, "tenant-c"),
		atree + "/../tenant-b/repo",
		atree + "/own/../../tenant-b/repo",
		atree + "/./own/../../../" + filepath.Base(root) + "/tenant-b",
		filepath.Join(atree, "rel-link"),
		filepath.Join(atree, "abs-link"),
		filepath.Join(atree, "missing-link"),
		filepath.Join(atree, "rel-link", "sub"),
		filepath.Join(atree, "root-link"),
		filepath.Join(atree, "root-link", "tenant-b"),
		filepath.Join(atree, "etc-link"),
		root,
		filepath.Dir(root),
		"/etc",
		atree + "-evil",
	}
	for _, p := range paths {
		for _, spec := range []Spec{{Workspace: p}, {AdditionalDirs: []string{p}}, {Workspace: a.Workspace, AdditionalDirs: []string{filepath.Join(atree, "own"), p}}} {
			_, err := m.Create(ctxA, spec)
			if !IsInvalid(err) {
				t.Errorf("%+v: %v, want invalid", spec, err)
				continue
			}
			msg := strings.Replace(err.Error(), p, "P", 1)
			if msg != "workspace P is outside the workspace directory of tenant tenant-a, "+atree &&
				msg != "additional directory P is outside the workspace directory of tenant tenant-a, "+atree {
				t.Errorf("%+v: %q", spec, err)
			}
		}
	}
	// Nothing was created by the refused requests.
	entries, _ := os.ReadDir(atree)
	if len(entries) != 1+len(links)+1 {
		t.Errorf("tenant A's tree after refused requests: %d entries", len(entries))
	}
	// A's own directories work, with additional directories of its own.
	own := filepath.Join(atree, "own")
	s, err := m.Create(ctxA, Spec{Workspace: own, AdditionalDirs: []string{a.Workspace, atree}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workspace != own || s.Tenant != "tenant-a" {
		t.Fatalf("session %+v", s)
	}
}

func TestTenantNamesThatCannotOwnADirectory(t *testing.T) {
	m, root := treeManager(t, true)
	for _, tenant := range []string{"", ".", "..", "a/b", "../tenant-b", ".hidden", "a\x00b"} {
		if _, err := m.Create(WithTenant(context.Background(), tenant), Spec{}); !IsInvalid(err) {
			t.Errorf("tenant %q: %v, want invalid", tenant, err)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("root after refused tenants: %v", entries)
	}
}

// A tenant's tree that is a symlink (nobody's command can make one, but
// an operator might) is not followed.
func TestTenantTreeSymlinkFailsClosed(t *testing.T) {
	m, root := treeManager(t, true)
	if err := os.Symlink(mkdir(t, filepath.Join(t.TempDir(), "elsewhere")), filepath.Join(root, "tenant-a")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctxA, Spec{}); err == nil {
		t.Fatal("a session was created in a symlinked tenant tree")
	}
}

// Without tenant trees (--auth none) the whole root is the tenant's, as it
// always was.
func TestSingleTenantKeepsTheWholeRoot(t *testing.T) {
	m, root := treeManager(t, false)
	ctx := WithTenant(context.Background(), "default")
	proj := mkdir(t, filepath.Join(root, "proj"))
	s, err := m.Create(ctx, Spec{Workspace: proj})
	if err != nil || s.Workspace != proj {
		t.Fatalf("Create in the root: %v, %v", s, err)
	}
	fresh, err := m.Create(ctx, Spec{})
	if err != nil || fresh.Workspace != filepath.Join(root, fresh.ID) {
		t.Fatalf("fresh workspace: %v, %v", fresh, err)
	}
	if _, err := m.Create(ctx, Spec{Workspace: "/etc"}); !IsInvalid(err) || !strings.Contains(err.Error(), "outside the server's workspace root") {
		t.Fatalf("outside the root: %v", err)
	}
}

// Delete removes the workspace toold made, never one the caller named;
// a repeated delete by the owner succeeds, anyone else is told the session
// does not exist.
func TestDeleteRemovesOnlyTheFreshWorkspace(t *testing.T) {
	for _, trees := range []bool{true, false} {
		m, _ := treeManager(t, trees)
		fresh, err := m.Create(ctxA, Spec{})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fresh.Workspace, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		outside := mkdir(t, filepath.Join(t.TempDir(), "outside"))
		if err := os.Symlink(outside, filepath.Join(fresh.Workspace, "link")); err != nil {
			t.Fatal(err)
		}
		named := mkdir(t, filepath.Join(filepath.Dir(fresh.Workspace), "named"))
		kept, err := m.Create(ctxA, Spec{Workspace: named})
		if err != nil {
			t.Fatal(err)
		}
		// A session whose named workspace is another's fresh one does not
		// own it.
		borrower, err := m.Create(ctxA, Spec{Workspace: fresh.Workspace})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Delete(ctxA, borrower.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(fresh.Workspace); err != nil {
			t.Fatalf("trees=%v: deleting a session that named a workspace removed it: %v", trees, err)
		}
		if err := m.Delete(ctxB, fresh.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another tenant's delete = %v", err)
		}
		if err := m.Delete(ctxA, fresh.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(fresh.Workspace); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("trees=%v: the fresh workspace survived its session: %v", trees, err)
		}
		if _, err := os.Stat(outside); err != nil {
			t.Fatalf("a symlink's target was removed: %v", err)
		}
		if err := m.Delete(ctxA, fresh.ID); err != nil {
			t.Fatalf("repeated delete by the owner = %v, want success", err)
		}
		if err := m.Delete(ctxB, fresh.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another tenant's delete of a deleted session = %v, want not found", err)
		}
		if err := m.Delete(ctxA, kept.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(named); err != nil {
			t.Fatalf("trees=%v: a named workspace was removed: %v", trees, err)
		}
	}
}
