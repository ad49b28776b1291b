package monitor

import (
	"context"
	"time"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// batchWindow is how long after a batch's first line its notification
// waits for more lines, as Claude Code batches them.
const batchWindow = 200 * time.Millisecond

// watch is a running monitor: it turns its command's lines into
// notifications until the command ends, the monitor expires, it is
// stopped for its output rate, or TaskStop (or its session's end) kills
// it. It runs on a goroutine of its own, which alone posts the monitor's
// notifications, so they are queued in order.
type watch struct {
	reg                  *shells.Registry
	queue                *notify.Queue
	sessionID, toolUseID string
	id, description      string
	timeout              time.Duration
	lines                *lines
	limit                *limiter
	now                  func() time.Time
}

func (w *watch) run(done <-chan struct{}) {
	expiry := time.NewTimer(w.timeout)
	defer expiry.Stop()
	var batch <-chan time.Time
	for {
		select {
		case <-w.lines.ready:
			if batch == nil {
				batch = time.After(batchWindow)
			}
		case <-batch:
			batch = nil
			if w.deliver(w.lines.take(false)) {
				w.waitEnd(done)
				return
			}
		case <-expiry.C:
			w.expire(done)
			return
		case <-done:
			w.end()
			return
		}
	}
}

// deliver posts a batch, as the limit allows; it reports true when the
// limit stopped the monitor.
func (w *watch) deliver(text string) (stopped bool) {
	if text == "" {
		return false
	}
	now := w.now()
	ok, missed := w.limit.allow(now)
	if ok {
		if missed > 0 {
			w.post(event(w.id, w.description, suppressedNotice(missed), true))
		}
		w.post(event(w.id, w.description, text, false))
		return false
	}
	over, d := w.limit.overrun(now)
	if !over {
		return false
	}
	w.post(event(w.id, w.description, stoppedNotice(w.limit.suppressed, d), true))
	w.reg.Kill(context.Background(), w.sessionID, w.id)
	return true
}

// expire delivers what has come, says the monitor expired and stops it.
// Lines that come between the notice and the stop are delivered last.
func (w *watch) expire(done <-chan struct{}) {
	if w.deliver(w.lines.take(false)) {
		w.waitEnd(done)
		return
	}
	stderr := ""
	if info, err := w.reg.Status(w.sessionID, w.id); err == nil && w.limit.delivered == 0 && info.OutputBytes > w.lines.stdoutBytes() {
		// Standard output is fed after it is spooled, so a line written
		// at this very moment could pass for standard error here.
		stderr = tool.TaskOutputHandle(w.id)
	}
	w.post(event(w.id, w.description, expiredNotice(w.timeout, w.limit.delivered, stderr), true))
	w.reg.Kill(context.Background(), w.sessionID, w.id)
	w.waitEnd(done)
	w.deliver(w.lines.take(true))
}

// end follows the command's end: one that ended by itself gets the
// notification of its end, with the last lines; a monitor killed by
// TaskStop or its session's end gets none, as in Claude Code.
func (w *watch) end() {
	info, err := w.reg.Status(w.sessionID, w.id)
	if err != nil || info.State == shells.Killed {
		return
	}
	last := w.lines.take(true)
	if last != "" {
		if ok, missed := w.limit.allow(w.now()); !ok {
			last = ""
		} else if missed > 0 {
			w.post(event(w.id, w.description, suppressedNotice(missed), true))
		}
	}
	w.post(ended(w.toolUseID, w.description, info, w.lines.stdoutBytes(), last))
}

// waitEnd waits for the killed command to be gone.
func (w *watch) waitEnd(done <-chan struct{}) { <-done }

func (w *watch) post(n store.Notification) {
	n.ToolUseID = w.toolUseID
	w.queue.Post(context.Background(), w.sessionID, n)
}
