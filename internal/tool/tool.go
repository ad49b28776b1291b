// Package tool defines what a tool is to toold: a static definition, a parser
// that turns validated JSON input into an invocation, and the invocation's
// declared traits. Every built-in and MCP tool implements these interfaces.
package tool

import (
	"context"
	"encoding/json"
)

// Definition is what the model sees in the Messages API `tools` array.
type Definition struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema object. The engine validates input against
	// it strictly before Parse is called.
	InputSchema json.RawMessage
	// Aliases are older names the tool also answers to; they are not listed.
	Aliases []string
	// Deferred tools are listed by name only; the model loads their full
	// definition with ToolSearch. They still run when called.
	Deferred bool
	// SearchHint is a few words ToolSearch matches besides the name and
	// the description (weighed least).
	SearchHint string
	// MaxResultChars is how long the result's text may be before it is
	// stored whole and the model gets a preview with a handle instead.
	// 0 means the default (50 000); the engine caps it at 500 000.
	MaxResultChars int
	// InputMessages replaces the wording of a failed schema check, as a
	// zod schema's own message does (z.string().min(1, "…")). A key is a
	// property path, "[]" standing for an array's items, a space and the
	// keyword: "todos[].content minLength".
	InputMessages map[string]string
	// MayOmit names top-level parameters the schema lists as required
	// (so the model sees them so) that a call may still leave out, as
	// Claude Code's own check lets it (TaskCreate's description).
	MayOmit []string

	// What the engine must know about a tool is declared here, never
	// recognised by its name.

	// Command: the tool runs the shell command line of its "command"
	// input. The engine analyses the line once for the policy, the hooks'
	// `if` filters and the tool; refusals name the line; hooks see the
	// output in Claude Code's Bash shape ({stdout, stderr, ...}); a run
	// counts as a running process.
	Command bool
	// Paths is what the tool does with the path it names (file_path,
	// notebook_path, or path defaulting to the cwd): refusals name it.
	Paths PathUse
	// PathDenyText: a deny rule on the tool's path is refused with Claude
	// Code's "File is in a directory that is denied" text.
	PathDenyText bool
	// ListsPaths: the tool lists or searches paths it was not named, so it
	// gets Env.Hidden (the paths Read deny rules cover).
	ListsPaths bool
	// FetchesURL: a deny rule's refusal names the rule's domain.
	FetchesURL bool
	// MovesSession: a call changes the session's directories or mode
	// (EnterWorktree, ExitWorktree, ExitPlanMode): the calls after it in
	// its batch are prepared again on the session it leaves.
	MovesSession bool
	// MCP: the tool is an MCP server's; a PostToolUse hook replaces its
	// output with updatedMCPToolOutput.
	MCP bool
	// Delegated tools are completed by the orchestrator, not run by
	// toold: their invocations implement Delegator (see delegate.go).
	Delegated bool
	// Classifier is what auto mode's classifier sees of a call's input
	// (Claude Code's toAutoClassifierInput). The zero value passes the
	// whole input with long strings cut.
	Classifier ClassifierInput
	// DecideAs names the tool whose permission checks and rules decide
	// this tool's calls: Monitor runs a shell command and is decided as
	// Bash is, by Bash rules, as in Claude Code. Empty: the tool's own
	// name.
	DecideAs string
}

// ClassifierInput declares what of a call's input the classifier sees.
type ClassifierInput struct {
	// Fields are the input keys passed as they are (strings cut to a
	// bounded length); an empty list with no Excerpts passes every key.
	Fields []string
	// Excerpts are input keys passed as a bounded excerpt of their text
	// (a non-string value as its JSON): the content of a change.
	Excerpts []string
	// Cwd adds the call's working directory as "cwd".
	Cwd bool
}

// PathUse says what a tool does with the path it names.
type PathUse int

const (
	PathsNone  PathUse = iota
	PathsRead          // reads, lists or searches it
	PathsWrite         // creates or changes it
)

// Tool is one callable tool.
type Tool interface {
	Definition() Definition
	// Parse turns schema-valid input into an invocation. A returned error is
	// reported to the model as invalid input: tool-specific checks that JSON
	// Schema cannot express (ranges that depend on each other, string
	// relations) belong here.
	Parse(input json.RawMessage) (Invocation, error)
}

// Invocation is one parsed call of a tool, ready to run.
type Invocation interface {
	// Traits are what the call declares about itself. The zero value is the
	// fail-closed default.
	Traits() Traits
	// Activity is the short human summary carried on the started event.
	Activity() Activity
	// Run executes the call. Failures the model should read are returned as
	// errors (see Error); the engine turns them into error results.
	Run(ctx context.Context, env *Env) (*Result, error)
}

// Traits describe a call's effects. The zero value means: may write, must run
// alone, not known to be destructive. A tool opts in to anything weaker.
type Traits struct {
	ReadOnly        bool
	ConcurrencySafe bool
	Destructive     bool
	// Repeatable: running the call again changes nothing and it reports
	// no progress while it runs (Read, Glob, Grep). The engine may then
	// run it before recording it, holding its events until the record is
	// made: one store round trip instead of two. Reads that consume
	// something (a shell's new output) or take long are not repeatable.
	Repeatable bool
	// SafetyCheck: the call needs approval that no allow rule and no mode
	// but bypassPermissions gives (Claude Code's safety checks, such as
	// EnterWorktree moving the session's write access out of the
	// repository's .claude/worktrees). Implies not ReadOnly.
	SafetyCheck bool
}

// Activity is what a console or a log line shows for a call.
type Activity struct {
	Summary string // "Read src/main.go", "Run: go test ./..."
	Search  bool
	Read    bool
	List    bool
}
