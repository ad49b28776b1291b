package filestate

import (
	"errors"
	"testing"

	"github.com/toold/toold/internal/tool"
)

func TestReplace(t *testing.T) {
	notUnique := "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: a"
	tests := []struct {
		name, content, old, new string
		all                     bool
		want                    string
		count                   int
		kind                    tool.ErrorKind
		fail                    string
	}{
		{name: "one", content: "a b c", old: "b", new: "B", want: "a B c", count: 1},
		{name: "all", content: "x-x-x", old: "x", new: "yy", all: true, want: "yy-yy-yy", count: 3},
		{name: "CRLF with plain newlines", content: "a\r\nb\r\n", old: "a\nb", new: "c\nd", want: "c\r\nd\r\n", count: 1},
		{name: "CRLF file, new lines written CRLF", content: "a\r\nb\r\n", old: "b", new: "b\nc", want: "a\r\nb\r\nc\r\n", count: 1},
		{name: "CRLF file, old_string with CR", content: "a\r\nb\r\n", old: "a\r\nb", new: "x", kind: tool.KindNoMatch, fail: NotFoundMessage + "\nString: a\r\nb"},
		{name: "mostly LF", content: "a\nb\nc\r\n", old: "a\nb", new: "x", want: "x\nc\r\n", count: 1},
		{name: "delete with its newline", content: "a\nb\nc\n", old: "b", new: "", want: "a\nc\n", count: 1},
		{name: "delete all with their newlines", content: "b\na\nb\n", old: "b", new: "", all: true, want: "a\n", count: 2},
		{name: "delete at the end, no newline", content: "a\nb", old: "b", new: "", want: "a\n", count: 1},
		{name: "straight for curly", content: "\u201cq\u201d it\u2019s", old: `"q" it's`, new: `"r" it's`, want: "\u201cr\u201d it\u2019s", count: 1},
		{name: "curly for straight", content: `"q"`, old: "\u201cq\u201d", new: "\u201cr\u201d", want: "\u201cr\u201d", count: 1},
		{name: "curly single quotes opening and closing", content: "say \u2018hi\u2019", old: "'hi'", new: "'yo' ('x')", want: "say \u2018yo\u2019 (\u2018x\u2019)", count: 1},
		{name: "curly match after multibyte text", content: "é \u201cq\u201d", old: `"q"`, new: `"r"`, want: "é \u201cr\u201d", count: 1},
		{name: "not found", content: "abc", old: "z", new: "y", kind: tool.KindNoMatch, fail: NotFoundMessage + "\nString: z"},
		{name: "ambiguous", content: "aa", old: "a", new: "b", kind: tool.KindNotUnique, fail: notUnique},
		{name: "ambiguous once quotes are straight", content: "\u2018a\u2019 'a'", old: "\u2018a\u2019", new: "b", want: "b 'a'", count: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replace([]byte(tc.content), tc.old, tc.new, tc.all)
			if tc.fail != "" {
				var te *tool.Error
				if !errors.As(err, &te) || te.Kind != tc.kind || te.Msg != tc.fail {
					t.Fatalf("err = %v, want %v %q", err, tc.kind, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Content) != tc.want || r.Count != tc.count {
				t.Fatalf("got %q count %d, want %q count %d", r.Content, r.Count, tc.want, tc.count)
			}
		})
	}
}
