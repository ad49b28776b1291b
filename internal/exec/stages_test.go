package exec

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/shell"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/strictjson"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// Each stage alone, built from its own dependencies: no Engine.

// stageCall is a call as the lookup and validation stages leave it.
func stageCall(t *testing.T, def tool.Definition, args map[string]any) (*Call, *recSink) {
	t.Helper()
	dir := t.TempDir()
	files, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sink := &recSink{}
	in, _ := json.Marshal(args)
	c := &Call{
		Request: Request{ToolUseID: "toolu_1", Name: def.Name},
		Session: &store.Session{ID: "s1", Workspace: dir, Cwd: dir, Mode: "default"},
		Files:   files, Sink: sink, Def: def, Tool: &fakeTool{name: def.Name},
		Input: in, Args: args, Invocation: &fakeInv{t: &fakeTool{name: def.Name}},
	}
	return c, sink
}

// reached is a next handler that records that it ran.
func reached(ran *bool) Handler {
	return func(context.Context, *Call) (*tool.Result, error) {
		*ran = true
		return tool.Text("ran"), nil
	}
}

type removeNamed string

func (r removeNamed) ToolRemoved(_ policy.Request, name string) bool { return name == string(r) }

func TestLookupStage(t *testing.T) {
	reg, err := tool.NewRegistry(&fakeTool{name: "Echo"})
	if err != nil {
		t.Fatal(err)
	}
	sess := &store.Session{ID: "s1"}
	for _, tc := range []struct {
		name, call string
		remover    ToolRemover
		want       string // "" runs next
	}{
		{"found", "Echo", nil, ""},
		{"case differs", "echo", nil, "Tool names are case-sensitive: call Echo instead."},
		{"unknown", "Nope", nil, "No such tool available: Nope"},
		{"removed by a deny rule", "Echo", removeNamed("Echo"), "Echo is disabled for this session"},
		{"a removed tool gets no case hint", "echo", removeNamed("Echo"), "No such tool available: echo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Call{Request: Request{Name: tc.call}, Session: sess}
			ran := false
			_, err := LookupStage{Registry: reg, Remover: tc.remover}.Handle(context.Background(), c, reached(&ran))
			if tc.want == "" {
				if err != nil || !ran || c.Def.Name != "Echo" {
					t.Fatalf("err %v, ran %v, def %q", err, ran, c.Def.Name)
				}
				return
			}
			if ran || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (ran %v), want %q", err, ran, tc.want)
			}
			if !strings.Contains(tc.want, "case-sensitive") && strings.Contains(err.Error(), "case-sensitive") {
				t.Fatalf("a case hint for a removed tool: %v", err)
			}
		})
	}
}

// commandTool is a command tool (Definition.Command) whose invocation
// may offer its own analysis.
type commandTool struct{ own *shell.Analysis }

func (commandTool) Definition() tool.Definition {
	return tool.Definition{Name: "Shell", Command: true, InputSchema: json.RawMessage(
		`{"type":"object","additionalProperties":false,"required":["command"],"properties":{"command":{"type":"string"}}}`)}
}

func (t commandTool) Parse(json.RawMessage) (tool.Invocation, error) {
	return commandInv{fakeInv: &fakeInv{t: &fakeTool{name: "Shell"}}, own: t.own}, nil
}

type commandInv struct {
	*fakeInv
	own *shell.Analysis
}

func (i commandInv) ShellAnalysis() *shell.Analysis { return i.own }

func TestValidateStageAnalysesACommandOnce(t *testing.T) {
	own := shell.Analyze("echo mine")
	reg, err := tool.NewRegistry(commandTool{}, &fakeTool{name: "Echo"})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := compileSchemas(reg, strictjson.Limits{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	prepare := func(tl tool.Tool, in string) *Call {
		c := &Call{Request: Request{Name: tl.Definition().Name, RawInput: []byte(in)}, Tool: tl, Def: tl.Definition()}
		ran := false
		if _, err := Validate(sch).Handle(context.Background(), c, reached(&ran)); err != nil || !ran {
			t.Fatalf("validate %s: %v (ran %v)", in, err, ran)
		}
		return c
	}
	c := prepare(commandTool{}, `{"command":"git status && rm -rf x"}`)
	if c.Shell == nil || len(c.Shell.Commands) != 2 || c.Shell.Commands[1].Name() != "rm" {
		t.Fatalf("analysis: %+v", c.Shell)
	}
	if c := prepare(commandTool{own: own}, `{"command":"echo mine"}`); c.Shell != own {
		t.Fatal("the invocation's own analysis was not used")
	}
	if c := prepare(&fakeTool{name: "Echo"}, `{"text":"x"}`); c.Shell != nil {
		t.Fatal("a tool that runs no command got an analysis")
	}
}

// fakeHooks answers each event with what the test set.
type fakeHooks struct {
	pre    hooks.PreOutcome
	post   hooks.PostOutcome
	denied hooks.DeniedOutcome
	seen   []hooks.ToolEvent
	// deniedSeen are the PermissionDenied events.
	deniedSeen []hooks.ToolEvent
}

func (f *fakeHooks) Enabled() bool { return true }
func (f *fakeHooks) PreToolUse(_ context.Context, te hooks.ToolEvent) (hooks.PreOutcome, error) {
	f.seen = append(f.seen, te)
	return f.pre, nil
}
func (f *fakeHooks) PermissionRequest(context.Context, hooks.ToolEvent) (hooks.PermissionOutcome, error) {
	return hooks.PermissionOutcome{}, nil
}
func (f *fakeHooks) PermissionDenied(_ context.Context, te hooks.ToolEvent) (hooks.DeniedOutcome, error) {
	f.deniedSeen = append(f.deniedSeen, te)
	return f.denied, nil
}
func (f *fakeHooks) PostToolUse(_ context.Context, te hooks.ToolEvent) (hooks.PostOutcome, error) {
	f.seen = append(f.seen, te)
	return f.post, nil
}
func (f *fakeHooks) PostToolUseFailure(_ context.Context, te hooks.ToolEvent) (hooks.PostOutcome, error) {
	f.seen = append(f.seen, te)
	return f.post, nil
}

func quietReporter() hookReporter { return hookReporter{Logger: slog.New(slog.DiscardHandler)} }

func TestPreHooksStage(t *testing.T) {
	def := tool.Definition{Name: "Echo"}
	t.Run("the verdict rides on the call", func(t *testing.T) {
		c, _ := stageCall(t, def, map[string]any{"text": "x"})
		h := &fakeHooks{pre: hooks.PreOutcome{Decision: hooks.Ask, Reason: "check it"}}
		var got *PreHookVerdict
		_, err := PreHooksStage{Hooks: h, Report: quietReporter()}.Handle(context.Background(), c, func(_ context.Context, c *Call) (*tool.Result, error) {
			got = c.PreHook
			return tool.Text("ran"), nil
		})
		if err != nil || got == nil || got.Decision != hooks.Ask || got.Reason != "check it" {
			t.Fatalf("err %v, verdict %+v", err, got)
		}
		if len(h.seen) != 1 || h.seen[0].Args["text"] != "x" {
			t.Fatalf("the hooks saw %+v", h.seen)
		}
	})
	t.Run("a deny ends the call", func(t *testing.T) {
		c, _ := stageCall(t, def, map[string]any{"text": "x"})
		h := &fakeHooks{pre: hooks.PreOutcome{Decision: hooks.Deny, Reason: "no"}}
		ran := false
		res, err := PreHooksStage{Hooks: h, Report: quietReporter()}.Handle(context.Background(), c, reached(&ran))
		if err != nil || ran || res == nil || res.Kind != tool.KindPermissionDenied || !strings.Contains(res.Content[0].Text, "PreToolUse:Echo hook error: no") {
			t.Fatalf("ran %v, err %v, result %+v", ran, err, res)
		}
	})
}

// decideAs answers every decision with dec; in bypassPermissions mode
// only a deny rule's deny remains.
type decideAs struct {
	dec   policy.Decision
	modes []string
}

func (d *decideAs) Decide(_ context.Context, r policy.Request) (policy.Decision, error) {
	d.modes = append(d.modes, r.Mode)
	if r.Mode == "bypassPermissions" && d.dec.Rule == "" {
		return policy.Decision{Behavior: policy.Allow}, nil
	}
	return d.dec, nil
}

// recordAsk is an Asker that answers with allow and records the ask.
type recordAsk struct{ got []policy.Decision }

func (a *recordAsk) Ask(ctx context.Context, c *Call, dec policy.Decision, next Handler) (*tool.Result, error) {
	a.got = append(a.got, dec)
	return next(ctx, c)
}

// countDenials is a DenialStore with a fixed count.
type countDenials struct{ n, recorded int }

func (d *countDenials) CountDenials(context.Context, string, store.DenialKind, time.Time, time.Duration) (int, error) {
	return d.n, nil
}
func (d *countDenials) RecordDenial(context.Context, string, store.DenialKind, time.Time, time.Duration) (int, error) {
	d.recorded++
	return d.n, nil
}

func TestPolicyStage(t *testing.T) {
	def := tool.Definition{Name: "Write", Paths: tool.PathsWrite, PathDenyText: true}
	allow := policy.Decision{Behavior: policy.Allow, Source: "rule"}
	ask := policy.Decision{Behavior: policy.Ask, Source: "mode"}
	deny := policy.Decision{Behavior: policy.Deny, Rule: "Edit(./x)", Source: "cliArg"}
	for _, tc := range []struct {
		name      string
		dec       policy.Decision
		hook      *PreHookVerdict
		denials   int
		wantRan   bool
		wantAsked string // the Source of the decision asked about
		wantText  string
	}{
		{name: "allow runs", dec: allow, wantRan: true},
		{name: "deny refuses in Claude Code's words", dec: deny, wantText: "File is in a directory that is denied by your permission settings."},
		{name: "ask goes to the asker", dec: ask, wantRan: true, wantAsked: "mode"},
		{name: "a hook's ask makes an allowed call ask", dec: allow, hook: &PreHookVerdict{Decision: hooks.Ask}, wantRan: true, wantAsked: "hook"},
		{name: "a hook's allow skips the mode's ask", dec: ask, hook: &PreHookVerdict{Decision: hooks.Allow}, wantRan: true},
		{name: "a hook's allow does not beat a deny rule", dec: deny, hook: &PreHookVerdict{Decision: hooks.Allow}, wantText: "denied"},
		{name: "too many denials deny an ask", dec: ask, denials: 3, wantText: "Claude requested permissions to write to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sink := stageCall(t, def, map[string]any{"file_path": "x"})
			c.PreHook = tc.hook
			asks := &recordAsk{}
			var audited []policy.Decision
			p := PolicyStage{
				Decider: &decideAs{dec: tc.dec}, Asks: asks,
				Denials:    DenialTracking{Store: &countDenials{n: tc.denials}, Limit: 3, Window: time.Minute, Now: time.Now},
				OnDecision: func(_ context.Context, _ *Call, d policy.Decision) { audited = append(audited, d) },
			}
			ran := false
			_, err := p.Handle(context.Background(), c, reached(&ran))
			if ran != tc.wantRan {
				t.Fatalf("ran %v, want %v (err %v)", ran, tc.wantRan, err)
			}
			if tc.wantText != "" && (err == nil || !strings.Contains(err.Error(), tc.wantText)) {
				t.Fatalf("err %v, want %q", err, tc.wantText)
			}
			if tc.wantAsked == "" && len(asks.got) > 0 || tc.wantAsked != "" && (len(asks.got) != 1 || asks.got[0].Source != tc.wantAsked) {
				t.Fatalf("asked %+v, want source %q", asks.got, tc.wantAsked)
			}
			decisions := 0
			for _, ev := range sink.of(c.ToolUseID) {
				if ev.Decision != nil {
					decisions++
				}
			}
			if len(audited) != 1 || decisions != 1 {
				t.Fatalf("decision reported %d times to the audit, %d on the stream", len(audited), decisions)
			}
		})
	}
}

func TestPostHooksStage(t *testing.T) {
	t.Run("a command tool's output is replaced in its shape", func(t *testing.T) {
		c, _ := stageCall(t, tool.Definition{Name: "Shell", Command: true}, map[string]any{"command": "ls"})
		h := &fakeHooks{post: hooks.PostOutcome{UpdatedToolOutput: json.RawMessage(`{"stdout":"replaced\n","stderr":"err"}`)}}
		res, err := PostHooksStage{Hooks: h, Report: quietReporter(), Logger: slog.New(slog.DiscardHandler)}.Handle(context.Background(), c,
			func(context.Context, *Call) (*tool.Result, error) { return tool.Text("original"), nil })
		if err != nil || res.Content[0].Text != "replaced\nerr" {
			t.Fatalf("err %v, result %+v", err, res)
		}
		var resp map[string]any
		if err := json.Unmarshal(h.seen[0].ToolResponse, &resp); err != nil || resp["stdout"] != "original" {
			t.Fatalf("tool_response %s (%v)", h.seen[0].ToolResponse, err)
		}
	})
	t.Run("another tool's output shape is not a command's", func(t *testing.T) {
		c, _ := stageCall(t, tool.Definition{Name: "Echo"}, map[string]any{"text": "x"})
		h := &fakeHooks{post: hooks.PostOutcome{UpdatedToolOutput: json.RawMessage(`{"stdout":"replaced"}`)}}
		res, err := PostHooksStage{Hooks: h, Report: quietReporter(), Logger: slog.New(slog.DiscardHandler)}.Handle(context.Background(), c,
			func(context.Context, *Call) (*tool.Result, error) { return tool.Text("original"), nil })
		if err != nil || res.Content[0].Text != "original" {
			t.Fatalf("err %v, result %+v", err, res)
		}
	})
}

// countHider hides everything and counts its uses.
type countHider struct{ n int }

func (h *countHider) HiddenFunc(policy.Request) func(string) bool {
	h.n++
	return func(string) bool { return true }
}

func TestToolStage(t *testing.T) {
	for _, lists := range []bool{false, true} {
		c, sink := stageCall(t, tool.Definition{Name: "Find", ListsPaths: lists}, map[string]any{"text": "x"})
		var hidden func(string) bool
		c.Invocation = &fakeInv{t: &fakeTool{name: "Find", run: func(_ context.Context, _ fakeInput, env *tool.Env) (*tool.Result, error) {
			hidden = env.Hidden
			return tool.Text("ok"), nil
		}}}
		h := &countHider{}
		if _, err := (ToolStage{Hider: h}).Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if (hidden != nil) != lists || h.n != map[bool]int{false: 0, true: 1}[lists] {
			t.Errorf("ListsPaths %v: hidden set %v, hider asked %d times", lists, hidden != nil, h.n)
		}
		if k := sink.kinds(c.ToolUseID); len(k) != 1 || k[0] != "started" {
			t.Errorf("events %v, want the started event", k)
		}
	}
}

func TestDenialTrackingRecordsARefusal(t *testing.T) {
	c, _ := stageCall(t, tool.Definition{Name: "Echo"}, nil)
	d := &countDenials{}
	DenialTracking{Store: d, Window: time.Minute, Now: time.Now, Logger: slog.New(slog.DiscardHandler)}.record(context.Background(), c)
	if d.recorded != 1 {
		t.Fatalf("recorded %d denials", d.recorded)
	}
	// Limit 0: counted, never limited.
	dec := policy.Decision{Behavior: policy.Ask}
	if got := (DenialTracking{Store: &countDenials{n: 100}}).limit(context.Background(), c, dec); got.Behavior != policy.Ask {
		t.Fatalf("limit 0 denied: %+v", got)
	}
}
