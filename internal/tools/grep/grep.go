package grep

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/toold/toold/internal/tool"
)

// Options chooses the search engine.
type Options struct {
	// RgPath is the ripgrep binary to run. Empty looks "rg" up on PATH
	// when New is called.
	RgPath string
	// PureGo uses the built-in engine even when ripgrep is available.
	PureGo bool
}

// New returns the Grep tool. It runs ripgrep (version 13 or later) when
// one is found, and the built-in engine otherwise.
func New(opts Options) tool.Tool {
	t := &grepTool{}
	if !opts.PureGo {
		if rg, ok := findRg(opts.RgPath); ok {
			t.rg = rg
		}
	}
	return t
}

type grepTool struct {
	rg *rgBackend // nil: the built-in engine
}

func (t *grepTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "Grep",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		Paths:       tool.PathsRead,
		ListsPaths:  true,
	}
}

func (t *grepTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	q, err := parseQuery(raw)
	if err != nil {
		return nil, err
	}
	c := &call{q: q, rg: t.rg}
	if t.rg == nil {
		// ripgrep judges its own patterns; Go's engine is checked here.
		// reported when the call runs, as ripgrep's refusal is.
		if c.p, err = compilePattern(q.pattern, q.ignoreCase, q.multiline); err != nil && q.err == nil {
			q.err = err
		}
	}
	return c, nil
}

// call is one parsed Grep.
type call struct {
	q  *query
	rg *rgBackend
	p  *pattern // built-in engine only
}

func (c *call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true, Repeatable: true}
}

func (c *call) Activity() tool.Activity {
	s := "Grep " + c.q.pattern
	if c.q.path != "" {
		s += " in " + c.q.path
	}
	return tool.Activity{Summary: s, Search: true}
}

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	if c.q.err != nil {
		return nil, c.q.err
	}
	t, err := resolveTarget(env, c.q.path)
	if err != nil {
		return nil, err
	}
	backend := "go"
	if c.rg != nil {
		backend = "rg"
	}
	// A Read deny rule hides paths from Grep's results
	// (https://code.claude.com/docs/en/permissions "Read and Edit"), and
	// what is below a hidden directory is hidden too: a hidden search path
	// finds nothing, and is not even read.
	hidden := env.Hidden
	if hidden != nil && hidden(t.shown) {
		return render(t, c.q, &results{}).WithMeta("backend", backend), nil
	}
	if t.file != "" {
		if binary, err := t.isBinary(); err != nil {
			return nil, err
		} else if binary {
			if r := namedBinaryResult(t, c.q, c.p); r != nil {
				return r.WithMeta("backend", backend), nil
			}
			return binaryFileResult(t, c.q), nil
		}
	}
	var r *results
	if c.rg != nil {
		r, err = c.rg.search(ctx, env, t, c.q)
		if err == nil && hidden != nil {
			// ripgrep searched everything; its hits are filtered here,
			// before render counts them.
			r.hits = slices.DeleteFunc(r.hits, func(h *fileHit) bool { return hidden(t.display(h.rel)) })
		}
	} else {
		// The built-in engine neither enters nor reads what is hidden.
		r, err = nativeBackend{}.search(ctx, env, t, c.q, c.p)
	}
	if err != nil {
		return nil, err
	}
	return render(t, c.q, r).WithMeta("backend", backend), nil
}
