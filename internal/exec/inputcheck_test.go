package exec

import (
	"encoding/json"
	"strings"
	"testing"
)

// The schemas and the expected texts below are Claude Code 2.1.332's, as
// its CLI answered these inputs.
const (
	readSchema = `{"type":"object","properties":{"file_path":{"type":"string"},"offset":{"type":"integer","minimum":0},
		"limit":{"type":"integer","exclusiveMinimum":0},"pages":{"type":"string"}},"required":["file_path"],"additionalProperties":false}`
	grepSchema = `{"type":"object","properties":{"pattern":{"type":"string"},"output_mode":{"type":"string","enum":["content","files_with_matches","count"]},
		"-i":{"type":"boolean"},"head_limit":{"type":"number"}},"required":["pattern"],"additionalProperties":false}`
	todoSchema = `{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{
		"content":{"type":"string","minLength":1},"status":{"type":"string","enum":["pending","in_progress","completed"]},
		"activeForm":{"type":"string","minLength":1}},"required":["content","status","activeForm"],"additionalProperties":false}}},
		"required":["todos"],"additionalProperties":false}`
	fetchSchema = `{"type":"object","properties":{"url":{"type":"string","format":"uri"},"prompt":{"type":"string"}},"required":["url","prompt"],"additionalProperties":false}`
	editSchema  = `{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}},
		"required":["file_path","old_string","new_string"],"additionalProperties":false}`
)

func TestInputIssuesAreWordedAsClaudeCode(t *testing.T) {
	tests := []struct {
		name, tool, schema, input string
		want                      string // "" for no issue
	}{
		{"missing", "Read", readSchema, `{}`,
			"InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing"},
		{"missing and unexpected, in the order sent", "Read", readSchema, `{"size":2,"colour":1}`,
			"InputValidationError: Read failed due to the following issues:\nThe required parameter `file_path` is missing\nAn unexpected parameter `size` was provided\nAn unexpected parameter `colour` was provided"},
		{"types named as zod names them", "Read", readSchema, `{"file_path":null}`,
			"InputValidationError: Read failed due to the following issue:\nThe parameter `file_path` type is expected as `string` but provided as `null`"},
		{"array", "Read", readSchema, `{"file_path":[]}`, "expected as `string` but provided as `array`"},
		{"object", "Read", readSchema, `{"file_path":{}}`, "expected as `string` but provided as `object`"},
		{"boolean", "Read", readSchema, `{"file_path":true}`, "expected as `string` but provided as `boolean`"},
		{"a fraction for an integer", "Read", readSchema, `{"file_path":"a","offset":2.5,"limit":1.5}`,
			"InputValidationError: Read failed due to the following issues:\nThe parameter `offset` type is expected as `int` but provided as `number`\nThe parameter `limit` type is expected as `int` but provided as `number`"},
		{"a top-level range is the tool's", "Read", readSchema, `{"file_path":"a","offset":-1,"limit":0}`, ""},
		{"past the safe integers", "Read", readSchema, `{"file_path":"a","offset":1e20}`,
			"InputValidationError: [\n  {\n    \"code\": \"too_big\",\n    \"maximum\": 9007199254740991,\n    \"note\": \"Integers must be within the safe integer range.\",\n    \"origin\": \"int\",\n    \"inclusive\": true,\n    \"path\": [\n      \"offset\"\n    ],\n    \"message\": \"Too big: expected int to be <=9007199254740991\"\n  }\n]"},
		{"other issues listed last once one is listed", "Read", readSchema, `{"file_path":"a","offset":1e20,"limit":"x"}`,
			"InputValidationError: Read failed due to the following issues:\nThe parameter `limit` type is expected as `number` but provided as `string`\nThe parameter `offset` is invalid: Too big: expected int to be <=9007199254740991"},
		{"enum alone is zod's JSON", "Grep", grepSchema, `{"pattern":"a","output_mode":"bad"}`,
			"InputValidationError: [\n  {\n    \"code\": \"invalid_value\",\n    \"values\": [\n      \"content\",\n      \"files_with_matches\",\n      \"count\"\n    ],\n    \"path\": [\n      \"output_mode\"\n    ],\n    \"message\": \"Invalid option: expected one of \\\"content\\\"|\\\"files_with_matches\\\"|\\\"count\\\"\"\n  }\n]"},
		{"an enum takes no other type", "Grep", grepSchema, `{"pattern":"a","output_mode":5}`, "\"code\": \"invalid_value\""},
		{"enum after a type error", "Grep", grepSchema, `{"pattern":"a","output_mode":"bad","-i":"zz"}`,
			"InputValidationError: Grep failed due to the following issues:\nThe parameter `-i` type is expected as `boolean` but provided as `string`\nThe parameter `output_mode` is invalid: Invalid option: expected one of \"content\"|\"files_with_matches\"|\"count\""},
		{"nested paths", "TodoWrite", todoSchema, `{"todos":[{"content":1,"status":"nope"}]}`,
			"InputValidationError: TodoWrite failed due to the following issues:\nThe required parameter `todos[0].activeForm` is missing\nThe parameter `todos[0].content` type is expected as `string` but provided as `number`\nThe parameter `todos[0].status` is invalid: Invalid option: expected one of \"pending\"|\"in_progress\"|\"completed\""},
		{"nested item type", "TodoWrite", todoSchema, `{"todos":[null]}`,
			"InputValidationError: TodoWrite failed due to the following issue:\nThe parameter `todos[0]` type is expected as `object` but provided as `null`"},
		{"nested unknown keys are dropped", "TodoWrite", todoSchema, `{"todos":[{"content":"a","status":"pending","activeForm":"b","extra":1}]}`, ""},
		{"nested length", "TodoWrite", todoSchema, `{"todos":[{"content":"a","status":"pending","activeForm":""}]}`,
			"InputValidationError: [\n  {\n    \"origin\": \"string\",\n    \"code\": \"too_small\",\n    \"minimum\": 1,\n    \"inclusive\": true,\n    \"path\": [\n      \"todos\",\n      0,\n      \"activeForm\"\n    ],\n    \"message\": \"Too small: expected string to have >=1 characters\"\n  }\n]"},
		{"url", "WebFetch", fetchSchema, `{"url":"not a url","prompt":"x"}`,
			"InputValidationError: [\n  {\n    \"code\": \"invalid_format\",\n    \"format\": \"url\",\n    \"path\": [\n      \"url\"\n    ],\n    \"message\": \"Invalid URL\"\n  }\n]"},
		{"url with a missing parameter", "WebFetch", fetchSchema, `{"url":"nope"}`,
			"InputValidationError: WebFetch failed due to the following issues:\nThe required parameter `prompt` is missing\nThe parameter `url` is invalid: Invalid URL"},
		{"a URL of another scheme is a URL", "WebFetch", fetchSchema, `{"url":"ftp://example.com/x","prompt":"x"}`, ""},
		{"missing in schema order", "Edit", editSchema, `{"file_path":"a"}`,
			"InputValidationError: Edit failed due to the following issues:\nThe required parameter `old_string` is missing\nThe required parameter `new_string` is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node, err := parseSchemaNode([]byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			in, order, err := lenientObject([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			issues, _ := checkInput(node, in, order)
			if tc.want == "" {
				if len(issues) > 0 {
					t.Fatalf("issues %+v, want none", issues)
				}
				return
			}
			got := formatIssues(tc.tool, issues)
			if !strings.Contains(got, tc.want) || (strings.HasPrefix(tc.want, "InputValidationError") && got != tc.want) {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestUnparsableInputShowsTheFirst200Units(t *testing.T) {
	raw := `{"file_path": "` + strings.Repeat("é", 301) + `"`
	got := unparsableInput("Read", []byte(raw))
	want := "InputValidationError: Read was called with input that could not be parsed as JSON.\nYou sent (first 200 of 317 bytes): {\"file_path\": \"" + strings.Repeat("é", 185) + "\nCommon causes"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestLenientObjectSpreadsAsJavaScript(t *testing.T) {
	for raw, want := range map[string]string{
		`"ab"`:          `{"0":"a","1":"b"}`,
		`[1,2]`:         `{"0":1,"1":2}`,
		`null`:          `{}`,
		`true`:          `{}`,
		`{"a":1,"a":2}`: `{"a":2}`,
	} {
		m, _, err := lenientObject([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if b, _ := json.Marshal(m); string(b) != want {
			t.Errorf("%s: %s, want %s", raw, b, want)
		}
	}
	for _, raw := range []string{`{`, `   `, `{"a":1} x`, `{"a":1,}`} {
		if _, _, err := lenientObject([]byte(raw)); err == nil {
			t.Errorf("%q parsed", raw)
		}
	}
}

// TodoWrite's schema words its empty fields itself, as Claude Code
// 2.1.332's answered.
func TestInputMessagesReplaceZodsWording(t *testing.T) {
	node, err := parseSchemaNode([]byte(todoSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := node.withMessages(map[string]string{
		"todos[].content minLength":    "Content cannot be empty",
		"todos[].activeForm minLength": "Active form cannot be empty",
	}); err != nil {
		t.Fatal(err)
	}
	for input, want := range map[string]string{
		`{"todos":[{"content":"","status":"pending","activeForm":""}]}`: "InputValidationError: [\n  {\n    \"origin\": \"string\",\n    \"code\": \"too_small\",\n    \"minimum\": 1,\n    \"inclusive\": true,\n    \"path\": [\n      \"todos\",\n      0,\n      \"content\"\n    ],\n    \"message\": \"Content cannot be empty\"\n  },\n  {\n    \"origin\": \"string\",\n    \"code\": \"too_small\",\n    \"minimum\": 1,\n    \"inclusive\": true,\n    \"path\": [\n      \"todos\",\n      0,\n      \"activeForm\"\n    ],\n    \"message\": \"Active form cannot be empty\"\n  }\n]",
		`{"todos":[{"content":"","status":"pending","activeForm":5}]}`:  "InputValidationError: TodoWrite failed due to the following issues:\nThe parameter `todos[0].activeForm` type is expected as `string` but provided as `number`\nThe parameter `todos[0].content` is invalid: Content cannot be empty",
	} {
		in, order, err := lenientObject([]byte(input))
		if err != nil {
			t.Fatal(err)
		}
		issues, _ := checkInput(node, in, order)
		if got := formatIssues("TodoWrite", issues); got != want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", input, got, want)
		}
	}
	// A key that names no node is the definition's mistake.
	for _, bad := range []string{"todos.content minLength", "nope minLength", "todos[]"} {
		if err := node.withMessages(map[string]string{bad: "x"}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
