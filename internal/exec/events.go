package exec

import (
	"time"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

// Event is one thing that happened to one call. Exactly one of the
// pointers is set.
type Event struct {
	ToolUseID string
	// Seq numbers the events of one call from 1.
	Seq int64
	// Replayed marks an event read back from the journal: the call was not
	// run for the request that receives it.
	Replayed          bool
	Decision          *policy.Decision
	PermissionRequest *PermissionRequest
	Started           *Started
	Progress          *Progress
	Result            *Outcome
	Hook              *HookRun
	Delegation        *Delegation
}

// HookRun reports one hook that ran for the call (see hooks_stage.go).
type HookRun struct {
	Event    string
	Hook     string
	Type     string
	Decision string
	Status   string
	Message  string
	ExitCode int
	Duration time.Duration
}

// PermissionRequest announces that a call waits for an answer.
type PermissionRequest struct {
	ID       string
	Tool     string
	Input    map[string]any
	Decision policy.Decision
}

// Started announces that a call passed its checks and is running.
type Started struct {
	Tool     string
	Activity tool.Activity
	ReadOnly bool
}

// Stream says which output a progress chunk came from.
type Stream int

const (
	StreamMessage Stream = iota
	StreamStdout
	StreamStderr
)

// Progress is output produced while a call runs.
type Progress struct {
	Stream  Stream
	Data    []byte // stdout/stderr; owned by the event
	Message string
}

// Outcome is a call's final result.
type Outcome struct {
	Result   *tool.Result
	Duration time.Duration
}

// Sink receives events. Emit is called from several goroutines at once
// when calls run concurrently; events of one call arrive in order. An error
// means the receiver is gone; the engine stops emitting to it but lets the
// context decide whether calls stop.
type Sink interface {
	Emit(Event) error
}

// progressSink adapts a Sink to tool.Progress for one call.
type progressSink struct {
	id   string
	sink Sink
}

func (p progressSink) Stdout(b []byte) {
	p.sink.Emit(Event{ToolUseID: p.id, Progress: &Progress{Stream: StreamStdout, Data: append([]byte(nil), b...)}})
}

func (p progressSink) Stderr(b []byte) {
	p.sink.Emit(Event{ToolUseID: p.id, Progress: &Progress{Stream: StreamStderr, Data: append([]byte(nil), b...)}})
}

func (p progressSink) Message(s string) {
	p.sink.Emit(Event{ToolUseID: p.id, Progress: &Progress{Stream: StreamMessage, Message: s}})
}
