package strictjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCheckLimits(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		bad  bool
	}{
		{"at the bound", strings.Repeat("[", 4) + strings.Repeat("]", 4), false},
		{"one past", strings.Repeat("[", 5) + strings.Repeat("]", 5), true},
		{"objects count too", `{"a":{"b":{"c":{"d":{}}}}}`, true},
		{"mixed", `[{"a":[{"b":[]}]}]`, true},
		{"siblings do not add up", `[[[[]]],[[[]]],[[[]]]]`, false},
		{"brackets in strings are text", `{"a":"[[[[[[{{{{"}`, false},
		{"escaped quote stays in the string", `{"a":"\"[[[[[[[["}`, false},
		{"escaped backslash ends the escape", `["\\", [[[[]]]]]`, true},
		{"unclosed is left to the decoder", strings.Repeat("[", 4), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLimits([]byte(tc.doc), Limits{MaxDepth: 4})
			var le *LimitError
			if tc.bad != (errors.As(err, &le) && !le.Values) {
				t.Fatalf("CheckLimits(%s) = %v, want a depth error: %v", tc.doc, err, tc.bad)
			}
		})
	}
}

func TestDecodeObject(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`
	tests := []struct {
		doc, wantErr string
	}{
		{`{"a":[1,{"b":"c"}]}`, ""},
		{deep, "nest more than 512 levels"},
		{`{"a":1,"a":2}`, `duplicate key "a"`},
		{`{"x":{"a":1,"a":2}}`, `duplicate key "a"`},
		{`{"a":{"k":1},"k":2}`, ""},
		{"{\"a\":\"\xff\"}", "not valid UTF-8"},
		{`{"a":1} {}`, "data after the JSON object"},
		{`[1]`, "must be a JSON object"},
		{`{"a":`, "not valid JSON"},
	}
	for _, tc := range tests {
		m, err := DecodeObject([]byte(tc.doc), Limits{})
		switch {
		case tc.wantErr == "" && (err != nil || m == nil):
			t.Errorf("DecodeObject(%.40s) = %v", tc.doc, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("DecodeObject(%.40s) = %v, want %q", tc.doc, err, tc.wantErr)
		}
	}
}

func TestCheckRefusesDeepSettings(t *testing.T) {
	doc := `{"permissions":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`
	if err := Check([]byte(doc)); err == nil || !strings.Contains(err.Error(), "nest more than") {
		t.Fatalf("Check = %v, want a depth error", err)
	}
	if err := Check([]byte(`{"a":[{"b":1}],"c":{"b":2}}`)); err != nil {
		t.Fatal(err)
	}
	if err := Check([]byte(`{"a":1}{}`)); err == nil || !strings.Contains(err.Error(), "data after") {
		t.Fatalf("Check = %v", err)
	}
}

// The one-pass decoder builds what encoding/json builds.
func TestDecodeObjectMatchesEncodingJSON(t *testing.T) {
	doc := `{"s":"a\u00e9\"","n":-1.5e3,"t":true,"f":false,"z":null,"e":[],"o":{},"a":[1,[2,{"k":[3]}],"x"],"u":{"v":{"w":"deep"}}}`
	got, err := DecodeObject([]byte(doc), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var want map[string]any
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestCheckLimitsCountsValues(t *testing.T) {
	tests := []struct {
		doc string
		bad bool
	}{
		{`[1,2,3]`, false},  // the array and three elements: 4 counted as 1+1+2
		{`[1,2,3,4]`, true}, // 5
		{`{"a":1,"b":2,"c":3}`, false},
		{`{"a":1,"b":2,"c":3,"d":4}`, true},
		{`[[],[],[]]`, true},       // 1+1+3+2
		{`["a,b,c,d,e,f"]`, false}, // commas in strings are text
		{`"[[[[,,,,"`, false},
	}
	for _, tc := range tests {
		err := CheckLimits(tc.doc, Limits{MaxValues: 4})
		var le *LimitError
		if tc.bad != (errors.As(err, &le) && le.Values) {
			t.Errorf("CheckLimits(%s) = %v, want a values error: %v", tc.doc, err, tc.bad)
		}
	}
	wide := `{"a":[` + strings.Repeat("0,", MaxValues) + `0]}`
	if _, err := DecodeObject([]byte(wide), Limits{}); err == nil || !strings.Contains(err.Error(), "more than 100000 values") {
		t.Fatalf("DecodeObject(wide) = %v", err)
	}
}
