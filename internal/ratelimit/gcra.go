package ratelimit

import "time"

// gcra decides one admission by the generic cell rate algorithm. tat is
// the theoretical arrival time: when the tenant's bucket would be empty
// again if nothing more arrived. A batch of n fits if, after adding its n
// intervals, tat lies no more than burst intervals ahead of now. It
// returns the new tat, or how long to wait until the batch would fit. The
// Redis script computes the same in microseconds.
func gcra(now, tat time.Time, l Limits, n int) (next time.Time, wait time.Duration) {
	if tat.Before(now) {
		tat = now
	}
	t := l.interval()
	next = tat.Add(time.Duration(n) * t)
	allowAt := next.Add(-time.Duration(l.burst()) * t)
	if allowAt.After(now) {
		return tat, allowAt.Sub(now)
	}
	return next, 0
}
