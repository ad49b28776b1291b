package hooks

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestToolResponse(t *testing.T) {
	path := "/w/a.go"
	for _, tc := range []struct {
		name string
		r    Response
		want map[string]any
	}{
		{"command", Response{Command: true, Text: "out", Meta: map[string]any{"exit_code": 0}},
			map[string]any{"stdout": "out", "stderr": "", "interrupted": false, "isImage": false, "exit_code": 0.0}},
		{"file tool", Response{Text: "1\tx", FilePath: &path},
			map[string]any{"content": "1\tx", "filePath": path}},
		{"an empty path is still given", Response{Text: "t", FilePath: new(string)},
			map[string]any{"content": "t", "filePath": ""}},
		{"meta is kept under the tool's keys", Response{Text: "t", Meta: map[string]any{"content": "meta"}},
			map[string]any{"content": "t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			if err := json.Unmarshal(ToolResponse(tc.r), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	// A value JSON cannot hold leaves the text alone.
	if got := string(ToolResponse(Response{Text: "t", Meta: map[string]any{"bad": make(chan int)}})); got != `{"content":"t"}` {
		t.Fatalf("unencodable meta: %s", got)
	}
}

func TestOutputText(t *testing.T) {
	for _, tc := range []struct {
		command bool
		raw     string
		want    string
		ok      bool
	}{
		{true, `{"stdout":"a\n","stderr":"b"}`, "a\nb", true},
		{true, `{"stdout":"a"}`, "a", true},
		{true, `"a string"`, "", false},
		{true, `{"stderr":"only"}`, "", false},
		{false, `"text"`, "text", true},
		{false, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, "a\nb", true},
		{false, `[{"type":"image"}]`, "", false},
		{false, `{"content":"c"}`, "c", true},
		{false, `{"content":[{"type":"text","text":"c"}]}`, "c", true},
		{false, `{"stdout":"a"}`, "", false},
		{false, `42`, "", false},
	} {
		got, ok := OutputText(tc.command, json.RawMessage(tc.raw))
		if got != tc.want || ok != tc.ok {
			t.Errorf("OutputText(%v, %s) = %q %v, want %q %v", tc.command, tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPermissionSuggestionsAndRuleUpdates(t *testing.T) {
	if PermissionSuggestions(nil) != nil {
		t.Fatal("suggestions without rules")
	}
	sug := PermissionSuggestions([]string{"Bash(npm test)", "Read"})
	if len(sug) != 1 {
		t.Fatalf("%d suggestions", len(sug))
	}
	want := `{"behavior":"allow","destination":"session","rules":[{"toolName":"Bash","ruleContent":"npm test"},{"toolName":"Read"}],"type":"addRules"}`
	if string(sug[0]) != want {
		t.Fatalf("got %s\nwant %s", sug[0], want)
	}
	// What a hook sends back reads as the rules suggested.
	u := ParseRuleUpdates(append(sug,
		json.RawMessage(`{"type":"addRules","behavior":"deny","rules":[{"toolName":"Write"}]}`),
		json.RawMessage(`{"type":"addRules","behavior":"ask","rules":[{"toolName":"Bash","ruleContent":"git push"}]}`),
		json.RawMessage(`{"type":"setMode","mode":"plan"}`),
		json.RawMessage(`not json`)))
	if !reflect.DeepEqual(u.Allow, []string{"Bash(npm test)", "Read"}) || !reflect.DeepEqual(u.Deny, []string{"Write"}) ||
		!reflect.DeepEqual(u.Ask, []string{"Bash(git push)"}) || len(u.Ignored) != 2 || u.Empty() {
		t.Fatalf("updates %+v", u)
	}
	if !ParseRuleUpdates(nil).Empty() {
		t.Fatal("no updates are not empty")
	}
}
