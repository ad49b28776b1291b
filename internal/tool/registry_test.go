package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

type named struct {
	name    string
	aliases []string
	schema  string
}

func (n named) Definition() Definition {
	s := n.schema
	if s == "" {
		s = `{"type":"object"}`
	}
	return Definition{Name: n.name, Aliases: n.aliases, InputSchema: json.RawMessage(s)}
}
func (n named) Parse(json.RawMessage) (Invocation, error) { return nil, nil }

func TestRegistryOrderAndLookup(t *testing.T) {
	r, err := NewRegistry(named{name: "Write"}, named{name: "Bash"}, named{name: "Read"}, named{name: "TaskOutput", aliases: []string{"BashOutput"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); got != "Bash,Read,TaskOutput,Write" {
		t.Fatalf("order = %s", got)
	}
	if tl, ok := r.Lookup("BashOutput"); !ok || tl.Definition().Name != "TaskOutput" {
		t.Fatal("alias lookup failed")
	}
	if _, ok := r.Lookup("bash"); ok {
		t.Fatal("lookup must be case-sensitive: rules match canonical names only")
	}
}

func TestRegistryRejects(t *testing.T) {
	tests := []struct {
		name  string
		tools []Tool
		want  string
	}{
		{"duplicate", []Tool{named{name: "A"}, named{name: "A"}}, `"A" registered twice`},
		{"alias clash", []Tool{named{name: "A"}, named{name: "B", aliases: []string{"A"}}}, `"A" registered twice`},
		{"empty name", []Tool{named{}}, "empty name"},
		{"bad schema", []Tool{named{name: "A", schema: "{"}}, "not valid JSON"},
	}
	for _, tc := range tests {
		if _, err := NewRegistry(tc.tools...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

func TestZeroTraitsFailClosed(t *testing.T) {
	var tr Traits
	if tr.ReadOnly || tr.ConcurrencySafe {
		t.Fatal("the zero Traits must be the fail-closed default")
	}
}
