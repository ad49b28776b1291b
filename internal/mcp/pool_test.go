package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/toold/toold/internal/tool"
)

type fakeTool struct {
	name    string
	aliases []string
	origin  string
}

func (f fakeTool) Definition() tool.Definition {
	return tool.Definition{Name: f.name, Aliases: f.aliases, Description: f.origin, InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (f fakeTool) Parse(json.RawMessage) (tool.Invocation, error) { return nil, nil }

func fakes(names ...string) []tool.Tool {
	out := make([]tool.Tool, len(names))
	for i, n := range names {
		out[i] = fakeTool{name: n}
	}
	return out
}

func TestAssembleOrdersBuiltinsThenMCP(t *testing.T) {
	builtins := []tool.Tool{fakeTool{name: "Write"}, fakeTool{name: "TaskOutput", aliases: []string{"BashOutput"}}, fakeTool{name: "Bash"}}
	mcpTools := fakes("mcp__z__a", "mcp__a__z", "mcp__a__b")
	p := Assemble(builtins, mcpTools, PoolOptions{})
	want := []string{"Bash", "TaskOutput", "Write", "mcp__a__b", "mcp__a__z", "mcp__z__a"}
	if !slices.Equal(p.Names(), want) {
		t.Fatalf("order = %v", p.Names())
	}
	slices.Reverse(mcpTools)
	slices.Reverse(builtins)
	if again := Assemble(builtins, mcpTools, PoolOptions{}); !slices.Equal(again.Names(), want) {
		t.Fatalf("the order depends on the input order: %v", again.Names())
	}
	if tl, ok := p.Lookup("BashOutput"); !ok || tl.Definition().Name != "TaskOutput" {
		t.Fatal("a built-in alias must be found")
	}
	if d, ok := p.Definition("mcp__a__z"); !ok || d.Name != "mcp__a__z" {
		t.Fatal("definition lookup failed")
	}
}

func TestAssembleBuiltinsWinAndFirstDuplicateStays(t *testing.T) {
	builtins := []tool.Tool{fakeTool{name: "Read", origin: "builtin"}}
	mcpTools := []tool.Tool{
		fakeTool{name: "Read", origin: "server"},
		fakeTool{name: "mcp__a__x", origin: "first"},
		fakeTool{name: "mcp__a__x", origin: "second"},
	}
	p := Assemble(builtins, mcpTools, PoolOptions{})
	if !slices.Equal(p.Names(), []string{"Read", "mcp__a__x"}) {
		t.Fatalf("names = %v", p.Names())
	}
	if d, _ := p.Definition("Read"); d.Description != "builtin" {
		t.Error("the built-in must win")
	}
	if d, _ := p.Definition("mcp__a__x"); d.Description != "first" {
		t.Error("the first of two equal MCP names must stay")
	}
	if !slices.Equal(p.Dropped(), []string{"Read", "mcp__a__x"}) {
		t.Errorf("dropped = %v", p.Dropped())
	}
}

func TestAssembleKeepFiltersDeniedTools(t *testing.T) {
	p := Assemble(fakes("Bash", "WebFetch"), fakes("mcp__db__drop", "mcp__db__query"), PoolOptions{
		Keep: func(n string) bool { return n != "WebFetch" && n != "mcp__db__drop" },
	})
	if !slices.Equal(p.Names(), []string{"Bash", "mcp__db__query"}) {
		t.Fatalf("names = %v", p.Names())
	}
	if _, ok := p.Lookup("mcp__db__drop"); ok {
		t.Fatal("a removed tool must not be found")
	}
}

func TestDeferralPastThreshold(t *testing.T) {
	var many []string
	for i := range 78 {
		many = append(many, fmt.Sprintf("mcp__s__t%02d", i))
	}
	small := Assemble(fakes("Bash", "Read"), fakes(many...), PoolOptions{})
	if small.Deferred("mcp__s__t00") {
		t.Fatal("80 tools do not pass the default threshold of 80")
	}
	big := Assemble(fakes("Bash", "Read", "Write"), fakes(many...), PoolOptions{})
	if !big.Deferred("mcp__s__t00") || !big.Deferred("mcp__s__t77") || big.Deferred("Bash") {
		t.Fatal("past 80 tools every MCP tool and no built-in is deferred")
	}
	if Assemble(fakes("Bash"), fakes(many...), PoolOptions{DeferThreshold: -1}).Deferred("mcp__s__t00") {
		t.Fatal("a negative threshold never defers")
	}
	if !Assemble(nil, fakes("mcp__a__b", "mcp__a__c"), PoolOptions{DeferThreshold: 1}).Deferred("mcp__a__b") {
		t.Fatal("a threshold of 1 defers a pool of 2")
	}
}
