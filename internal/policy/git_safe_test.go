package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// writeRepo makes ws a repository by hand (no git needed): .git with HEAD,
// objects, refs and the given config.
func writeRepo(t *testing.T, ws, config string) {
	t.Helper()
	for _, d := range []string{".git/objects", ".git/refs/heads"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	if err := os.WriteFile(filepath.Join(ws, ".git/config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

const cloneConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n" +
	"[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
	"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = t\n\temail = t@e\n"

func decideGit(t *testing.T, ws, cmd, mode string) Decision {
	t.Helper()
	e, err := NewEngine(Options{Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	return runDecide(t, e, ws, decideCase{name: cmd, tool: "Bash", mode: mode, args: bashCmd(cmd)})
}

func TestGitReadOnlyCleanRepo(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	writeRepo(t, ws, cloneConfig)
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	for _, cmd := range []string{"git status", "git diff --stat", "git log --oneline", "LANG=C git status", "timeout 5 git log", "git status && ls", "cd . && git log"} {
		for _, mode := range []string{"default", "plan"} {
			if d := decideGit(t, ws, cmd, mode); d.Behavior != Allow {
				t.Errorf("%s (%s): %v (%s), want allow", cmd, mode, d.Behavior, d.Reason)
			}
		}
	}
	// Not read-only: a change of directory before git, global options,
	// writing forms.
	for _, cmd := range []string{"cd sub && git status", "git -c core.pager=cat log", "git --no-pager log", "git -C sub status",
		"git diff --output=x", "git branch -d x", "git diff --ext-diff", "git log --textconv"} {
		if d := decideGit(t, ws, cmd, "default"); d.Behavior == Allow {
			t.Errorf("%s: allowed, want ask", cmd)
		}
	}
}

// Every configuration that can make a read-only git form run a program
// takes the read-only status away (the repository is the model's to
// write; tests run as root, and the check does not depend on the uid: it
// reads the files git would read, and fails closed when it cannot).
func TestGitReadOnlyHostileConfig(t *testing.T) {
	hostile := map[string]string{
		"fsmonitor":        "[core]\n\tfsmonitor = /tmp/evil\n",
		"fsmonitor-case":   "[Core]\n\tFsMonitor = /tmp/evil\n",
		"fsmonitor-inline": "[core] fsmonitor = /tmp/evil\n",
		"old-subsection":   "[diff.x]\n\ttextconv = /tmp/evil\n",
		"pager":            "[core]\n\tpager = /tmp/evil\n",
		"pager-cmd":        "[pager]\n\tlog = /tmp/evil\n",
		"external-diff":    "[diff]\n\texternal = /tmp/evil\n",
		"textconv":         "[diff \"x\"]\n\ttextconv = /tmp/evil\n",
		"diff-command":     "[diff \"x\"]\n\tcommand = /tmp/evil\n",
		"filter":           "[filter \"x\"]\n\tclean = /tmp/evil\n",
		"process-filter":   "[filter \"x\"]\n\tprocess = /tmp/evil\n",
		"gpg":              "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = /tmp/evil\n",
		"hooks-path":       "[core]\n\thooksPath = /tmp/hooks\n",
		"include":          "[include]\n\tpath = other\n",
		"include-if":       "[includeIf \"gitdir:/\"]\n\tpath = other\n",
		"alias":            "[alias]\n\tst = !/tmp/evil\n",
		"continued":        "[core]\n\trepositoryformatversion = 0 \\\n\n",
		"remote-upload":    "[remote \"o\"]\n\tuploadpack = /tmp/evil\n",
		"worktree":         "[core]\n\tworktree = /\n",
		"ssh":              "[core]\n\tsshCommand = /tmp/evil\n",
	}
	for name, config := range hostile {
		t.Run(name, func(t *testing.T) {
			ws, _ := filepath.EvalSymlinks(t.TempDir())
			writeRepo(t, ws, cloneConfig+config)
			for _, cmd := range []string{"git status", "git diff", "git log -p"} {
				if d := decideGit(t, ws, cmd, "default"); d.Behavior == Allow {
					t.Errorf("%s with %q: allowed, want ask", cmd, config)
				}
			}
		})
	}
}

func TestGitReadOnlyDiscovery(t *testing.T) {
	evil := "[core]\n\tfsmonitor = /tmp/evil\n"
	t.Run("config.worktree", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		writeRepo(t, ws, cloneConfig)
		os.WriteFile(filepath.Join(ws, ".git/config.worktree"), []byte(evil), 0o644)
		if d := decideGit(t, ws, "git status", "default"); d.Behavior == Allow {
			t.Error("allowed")
		}
	})
	t.Run("gitdir-file", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		other := filepath.Join(ws, "elsewhere")
		os.MkdirAll(filepath.Join(other, "objects"), 0o755)
		os.WriteFile(filepath.Join(other, "config"), []byte(evil), 0o644)
		os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: elsewhere\n"), 0o644)
		if d := decideGit(t, ws, "git status", "default"); d.Behavior == Allow {
			t.Error("allowed")
		}
	})
	t.Run("commondir", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		common := filepath.Join(ws, "common")
		os.MkdirAll(common, 0o755)
		os.WriteFile(filepath.Join(common, "config"), []byte(evil), 0o644)
		wt := filepath.Join(ws, "wt")
		os.MkdirAll(wt, 0o755)
		os.WriteFile(filepath.Join(wt, "commondir"), []byte(common+"\n"), 0o644)
		os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: wt\n"), 0o644)
		if d := decideGit(t, ws, "git status", "default"); d.Behavior == Allow {
			t.Error("allowed")
		}
	})
	t.Run("dotgit-symlink", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		os.MkdirAll(filepath.Join(ws, "real"), 0o755)
		os.WriteFile(filepath.Join(ws, "real/config"), []byte(evil), 0o644)
		os.Symlink(filepath.Join(ws, "real"), filepath.Join(ws, ".git"))
		if d := decideGit(t, ws, "git status", "default"); d.Behavior == Allow {
			t.Error("allowed")
		}
	})
	t.Run("bare", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		for _, d := range []string{"objects", "refs"} {
			os.MkdirAll(filepath.Join(ws, d), 0o755)
		}
		os.WriteFile(filepath.Join(ws, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		os.WriteFile(filepath.Join(ws, "config"), []byte("[core]\n\tbare = true\n"), 0o644)
		if d := decideGit(t, ws, "git status", "default"); d.Behavior == Allow {
			t.Error("allowed in a bare repository")
		}
	})
	t.Run("submodules", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		writeRepo(t, ws, cloneConfig)
		os.MkdirAll(filepath.Join(ws, ".git/modules/m"), 0o755)
		os.WriteFile(filepath.Join(ws, ".git/modules/m/config"), []byte(evil), 0o644)
		if d := decideGit(t, ws, "git status", "default"); d.Behavior == Allow {
			t.Error("allowed with submodules")
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads a mode-000 file; as uid 10001 the check must fail closed")
		}
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		writeRepo(t, ws, cloneConfig)
		os.Chmod(filepath.Join(ws, ".git/config"), 0)
		if d := decideGit(t, ws, "git status", "default"); d.Behavior == Allow {
			t.Error("allowed with an unreadable config")
		}
	})
	t.Run("no-repo", func(t *testing.T) {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		if ok, why := gitConfigSafe(ws); !ok {
			t.Errorf("outside a repository: %s", why)
		}
	})
}

func TestCdReadOnly(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(ws, "sub/deep"), 0o755)
	os.WriteFile(filepath.Join(ws, "sub/x.txt"), []byte("x"), 0o644)
	for _, cmd := range []string{"cd sub", "cd sub && ls", "cd sub && cat x.txt", "cd sub/deep && cd .. && ls", "cd " + ws} {
		if d := decideGit(t, ws, cmd, "default"); d.Behavior != Allow {
			t.Errorf("%s: %v (%s), want allow", cmd, d.Behavior, d.Reason)
		}
	}
	for _, cmd := range []string{"cd /tmp", "cd .. && ls", "cd /tmp && ls", "cd ~", "cd", "cd -", "cd $X", "cd sub > f", "cd sub && cd ../.. && ls"} {
		if d := decideGit(t, ws, cmd, "default"); d.Behavior == Allow {
			t.Errorf("%s: allowed, want ask", cmd)
		}
	}
}

// acceptEdits checks a write redirection as a file write: inside the
// working directories it runs; outside, into a protected path, or to a
// target toold cannot place, it asks; default mode asks.
func TestAcceptEditsRedirect(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	for _, tc := range []struct {
		cmd, mode string
		want      Behavior
	}{
		{"echo x >> f.txt", "acceptEdits", Allow},
		{"echo y > sub/g.txt", "acceptEdits", Allow},
		{"cat a.txt > c.txt 2>/dev/null", "acceptEdits", Allow},
		{"echo x > /tmp/elsewhere.txt", "acceptEdits", Ask},
		{"echo x > .git/config", "acceptEdits", Ask},
		{"echo x > $OUT", "acceptEdits", Ask},
		{"echo x > /dev/tcp/127.0.0.1/9", "acceptEdits", Ask},
		{"curl x > f.txt", "acceptEdits", Ask},
		{"echo x >> f.txt", "default", Ask},
	} {
		if d := decideGit(t, ws, tc.cmd, tc.mode); d.Behavior != tc.want {
			t.Errorf("%s (%s): %v (%s), want %v", tc.cmd, tc.mode, d.Behavior, d.Reason, tc.want)
		}
	}
}
