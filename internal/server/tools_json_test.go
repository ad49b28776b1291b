package server_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// tools_json is the Messages API `tools` array as is: name, description
// and input_schema only, in pool order, deferred tools left out, each
// schema with the key order its tool declares (a Struct would sort it).
func TestListToolsJSONIsTheMessagesAPIArray(t *testing.T) {
	e := startWith(t, memstore.New(), policy.WorkspaceOnly{}, exec.AskConfig{}, tool.Defer(deferredEcho{}), htmlTool{})
	resp, err := e.tools.ListTools(ctx(t), &tooldv1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(resp.GetToolsJson()), &tools); err != nil {
		t.Fatalf("tools_json %q: %v", resp.GetToolsJson(), err)
	}
	var names []string
	for _, tl := range tools {
		if len(tl) != 3 || tl["name"] == nil || tl["description"] == nil || tl["input_schema"] == nil {
			t.Errorf("entry with keys other than name, description, input_schema: %s", keys(tl))
		}
		var n string
		json.Unmarshal(tl["name"], &n)
		names = append(names, n)
	}
	// Pool order: the registry's, by name; the deferred Later is left out.
	want := []string{}
	for _, d := range resp.GetTools() {
		if !d.GetDeferred() {
			want = append(want, d.GetName())
		}
	}
	if len(names) != len(want) || len(names) != 3 {
		t.Fatalf("names %v, want %v without Later", names, want)
	}
	for i := range names {
		if names[i] != want[i] {
			t.Fatalf("names %v, want %v", names, want)
		}
	}
	var schema bytes.Buffer
	json.Compact(&schema, echoTool{}.Definition().InputSchema)
	if got := string(tools[0]["input_schema"]); got != schema.String() {
		t.Errorf("Echo's schema\n%s\nwant its declared bytes\n%s", got, schema.String())
	}
	// Descriptions are not HTML-escaped.
	if got := string(tools[1]["description"]); got != `"<b> & </b>"` {
		t.Errorf("description %s", got)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

type htmlTool struct{ echoTool }

func (htmlTool) Definition() tool.Definition {
	d := echoTool{}.Definition()
	d.Name, d.Description = "Html", "<b> & </b>"
	return d
}
