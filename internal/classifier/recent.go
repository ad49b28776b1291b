package classifier

import (
	"context"
	"sync"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Bounds of the recent decisions kept: per session, and sessions (the
// least recently decided is dropped first).
const (
	recentPerSession = 20
	maxSessions      = 10000
	maxSummary       = 256
)

// Recent keeps the latest decisions of each session, in memory: what the
// classifier is told of the session's history. It is per replica; a
// session whose calls move between replicas shows each one's share.
type Recent struct {
	mu       sync.Mutex
	per, max int
	sessions map[string]*history
	// tick orders decisions; a session's last tick says when it last had one.
	tick uint64
}

type history struct {
	items []*tooldv1.RecentDecision
	last  uint64
}

// NewRecent keeps per decisions of at most max sessions.
func NewRecent(per, max int) *Recent {
	return &Recent{per: per, max: max, sessions: map[string]*history{}}
}

// Add records a decision of a session.
func (r *Recent) Add(sessionID string, d *tooldv1.RecentDecision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.sessions[sessionID]
	if !ok {
		if len(r.sessions) >= r.max {
			r.evict()
		}
		h = &history{}
		r.sessions[sessionID] = h
	}
	r.tick++
	h.last = r.tick
	if len(h.items) == r.per {
		copy(h.items, h.items[1:])
		h.items = h.items[:r.per-1]
	}
	h.items = append(h.items, d)
}

// evict drops the session decided least recently. Linear, but it runs only
// when max sessions are held, once per new session.
func (r *Recent) evict() {
	var oldest string
	var at uint64
	for id, h := range r.sessions {
		if oldest == "" || h.last < at {
			oldest, at = id, h.last
		}
	}
	delete(r.sessions, oldest)
}

// Of returns a copy of the session's decisions, oldest first.
func (r *Recent) Of(sessionID string) []*tooldv1.RecentDecision {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.sessions[sessionID]
	if h == nil {
		return nil
	}
	return append([]*tooldv1.RecentDecision(nil), h.items...)
}

// Forget drops a session's decisions (it was deleted).
func (r *Recent) Forget(sessionID string) {
	r.mu.Lock()
	delete(r.sessions, sessionID)
	r.mu.Unlock()
}

// Observe is exec.Config's OnDecision: every permission decision of a
// session in auto mode joins its recent decisions (other sessions' are not
// kept: the classifier never hears of them).
func (k *Classifier) Observe(_ context.Context, c *exec.Call, dec policy.Decision) {
	if c.Session == nil || c.Session.Mode != "auto" {
		return
	}
	summary := c.ToolName()
	if c.Invocation != nil {
		if s := c.Invocation.Activity().Summary; s != "" {
			summary = s
		}
	}
	k.recent.Add(c.Session.ID, &tooldv1.RecentDecision{
		Time: timestamppb.New(k.opts.Now()), ToolName: c.ToolName(),
		Summary:  k.opts.Redact(bounded(summary, maxSummary)),
		Behavior: dec.Behavior.String(), Source: dec.Source,
	})
}

// Answered is exec.AnswerObserver: a person's answer joins the session's
// recent decisions, with source "person".
func (k *Classifier) Answered(ctx context.Context, c *exec.Call, allowed bool) {
	b := policy.Deny
	if allowed {
		b = policy.Allow
	}
	k.Observe(ctx, c, policy.Decision{Behavior: b, Source: "person"})
}

var _ exec.AnswerObserver = (*Classifier)(nil)

// Forget drops what is kept of a session.
func (k *Classifier) Forget(sessionID string) { k.recent.Forget(sessionID) }
