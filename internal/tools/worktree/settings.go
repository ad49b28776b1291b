package worktree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"syscall"
)

// The values of the worktree.baseRef setting: what a new worktree starts
// from.
const (
	// BaseFresh (Claude Code's default): origin's default branch, fetched
	// when the last fetch is a day old; the local HEAD when origin has
	// none.
	BaseFresh = "fresh"
	// BaseHead: the local HEAD.
	BaseHead = "head"
)

// Settings are the "worktree" keys of a settings.json that toold applies.
type Settings struct {
	// BaseRef is "fresh", "head", or "" when the file does not say.
	BaseRef string
}

// ParseSettings reads the "worktree" object of settings.json content:
// {"worktree": {"baseRef": "head"}}. A baseRef other than "fresh" or
// "head", or a "worktree" that is not an object, is an error (toold stops
// rather than make worktrees from a base the operator did not mean).
// Ignored lists the other keys of "worktree" (sparsePaths, ...), which
// toold does not apply, as "worktree.<key>".
func ParseSettings(data []byte) (s Settings, ignored []string, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Settings{}, nil, fmt.Errorf("settings: %w", err)
	}
	raw, ok := top["worktree"]
	if !ok || string(raw) == "null" {
		return Settings{}, nil, nil
	}
	var wt map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wt); err != nil || wt == nil {
		return Settings{}, nil, errors.New("worktree: must be an object")
	}
	for k, v := range wt {
		if k != "baseRef" {
			ignored = append(ignored, "worktree."+k)
			continue
		}
		var ref string
		if err := json.Unmarshal(v, &ref); err != nil || (ref != BaseFresh && ref != BaseHead) {
			return Settings{}, nil, fmt.Errorf("worktree.baseRef: must be %q or %q, not %s", BaseFresh, BaseHead, v)
		}
		s.BaseRef = ref
	}
	sort.Strings(ignored)
	return s, ignored, nil
}

// workspaceFiles are the workspace's settings files, the one that wins
// first (Claude Code: local settings over project settings).
var workspaceFiles = []string{".claude/settings.local.json", ".claude/settings.json"}

// maxSettingsSize bounds a workspace settings file toold reads.
const maxSettingsSize = 1 << 20

// workspaceBaseRef is worktree.baseRef of the workspace's settings files,
// "" when none says. The files are read through an os.Root, so that a
// .claude linked elsewhere cannot make toold read outside the workspace; a
// file that cannot be read or parsed is passed over, as Claude Code
// passes over a setting it cannot use.
func workspaceBaseRef(workspace string) string {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return ""
	}
	defer root.Close()
	for _, name := range workspaceFiles {
		f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			// Missing, or not a file toold can read: no setting.
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxSettingsSize))
		f.Close()
		if err != nil {
			continue
		}
		if s, _, err := ParseSettings(data); err == nil && s.BaseRef != "" {
			return s.BaseRef
		}
	}
	return ""
}
