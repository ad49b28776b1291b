package server

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/store"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// watchWait bounds one wait of a watch that has no keepalive interval: it
// then rereads and waits again, sending nothing.
const watchWait = 30 * time.Second

// notes is what ToolService needs to hand out notifications: the store's
// queues, and the signal that ends the watches at shutdown.
type notes struct {
	st      store.Notifications
	stop    chan struct{}
	stopped sync.Once
}

// WithNotifications serves the sessions' notification queues in st
// (ListNotifications, WatchNotifications). Without it both are
// UNIMPLEMENTED.
func (s *ToolService) WithNotifications(st store.Notifications) {
	s.notes = &notes{st: st, stop: make(chan struct{})}
}

// StopWatches ends every WatchNotifications stream with UNAVAILABLE, so
// that the clients resume elsewhere: call it when the server begins to
// shut down, before GracefulStop, which would wait for them.
func (s *ToolService) StopWatches() {
	if n := s.notes; n != nil {
		n.stopped.Do(func() { close(n.stop) })
	}
}

func (s *ToolService) ListNotifications(ctx context.Context, req *tooldv1.ListNotificationsRequest) (*tooldv1.ListNotificationsResponse, error) {
	if s.notes == nil {
		return nil, status.Error(codes.Unimplemented, "this server keeps no notifications")
	}
	if _, err := s.sessions.Get(ctx, req.GetSessionId()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	wait := time.Duration(req.GetWaitMs()) * time.Millisecond
	p, err := s.notes.st.ReadNotifications(ctx, req.GetSessionId(), req.GetAfterSeq(), int(req.GetLimit()), wait)
	if err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	ns, next := notificationsToProto(p, req.GetAfterSeq())
	return &tooldv1.ListNotificationsResponse{Notifications: ns, Dropped: p.Dropped, NextAfterSeq: next}, nil
}

func (s *ToolService) WatchNotifications(req *tooldv1.WatchNotificationsRequest, stream tooldv1.ToolService_WatchNotificationsServer) error {
	ctx := stream.Context()
	if s.notes == nil {
		return status.Error(codes.Unimplemented, "this server keeps no notifications")
	}
	// The owner is checked once: it never changes. The session's end
	// ends the watch through the store's NotFound.
	if _, err := s.sessions.Get(ctx, req.GetSessionId()); err != nil {
		return ToStatus(ctx, s.log, err)
	}
	// The reads end when the server stops the watches.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.notes.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	wait := s.keepalive
	if wait <= 0 {
		wait = watchWait
	}
	after := req.GetAfterSeq()
	first := true
	for {
		var p store.NotificationPage
		var err error
		if first {
			// The first message goes at once, with what is kept.
			p, err = s.notes.st.ReadNotifications(ctx, req.GetSessionId(), after, 0, 0)
		} else {
			p, err = s.notes.st.ReadNotifications(ctx, req.GetSessionId(), after, 0, wait)
		}
		select {
		case <-s.notes.stop:
			return status.Errorf(codes.Unavailable, "the server is shutting down: watch again, with after_seq %d", after)
		default:
		}
		if err != nil {
			return ToStatus(ctx, s.log, err)
		}
		if len(p.Notifications) == 0 && !first && s.keepalive <= 0 {
			continue
		}
		ns, next := notificationsToProto(p, after)
		if err := stream.Send(&tooldv1.WatchNotificationsResponse{Notifications: ns, Dropped: p.Dropped, NextAfterSeq: next}); err != nil {
			return err
		}
		after, first = next, false
	}
}

// notificationsToProto converts a page and returns the cursor after it.
func notificationsToProto(p store.NotificationPage, after int64) ([]*tooldv1.Notification, int64) {
	out := make([]*tooldv1.Notification, len(p.Notifications))
	for i, n := range p.Notifications {
		out[i] = &tooldv1.Notification{
			Seq: n.Seq, Kind: noteKind(n.Kind), TaskId: n.TaskID, ToolUseId: n.ToolUseID, Status: n.Status,
			Text: notify.Framed(n.Text), TaskNotification: n.Text, CreateTime: timestamppb.New(n.At),
		}
		after = n.Seq
	}
	return out, after
}

func noteKind(k string) tooldv1.NotificationKind {
	switch k {
	case store.NoteMonitorEvent:
		return tooldv1.NotificationKind_NOTIFICATION_KIND_MONITOR_EVENT
	case store.NoteMonitorNotice:
		return tooldv1.NotificationKind_NOTIFICATION_KIND_MONITOR_NOTICE
	case store.NoteMonitorEnded:
		return tooldv1.NotificationKind_NOTIFICATION_KIND_MONITOR_ENDED
	case store.NoteShellEnded:
		return tooldv1.NotificationKind_NOTIFICATION_KIND_SHELL_ENDED
	case store.NoteAgentEnded:
		return tooldv1.NotificationKind_NOTIFICATION_KIND_AGENT_ENDED
	}
	return tooldv1.NotificationKind_NOTIFICATION_KIND_UNSPECIFIED
}
