package mcp

import (
	"slices"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// DefaultDeferThreshold is the pool size past which MCP tools are deferred.
const DefaultDeferThreshold = 80

// PoolOptions tune Assemble.
type PoolOptions struct {
	// DeferThreshold: once the pool holds more tools than this, every MCP
	// tool is deferred (left out of the prompt, found with ToolSearch).
	// Zero means DefaultDeferThreshold; negative never defers.
	DeferThreshold int
	// Keep, when set, says which tools stay in the pool; the caller passes
	// the session's blanket deny rules here, so that a denied tool is never
	// shown to the model.
	Keep func(name string) bool
}

// Pool is a session's tool pool: built-in tools sorted by name, then MCP
// tools sorted by name, each name once. The same inputs give the same pool,
// whatever their order, so that the tools the model sees form a stable
// prompt-cache prefix. It is immutable.
type Pool struct {
	tools    []tool.Tool
	defs     []tool.Definition
	byName   map[string]int
	builtins int
	deferMCP bool
	dropped  []string
}

// Assemble builds a pool. A tool whose name a built-in tool already has
// (or an earlier MCP tool: two servers whose names normalise alike) is
// dropped; Dropped lists them for a log line.
func Assemble(builtins, mcpTools []tool.Tool, opts PoolOptions) *Pool {
	keep := opts.Keep
	if keep == nil {
		keep = func(string) bool { return true }
	}
	p := &Pool{byName: map[string]int{}}
	add := func(part []tool.Tool) {
		type named struct {
			t tool.Tool
			d tool.Definition
		}
		sorted := make([]named, 0, len(part))
		for _, t := range part {
			sorted = append(sorted, named{t, t.Definition()})
		}
		// Stable, so that equal names keep the caller's order and the
		// first one wins the same way every time.
		slices.SortStableFunc(sorted, func(a, b named) int { return strings.Compare(a.d.Name, b.d.Name) })
		for _, n := range sorted {
			if _, dup := p.byName[n.d.Name]; dup {
				p.dropped = append(p.dropped, n.d.Name)
				continue
			}
			if !keep(n.d.Name) {
				continue
			}
			p.byName[n.d.Name] = len(p.tools)
			p.tools = append(p.tools, n.t)
			p.defs = append(p.defs, n.d)
		}
	}
	add(builtins)
	p.builtins = len(p.tools)
	// Aliases of built-ins answer lookups but are not listed, and a listed
	// name always wins over an alias.
	for i, d := range p.defs {
		for _, a := range d.Aliases {
			if _, taken := p.byName[a]; !taken {
				p.byName[a] = i
			}
		}
	}
	add(mcpTools)
	p.deferMCP = ShouldDefer(len(p.tools), opts.DeferThreshold)
	return p
}

// ShouldDefer reports whether a pool of size tools defers its MCP tools.
func ShouldDefer(size, threshold int) bool {
	if threshold == 0 {
		threshold = DefaultDeferThreshold
	}
	return threshold > 0 && size > threshold
}

// Tools returns the pool in order. The slice must not be changed.
func (p *Pool) Tools() []tool.Tool { return p.tools }

// Definitions returns the definitions in pool order, as taken once when
// the pool was built. The slice must not be changed.
func (p *Pool) Definitions() []tool.Definition { return p.defs }

// Names returns the names in pool order.
func (p *Pool) Names() []string {
	out := make([]string, len(p.defs))
	for i, d := range p.defs {
		out[i] = d.Name
	}
	return out
}

// Lookup finds a tool by name or by a built-in tool's alias.
func (p *Pool) Lookup(name string) (tool.Tool, bool) {
	i, ok := p.byName[name]
	if !ok {
		return nil, false
	}
	return p.tools[i], true
}

// Definition returns a tool's definition by name or alias.
func (p *Pool) Definition(name string) (tool.Definition, bool) {
	i, ok := p.byName[name]
	if !ok {
		return tool.Definition{}, false
	}
	return p.defs[i], true
}

// Deferred reports whether a listed tool is deferred: an MCP tool of a pool
// past the threshold. Built-in tools are never deferred.
func (p *Pool) Deferred(name string) bool {
	i, ok := p.byName[name]
	return ok && i >= p.builtins && p.deferMCP
}

// Dropped lists the names that were given twice and left out after the
// first.
func (p *Pool) Dropped() []string { return p.dropped }
