package dirfd

import (
	"runtime"
	"sync"
)

// Pool runs directory reads on a bounded number of extra goroutines. When
// all are busy, Go runs the work on the caller's goroutine instead of
// waiting, so a deep tree can never deadlock a walk on its own bound.
type Pool struct {
	sem chan struct{}
	wg  sync.WaitGroup
}

// NewPool returns a pool of two goroutines per processor: directory reads
// block in system calls, so a little more than GOMAXPROCS keeps the CPUs busy.
func NewPool() *Pool {
	return &Pool{sem: make(chan struct{}, 2*runtime.GOMAXPROCS(0))}
}

// Go runs f on a pool goroutine, or on the caller's when none is free.
func (p *Pool) Go(f func()) {
	select {
	case p.sem <- struct{}{}:
		p.wg.Go(func() {
			defer func() { <-p.sem }()
			f()
		})
	default:
		f()
	}
}

// Wait waits for every f started with Go.
func (p *Pool) Wait() { p.wg.Wait() }
