package glob

import (
	"container/heap"
	"slices"
)

// match is one matching file, relative to the search root.
type match struct {
	rel   string
	mtime int64 // UnixNano
}

// newer orders matches as they are shown: most recently modified first,
// ties broken by path so that the output is deterministic.
func newer(a, b match) bool {
	if a.mtime != b.mtime {
		return a.mtime > b.mtime
	}
	return a.rel < b.rel
}

// topK keeps the max newest matches seen and counts all of them, so that a
// walk over a million files holds a hundred.
type topK struct {
	max   int
	total int
	h     oldestFirst
}

func (t *topK) add(m match) {
	t.total++
	if len(t.h) < t.max {
		heap.Push(&t.h, m)
		return
	}
	if newer(m, t.h[0]) {
		t.h[0] = m
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the kept matches, newest first.
func (t *topK) sorted() []match {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b match) int {
		if newer(a, b) {
			return -1
		}
		if newer(b, a) {
			return 1
		}
		return 0
	})
	return out
}

// oldestFirst is a heap whose root is the match that would be shown last.
type oldestFirst []match

func (h oldestFirst) Len() int           { return len(h) }
func (h oldestFirst) Less(i, j int) bool { return newer(h[j], h[i]) }
func (h oldestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *oldestFirst) Push(x any)        { *h = append(*h, x.(match)) }
func (h *oldestFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
