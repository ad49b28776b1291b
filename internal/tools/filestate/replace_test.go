package filestate

import (
	"errors"
	"testing"

	"github.com/toold/toold/internal/tool"
)

func TestReplace(t *testing.T) {
	tests := []struct {
		name, content, old, new string
		all                     bool
		want                    string
		count, first            int
		fail                    string
	}{
		{name: "one", content: "a b c", old: "b", new: "B", want: "a B c", count: 1, first: 2},
		{name: "all", content: "x-x-x", old: "x", new: "yy", all: true, want: "yy-yy-yy", count: 3, first: 0},
		{name: "CRLF with plain newlines", content: "a\r\nb\r\n", old: "a\nb", new: "c\nd", want: "c\r\nd\r\n", count: 1},
		{name: "not found", content: "abc", old: "z", new: "y", fail: NotFoundMessage},
		{name: "line prefix hint", content: "abc", old: "    12\tabc", new: "y", fail: NotFoundMessage + LinePrefixMessage},
		{name: "ambiguous", content: "aa", old: "a", new: "b",
			fail: "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replace([]byte(tc.content), tc.old, tc.new, tc.all)
			if tc.fail != "" {
				var te *tool.Error
				if !errors.As(err, &te) || te.Kind != tool.KindFailed || te.Msg != tc.fail {
					t.Fatalf("err = %v, want %q", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Content) != tc.want || r.Count != tc.count || r.First != tc.first {
				t.Fatalf("got %q count %d first %d", r.Content, r.Count, r.First)
			}
		})
	}
}
