package taskoutput

import (
	"slices"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool/tooltest"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toold/toold/internal/tools/shells"
)

// TestSchema compiles the input schema as the engine does (draft 2020-12)
// and checks what it lets through to Parse.
func TestSchema(t *testing.T) {
	tl, _, _ := setup(t, shells.Options{})
	sch, _ := tooltest.Schema(t, tl.Definition())
	valid := []string{
		`{"task_id":"bash_1"}`,
		`{"task_id":"bash_1","block":false,"timeout":0}`,
		`{"task_id":"bash_1","block":true,"timeout":600000}`,
		`{"bash_id":"bash_1","filter":"ERROR|WARN"}`,
	}
	invalid := []string{
		`{"task_id":1}`,
		`{"task_id":"bash_1","timeout":-5}`,
		`{"task_id":"bash_1","timeout":600001}`,
		`{"task_id":"bash_1","block":"yes"}`,
		`{"task_id":"bash_1","wait":true}`,
	}
	for _, in := range append(valid, invalid...) {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		want := !slices.Contains(invalid, in)
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
