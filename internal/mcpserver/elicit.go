package mcpserver

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Decisions offered in a permission elicitation.
const (
	decisionAllow        = "allow"
	decisionAllowSession = "allow_session"
	decisionDeny         = "deny"
)

// permissionSchema is the form the client shows: a decision, and a
// reason the model reads when the call is denied.
var permissionSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{
			"type":        "string",
			"title":       "Decision",
			"description": "allow: this call only; allow_session: calls like it for the rest of the session; deny: do not run it",
			"enum":        []any{decisionAllow, decisionAllowSession, decisionDeny},
		},
		"reason": map[string]any{
			"type":        "string",
			"title":       "Reason",
			"description": "Optional: told to the model when the call is denied",
		},
	},
	"required": []any{"decision"},
}

// elicitAsker asks the MCP client of a session with an elicitation.
type elicitAsker struct {
	ss *sdk.ServerSession
}

// askerFor returns the asker of an MCP session: elicitation when the client
// declared it can answer a form, a denial otherwise.
func askerFor(ss *sdk.ServerSession) Asker {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return denyAsker{}
	}
	if e := p.Capabilities.Elicitation; e.Form == nil && e.URL != nil {
		return denyAsker{} // a client of URL elicitations only cannot show a form
	}
	return &elicitAsker{ss: ss}
}

func (a *elicitAsker) Ask(ctx context.Context, q Question) (Answer, error) {
	res, err := a.ss.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: questionText(q), RequestedSchema: permissionSchema})
	if err != nil {
		return Answer{}, fmt.Errorf("asking the MCP client: %w", err)
	}
	if res.Action != "accept" {
		return Answer{Reason: "The user declined the permission request."}, nil
	}
	reason, _ := res.Content["reason"].(string)
	switch d, _ := res.Content["decision"].(string); d {
	case decisionAllow:
		return Answer{Allow: true}, nil
	case decisionAllowSession:
		return Answer{Allow: true, ForSession: true}, nil
	case decisionDeny:
		if reason == "" {
			reason = "The user denied the call."
		}
		return Answer{Reason: reason}, nil
	default:
		return Answer{}, fmt.Errorf("the MCP client answered the permission request with decision %q", d)
	}
}

func questionText(q Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s", q.Tool)
	if q.Summary != "" {
		fmt.Fprintf(&b, ": %s", q.Summary)
	}
	b.WriteString("?")
	if q.Reason != "" {
		fmt.Fprintf(&b, " (%s)", q.Reason)
	}
	return b.String()
}

// denyAsker answers every question with a denial that says why.
type denyAsker struct{}

func (denyAsker) Ask(context.Context, Question) (Answer, error) {
	return Answer{Reason: "This call needs permission, and the MCP client cannot answer permission requests " +
		"(it did not declare elicitation support), so it was denied."}, nil
}
