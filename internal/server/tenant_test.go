package server_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/server"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// sessionRPCs calls every RPC that addresses a session, each on id.
func sessionRPCs(e *secureEnv) map[string]func(c context.Context, id string) error {
	drain := func(recv func() error) error {
		for {
			if err := recv(); err != nil {
				return err
			}
		}
	}
	return map[string]func(context.Context, string) error{
		"GetSession": func(c context.Context, id string) error {
			_, err := e.sessions.GetSession(c, &tooldv1.GetSessionRequest{SessionId: id})
			return err
		},
		"UpdateSession": func(c context.Context, id string) error {
			_, err := e.sessions.UpdateSession(c, &tooldv1.UpdateSessionRequest{SessionId: id,
				Mode: tooldv1.PermissionMode_PERMISSION_MODE_PLAN, AddRules: &tooldv1.Permissions{Allow: []string{"Read"}}})
			return err
		},
		"DeleteSession": func(c context.Context, id string) error {
			_, err := e.sessions.DeleteSession(c, &tooldv1.DeleteSessionRequest{SessionId: id})
			return err
		},
		"ResolvePermission": func(c context.Context, id string) error {
			_, err := e.sessions.ResolvePermission(c, &tooldv1.ResolvePermissionRequest{SessionId: id, RequestId: "perm_0123456789abcdef",
				Decision: tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW})
			return err
		},
		"Execute": func(c context.Context, id string) error {
			// The same tool_use_id the owner used: nothing of its run may
			// be replayed to another tenant.
			s, err := e.tools.Execute(c, &tooldv1.ExecuteRequest{SessionId: id, Calls: []*tooldv1.ToolCall{
				{ToolUseId: "toolu_owner", Name: "Echo", InputJson: `{"text":"secret"}`}}})
			if err != nil {
				return err
			}
			return drain(func() error { _, err := s.Recv(); return err })
		},
		"Attach": func(c context.Context, id string) error {
			s, err := e.tools.Attach(c, &tooldv1.AttachRequest{SessionId: id, ToolUseId: "toolu_owner"})
			if err != nil {
				return err
			}
			return drain(func() error { _, err := s.Recv(); return err })
		},
		"CheckPermission": func(c context.Context, id string) error {
			_, err := e.tools.CheckPermission(c, &tooldv1.CheckPermissionRequest{SessionId: id,
				Call: &tooldv1.ToolCall{Name: "Echo", InputJson: `{"text":"x"}`}})
			return err
		},
		"ListTools": func(c context.Context, id string) error {
			_, err := e.tools.ListTools(c, &tooldv1.ListToolsRequest{SessionId: id})
			return err
		},
		"Cancel": func(c context.Context, id string) error {
			_, err := e.tools.Cancel(c, &tooldv1.CancelRequest{SessionId: id, ToolUseIds: []string{"t1"}})
			return err
		},
		"ListNotifications": func(c context.Context, id string) error {
			_, err := e.tools.ListNotifications(c, &tooldv1.ListNotificationsRequest{SessionId: id})
			return err
		},
		"WatchNotifications": func(c context.Context, id string) error {
			s, err := e.tools.WatchNotifications(c, &tooldv1.WatchNotificationsRequest{SessionId: id})
			if err != nil {
				return err
			}
			return drain(func() error { _, err := s.Recv(); return err })
		},
	}
}

func TestTenantIsolation(t *testing.T) {
	e := startSecure(t, server.Options{Authenticator: tokenAuth(t)})
	created, err := e.sessions.CreateSession(as(t, tokenA), &tooldv1.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	owned := created.GetSession().GetId()
	const missing = "abcdefghijklmnopqrstuvwxyz"

	// What tenant B learns about A's session must be what it learns about
	// an id nobody uses, apart from the id itself.
	probe := func(stage string) {
		t.Helper()
		for name, rpc := range sessionRPCs(e) {
			got := status.Convert(rpc(as(t, tokenB), owned))
			want := status.Convert(rpc(as(t, tokenB), missing))
			if got.Code() != codes.NotFound || want.Code() != codes.NotFound {
				t.Errorf("%s: %s: another tenant's session: %v %q; a missing one: %v %q, want NotFound for both",
					stage, name, got.Code(), got.Message(), want.Code(), want.Message())
				continue
			}
			if strings.ReplaceAll(got.Message(), owned, "ID") != strings.ReplaceAll(want.Message(), missing, "ID") {
				t.Errorf("%s: %s: messages differ: %q vs %q", stage, name, got.Message(), want.Message())
			}
		}
	}
	// Before the owner ran anything (the engine has not seen the session),
	// and after (it has, and the call's result is stored).
	probe("unseen")
	evs, err := e.execute(as(t, tokenA), &tooldv1.ExecuteRequest{SessionId: owned, Calls: []*tooldv1.ToolCall{
		{ToolUseId: "toolu_owner", Name: "Echo", InputJson: `{"text":"secret"}`}}})
	if err != nil || len(evs) == 0 {
		t.Fatalf("owner's Execute = %v, %v", evs, err)
	}
	probe("seen")

	// Nothing B did changed A's session.
	got, err := e.sessions.GetSession(as(t, tokenA), &tooldv1.GetSessionRequest{SessionId: owned})
	if err != nil {
		t.Fatalf("owner's GetSession after B's attempts = %v", err)
	}
	if got.GetSession().GetMode() == tooldv1.PermissionMode_PERMISSION_MODE_PLAN || len(got.GetSession().GetSessionPermissions().GetAllow()) != 0 {
		t.Fatalf("B's UpdateSession changed A's session: %v", got.GetSession())
	}
	// The owner still reaches everything.
	if _, err := e.tools.ListTools(as(t, tokenA), &tooldv1.ListToolsRequest{SessionId: owned}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sessions.DeleteSession(as(t, tokenA), &tooldv1.DeleteSessionRequest{SessionId: owned}); err != nil {
		t.Fatal(err)
	}
}
