package exec

import (
	"github.com/toold/toold/internal/telemetry"
)

// callPath is the call path, its stages in order. It has two phases
// because partitioning a batch needs every call's parsed input before any
// call runs:
//
//	prepare: lookup -> validate (schema, coercion, tool.Parse, the shell
//	         analysis of a command)                 [stage_lookup.go, stage_validate.go]
//	run:     a stopped background agent's refusal   [stage_stopped_agent.go]
//	         -> PreToolUse hooks                    [stage_prehooks.go]
//	         -> policy: rules + the hooks' verdict, auto mode's
//	            classifier, denial tracking; an ask goes to the Asker
//	            (PermissionRequest hooks, then a person)
//	                                                [stage_policy.go, auto_mode.go,
//	                                                 stage_ask.go, stage_denials.go]
//	         -> configured interceptors (audit, quotas)
//	         -> PostToolUse hooks                   [stage_posthooks.go]
//	         -> the tool                            [stage_tool.go]
//	            (or, for a delegated tool, the wait for the orchestrator's
//	            CompleteCall                        [delegate.go])
//
// What follows both phases is the batch's, not a stage's: result shaping
// and the stored-result handle (shape.go, persist.go) and the journal
// (journal.go), which records and forwards each call's events.
type callPath struct {
	prepare Handler
	// checkPrepare is prepare for CheckPermission: deny-removed tools
	// are looked up as any other.
	checkPrepare Handler
	run          Handler
}

func newCallPath(cfg *Config, sch *schemas, caps PolicyCapabilities, delegated DelegatedRun) callPath {
	report := hookReporter{Logger: cfg.Logger, Telemetry: cfg.Telemetry}
	validate := SpanStage{Name: telemetry.StageValidate, Telemetry: cfg.Telemetry}
	denials := DenialTracking{
		Store: cfg.Store, Limit: cfg.Ask.DenialLimit, Window: cfg.Ask.DenialWindow, Now: cfg.Ask.Now,
		Telemetry: cfg.Telemetry, Logger: cfg.Logger,
	}
	asks := cfg.Asker
	if asks == nil {
		asks = PersonAsk{
			Pending: cfg.Ask.Pending, Timeout: cfg.Ask.Timeout, Denials: denials,
			Hooks: cfg.Hooks, Report: report, Schemas: sch, Decider: cfg.Policy,
			Sessions: cfg.Store, Rules: caps.Rules, Classifier: cfg.Ask.Classifier, Logger: cfg.Logger,
		}
	}
	run := []Stage{
		StoppedAgentStage{Store: cfg.Store},
		PreHooksStage{Hooks: cfg.Hooks, Schemas: sch, Report: report},
		PolicyStage{Decider: cfg.Policy, Classifier: cfg.Ask.Classifier, Asks: asks, Denials: denials, Hooks: cfg.Hooks, Report: report, Telemetry: cfg.Telemetry, OnDecision: cfg.OnDecision},
	}
	for _, ic := range cfg.Interceptors {
		run = append(run, ic)
	}
	run = append(run, PostHooksStage{Hooks: cfg.Hooks, Report: report, Logger: cfg.Logger})
	tool := ToolStage{Environ: cfg.Environ, Hider: caps.Hider, Telemetry: cfg.Telemetry, Delegated: delegated}
	return callPath{
		prepare:      Chain(done, validate, LookupStage{Registry: cfg.Registry, More: cfg.Tools, Remover: caps.Remover}, Validate(sch)),
		checkPrepare: Chain(done, validate, Lookup(cfg.Registry, cfg.Tools), Validate(sch)),
		run:          Chain(tool.Run, run...),
	}
}
