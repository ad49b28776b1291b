package grep

import (
	"bytes"
	"strings"
	"testing"
)

func TestUnicodeClasses(t *testing.T) {
	tests := map[string]string{
		`abc`:         `abc`,
		`\d+`:         `[\p{Nd}]+`,
		`\D`:          `[^\p{Nd}]`,
		`[\w-]`:       `[` + uniWord + `-]`,
		`[^\d]`:       `[^\p{Nd}]`,
		`[\D]`:        `[\P{Nd}]`,
		`[\W]`:        `[\W]`,
		`\\d`:         `\\d`,
		`\Q\d\E`:      `\Q\d\E`,
		`[]\d]`:       `[]\p{Nd}]`,
		`[[:alpha:]]`: `[[:alpha:]]`,
		`\pL\n`:       `\pL\n`,
		`é\s`:         `é[` + uniSpace + `]`,
	}
	for in, want := range tests {
		if got := unicodeClasses(in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

func TestCompilePattern(t *testing.T) {
	tests := []struct {
		expr      string
		fold      bool
		multiline bool
		line      string
		want      bool
		spans     bool
		lit       string
	}{
		{expr: "a[^x]b", line: "a\nb", want: false, lit: "a"}, // classes lose \n
		{expr: `a\sb`, line: "a\nb", want: false, lit: "a"},   // \s too
		{expr: `a\sb`, multiline: true, line: "a\nb", want: true, spans: true},
		{expr: "a.b", multiline: true, line: "a\nb", want: true, spans: true},
		{expr: "^foo$", line: "x\nfoo\ny", want: true, lit: "foo"},          // ^ $ at lines
		{expr: "foo", multiline: true, line: "foo", want: true, lit: "foo"}, // cannot span: line search
		{expr: `(?i)context\.Context`, line: "CONTEXT.context", want: true, lit: "context.context"},
		{expr: "kelvin", fold: true, line: "\u212aelvin", want: true, lit: "kelvin"},
		{expr: `\w+`, line: "é", want: true},
		{expr: `\d`, line: "٣", want: true},
		{expr: "(ab)+c", line: "ababc", want: true, lit: "ab"},
		{expr: "a|b", line: "b", want: true},
	}
	for _, tt := range tests {
		p, err := compilePattern(tt.expr, tt.fold, tt.multiline)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		if got := p.re.MatchString(tt.line); got != tt.want {
			t.Errorf("%s on %q: got %v", tt.expr, tt.line, got)
		}
		if p.spans != tt.spans {
			t.Errorf("%s: spans = %v", tt.expr, p.spans)
		}
		lit := ""
		if p.pre != nil {
			lit = string(p.pre.needles[0].lit)
		}
		if lit != tt.lit {
			t.Errorf("%s: literal %q, want %q", tt.expr, lit, tt.lit)
		}
	}
	for _, bad := range []string{"a\nb", `[\n]`, "(", "a{2,1}"} {
		if _, err := compilePattern(bad, false, false); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

func TestPrefilter(t *testing.T) {
	compile := func(expr string) *prefilter {
		p, err := compilePattern(expr, false, false)
		if err != nil {
			t.Fatal(err)
		}
		return p.pre
	}
	tests := []struct {
		expr string
		text string
		want int
	}{
		{`(?i)Context\.Context`, "x context.CONTEXT y", 2},
		{`(?i)Context\.Context`, "contex context.context", 7},
		{`(?i)Context\.Context`, "context.contex", -1},
		{`(?i)Context\.Context`, "CoNtExT.cOnTeXt", 0},
		{"TODO|FIXME", "a FIXME then TODO", 2},
		{"TODO|FIXME", "none", -1},
		{"(?i)todo|fixme", "xx FiXmE", 3},
		{`\w+Error`, "io.EOFError", 6},
		{"(?i)A#B", "a# xx a#B", 6},
		{"(?i)xY", "X xxx Xy", 6},
	}
	for _, tt := range tests {
		pre := compile(tt.expr)
		if pre == nil {
			t.Fatalf("%s: no prefilter", tt.expr)
		}
		if got := pre.scanner([]byte(tt.text)).from(0); got != tt.want {
			t.Errorf("%s in %q: got %d, want %d", tt.expr, tt.text, got, tt.want)
		}
	}
	// The scan goes on from later positions without missing anything.
	s := compile("ab|cd").scanner([]byte("ab cd ab cd"))
	for _, want := range []int{0, 3, 6, 9, -1} {
		pos := max(want, 0)
		if want < 0 {
			pos = 10
		}
		if got := s.from(pos); got != want {
			t.Errorf("from(%d) = %d, want %d", pos, got, want)
		}
	}
	for _, expr := range []string{"a|b*", ".*", "a?", "(?i)é"} {
		if compile(expr) != nil {
			t.Errorf("%s: a prefilter that could miss matches", expr)
		}
	}
	if !compile("(?i)abc").usable([]byte("k")) {
		t.Error("a literal without k or s needs no Unicode check")
	}
	if compile("(?i)kit").usable([]byte("\u212ait")) {
		t.Error("the Kelvin sign must make the prefilter step aside")
	}
}

func TestReadableLimit(t *testing.T) {
	line := strings.Repeat("y", 99) + "\n" // 100 bytes
	var b bytes.Buffer
	for b.Len() < 70_000 {
		b.WriteString(line)
	}
	b.WriteString("nul\x00\n")
	// ripgrep's first buffer holds 64 KiB; its complete lines (655 of
	// them) are searched; the second buffer holds the NUL.
	if got, want := readableLimit(b.Bytes()), 65500; got != want {
		t.Errorf("got %d, want %d", got, want)
	}
	if got := readableLimit([]byte("no nul\n")); got != 7 {
		t.Errorf("no NUL: got %d", got)
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		line string
		long bool
	}{
		{strings.Repeat("a", 500), false},
		{strings.Repeat("a", 501), true},
		// Characters, not bytes: 500 two-byte characters are shown.
		{strings.Repeat("é", 500), false},
		{strings.Repeat("é", 501), true},
		// JavaScript counts a character past U+FFFF twice.
		{strings.Repeat("😀", 250), false},
		{strings.Repeat("😀", 251), true},
	} {
		if got := clip([]byte(tt.line)); long(got) != tt.long {
			t.Errorf("%d bytes: long = %v, want %v", len(tt.line), long(got), tt.long)
		}
	}
}

func TestDecodeBOM(t *testing.T) {
	if got := string(decodeBOM([]byte("\xef\xbb\xbfhi"))); got != "hi" {
		t.Errorf("utf-8: %q", got)
	}
	if got := string(decodeBOM(utf16LE("héllo"))); got != "héllo" {
		t.Errorf("utf-16le: %q", got)
	}
	if got := string(decodeBOM([]byte{0xFE, 0xFF, 0, 'h', 0, 'i'})); got != "hi" {
		t.Errorf("utf-16be: %q", got)
	}
}
