package monitor

import (
	"testing"
	"time"
)

// Claude Code's limit, on a clock of our own: 10 at once and one every
// 2 s; the first batch let through after suppressed ones is preceded by
// their count; suppression for over 30 s stops the monitor.
func TestLimiter(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	l := newLimiter(t0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	// A batch every 200 ms: the bucket's 10 and the one earned at 2 s.
	for i := range 11 {
		if ok, missed := l.allow(at(time.Duration(i) * 200 * time.Millisecond)); !ok || missed != 0 {
			t.Fatalf("batch %d: %v, %d", i, ok, missed)
		}
	}
	for i := 11; i < 20; i++ {
		if ok, _ := l.allow(at(time.Duration(i) * 200 * time.Millisecond)); ok {
			t.Fatalf("batch %d at %v let through", i, time.Duration(i)*200*time.Millisecond)
		}
	}
	// At 4 s the next token: that batch goes, after the 9 suppressed.
	if ok, missed := l.allow(at(4 * time.Second)); !ok || missed != 9 || l.delivered != 12 {
		t.Fatalf("at 4s: %v, %d missed, %d delivered", ok, missed, l.delivered)
	}
	if over, _ := l.overrun(at(4 * time.Second)); over {
		t.Fatal("overrun after 2 s of suppression")
	}
	// Keep it up: suppressed from 4.2 s on, a token every 2 s.
	var stop time.Duration
	for d := 4200 * time.Millisecond; d < 60*time.Second; d += 200 * time.Millisecond {
		l.allow(at(d))
		if over, _ := l.overrun(at(d)); over {
			stop = d
			break
		}
	}
	if stop == 0 {
		t.Fatal("a steady flood was never stopped")
	}
	// The run began at 2.2 s and was never broken (the bucket never
	// filled, no 6 s gap): it is stopped just past 32.2 s.
	if stop < 32200*time.Millisecond || stop > 32600*time.Millisecond {
		t.Fatalf("stopped at %v", stop)
	}
}

// A quiet spell ends a run of suppressions: the bucket refills, and a
// batch after more than 6 s starts afresh.
func TestLimiterRunEnds(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	l := newLimiter(t0)
	for i := range 20 {
		l.allow(t0.Add(time.Duration(i) * 10 * time.Millisecond))
	}
	if l.since.IsZero() {
		t.Fatal("no run of suppressions")
	}
	if ok, missed := l.allow(t0.Add(7 * time.Second)); !ok || missed != 10 || !l.since.IsZero() {
		t.Fatalf("after 7 s: %v, %d missed, run since %v", ok, missed, l.since)
	}
}
