package console

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/toold/toold/internal/store"
)

// events streams a session's feed as server-sent events: each entry as
// "feed" (id = its Seq, so a reconnecting EventSource resumes after the
// last one it got), a comment after each quiet wait, and "gone" when the
// session has ended.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	after, err := resumeAt(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	ctx := r.Context()
	for ctx.Err() == nil {
		entries, err := s.readFeed(ctx, sess.ID, after)
		if err != nil {
			if ctx.Err() == nil {
				// The browser reconnects by itself, after its retry delay.
				fmt.Fprintf(w, "event: unavailable\ndata: the state store could not be read\n\n")
				fl.Flush()
			}
			return
		}
		if len(entries) == 0 {
			alive, err := s.cfg.Store.SessionExists(ctx, sess.ID)
			if err == nil && !alive {
				fmt.Fprintf(w, "event: gone\ndata: the session has ended\n\n")
				fl.Flush()
				return
			}
			fmt.Fprintf(w, ": waiting\n\n")
			fl.Flush()
			continue
		}
		for _, e := range entries {
			// The data is JSON, one line: no newline can end the event
			// early.
			fmt.Fprintf(w, "id: %d\nevent: feed\ndata: %s\n\n", e.Seq, e.Data)
			after = e.Seq
		}
		fl.Flush()
	}
}

// resumeAt is where the stream starts: after the Last-Event-ID an
// EventSource sends when it reconnects, or the page's ?after.
func resumeAt(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("after: want a feed position, got %q", v)
	}
	return n, nil
}

// maxBlockingReads bounds the feed reads that wait in the store at once: a
// waiting read holds one of the Redis client's connections, which the
// replica's calls need too. Followers beyond it look once a second.
const maxBlockingReads = 4

// pollEvery is how often a follower without a blocking read looks.
const pollEvery = time.Second

func (s *Server) readFeed(ctx context.Context, id string, after int64) ([]store.FeedEntry, error) {
	select {
	case s.blocking <- struct{}{}:
		defer func() { <-s.blocking }()
		return s.cfg.Store.ReadFeed(ctx, id, after, s.cfg.FeedWait)
	default:
	}
	deadline := time.Now().Add(s.cfg.FeedWait)
	for {
		entries, err := s.cfg.Store.ReadFeed(ctx, id, after, 0)
		if err != nil || len(entries) > 0 || !time.Now().Before(deadline) {
			return entries, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}
