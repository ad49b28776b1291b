package exec

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/shell"
	"github.com/toold/toold/internal/tool"
)

// ValidateStage checks a call's input against its tool's schema, as Claude
// Code checks it (see inputcheck.go), and parses it into an invocation;
// for a command tool it analyses the command line, once. It sets
// Call.Input, Call.Args, Call.Invocation and Call.Shell. Its failures are
// invalid-input results worded as Claude Code words them.
type ValidateStage struct{ Schemas *schemas }

// Validate is the validation stage over compiled schemas.
func Validate(s *schemas) Stage { return ValidateStage{Schemas: s} }

func (s ValidateStage) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	if err := s.Schemas.prepare(c); err != nil {
		return nil, err
	}
	return next(ctx, c)
}

// ShellAnalysed is implemented by an invocation of a command tool that
// analysed its line while parsing: the engine then uses that analysis
// rather than make its own.
type ShellAnalysed interface {
	ShellAnalysis() *shell.Analysis
}

// Situated is implemented by an invocation whose traits depend on where
// the session is (EnterWorktree's path needs permission unless it leads
// into the repository's own .claude/worktrees): the engine tells it the
// call's directory before anything reads its traits.
type Situated interface {
	Situate(cwd string)
}

// commandAnalysis is the analysis of a command tool's line: the
// invocation's own when it offers one, else made here.
func commandAnalysis(inv tool.Invocation, args map[string]any) *shell.Analysis {
	if a, ok := inv.(ShellAnalysed); ok {
		if sa := a.ShellAnalysis(); sa != nil {
			return sa
		}
	}
	command, ok := args["command"].(string)
	if !ok {
		return nil
	}
	return shell.Analyze(command)
}

// reprepare makes a hook's updatedInput the call's input: validated,
// parsed and analysed as the client's input was. The Request (what the
// client sent, fingerprinted by the journal) is left as it is.
func (s *schemas) reprepare(c *Call, input json.RawMessage, ev hooks.Event) error {
	tmp := *c
	tmp.Request.Input, tmp.Request.RawInput = nil, input
	if err := s.prepare(&tmp); err != nil {
		kind, msg := tool.KindInvalidInput, err.Error()
		var te *tool.Error
		if errors.As(err, &te) {
			kind, msg = te.Kind, te.Msg
		}
		return tool.Errorf(kind, "A %s hook rewrote the input of %s into one that is not valid, so the call did not run. %s", ev, c.ToolName(), msg)
	}
	c.Input, c.Args, c.Invocation, c.Shell = tmp.Input, tmp.Args, tmp.Invocation, tmp.Shell
	return nil
}
