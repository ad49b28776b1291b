package bash

import (
	"encoding/json"
	"testing"

	"github.com/toold/toold/internal/shell"
)

// The call hands the engine the analysis it was classified by, so that a
// Bash line is parsed once per call.
func TestCallOffersItsAnalysis(t *testing.T) {
	inv, err := New(Options{}).Parse(json.RawMessage(`{"command": "cd sub && git status"}`))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := inv.(interface{ ShellAnalysis() *shell.Analysis })
	if !ok {
		t.Fatal("the Bash invocation offers no analysis")
	}
	sa := a.ShellAnalysis()
	if sa == nil || len(sa.Commands) != 2 {
		t.Fatalf("analysis = %+v, want the line's two commands", sa)
	}
	if sa != inv.(*call).class.analysis {
		t.Error("the offered analysis is not the one the call was classified by")
	}
}
