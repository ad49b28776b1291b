package exec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
)

// A parameter the schema lists as required but Definition.MayOmit names
// may be left out; the others stay required, and the schema the model sees
// is unchanged.
func TestMayOmitRequired(t *testing.T) {
	schema := `{"type":"object","properties":{"subject":{"type":"string"},"description":{"type":"string"}},"required":["subject","description"],"additionalProperties":false}`
	d := tool.Definition{Name: "T", InputSchema: json.RawMessage(schema), MayOmit: []string{"description"}}
	cs, err := compileSchema(d)
	if err != nil {
		t.Fatal(err)
	}
	if issues, _ := checkInput(cs.node, map[string]any{"subject": "s"}, nil); len(issues) != 0 {
		t.Errorf("description left out: %v", issues)
	}
	issues, _ := checkInput(cs.node, map[string]any{"description": "d"}, nil)
	if got := formatIssues("T", issues); !strings.Contains(got, "The required parameter `subject` is missing") {
		t.Errorf("subject left out: %q", got)
	}
	if string(d.InputSchema) != schema {
		t.Error("the definition's schema was changed")
	}
	if _, err := withoutRequired(json.RawMessage(`[1]`), []string{"x"}); err == nil {
		t.Error("a schema that is not an object was accepted")
	}
}
