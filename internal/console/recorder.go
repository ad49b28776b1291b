package console

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
)

// Recorder writes what the console shows into the store, so that the
// console of any replica shows the calls of every replica: it taps the
// call journal (every event a call emits passes through AppendEvents,
// FinishCall or CommitCall on the replica that runs it) and turns the
// events into feed entries and listed asks.
//
// The writes happen on a goroutine of their own, never in the call's path:
// a slow store delays the console, not the calls. What waits to be written
// is bounded; beyond that, feed entries are dropped (counted in the log),
// while the asks' own updates are kept, since they are bounded by the calls
// that wait.
type Recorder struct {
	board  store.Board
	askTTL time.Duration
	log    *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	ops     []op
	feedOps int
	dropped int
	calls   map[store.CallRef]*callFacts
	wake    chan struct{}
	syncs   chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// callFacts are what the recorder learned of a running call from its
// decision (tool and summary, which the journal's events do not all carry)
// and the requests it raised.
type callFacts struct {
	tool, summary string
	asks          []string
}

// op is one write: a feed entry, or the listing or unlisting of an ask.
type op struct {
	session string
	feed    []byte
	askID   string
	ask     []byte // nil: unlist askID
}

const (
	maxQueuedFeed = 10000
	maxCalls      = 100000
)

// NewRecorder starts a recorder writing to board. askTTL bounds how long a
// request stays listed when its replica dies before unlisting it: the
// permission timeout and a little more. Stop it with Close.
func NewRecorder(board store.Board, askTTL time.Duration, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Recorder{
		board: board, askTTL: askTTL, log: log, now: time.Now,
		calls: make(map[store.CallRef]*callFacts),
		wake:  make(chan struct{}, 1), syncs: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go r.run()
	return r
}

// Close writes what is queued and stops.
func (r *Recorder) Close() {
	close(r.stop)
	<-r.done
}

// OnDecision is exec.Config.OnDecision's part of the recorder: it learns
// the call's tool and summary and queues the decision's feed entry.
func (r *Recorder) OnDecision(_ context.Context, c *exec.Call, dec policy.Decision) {
	summary := ""
	if c.Invocation != nil {
		summary = c.Invocation.Activity().Summary
	}
	ref := store.CallRef{SessionID: c.Session.ID, ToolUseID: c.ToolUseID}
	r.mu.Lock()
	if len(r.calls) >= maxCalls {
		// Calls whose end the recorder never saw (a store failure): any
		// one may go; it only loses its summary.
		for k := range r.calls {
			delete(r.calls, k)
			break
		}
	}
	if f := r.calls[ref]; f != nil {
		f.tool, f.summary = c.ToolName(), summary
	} else {
		r.calls[ref] = &callFacts{tool: c.ToolName(), summary: summary}
	}
	r.mu.Unlock()
}

// Tap returns st with its journal tapped by the recorder; everything else
// passes through.
func (r *Recorder) Tap(st store.Store) store.Store { return &tap{Store: st, r: r} }

type tap struct {
	store.Store
	r *Recorder
}

func (t *tap) AppendEvents(ctx context.Context, ref store.CallRef, owner string, evs []store.CallEvent) error {
	err := t.Store.AppendEvents(ctx, ref, owner, evs)
	if err == nil {
		t.r.events(ref, evs)
	}
	return err
}

func (t *tap) FinishCall(ctx context.Context, ref store.CallRef, owner string, evs []store.CallEvent, fx store.Effects, tm store.CallTimes) error {
	err := t.Store.FinishCall(ctx, ref, owner, evs, fx, tm)
	if err == nil {
		t.r.events(ref, evs)
	}
	t.r.ended(ref)
	return err
}

func (t *tap) CommitCall(ctx context.Context, ref store.CallRef, fp, etag string, evs []store.CallEvent, fx store.Effects, tm store.CallTimes) (store.CommitResult, error) {
	res, err := t.Store.CommitCall(ctx, ref, fp, etag, evs, fx, tm)
	if err == nil && res == store.Committed {
		t.r.events(ref, evs)
		t.r.ended(ref)
	}
	return res, err
}

func (t *tap) ReleaseCall(ctx context.Context, ref store.CallRef, owner string) error {
	err := t.Store.ReleaseCall(ctx, ref, owner)
	t.r.ended(ref)
	return err
}

// events queues the feed entries and ask updates of stored events.
func (r *Recorder) events(ref store.CallRef, evs []store.CallEvent) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	facts := r.calls[ref]
	if facts == nil {
		facts = &callFacts{}
		r.calls[ref] = facts
	}
	for _, se := range evs {
		// Output chunks are most of a call's events and none of the
		// feed's: skipped undecoded. Inside a JSON string a quote is
		// escaped, so the bytes below can only be the key of a set
		// Progress.
		if se.Value == nil && bytes.Contains(se.Data, progressKey) {
			continue
		}
		ev, err := exec.StoredEvent(se)
		if err != nil || ev.Progress != nil {
			continue
		}
		it := Item{At: now, ToolUseID: ref.ToolUseID, Tool: facts.tool, Summary: facts.summary}
		switch {
		case ev.Decision != nil:
			d := ev.Decision
			it.Kind, it.Behavior, it.Rule, it.Source, it.Reason = "decision", d.Behavior.String(), d.Rule, d.Source, truncate(d.Reason, maxItemText)
		case ev.PermissionRequest != nil:
			pr := ev.PermissionRequest
			if facts.tool == "" {
				facts.tool = pr.Tool
			}
			facts.asks = append(facts.asks, pr.ID)
			r.queue(op{session: ref.SessionID, askID: pr.ID, ask: encode(newAsk(ref.ToolUseID, pr, facts.summary, now))})
			it.Kind, it.Tool, it.RequestID = "ask", facts.tool, pr.ID
			it.Behavior, it.Rule, it.Source, it.Reason = "ask", pr.Decision.Rule, pr.Decision.Source, truncate(pr.Decision.Reason, maxItemText)
		case ev.Started != nil:
			r.unlist(ref, facts)
			if facts.summary == "" {
				facts.summary = ev.Started.Activity.Summary
			}
			it.Kind, it.Tool, it.Summary = "started", ev.Started.Tool, facts.summary
		case ev.Result != nil && ev.Result.Result != nil:
			r.unlist(ref, facts)
			it.Kind, it.IsError, it.Text = "result", ev.Result.Result.IsError, resultText(ev.Result.Result)
		default:
			continue
		}
		r.queue(op{session: ref.SessionID, feed: encode(it)})
	}
	r.signal()
}

var progressKey = []byte(`"Progress":{`)

// unlist queues the unlisting of the call's asks: once a call runs or has
// its result, nobody can answer them any more.
func (r *Recorder) unlist(ref store.CallRef, f *callFacts) {
	for _, id := range f.asks {
		r.queue(op{session: ref.SessionID, askID: id})
	}
	f.asks = nil
}

// ended forgets a call, unlisting any ask it left.
func (r *Recorder) ended(ref store.CallRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.calls[ref]; f != nil {
		r.unlist(ref, f)
		delete(r.calls, ref)
		r.signal()
	}
}

// queue adds an op; the caller holds mu.
func (r *Recorder) queue(o op) {
	if o.feed != nil {
		if r.feedOps >= maxQueuedFeed {
			r.dropped++
			return
		}
		r.feedOps++
	}
	r.ops = append(r.ops, o)
}

func (r *Recorder) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *Recorder) run() {
	defer close(r.done)
	for {
		select {
		case <-r.wake:
			r.flush()
		case ch := <-r.syncs:
			r.flush()
			close(ch)
		case <-r.stop:
			r.flush()
			return
		}
	}
}

// sync returns when everything queued before it is written.
func (r *Recorder) sync() {
	ch := make(chan struct{})
	r.syncs <- ch
	<-ch
}

// flush writes the queued ops: the asks' updates first, in order, then each
// session's feed entries in one append. A feed entry of an ask is thus
// written after the ask is listed, so that a console woken by the entry
// finds the ask; and the entry of a call that started after its ask was
// answered, after the ask is unlisted.
func (r *Recorder) flush() {
	r.mu.Lock()
	ops, dropped := r.ops, r.dropped
	r.ops, r.feedOps, r.dropped = nil, 0, 0
	r.mu.Unlock()
	if dropped > 0 {
		r.log.Warn("console feed entries dropped: the store is slower than the calls", "dropped", dropped)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	feeds := map[string][][]byte{}
	var order []string
	for _, o := range ops {
		switch {
		case o.feed != nil:
			if _, ok := feeds[o.session]; !ok {
				order = append(order, o.session)
			}
			feeds[o.session] = append(feeds[o.session], o.feed)
		case o.ask != nil:
			if err := r.board.PutAsk(ctx, o.session, o.askID, o.ask, r.askTTL); err != nil {
				r.log.Warn("listing a permission request on the console failed", "session_id", o.session, "request_id", o.askID, "error", err)
			}
		default:
			if err := r.board.DropAsk(ctx, o.session, o.askID); err != nil {
				r.log.Warn("unlisting a permission request on the console failed; it stays listed until it expires", "session_id", o.session, "request_id", o.askID, "error", err)
			}
		}
	}
	for _, s := range order {
		if err := r.board.AppendFeed(ctx, s, feeds[s]...); err != nil {
			r.log.Debug("writing a session's console feed failed", "session_id", s, "entries", len(feeds[s]), "error", err)
		}
	}
}
