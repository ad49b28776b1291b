package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// workspaceFiles are the workspace's settings files, project then local,
// the order Claude Code merges their hooks in.
var workspaceFiles = []string{".claude/settings.json", ".claude/settings.local.json"}

// loadWorkspace reads the hooks of a workspace's settings files through an
// os.Root, so that a symlinked .claude or settings file cannot make toold
// read a file outside the workspace. Missing files are skipped; a file
// that exists but does not parse is an error.
func loadWorkspace(workspace string) (*Config, error) {
	if workspace == "" || !filepath.IsAbs(workspace) {
		return nil, fmt.Errorf("hooks: workspace %q is not absolute", workspace)
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, fmt.Errorf("hooks: workspace %s: %w", workspace, err)
	}
	defer root.Close()
	var cfg *Config
	for _, name := range workspaceFiles {
		origin := filepath.Join(workspace, name)
		f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &ConfigError{Origin: origin, Reason: err.Error()}
		}
		c, err := readSettings(f, origin)
		f.Close()
		if err != nil {
			return nil, err
		}
		if c.DisableAllHooks {
			// A workspace can switch off its own hooks, never the
			// operator's.
			continue
		}
		// allowManagedHooksOnly is the operator's to set.
		c.AllowManagedHooksOnly = false
		if cfg == nil {
			cfg = c
		} else {
			cfg = Merge(cfg, c)
		}
	}
	return cfg, nil
}
