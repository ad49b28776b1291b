package main

import (
	"slices"
	"time"
)

// samples are the latencies of one side of a figure.
type samples []time.Duration

func (s samples) quantile(q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return c[min(len(c)-1, int(q*float64(len(c))))]
}

func (s samples) p50() time.Duration { return s.quantile(0.5) }

// interleave runs a and b n times each, one after the other, swapping
// which goes first every round, so that whatever else the machine does
// weighs on both alike. It stops at the first error.
func interleave(n int, a, b func() error) (sa, sb samples, err error) {
	s, err := interleaveAll(n, a, b)
	if err != nil {
		return nil, nil, err
	}
	return s[0], s[1], nil
}

// interleaveAll runs every op n times, one after the other, starting each
// round one op further on (a b c, b c a, c a b, ...). It stops at the
// first error.
func interleaveAll(n int, ops ...func() error) ([]samples, error) {
	s := make([]samples, len(ops))
	for i := range s {
		s[i] = make(samples, 0, n)
	}
	for round := range n {
		for k := range ops {
			j := (round + k) % len(ops)
			t0 := time.Now()
			if err := ops[j](); err != nil {
				return nil, err
			}
			s[j] = append(s[j], time.Since(t0))
		}
	}
	return s, nil
}
