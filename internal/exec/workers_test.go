package exec

import (
	"sync"
	"testing"
	"time"
)

// TestCallWorkersRunConcurrently: the calls handed to the workers all run
// at once (each waits for all the others), again and again on the same
// pool.
func TestCallWorkersRunConcurrently(t *testing.T) {
	w := newCallWorkers()
	for round := range 3 {
		const n = 10
		var started, done sync.WaitGroup
		started.Add(n)
		done.Add(n)
		all := make(chan struct{})
		for range n {
			w.run(func() {
				defer done.Done()
				started.Done()
				<-all
			})
		}
		waited := make(chan struct{})
		go func() { started.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the calls did not all start", round)
		}
		close(all)
		done.Wait()
	}
}
