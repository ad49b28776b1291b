package toolsearch

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

func def(name, desc, hint string) tool.Definition {
	return tool.Definition{Name: name, Description: desc, SearchHint: hint, InputSchema: json.RawMessage(`{"type": "object", "properties": {"x": {"type": "string"}}}`)}
}

// pool is in pool order: built-ins sorted, then MCP tools sorted.
var pool = []tool.Definition{
	def("Bash", "Runs a bash command and returns its output.", "shell terminal"),
	def("Edit", "Replaces text in a file.", ""),
	def("NotebookEdit", "Replaces, inserts or deletes a cell of a Jupyter notebook.", "ipynb jupyter"),
	def("Read", "Reads a file, including notebook files and images.", ""),
	def("TodoWrite", "Creates and updates the task list.", "plan progress checklist"),
	def("ToolSearch", "Fetches tool definitions.", "notebook"),
	def("WebFetch", "Fetches a web page and converts it to markdown.", "http url"),
	def("mcp__github__create_issue", "Create an issue in a GitHub repository.", ""),
	def("mcp__github__list_issues", "List the issues of a repository.", ""),
	def("mcp__slack__read_channel", "Read the messages of a channel.", ""),
	def("mcp__slack__send_message", "Send a message to a Slack channel.", ""),
	def("mcp__tracker__sync", "Synchronise with Slack and the tracker; checklist of jupyter runs.", ""),
}

func names(defs []tool.Definition) string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return strings.Join(out, ",")
}

func TestSearch(t *testing.T) {
	tests := []struct {
		query   string
		max     int
		want    string
		missing string
	}{
		// Exact names, in the order asked, whatever max says.
		{"select:WebFetch,Bash,Nope,bash", 1, "WebFetch,Bash", "Nope"},
		{"Select: TodoWrite , mcp__slack__send_message", 5, "TodoWrite,mcp__slack__send_message", ""},
		// A tool's whole name, in any case.
		{"notebookedit", 5, "NotebookEdit", ""},
		// An MCP server prefix: its tools in pool order, up to max.
		{"mcp__github", 5, "mcp__github__create_issue,mcp__github__list_issues", ""},
		{"mcp__slack", 1, "mcp__slack__read_channel", ""},
		// Name beats description beats hint: "notebook" is a word of
		// NotebookEdit's name, of Read's description, of ToolSearch's hint
		// (ToolSearch is never a keyword match).
		{"notebook", 5, "NotebookEdit,Read", ""},
		// "jupyter": description of NotebookEdit and of the tracker tool,
		// ties in pool order.
		{"jupyter", 5, "NotebookEdit,mcp__tracker__sync", ""},
		// "checklist": description (tracker) beats hint (TodoWrite).
		{"checklist", 5, "mcp__tracker__sync,TodoWrite", ""},
		// Several words add up: slack+send is in the name of one tool.
		{"slack send", 5, "mcp__slack__send_message,mcp__slack__read_channel,mcp__tracker__sync", ""},
		// +word must be in the name: the tracker tool only has it in its
		// description.
		{"+slack message", 5, "mcp__slack__send_message,mcp__slack__read_channel", ""},
		{"fetch", 5, "WebFetch", ""},
		{"issue", 1, "mcp__github__create_issue", ""},
		{"zebra", 5, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			found, missing := Search(pool, tc.query, tc.max)
			if got := names(found); got != tc.want {
				t.Errorf("found %q, want %q", got, tc.want)
			}
			if got := strings.Join(missing, ","); got != tc.missing {
				t.Errorf("missing %q, want %q", got, tc.missing)
			}
		})
	}
}

func TestNameParts(t *testing.T) {
	for name, want := range map[string]string{
		"NotebookEdit":             "notebook edit",
		"mcp__slack__send_message": "slack send message",
		"HTTPServer":               "http server",
		"WebFetch":                 "web fetch",
	} {
		if got := strings.Join(nameParts(name), " "); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestResultHoldsFullDefinitions(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	var asked string
	cat := CatalogFunc(func(_ context.Context, id string) ([]tool.Definition, error) { asked = id; return pool, nil })
	res, err := tooltest.Run(t, New(cat), env, map[string]any{"query": "select:WebFetch"})
	if err != nil {
		t.Fatal(err)
	}
	if asked != env.SessionID {
		t.Errorf("catalog asked for session %q", asked)
	}
	text := tooltest.Text(res)
	want := `<functions>
<function>{"description":"Fetches a web page and converts it to markdown.","name":"WebFetch","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}</function>
</functions>`
	if text != want {
		t.Fatalf("text:\n%s\nwant:\n%s", text, want)
	}
	if m := res.Meta["matches"].([]any); !slices.Equal(m, []any{"WebFetch"}) {
		t.Errorf("matches = %v", m)
	}

	res, err = tooltest.Run(t, New(cat), env, map[string]any{"query": "zebra"})
	if err != nil || !strings.Contains(tooltest.Text(res), `No tools matched "zebra"`) {
		t.Fatalf("%v %v", res, err)
	}
}

func TestDefaultAndInvalidMaxResults(t *testing.T) {
	many := make([]tool.Definition, 0, 8)
	for _, n := range []string{"mcp__s__a", "mcp__s__b", "mcp__s__c", "mcp__s__d", "mcp__s__e", "mcp__s__f", "mcp__s__g"} {
		many = append(many, def(n, "", ""))
	}
	env, _, _ := tooltest.Env(t)
	res, err := tooltest.Run(t, New(CatalogFunc(func(context.Context, string) ([]tool.Definition, error) { return many, nil })), env, map[string]any{"query": "mcp__s"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Meta["matches"].([]any)); n != defaultMaxResults {
		t.Fatalf("%d matches, want the default %d", n, defaultMaxResults)
	}
	for _, bad := range []any{0, 2.5, -1} {
		_, err := tooltest.Run(t, New(nil), env, map[string]any{"query": "x", "max_results": bad})
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput {
			t.Errorf("max_results %v: err = %v", bad, err)
		}
	}
}
