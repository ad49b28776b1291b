package killshell

import (
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool/tooltest"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSchema compiles the input schema as the engine does (draft 2020-12)
// and checks what it lets through to Parse.
func TestSchema(t *testing.T) {
	tl := setup(t).killer
	sch, _ := tooltest.Schema(t, tl.Definition())
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
