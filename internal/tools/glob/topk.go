package glob

import (
	"container/heap"
	"slices"
)

// match is one matching file, relative to the search root.
type match struct {
	rel   string
	mtime int64 // UnixNano
	// order is where the walk met the file: its index in each directory
	// listing on the way down, in the order the file system lists them.
	order []int32
}

// before orders matches as they are shown, as Claude Code does: least
// recently modified first, ties in the order of a depth-first walk that
// reads each directory in the file system's order (Claude Code sorts the
// walk's list stably by time), then by path.
func before(a, b match) bool {
	if a.mtime != b.mtime {
		return a.mtime < b.mtime
	}
	if c := slices.Compare(a.order, b.order); c != 0 {
		return c < 0
	}
	return a.rel < b.rel
}

// topK keeps the first max matches in shown order (the oldest, which
// Claude Code keeps) and counts all of them, so that a walk over a million
// files holds a hundred.
type topK struct {
	max   int
	total int
	h     lastFirst
}

func (t *topK) add(m match) {
	t.total++
	if len(t.h) < t.max {
		heap.Push(&t.h, m)
		return
	}
	if before(m, t.h[0]) {
		t.h[0] = m
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the kept matches, oldest first.
func (t *topK) sorted() []match {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b match) int {
		if before(a, b) {
			return -1
		}
		if before(b, a) {
			return 1
		}
		return 0
	})
	return out
}

// lastFirst is a heap whose root is the match that would be shown last.
type lastFirst []match

func (h lastFirst) Len() int           { return len(h) }
func (h lastFirst) Less(i, j int) bool { return before(h[j], h[i]) }
func (h lastFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lastFirst) Push(x any)        { *h = append(*h, x.(match)) }
func (h *lastFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
