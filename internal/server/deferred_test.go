package server_test

import (
	"testing"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// A deferred tool is listed by name only, and still runs.
func TestListToolsDeferred(t *testing.T) {
	e := startWith(t, memstore.New(), policy.WorkspaceOnly{}, exec.AskConfig{}, tool.Defer(deferredEcho{}))
	resp, err := e.tools.ListTools(ctx(t), &tooldv1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var found *tooldv1.ToolDefinition
	for _, d := range resp.GetTools() {
		if d.GetName() == "Later" {
			found = d
		} else if d.GetDeferred() || d.GetInputSchema() == nil {
			t.Errorf("%s listed as deferred or without schema", d.GetName())
		}
	}
	if found == nil || !found.GetDeferred() || found.GetInputSchema() != nil || found.GetDescription() != "" {
		t.Fatalf("deferred tool listed as %v", found)
	}
}

type deferredEcho struct{ echoTool }

func (deferredEcho) Definition() tool.Definition {
	d := echoTool{}.Definition()
	d.Name = "Later"
	return d
}
