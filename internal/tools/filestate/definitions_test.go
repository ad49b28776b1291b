package filestate_test

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/edit"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/write"
)

// TestDefinitions compiles each input schema as the engine does (draft
// 2020-12) and checks it accepts and refuses what it should.
func TestDefinitions(t *testing.T) {
	tests := []struct {
		tool   tool.Tool
		name   string
		valid  []string
		reject []string
	}{
		{read.New(read.Options{}), "Read",
			[]string{`{"file_path":"/a"}`, `{"file_path":"/a","offset":0,"limit":1}`, `{"file_path":"a","offset":3.0}`, `{"file_path":"/a.pdf","pages":"1-2"}`},
			[]string{`{}`, `{"file_path":""}`, `{"file_path":"/a","offset":1.5}`,
				`{"file_path":"/a","offset":1.5}`, `{"file_path":"/a","pages":5}`, `{"file_path":"/a","sheet":"x"}`, `{"file_path":1}`}},
		{write.New(), "Write",
			[]string{`{"file_path":"/a","content":""}`},
			[]string{`{"file_path":"/a"}`, `{"content":"x"}`, `{"file_path":"/a","content":"x","mode":"0755"}`}},
		{edit.New(), "Edit",
			[]string{`{"file_path":"/a","old_string":"x","new_string":"y"}`, `{"file_path":"/a","old_string":"","new_string":"y","replace_all":true}`},
			[]string{`{"file_path":"/a","old_string":"x"}`, `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":"yes"}`,
				`{"file_path":"/a","old_string":"x","new_string":"y","regex":true}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.tool.Definition()
			if d.Name != tc.name {
				t.Fatalf("Name = %q, want %q", d.Name, tc.name)
			}
			if len(d.Description) < 500 || strings.Count(d.Description, "\n\n") < 2 {
				t.Errorf("description is not a real multi-paragraph text (%d bytes)", len(d.Description))
			}
			sch, doc := tooltest.Schema(t, d)
			m := doc.(map[string]any)
			if m["additionalProperties"] != false {
				t.Error(`schema lacks "additionalProperties": false`)
			}
			for name, p := range m["properties"].(map[string]any) {
				if desc, _ := p.(map[string]any)["description"].(string); desc == "" {
					t.Errorf("property %s has no description", name)
				}
			}
			check := func(in string, want bool) {
				v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
				if err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(v); (err == nil) != want {
					t.Errorf("Validate(%s) = %v, want valid=%v", in, err, want)
				}
				if want {
					if _, err := tc.tool.Parse([]byte(in)); err != nil {
						t.Errorf("Parse(%s) = %v", in, err)
					}
				}
			}
			for _, in := range tc.valid {
				check(in, true)
			}
			for _, in := range tc.reject {
				check(in, false)
			}
		})
	}
}
