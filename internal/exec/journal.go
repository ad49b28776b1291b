package exec

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/strictjson"
	"github.com/toold/toold/internal/tool"
)

// JournalConfig governs the call journal: every call runs at most once per
// (session, tool_use_id), and its events are stored so that a retry or an
// Attach gets them from any replica.
type JournalConfig struct {
	// Times are the lease of a running call and how long a finished call's
	// record is kept (defaults 30 s and 1 h).
	Times store.CallTimes
	// FlushDelay is how long a running call's events may wait before they
	// are stored for followers (default 100 ms). A call that finishes
	// sooner stores them with its result, in one round trip.
	FlushDelay time.Duration
	// FollowWait bounds one wait of a follower for new events (default
	// 5 s); it waits again until the call finishes.
	FollowWait time.Duration
	// Replica names this process in call owners (default random).
	Replica string
}

func (j *JournalConfig) defaults() {
	if j.Times.Lease <= 0 {
		j.Times.Lease = 30 * time.Second
	}
	if j.Times.Keep <= 0 {
		j.Times.Keep = time.Hour
	}
	if j.FlushDelay <= 0 {
		j.FlushDelay = 100 * time.Millisecond
	}
	if j.FollowWait <= 0 {
		j.FollowWait = 5 * time.Second
	}
	if j.Replica == "" {
		var b [6]byte
		rand.Read(b[:])
		j.Replica = hex.EncodeToString(b[:])
	}
}

// ErrNoSuchCall: Attach named a call the session has no record of.
var ErrNoSuchCall = errors.New("no such call")

var batchSeq atomic.Uint64

// newOwner names one batch: a retry of a request is a different batch and
// follows the first one instead of running its calls again.
func (e *Engine) newOwner() string {
	return e.cfg.Journal.Replica + ":" + strconv.FormatUint(batchSeq.Add(1), 36)
}

// fingerprint identifies a call's content, so that a tool_use_id reused for
// something else is refused rather than answered with another call's
// result. Maps marshal with sorted keys, so equal input gives equal bytes.
func fingerprint(r Request) string {
	h := sha256.New()
	h.Write([]byte(r.Name))
	h.Write([]byte{0})
	switch {
	case r.Input != nil:
		b, _ := json.Marshal(r.Input)
		h.Write(b)
	case r.RawInput != nil:
		// Input over the limits is refused later; its fingerprint is its
		// bytes, without decoding it first.
		var v any
		if strictjson.CheckLimits(r.RawInput, strictjson.Limits{}) == nil && json.Unmarshal(r.RawInput, &v) == nil {
			b, _ := json.Marshal(v)
			h.Write(b)
		} else {
			h.Write(r.RawInput)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// encodeEvent is the stored form of an event: JSON, so that the store
// needs no schema and a replay yields the same Event the first run emitted.
func encodeEvent(ev Event) ([]byte, error) { return json.Marshal(ev) }

func decodeEvent(data []byte) (Event, error) {
	var ev Event
	err := json.Unmarshal(data, &ev)
	return ev, err
}

// journaled is an event on its way to the journal: it is encoded only
// if the store needs bytes (Redis), not for one that keeps it as it is
// (memory), and read back without decoding from such a store.
type journaled struct {
	ev        Event
	log       *slog.Logger
	toolUseID string
}

func (j *journaled) EncodeEvent() []byte {
	data, err := encodeEvent(j.ev)
	if err != nil {
		j.log.Error("encoding an event for the journal failed", "tool_use_id", j.toolUseID, "error", err)
		return nil
	}
	return data
}

// StoredEvent is a journal entry as an event: the event itself when the
// store kept it as a value, else its bytes decoded.
func StoredEvent(se store.CallEvent) (Event, error) {
	if j, ok := se.Value.(*journaled); ok {
		return j.ev, nil
	}
	return decodeEvent(se.Data)
}

// callLog is the sink of a call this batch owns: it numbers the call's
// events, forwards them to the client, keeps them for the journal and
// collects the call's effects on the session, all of which FinishCall
// stores in one step.
type callLog struct {
	e     *Engine
	ref   store.CallRef
	owner string
	out   Sink

	flushMu sync.Mutex // orders appends before the finish
	mu      sync.Mutex
	seq     int64
	buf     []store.CallEvent
	kept    []journaled // what buf's Values point into
	timer   *time.Timer
	started bool
	done    bool
	fx      store.Effects
	// hold keeps events from the client until the call is recorded (an
	// unclaimed run, which may be thrown away).
	hold bool
	held []Event
}

func (e *Engine) newCallLog(sessionID, toolUseID, owner string, out Sink) *callLog {
	return &callLog{e: e, ref: store.CallRef{SessionID: sessionID, ToolUseID: toolUseID}, owner: owner, out: out}
}

// Emit numbers and forwards one event. The client gets events in number
// order because they are forwarded under the lock that numbers them.
func (l *callLog) Emit(ev Event) error {
	l.mu.Lock()
	l.seq++
	ev.Seq = l.seq
	if ev.Started != nil {
		l.started = true
	}
	l.keep(ev)
	if l.hold {
		l.held = append(l.held, ev)
		l.mu.Unlock()
		return nil
	}
	urgent := ev.PermissionRequest != nil || ev.Delegation != nil
	if !urgent && l.timer == nil && !l.done {
		l.timer = time.AfterFunc(l.e.cfg.Journal.FlushDelay, l.flushLater)
	}
	err := l.out.Emit(ev)
	l.mu.Unlock()
	if urgent {
		// Whoever answers may be following the call on another replica:
		// the request must be visible there now.
		l.flush(context.Background())
	}
	return err
}

// keep buffers ev for the journal. The entries of a call's first events
// share one array (a decision, the start and the result are the usual
// three): an entry boxed on its own cost an allocation per event.
func (l *callLog) keep(ev Event) {
	if len(l.kept) == cap(l.kept) {
		l.kept = make([]journaled, 0, max(4, 2*cap(l.kept)))
	}
	l.kept = append(l.kept, journaled{ev: ev, log: l.e.cfg.Logger, toolUseID: l.ref.ToolUseID})
	if l.buf == nil {
		l.buf = make([]store.CallEvent, 0, 4)
	}
	l.buf = append(l.buf, store.CallEvent{Seq: ev.Seq, Value: &l.kept[len(l.kept)-1], Final: ev.Result != nil})
}

func (l *callLog) flushLater() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l.flush(ctx)
}

// flush stores the buffered events; on failure they stay buffered and go
// with the next flush or the finish (the store skips numbers it has).
func (l *callLog) flush(ctx context.Context) {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	evs := l.buf
	l.buf = nil
	l.timer = nil
	done := l.done
	l.mu.Unlock()
	if len(evs) == 0 || done {
		return
	}
	if err := l.e.cfg.Store.AppendEvents(ctx, l.ref, l.owner, evs); err != nil {
		l.e.cfg.Logger.Warn("storing a call's events failed; they go with its result", "session_id", l.ref.SessionID, "tool_use_id", l.ref.ToolUseID, "error", err)
		l.mu.Lock()
		l.buf = append(evs, l.buf...)
		l.mu.Unlock()
	}
}

// finish stores the result with the buffered events and the call's
// effects, then forwards the result: a client that sees a result can rely
// on it (and on the file stamps it implies) being stored. A call cancelled
// before it started is released instead, so that a retry runs it.
func (l *callLog) finish(ctx context.Context, ev Event, cancelled bool) {
	ctx = context.WithoutCancel(ctx)
	l.flushMu.Lock()
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.done = true
	release := cancelled && !l.started
	l.seq++
	ev.Seq = l.seq
	if !release {
		l.keep(ev)
	}
	evs, fx := l.buf, l.fx
	l.buf = nil
	l.mu.Unlock()
	var err error
	if release {
		err = l.e.cfg.Store.ReleaseCall(ctx, l.ref, l.owner)
	} else {
		err = l.e.cfg.Store.FinishCall(ctx, l.ref, l.owner, evs, fx, l.e.cfg.Journal.Times)
	}
	l.flushMu.Unlock()
	l.e.leases.drop(l.owner, l.ref)
	if err != nil {
		// The call has run: its result still goes to the client. A retry
		// will find the call's lease lapsed and report the outcome as
		// unknown rather than run it again.
		l.e.cfg.Telemetry.StoreError(ctx, "finish_call")
		l.e.cfg.Logger.Error("storing a call's result failed", "session_id", l.ref.SessionID, "tool_use_id", l.ref.ToolUseID, "release", release, "error", err)
	}
	l.mu.Lock()
	l.out.Emit(ev)
	l.mu.Unlock()
}

// commit records an unclaimed run with its final event; only when the
// record is made are the held events and the result sent on.
func (l *callLog) commit(ctx context.Context, ev Event, fp, etag string) (store.CommitResult, error) {
	l.mu.Lock()
	l.done = true
	l.seq++
	ev.Seq = l.seq
	l.keep(ev)
	evs, fx := l.buf, l.fx
	l.buf = nil
	l.mu.Unlock()
	r, err := l.e.cfg.Store.CommitCall(context.WithoutCancel(ctx), l.ref, fp, etag, evs, fx, l.e.cfg.Journal.Times)
	if err == nil && r == store.Committed {
		l.release(ev)
	}
	return r, err
}

// release sends the held events and the final one, unrecorded.
func (l *callLog) release(final Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if final.Seq == 0 {
		l.seq++
		final.Seq = l.seq
	}
	for _, ev := range l.held {
		l.out.Emit(ev)
	}
	l.held = nil
	l.out.Emit(final)
}

// The session state a tool touches goes through its call's log, so that
// it is stored with the result.

func (l *callLog) RecordRead(_ context.Context, path string, st tool.FileStamp) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fx.Reads == nil {
		l.fx.Reads = make(map[string]store.FileStamp, 1)
	}
	l.fx.Reads[path] = store.FileStamp(st)
	return nil
}

func (l *callLog) ReadStamp(ctx context.Context, path string) (tool.FileStamp, bool, error) {
	l.mu.Lock()
	st, ok := l.fx.Reads[path]
	l.mu.Unlock()
	if ok {
		return tool.FileStamp(st), true, nil
	}
	s, ok, err := l.e.cfg.Store.ReadStamp(ctx, l.ref.SessionID, path)
	return tool.FileStamp(s), ok, err
}

func (l *callLog) SetCwd(_ context.Context, dir string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fx.Cwd = dir
	return nil
}

func (l *callLog) PutBlob(_ context.Context, key string, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fx.Blobs == nil {
		l.fx.Blobs = make(map[string][]byte, 1)
	}
	l.fx.Blobs[key] = append([]byte(nil), data...)
	return nil
}

func (l *callLog) GetBlob(ctx context.Context, key string) ([]byte, bool, error) {
	l.mu.Lock()
	b, ok := l.fx.Blobs[key]
	l.mu.Unlock()
	if ok {
		return append([]byte(nil), b...), true, nil
	}
	return l.e.cfg.Store.GetBlob(ctx, l.ref.SessionID, key)
}

func (l *callLog) cwd() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fx.Cwd
}
