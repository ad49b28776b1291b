package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/toold/toold/internal/mcp"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/toolsearch"
)

// toolSearchConfig says which tools are deferred: listed by name only in
// ListTools, their definitions found with the ToolSearch tool.
type toolSearchConfig struct {
	// Deferred names built-in tools deferred always; nil: the ones the
	// pinned Claude Code release defers (tool.ReleaseDeferred); empty
	// (--deferred-tools=none): none.
	Deferred []string
	// Threshold: once a session's pool holds more tools than this, every
	// MCP tool is deferred (mcp.PoolOptions.DeferThreshold; negative never
	// defers).
	Threshold int
}

type toolSearchFlags struct {
	deferred  *string
	threshold *int
}

func addToolSearchFlags(fs *flag.FlagSet) *toolSearchFlags {
	return &toolSearchFlags{
		deferred:  fs.String("deferred-tools", "release", "built-in tools listed by name only (their definitions are loaded with ToolSearch): \"release\" (the ones Claude Code defers), \"none\", or a comma-separated list, e.g. \"NotebookEdit,WebFetch\""),
		threshold: fs.Int("tool-search-threshold", mcp.DefaultDeferThreshold, "defer every MCP tool once a session's pool holds more tools than this; -1 never defers"),
	}
}

func (f *toolSearchFlags) config() (toolSearchConfig, error) {
	c := toolSearchConfig{Threshold: *f.threshold}
	switch strings.TrimSpace(*f.deferred) {
	case "release":
	case "none", "":
		c.Deferred = []string{}
	default:
		c.Deferred = splitRules(*f.deferred)
	}
	if c.Threshold == 0 || c.Threshold < -1 {
		return c, fmt.Errorf("--tool-search-threshold %d: want 1 or more, or -1 to never defer", c.Threshold)
	}
	if slices.Contains(c.Deferred, toolsearch.Name) {
		return c, fmt.Errorf("--deferred-tools: %s cannot be deferred, it is how deferred tools are found", toolsearch.Name)
	}
	return c, nil
}

// searchCatalog is what ToolSearch searches: a session's pool once the
// server can assemble one (MCP tools included), else the registry.
type searchCatalog struct {
	reg *tool.Registry
	// session, when set, gives a session's pool; it looks the session up
	// with the call's context, which carries the caller's tenant.
	session func(ctx context.Context, sessionID string) ([]tool.Definition, error)
}

func (c *searchCatalog) Tools(ctx context.Context, sessionID string) ([]tool.Definition, error) {
	if c.session != nil {
		return c.session(ctx, sessionID)
	}
	ts := c.reg.Tools()
	defs := make([]tool.Definition, len(ts))
	for i, t := range ts {
		defs[i] = t.Definition()
	}
	return defs, nil
}

// withToolSearch adds the ToolSearch tool to the built-in tools and marks
// the configured ones deferred. ToolSearch searches the registry it is
// part of, so it reads it through a catalog filled in once it is built;
// set the catalog's session func to search sessions' pools.
func withToolSearch(builtins *tool.Registry, cfg toolSearchConfig) (*tool.Registry, *searchCatalog, error) {
	for _, n := range cfg.Deferred {
		if _, ok := builtins.Lookup(n); !ok {
			return nil, nil, configError{fmt.Errorf("--deferred-tools: no built-in tool named %q (tools: %s)", n, strings.Join(builtins.Names(), ", "))}
		}
	}
	catalog := &searchCatalog{}
	list := []tool.Tool{toolsearch.New(catalog)}
	for _, t := range builtins.Tools() {
		name := t.Definition().Name
		if cfg.Deferred == nil && tool.ReleaseDeferred(name) || slices.Contains(cfg.Deferred, name) {
			t = tool.Defer(t)
		}
		list = append(list, t)
	}
	reg, err := tool.NewRegistry(list...)
	catalog.reg = reg
	return reg, catalog, err
}
