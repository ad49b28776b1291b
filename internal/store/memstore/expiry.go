package memstore

import (
	"container/heap"
	"time"
)

// expiries orders a session's call records by when they expire, so that
// dropping the expired ones costs a look at the earliest instead of a
// walk over every record: a session that made many calls within the keep
// time would otherwise pay for all of them on each new call.
//
// An item is pushed whenever a record's expiry is set. It goes stale when
// the record is dropped, replaced or kept longer (a later item then
// stands for it), and is discarded when it comes up.
type expiries []expiry

type expiry struct {
	at time.Time
	id string
	c  *call
}

func (q expiries) Len() int           { return len(q) }
func (q expiries) Less(i, j int) bool { return q[i].at.Before(q[j].at) }
func (q expiries) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *expiries) Push(x any)        { *q = append(*q, x.(expiry)) }
func (q *expiries) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = expiry{}
	*q = old[:len(old)-1]
	return x
}

// keep records call c under id until its expiry, c.expires.
func (e *entry) keep(id string, c *call) {
	if e.calls == nil {
		e.calls = make(map[string]*call)
	}
	e.calls[id] = c
	e.expire(id, c)
}

// expire queues c's current expiry; after changing c.expires of a kept
// record, call it again.
func (e *entry) expire(id string, c *call) {
	heap.Push(&e.expiries, expiry{at: c.expires, id: id, c: c})
}

// sweep drops the session's expired records, so the map is bounded by
// the calls made within the keep time.
func (e *entry) sweep(now time.Time) {
	for len(e.expiries) > 0 && !now.Before(e.expiries[0].at) {
		x := heap.Pop(&e.expiries).(expiry)
		if c := e.calls[x.id]; c == x.c && !now.Before(c.expires) {
			delete(e.calls, x.id)
			c.notify()
		}
	}
}
