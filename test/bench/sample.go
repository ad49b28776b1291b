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
	s, err := interleaveN(n, a, b)
	if err != nil {
		return nil, nil, err
	}
	return s[0], s[1], nil
}

// interleaveN runs each of fs n times, one after the other, round after
// round, each round starting one further along (a b c, b c a, c a b), so
// that each goes first, in the middle and last equally often. It returns
// the latencies of each and stops at the first error.
func interleaveN(n int, fs ...func() error) ([]samples, error) {
	out := make([]samples, len(fs))
	for i := range out {
		out[i] = make(samples, 0, n)
	}
	for round := range n {
		for j := range fs {
			k := (round + j) % len(fs)
			t0 := time.Now()
			if err := fs[k](); err != nil {
				return nil, err
			}
			out[k] = append(out[k], time.Since(t0))
		}
	}
	return out, nil
}
