package monitor

import "time"

// Claude Code 2.1.332's limit on a monitor's notifications, which limiter
// keeps: a bucket of 10, one more every 2 s. A batch that finds the bucket
// empty is suppressed; the next one that gets through is preceded by a
// notice of how many were. A run of suppressions (it ends when the bucket
// is full again, or after 6 s without a batch) that lasts past 30 s stops
// the monitor.
const (
	bucketSize     = 10
	bucketRefill   = 2 * time.Second
	suppressionCap = 30 * time.Second
)

type limiter struct {
	tokens int
	// refilled is when the bucket last gained its tokens: it gains one
	// per bucketRefill after it, up to bucketSize.
	refilled time.Time
	// lastBatch is when the last batch came; since when the run of
	// suppressions began (zero: none).
	lastBatch, since time.Time
	// suppressed counts the batches suppressed since the last delivered
	// one; delivered counts those delivered.
	suppressed, delivered int
}

func newLimiter(now time.Time) *limiter {
	return &limiter{tokens: bucketSize, refilled: now}
}

// refill adds the tokens earned by now.
func (l *limiter) refill(now time.Time) {
	if n := int(now.Sub(l.refilled) / bucketRefill); n > 0 {
		l.tokens = min(bucketSize, l.tokens+n)
		l.refilled = l.refilled.Add(time.Duration(n) * bucketRefill)
	}
}

// allow decides a batch that comes at now. When it is delivered, missed is
// how many were suppressed before it (a notice of them goes first).
func (l *limiter) allow(now time.Time) (ok bool, missed int) {
	l.refill(now)
	if now.Sub(l.lastBatch) > 3*bucketRefill || l.tokens == bucketSize {
		l.since = time.Time{}
	}
	l.lastBatch = now
	if l.tokens == 0 {
		l.suppressed++
		if l.since.IsZero() {
			l.since = now
		}
		return false, 0
	}
	l.tokens--
	missed, l.suppressed = l.suppressed, 0
	l.delivered++
	return true, missed
}

// overrun reports whether the run of suppressions has lasted past the cap,
// and how long it has lasted.
func (l *limiter) overrun(now time.Time) (bool, time.Duration) {
	if l.since.IsZero() {
		return false, 0
	}
	d := now.Sub(l.since)
	return d > suppressionCap, d
}
