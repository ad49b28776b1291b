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
	sa, sb = make(samples, 0, n), make(samples, 0, n)
	timed := func(f func() error, into *samples) error {
		t0 := time.Now()
		if err := f(); err != nil {
			return err
		}
		*into = append(*into, time.Since(t0))
		return nil
	}
	for i := range n {
		first, second := a, b
		fs, ss := &sa, &sb
		if i%2 == 1 {
			first, second, fs, ss = b, a, &sb, &sa
		}
		if err := timed(first, fs); err != nil {
			return nil, nil, err
		}
		if err := timed(second, ss); err != nil {
			return nil, nil, err
		}
	}
	return sa, sb, nil
}
