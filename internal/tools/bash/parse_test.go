package bash

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
)

func TestDefinition(t *testing.T) {
	d := newTool(t).Definition()
	if d.Name != "Bash" || len(d.Aliases) != 0 {
		t.Errorf("Name %q, Aliases %v", d.Name, d.Aliases)
	}
	if strings.Count(d.Description, "\n\n") < 2 {
		t.Errorf("description is not multi-paragraph: %q", d.Description)
	}
	var schema struct {
		Type                 string                    `json:"type"`
		Properties           map[string]map[string]any `json:"properties"`
		Required             []string                  `json:"required"`
		AdditionalProperties *bool                     `json:"additionalProperties"`
	}
	if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Required) != 1 || schema.Required[0] != "command" ||
		schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Errorf("schema = %+v", schema)
	}
	want := map[string]string{"command": "string", "timeout": "number", "description": "string"}
	if len(schema.Properties) != len(want) {
		t.Errorf("properties = %v", schema.Properties)
	}
	for name, typ := range want {
		p := schema.Properties[name]
		if p["type"] != typ || p["description"] == "" || p["description"] == nil {
			t.Errorf("property %s = %v", name, p)
		}
	}
}

func TestParse(t *testing.T) {
	tl := newTool(t)
	cases := []struct {
		input   string
		timeout time.Duration
		errHas  string // "" means valid
	}{
		{`{"command":"ls"}`, 120 * time.Second, ""},
		{`{"command":"ls","timeout":600000}`, 10 * time.Minute, ""},
		{`{"command":"ls","timeout":1}`, time.Millisecond, ""},
		{`{"command":"ls","timeout":1500.5}`, 1500500 * time.Microsecond, ""},
		// Claude Code cuts a timeout over the maximum, and takes 0 or less for the default.
		{`{"command":"ls","timeout":600001}`, 10 * time.Minute, ""},
		{`{"command":"ls","timeout":0}`, 2 * time.Minute, ""},
		{`{"command":"ls","timeout":-5}`, 2 * time.Minute, ""},
		{`{"command":"ls","description":"List files"}`, 120 * time.Second, ""},
		{`{"command":""}`, 0, "command is empty"},
		{`{"command":"  \n\t"}`, 0, "command is empty"},
		{`{"command":"ls\u0000x"}`, 0, "NUL"},
		{`{"command":"` + strings.Repeat("a", maxCommandBytes+1) + `"}`, 0, "Write tool"},
		{`{"command":5}`, 0, "not a valid Bash call"},
		// Its parse would cost memory out of proportion to its size.
		{`{"command":"` + strings.Repeat("(", 20000) + "ls" + strings.Repeat(")", 20000) + `"}`, 0, "more than 1000 brackets"},
		{`{"command":"` + strings.Repeat("a;", 6000) + `"}`, 0, "more than 5000 statements"},
	}
	for _, c := range cases {
		inv, err := tl.Parse(json.RawMessage(c.input))
		if c.errHas != "" {
			var te *tool.Error
			if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || !strings.Contains(te.Msg, c.errHas) {
				t.Errorf("Parse(%.60s) = %v, want invalid input containing %q", c.input, err, c.errHas)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%.60s): %v", c.input, err)
			continue
		}
		if got := inv.(*call).timeout; got != c.timeout {
			t.Errorf("Parse(%.60s): timeout %v, want %v", c.input, got, c.timeout)
		}
	}
}

func TestTraitsAndActivity(t *testing.T) {
	tl := newTool(t)
	long := "echo " + strings.Repeat("x", 200)
	cases := []struct {
		input    map[string]any
		traits   tool.Traits
		activity tool.Activity
	}{
		{map[string]any{"command": "cat go.mod"},
			tool.Traits{ReadOnly: true, ConcurrencySafe: true},
			tool.Activity{Summary: "Run: cat go.mod", Read: true}},
		{map[string]any{"command": "grep -rn TODO . | head", "description": "Find TODO comments"},
			tool.Traits{ReadOnly: true, ConcurrencySafe: true},
			tool.Activity{Summary: "Run: Find TODO comments", Search: true, Read: true}},
		{map[string]any{"command": "ls -la"},
			tool.Traits{ReadOnly: true, ConcurrencySafe: true},
			tool.Activity{Summary: "Run: ls -la", List: true}},
		{map[string]any{"command": "go test ./...", "description": "Run the tests"},
			tool.Traits{},
			tool.Activity{Summary: "Run: Run the tests"}},
		{map[string]any{"command": "cat x; rm -rf y"},
			tool.Traits{},
			tool.Activity{Summary: "Run: cat x; rm -rf y"}},
		{map[string]any{"command": "\n  make build\nmake test\n"},
			tool.Traits{},
			tool.Activity{Summary: "Run: make build"}},
		{map[string]any{"command": "if [ $(", "description": "  "},
			tool.Traits{},
			tool.Activity{Summary: "Run: if [ $("}},
		{map[string]any{"command": long},
			tool.Traits{ReadOnly: true, ConcurrencySafe: true},
			tool.Activity{Summary: "Run: " + long[:79] + "…"}},
		{map[string]any{"command": "echo a\tb\x1bc"},
			tool.Traits{},
			tool.Activity{Summary: "Run: echo a b c"}},
	}
	for _, c := range cases {
		inv := parse(t, tl, c.input)
		if got := inv.Traits(); got != c.traits {
			t.Errorf("%v: Traits = %+v, want %+v", c.input, got, c.traits)
		}
		if got := inv.Activity(); got != c.activity {
			t.Errorf("%v: Activity = %+v, want %+v", c.input, got, c.activity)
		}
	}
}
