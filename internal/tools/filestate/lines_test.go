package filestate

import (
	"strings"
	"testing"
)

func TestWriteNumbered(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		n          int
		line, want string
	}{
		{1, "hello", "1\thello"},
		{0, "offset 0 numbers from 0", "0\toffset 0 numbers from 0"},
		{123456789, "wide number", "123456789\twide number"},
		{2, "crlf\r", "2\tcrlf"},
		{3, "", "3\t"},
		{4, long, "4\t" + long}, // whole: Claude Code cuts no line
		{5, "bad \xff byte", "5\tbad \ufffd byte"},
		{6, "cut \xe2\x82 sequence", "6\tcut \ufffd sequence"},
	}
	for _, tc := range tests {
		var sb strings.Builder
		WriteNumbered(&sb, tc.n, []byte(tc.line))
		if got := sb.String(); got != tc.want {
			t.Errorf("WriteNumbered(%d, %.40q) = %.60q, want %.60q", tc.n, tc.line, got, tc.want)
		}
	}
}
