package exec

import (
	"slices"
	"testing"
)

func TestWithSessionEnv(t *testing.T) {
	base := []string{"PATH=/usr/bin", "LANG=C"}
	if got := withSessionEnv(base, nil); !slices.Equal(got, base) {
		t.Errorf("no session variables: %q", got)
	}
	got := withSessionEnv(base, map[string]string{"B": "2", "A": "1", "LANG": "de_DE.UTF-8"})
	want := []string{"PATH=/usr/bin", "A=1", "B=2", "LANG=de_DE.UTF-8"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if !slices.Equal(base, []string{"PATH=/usr/bin", "LANG=C"}) {
		t.Errorf("the server's list was changed: %q", base)
	}
}
