// Package tooltest gives tool tests a real workspace in a temporary
// directory, an in-memory session state and a progress recorder.
package tooltest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// State is an in-memory tool.SessionState.
type State struct {
	mu     sync.Mutex
	Stamps map[string]tool.FileStamp
	Cwd    string
	Blobs  map[string][]byte
}

func (s *State) PutBlob(_ context.Context, key string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Blobs == nil {
		s.Blobs = map[string][]byte{}
	}
	s.Blobs[key] = append([]byte(nil), data...)
	return nil
}

func (s *State) GetBlob(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.Blobs[key]
	return append([]byte(nil), b...), ok, nil
}

func (s *State) RecordRead(_ context.Context, path string, st tool.FileStamp) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Stamps == nil {
		s.Stamps = map[string]tool.FileStamp{}
	}
	s.Stamps[path] = st
	return nil
}

func (s *State) ReadStamp(_ context.Context, path string) (tool.FileStamp, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.Stamps[path]
	return st, ok, nil
}

func (s *State) SetCwd(_ context.Context, dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Cwd = dir
	return nil
}

// Recorder is a tool.Progress that keeps everything it is given.
type Recorder struct {
	mu       sync.Mutex
	Out, Err []byte
	Messages []string
	Chunks   int
}

func (r *Recorder) Stdout(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Out = append(r.Out, p...)
	r.Chunks++
}

func (r *Recorder) Stderr(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Err = append(r.Err, p...)
	r.Chunks++
}

func (r *Recorder) Message(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Messages = append(r.Messages, s)
}

// Snapshot returns copies of what was recorded so far.
func (r *Recorder) Snapshot() (out, errOut string, msgs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.Out), string(r.Err), append([]string(nil), r.Messages...)
}

// Env builds an Env over a fresh temporary workspace (canonicalised, so
// paths compare equal to what tools report). Extra directories are created
// and added as additional directories.
func Env(t testing.TB, extraDirs ...string) (*tool.Env, *State, *Recorder) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, extraDirs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	st := &State{Cwd: dir}
	rec := &Recorder{}
	env := &tool.Env{
		SessionID: "test-session",
		ToolUseID: "toolu_test",
		Files:     ws,
		Cwd:       dir,
		Environ:   []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8"},
		State:     st,
		Progress:  rec,
	}
	return env, st, rec
}

// Run parses input (a Go value marshalled to JSON) and runs the call.
func Run(t testing.TB, tl tool.Tool, env *tool.Env, input any) (*tool.Result, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := tl.Parse(raw)
	if err != nil {
		return nil, err
	}
	return inv.Run(context.Background(), env)
}

// Text joins the text blocks of a result.
func Text(r *tool.Result) string {
	var s string
	for _, b := range r.Content {
		if b.Type == tool.BlockText {
			s += b.Text
		}
	}
	return s
}

// Schema compiles d's input schema as the engine does, and returns it with
// the schema as parsed JSON.
func Schema(t testing.TB, d tool.Definition) (*jsonschema.Schema, any) {
	t.Helper()
	sch, doc, err := tool.CompileSchema(d)
	if err != nil {
		t.Fatal(err)
	}
	return sch, doc
}
