package redisstore

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toold/toold/internal/store"
)

// The stored forms. Field names are part of the format (replicas of
// different versions share them): rename nothing, only add. Times are
// RFC 3339 strings with nanoseconds, in UTC; a zero time stays zero.

type wireSession struct {
	ID             string            `json:"id"`
	Workspace      string            `json:"workspace"`
	Mode           string            `json:"mode"`
	Allow          wireList          `json:"allow,omitempty"`
	Deny           wireList          `json:"deny,omitempty"`
	Ask            wireList          `json:"ask,omitempty"`
	AdditionalDirs wireList          `json:"additional_dirs,omitempty"`
	Cwd            string            `json:"cwd"`
	CreatedAt      string            `json:"created_at"`
	User           wireRules         `json:"user"`
	SessionRules   wireRules         `json:"session_rules"`
	Revision       int64             `json:"revision"`
	Tenant         string            `json:"tenant,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	Parent         string            `json:"parent,omitempty"`
	AgentType      string            `json:"agent_type,omitempty"`
	AgentDesc      string            `json:"agent_description,omitempty"`
	Children       wireList          `json:"children,omitempty"`
	Worktree       string            `json:"worktree,omitempty"`
	WorktreeGitDir string            `json:"worktree_git_dir,omitempty"`
	WorktreeKind   string            `json:"worktree_kind,omitempty"`
	WorktreeBranch string            `json:"worktree_branch,omitempty"`
	WorktreeReturn string            `json:"worktree_return,omitempty"`
}

type wireRules struct {
	Allow wireList `json:"allow,omitempty"`
	Deny  wireList `json:"deny,omitempty"`
	Ask   wireList `json:"ask,omitempty"`
}

func toWire(r store.RuleLists) wireRules { return wireRules{r.Allow, r.Deny, r.Ask} }

func (w wireRules) rules() store.RuleLists {
	return store.RuleLists{Allow: w.Allow, Deny: w.Deny, Ask: w.Ask}
}

// wireList is a list of strings that also decodes {}: Lua's cjson (the
// SetCwd script) cannot tell an empty array from an empty object. Lists are
// written with omitempty, so this is only a safety net.
type wireList []string

func (l *wireList) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("{}")) {
		*l = nil
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}

type wireStamp struct {
	ModTime string `json:"mtime"`
	Size    int64  `json:"size"`
	Hash    string `json:"hash,omitempty"`
}

func encodeTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func decodeTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

func encodeSession(s *store.Session) ([]byte, error) {
	return json.Marshal(wireSession{
		ID:             s.ID,
		Workspace:      s.Workspace,
		Mode:           s.Mode,
		Allow:          s.Allow,
		Deny:           s.Deny,
		Ask:            s.Ask,
		AdditionalDirs: s.AdditionalDirs,
		Cwd:            s.Cwd,
		CreatedAt:      encodeTime(s.CreatedAt),
		User:           toWire(s.User),
		SessionRules:   toWire(s.SessionRules),
		Revision:       s.Revision,
		Tenant:         s.Tenant,
		Env:            s.Env,
		Parent:         s.Parent,
		AgentType:      s.AgentType,
		AgentDesc:      s.AgentDescription,
		Children:       s.Children,
		Worktree:       s.Worktree,
		WorktreeGitDir: s.WorktreeGitDir,
		WorktreeKind:   s.WorktreeKind,
		WorktreeBranch: s.WorktreeBranch,
		WorktreeReturn: s.WorktreeReturn,
	})
}

func decodeSession(b []byte) (*store.Session, error) {
	var w wireSession
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("decode session: %w", err)
	}
	created, err := decodeTime(w.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("decode session: %w", err)
	}
	return &store.Session{
		ID:               w.ID,
		Workspace:        w.Workspace,
		Mode:             w.Mode,
		Allow:            w.Allow,
		Deny:             w.Deny,
		Ask:              w.Ask,
		AdditionalDirs:   w.AdditionalDirs,
		Cwd:              w.Cwd,
		CreatedAt:        created,
		User:             w.User.rules(),
		SessionRules:     w.SessionRules.rules(),
		Revision:         w.Revision,
		Tenant:           w.Tenant,
		Env:              w.Env,
		Worktree:         w.Worktree,
		WorktreeGitDir:   w.WorktreeGitDir,
		WorktreeKind:     w.WorktreeKind,
		WorktreeBranch:   w.WorktreeBranch,
		WorktreeReturn:   w.WorktreeReturn,
		Parent:           w.Parent,
		AgentType:        w.AgentType,
		AgentDescription: w.AgentDesc,
		Children:         w.Children,
		ETag:             etag(b),
	}, nil
}

// etag is the SHA-1 of the stored JSON: scripts compute the same with
// redis.sha1hex, so any change of the session, by any writer, changes it.
func etag(b []byte) string {
	h := sha1.Sum(b)
	return hex.EncodeToString(h[:])
}

func encodeStamp(st store.FileStamp) (string, error) {
	b, err := json.Marshal(wireStamp{ModTime: encodeTime(st.ModTime), Size: st.Size, Hash: st.Hash})
	return string(b), err
}

func decodeStamp(s string) (store.FileStamp, error) {
	var w wireStamp
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return store.FileStamp{}, fmt.Errorf("decode stamp: %w", err)
	}
	t, err := decodeTime(w.ModTime)
	if err != nil {
		return store.FileStamp{}, fmt.Errorf("decode stamp: %w", err)
	}
	return store.FileStamp{ModTime: t, Size: w.Size, Hash: w.Hash}, nil
}
