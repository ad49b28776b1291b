package policy

import (
	"fmt"
	"strings"
)

// Agent(type) rules name a subagent type: Agent(Explore) matches an Agent
// call whose subagent_type is Explore, with '*' as in parameter rules; an
// omitted subagent_type is general-purpose, the type Claude Code starts
// then. They work in every list (https://code.claude.com/docs/en/sub-agents
// "Disable specific subagents": deny Agent(Explore)).

// agentTypeDefault is the subagent_type of an Agent call that names none.
const agentTypeDefault = "general-purpose"

// parseAgentRule refuses a type with a ':' or white space: no agent is
// named so, and such a rule is a misspelt parameter rule (Agent(modle:x))
// that would never match.
func parseAgentRule(r *Rule, spec string) (*Rule, error) {
	if strings.ContainsAny(spec, ": \t\n") {
		tp := toolParams["Agent"]
		return nil, &RuleError{Rule: r.Text, Behavior: r.Behavior, Source: r.Source, Index: -1,
			Reason: fmt.Sprintf("Agent takes no specifier here but an agent type, Agent(Explore), or a parameter rule Agent(param:value) with one of its fields %v in a deny or ask list", tp.params)}
	}
	r.kind = kindParam
	r.param = &paramPattern{key: "subagent_type", parts: splitStars(spec), absent: agentTypeDefault}
	r.agentType = true
	return r, nil
}

// agentDeniedMessage is Claude Code 2.1.332's refusal of an Agent call an
// Agent(type) deny rule matched (recorded: "Agent type 'Explore' has been
// denied by permission rule 'Agent(Explore)' from flagSettings."), or ""
// for any other rule.
func agentDeniedMessage(r *Rule, q Query) string {
	if !r.agentType {
		return ""
	}
	t, _ := q.Input["subagent_type"].(string)
	if t == "" {
		t = agentTypeDefault
	}
	return fmt.Sprintf("Agent type '%s' has been denied by permission rule '%s' from %s.", t, r.Text, r.Source)
}
