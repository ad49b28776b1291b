package exec

import "time"

// callWorkers run the calls of a concurrent group on goroutines that stay
// for the next group. A call path's stack grows to some 30 KiB; started on
// a new goroutine, each call grew it again in several copies (copystack
// was 8% of toold's CPU under a stream of batches of ten Reads). A call
// goes to an idle worker, or starts a new one; a worker left idle for
// workerIdle ends, and one that ran workerCalls calls hands over to a new
// goroutine, so that a stack grown by one large call is not kept forever.
type callWorkers struct {
	next chan func()
}

const (
	workerIdle  = 30 * time.Second
	workerCalls = 1 << 16
)

func newCallWorkers() *callWorkers { return &callWorkers{next: make(chan func())} }

// run runs f on an idle worker, or on a new one.
func (w *callWorkers) run(f func()) {
	select {
	case w.next <- f:
	default:
		go w.work(f)
	}
}

func (w *callWorkers) work(f func()) {
	f()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for range workerCalls - 1 {
		select {
		case f := <-w.next:
			f()
		case <-idle.C:
			return
		}
		idle.Reset(workerIdle) // no stale tick after Reset (Go 1.23 timers)
	}
}
