package filestate

import (
	"fmt"
	"strings"
	"testing"
)

func TestWriteLine(t *testing.T) {
	long := strings.Repeat("x", MaxLineChars)
	wide := strings.Repeat("é", MaxLineChars)
	tests := []struct {
		name string
		n    int
		line string
		want string
	}{
		{name: "short", n: 1, line: "hello", want: fmt.Sprintf("%6d\t%s", 1, "hello")},
		{name: "empty", n: 42, line: "", want: fmt.Sprintf("%6d\t", 42)},
		{name: "six digits", n: 123456, line: "a", want: "123456\ta"},
		{name: "seven digits widen", n: 1234567, line: "a", want: "1234567\ta"},
		{name: "tabs kept", n: 3, line: "\tindented\t", want: "     3\t\tindented\t"},
		{name: "carriage return dropped", n: 1, line: "crlf\r", want: "     1\tcrlf"},
		{name: "exactly the limit", n: 1, line: long, want: "     1\t" + long},
		{name: "one over the limit", n: 1, line: long + "y", want: "     1\t" + long + LineCutMarker},
		{name: "multibyte counted as characters", n: 1, line: wide, want: "     1\t" + wide},
		{name: "multibyte cut on a character", n: 1, line: wide + "é", want: "     1\t" + wide + LineCutMarker},
		{name: "invalid UTF-8 replaced", n: 1, line: "a\xffb\xc3", want: "     1\ta\uFFFDb\uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			WriteLine(&sb, tc.n, []byte(tc.line))
			if got := sb.String(); got != tc.want {
				t.Fatalf("WriteLine(%d, %.40q) = %.60q, want %.60q", tc.n, tc.line, got, tc.want)
			}
		})
	}
}

func TestWriteLineMatchesSprintf(t *testing.T) {
	for _, n := range []int{1, 9, 10, 99999, 100000, 999999, 1000000} {
		var sb strings.Builder
		WriteLine(&sb, n, []byte("text"))
		if want := fmt.Sprintf("%6d\t%s", n, "text"); sb.String() != want {
			t.Errorf("WriteLine(%d) = %q, want %q", n, sb.String(), want)
		}
	}
}
