package memstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/toold/toold/internal/store"
)

var _ store.Journal = (*Store)(nil)

// call is one journal record. changed is closed and replaced whenever the
// record changes, so that readers waiting for events wake up.
type call struct {
	fingerprint string
	owner       string
	status      store.CallStatus
	leaseUntil  time.Time
	expires     time.Time
	events      []store.CallEvent
	changed     chan struct{}
}

func (c *call) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// live returns the session's record of a call, dropping it when expired.
func (e *entry) live(id string, now time.Time) *call {
	c := e.calls[id]
	if c != nil && !now.Before(c.expires) {
		delete(e.calls, id)
		c.notify()
		return nil
	}
	return c
}

func (m *Store) BeginCalls(_ context.Context, sessionID, owner string, claims []store.Claim, t store.CallTimes) (*store.Session, []store.ClaimResult, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[sessionID]
	if !ok {
		return nil, nil, notFound(sessionID)
	}
	e.sweep(now)
	res := make([]store.ClaimResult, len(claims))
	for i, cl := range claims {
		c := e.calls[cl.ToolUseID]
		if c == nil {
			continue
		}
		if c.fingerprint != cl.Fingerprint {
			return nil, nil, fmt.Errorf("tool_use_id %s: %w", cl.ToolUseID, store.ErrCallConflict)
		}
		if c.status == store.CallRunning && c.owner == owner {
			continue
		}
		res[i].Status = c.status
	}
	for i, cl := range claims {
		if !res[i].Owned() || e.calls[cl.ToolUseID] != nil {
			continue
		}
		e.keep(cl.ToolUseID, &call{
			fingerprint: cl.Fingerprint, owner: owner, status: store.CallRunning,
			leaseUntil: now.Add(t.Lease), expires: now.Add(t.Keep), changed: make(chan struct{}),
		})
	}
	return e.session(), res, nil
}

// owned returns the call if owner holds it, or (lapsed) its lease lapsed.
func (m *Store) owned(ref store.CallRef, owner string, lapsed bool, now time.Time) (*entry, *call, error) {
	e, ok := m.sessions[ref.SessionID]
	if !ok {
		return nil, nil, notFound(ref.SessionID)
	}
	c := e.live(ref.ToolUseID, now)
	if c == nil || c.status != store.CallRunning {
		return nil, nil, fmt.Errorf("call %s: %w", ref.ToolUseID, store.ErrNotOwner)
	}
	if c.owner != owner && !(lapsed && now.After(c.leaseUntil)) {
		return nil, nil, fmt.Errorf("call %s: %w", ref.ToolUseID, store.ErrNotOwner)
	}
	return e, c, nil
}

func (m *Store) AppendEvents(_ context.Context, ref store.CallRef, owner string, evs []store.CallEvent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, c, err := m.owned(ref, owner, false, time.Now())
	if err != nil {
		return err
	}
	c.append(evs)
	c.notify()
	return nil
}

func (c *call) append(evs []store.CallEvent) {
	if c.events == nil {
		// Most calls come with all their events at once.
		c.events = make([]store.CallEvent, 0, len(evs))
	}
	for _, ev := range evs {
		if ev.Value == nil {
			ev.Data = append([]byte(nil), ev.Data...)
		}
		c.events = append(c.events, ev)
	}
	if n := len(c.events) - store.MaxCallEvents; n > 0 {
		c.events = append(c.events[:0:0], c.events[n:]...)
	}
}

func (m *Store) FinishCall(_ context.Context, ref store.CallRef, owner string, evs []store.CallEvent, fx store.Effects, t store.CallTimes) error {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, c, err := m.owned(ref, owner, true, now)
	if err != nil {
		return err
	}
	c.append(evs)
	c.status = store.CallDone
	c.expires = now.Add(t.Keep)
	e.expire(ref.ToolUseID, c)
	c.notify()
	e.apply(fx)
	return nil
}

func (e *entry) apply(fx store.Effects) {
	for p, st := range fx.Reads {
		if e.stamps == nil {
			e.stamps = make(map[string]store.FileStamp)
		}
		e.stamps[p] = st
	}
	if fx.Cwd != "" {
		e.s.Cwd = fx.Cwd
		e.ver++
	}
	for k, b := range fx.Blobs {
		if e.blobs == nil {
			e.blobs = make(map[string][]byte)
		}
		e.blobs[k] = append([]byte(nil), b...)
	}
}

func (m *Store) CommitCall(_ context.Context, ref store.CallRef, fingerprint, etag string, evs []store.CallEvent, fx store.Effects, t store.CallTimes) (store.CommitResult, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[ref.SessionID]
	if !ok {
		return 0, notFound(ref.SessionID)
	}
	if c := e.live(ref.ToolUseID, now); c != nil {
		if c.fingerprint != fingerprint {
			return 0, fmt.Errorf("tool_use_id %s: %w", ref.ToolUseID, store.ErrCallConflict)
		}
		return store.CommitExists, nil
	}
	if strconv.FormatUint(e.ver, 10) != etag {
		return store.CommitStale, nil
	}
	e.sweep(now)
	c := &call{fingerprint: fingerprint, status: store.CallDone, expires: now.Add(t.Keep), changed: make(chan struct{})}
	c.append(evs)
	e.keep(ref.ToolUseID, c)
	e.apply(fx)
	return store.Committed, nil
}

func (m *Store) ReleaseCall(_ context.Context, ref store.CallRef, owner string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[ref.SessionID]
	if !ok {
		return notFound(ref.SessionID)
	}
	if c := e.calls[ref.ToolUseID]; c != nil && c.owner == owner && c.status == store.CallRunning {
		delete(e.calls, ref.ToolUseID)
		c.notify()
	}
	return nil
}

func (m *Store) RenewLeases(_ context.Context, owner string, refs []store.CallRef, lease time.Duration) error {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range refs {
		e, ok := m.sessions[r.SessionID]
		if !ok {
			continue
		}
		if c := e.live(r.ToolUseID, now); c != nil && c.owner == owner && c.status == store.CallRunning {
			c.leaseUntil = now.Add(lease)
		}
	}
	return nil
}

func (m *Store) ReadEvents(ctx context.Context, ref store.CallRef, after int64, wait time.Duration) ([]store.CallEvent, store.CallStatus, bool, error) {
	var timer <-chan time.Time
	for {
		evs, st, expired, changed, err := m.readEvents(ref, after)
		if err != nil || len(evs) > 0 || st != store.CallRunning || expired || wait <= 0 {
			return evs, st, expired, err
		}
		if timer == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-changed:
		case <-timer:
			return nil, st, false, nil
		case <-ctx.Done():
			return nil, st, false, ctx.Err()
		}
	}
}

func (m *Store) readEvents(ref store.CallRef, after int64) ([]store.CallEvent, store.CallStatus, bool, chan struct{}, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[ref.SessionID]
	if !ok {
		return nil, store.CallAbsent, false, nil, notFound(ref.SessionID)
	}
	c := e.live(ref.ToolUseID, now)
	if c == nil {
		return nil, store.CallAbsent, false, nil, nil
	}
	var out []store.CallEvent
	for _, ev := range c.events {
		if ev.Seq > after {
			if ev.Data != nil {
				ev.Data = append([]byte(nil), ev.Data...)
			}
			out = append(out, ev)
		}
	}
	expired := c.status == store.CallRunning && now.After(c.leaseUntil)
	return out, c.status, expired, c.changed, nil
}
