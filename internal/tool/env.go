package tool

import (
	"context"
	"time"

	"github.com/toold/toold/internal/workspace"
)

// Env is what an invocation may touch: the session's files through the
// workspace, its current directory, its small per-session state, and the
// progress sink of this one call.
type Env struct {
	SessionID string
	ToolUseID string
	// Files confines every file operation to the session's directories.
	Files *workspace.Workspace
	// Cwd is the session's current directory (absolute, inside Files).
	Cwd string
	// Environ is the environment handed to processes the call starts. It is
	// built from an allow-list; toold's own environment never reaches it.
	Environ  []string
	State    SessionState
	Progress Progress
	// Hidden reports whether a path (absolute, clean) must be left out of
	// listings and search results because a Read deny rule covers it. Nil
	// hides nothing.
	Hidden func(abs string) bool
}

// SessionState is the per-session state a tool may read and write.
type SessionState interface {
	// RecordRead remembers that the model has seen this file as it is now.
	RecordRead(ctx context.Context, path string, stamp FileStamp) error
	// ReadStamp returns the stamp of the last read (or write) of path.
	ReadStamp(ctx context.Context, path string) (FileStamp, bool, error)
	// SetCwd changes the session's current directory for later calls.
	SetCwd(ctx context.Context, dir string) error
	// PutBlob stores a value under key for the session (stored with the
	// call's result; dropped with the session).
	PutBlob(ctx context.Context, key string, data []byte) error
	// GetBlob returns the value stored under key, and whether there is one.
	GetBlob(ctx context.Context, key string) ([]byte, bool, error)
}

// FileStamp identifies a version of a file well enough to notice that it
// changed after the model read it.
type FileStamp struct {
	ModTime time.Time
	Size    int64
	// Hash is a hash of the content seen, when it was hashed
	// (files up to a size limit): a write compares it with the file's
	// content under the file's lock, which two writes in one clock tick
	// cannot fool as the modification time can. Empty: compare ModTime
	// and Size.
	Hash string
}

// Progress receives a call's output while it runs. Implementations must be
// safe to call from several goroutines; the bytes are copied before return.
type Progress interface {
	Stdout(p []byte)
	Stderr(p []byte)
	Message(text string)
}

// NopProgress discards progress.
type NopProgress struct{}

func (NopProgress) Stdout([]byte)  {}
func (NopProgress) Stderr([]byte)  {}
func (NopProgress) Message(string) {}
