package server

import (
	"errors"
	"testing"

	"github.com/toold/toold/internal/session"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// A final report names its agent, and is not a launch too; agent_id goes
// with a final report only. Bad requests are refused before anything is
// delivered.
func TestCompletionFromProtoFinal(t *testing.T) {
	s := &ToolService{}
	for _, tc := range []struct {
		name string
		req  *tooldv1.CompleteCallRequest
		ok   bool
	}{
		{"final", &tooldv1.CompleteCallRequest{Final: true, AgentId: "a1", Text: "done"}, true},
		{"final without agent", &tooldv1.CompleteCallRequest{Final: true, Text: "done"}, false},
		{"final and launched", &tooldv1.CompleteCallRequest{Final: true, Launched: true, AgentId: "a1"}, false},
		{"agent without final", &tooldv1.CompleteCallRequest{AgentId: "a1"}, false},
		{"launched", &tooldv1.CompleteCallRequest{Launched: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := s.completionFromProto(tc.req)
			var inv *session.InvalidError
			switch {
			case tc.ok && err != nil:
				t.Fatal(err)
			case !tc.ok && !errors.As(err, &inv):
				t.Fatalf("err = %v, want an InvalidError", err)
			case tc.ok && (c.Final != tc.req.GetFinal() || c.AgentID != tc.req.GetAgentId()):
				t.Fatalf("completion %+v", c)
			}
		})
	}
}
