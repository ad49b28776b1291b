package server

import (
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/exec"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func delegationToProto(d *exec.Delegation) *tooldv1.DelegatedCall {
	in, _ := structpb.NewStruct(d.Input)
	out := &tooldv1.DelegatedCall{
		ToolName: d.Tool, Input: in,
		ChildSessionId: d.ChildSessionID, TargetSessionId: d.TargetSessionID, ParentSessionId: d.ParentSessionID,
		TimeoutMs: d.Timeout.Milliseconds(), AdditionalContext: d.AdditionalContext,
	}
	for _, a := range d.Agents {
		out.Agents = append(out.Agents, &tooldv1.AgentInfo{SessionId: a.SessionID, AgentType: a.AgentType, Description: a.Description})
	}
	return out
}
