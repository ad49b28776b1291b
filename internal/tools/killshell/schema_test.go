package killshell

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSchema compiles the input schema as the engine does (draft 2020-12)
// and checks what it lets through to Parse.
func TestSchema(t *testing.T) {
	tl := setup(t).killer
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(tl.Definition().InputSchema)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("toold:///t.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("toold:///t.json")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]bool{
		`{"shell_id":"bash_1"}`:                    true,
		`{"task_id":"bash_1"}`:                     true,
		`{"shell_id":"bash_1","task_id":"bash_1"}`: true,
		`{"shell_id":1}`:                           false,
		`{"shell_id":"bash_1","signal":"SIGTERM"}`: false,
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != want {
			t.Errorf("Validate(%s) = %v, want valid=%v", in, err, want)
		}
		if want {
			if _, err := tl.Parse([]byte(in)); err != nil {
				t.Errorf("Parse(%s) = %v", in, err)
			}
		}
	}
}
