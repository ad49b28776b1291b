package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/bash"
	"github.com/toold/toold/internal/tools/read"
)

// numbered is what the test command prints: lines "line 00001 xxx…" of 41
// characters each with the newline, 1000 of them (41 000 characters).
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %05d %s\n", i, strings.Repeat("x", 29))
	}
	return b.String()
}

const printLines = `for i in $(seq 1 1000); do printf 'line %05d %s\n' $i xxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done`

func TestLargeBashResultIsStoredAndReadBack(t *testing.T) {
	h := newHarness(t, nil, bash.New(bash.Options{MaxOutputChars: 1 << 20}), read.New(read.Options{}))
	sink := h.exec(t, call("toolu_big", "Bash", map[string]any{"command": printLines}))
	res := sink.results()["toolu_big"]
	if res == nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("result = %+v", res)
	}
	text := res.Content[0].Text
	handle := "toold-result://toolu_big"
	if !strings.HasPrefix(text, "<persisted-output>\n") || !strings.HasSuffix(text, "</persisted-output>") ||
		!strings.Contains(text, "Full output saved as: "+handle) || !strings.Contains(text, "40999 characters, 1000 lines") {
		t.Fatalf("text = %q", text)
	}
	// The preview: whole lines from the start, at most 2000 bytes of them.
	preview := text[strings.Index(text, "Preview (first 2000 bytes):\n")+len("Preview (first 2000 bytes):\n"):]
	preview = preview[:strings.Index(preview, "\n...\n")]
	if len(preview) > PreviewBytes || len(preview) < PreviewBytes/2 || !strings.HasPrefix(numbered(1, 1000), preview+"\n") {
		t.Fatalf("preview of %d bytes: %q", len(preview), preview)
	}
	if res.Meta["persisted_output"] != handle || res.Meta["original_chars"] != 40999 {
		t.Errorf("meta = %v", res.Meta)
	}
	// Stored whole in the session.
	blob, ok, err := h.store.GetBlob(context.Background(), h.id, tool.ResultBlobKey("toolu_big"))
	if err != nil || !ok || string(blob) != strings.TrimSuffix(numbered(1, 1000), "\n") {
		t.Fatalf("stored %d bytes, ok %v, err %v", len(blob), ok, err)
	}

	// Read pages through it by handle, numbered as Claude Code's Read.
	sink = h.exec(t, call("toolu_read", "Read", map[string]any{"file_path": handle, "offset": 990, "limit": 5}))
	got := sink.results()["toolu_read"]
	if got.IsError {
		t.Fatalf("Read: %s", got.Content[0].Text)
	}
	want := ""
	for i := 990; i <= 994; i++ {
		want += fmt.Sprintf("%d\tline %05d %s\n", i, i, strings.Repeat("x", 29))
	}
	want = strings.TrimSuffix(want, "\n")
	if got.Content[0].Text != want {
		t.Fatalf("Read text:\n%s\nwant:\n%s", got.Content[0].Text, want)
	}
	// To the end.
	sink = h.exec(t, call("toolu_tail", "Read", map[string]any{"file_path": handle, "offset": 999}))
	if txt := sink.results()["toolu_tail"].Content[0].Text; !strings.HasSuffix(txt, "\n1000\tline 01000 "+strings.Repeat("x", 29)) {
		t.Fatalf("tail = %q", txt)
	}
}

func TestReadOfAnUnknownHandleFails(t *testing.T) {
	h := newHarness(t, nil, read.New(read.Options{}))
	sink := h.exec(t, call("r", "Read", map[string]any{"file_path": "toold-result://nope"}))
	res := sink.results()["r"]
	if !res.IsError || !strings.Contains(res.Content[0].Text, "No stored result toold-result://nope") {
		t.Fatalf("result = %+v", res)
	}
}

func TestSmallBashResultStaysInline(t *testing.T) {
	h := newHarness(t, nil, bash.New(bash.Options{MaxOutputChars: 1 << 20}))
	// 30 000 characters exactly: Bash's limit, still inline.
	sink := h.exec(t, call("b", "Bash", map[string]any{"command": `head -c 30000 /dev/zero | tr '\0' a`}))
	res := sink.results()["b"]
	if text := res.Content[0].Text; text != strings.Repeat("a", 30000) {
		t.Fatalf("%d bytes: %.80q", len(text), text)
	}
	if _, ok, _ := h.store.GetBlob(context.Background(), h.id, tool.ResultBlobKey("b")); ok {
		t.Fatal("an inline result was stored")
	}
}

// sized returns a tool whose result is n characters of text, and whose
// definition declares limit.
func sized(name string, limit int, blocks ...tool.Block) *limitTool {
	return &limitTool{fakeTool: fakeTool{name: name, run: func(_ context.Context, in fakeInput, _ *tool.Env) (*tool.Result, error) {
		return &tool.Result{Content: append([]tool.Block{{Type: tool.BlockText, Text: strings.Repeat("é", in.N*1000)}}, blocks...)}, nil
	}}, limit: limit}
}

type limitTool struct {
	fakeTool
	limit int
}

func (l *limitTool) Definition() tool.Definition {
	d := l.fakeTool.Definition()
	d.MaxResultChars = l.limit
	return d
}

func TestLimitsPerTool(t *testing.T) {
	img := tool.Block{Type: tool.BlockImage, MediaType: "image/png", Data: []byte("png")}
	h := newHarness(t, nil, sized("Default", 0, img), sized("Declared", 70_000), sized("Greedy", 900_000))
	sink := h.exec(t,
		call("d1", "Default", map[string]any{"text": "x", "n": 50}), // 50 000: inline
		call("d2", "Default", map[string]any{"text": "x", "n": 51}), // over 50 000: stored
		call("c1", "Declared", map[string]any{"text": "x", "n": 60}),
		call("c2", "Declared", map[string]any{"text": "x", "n": 71}),
		call("g1", "Greedy", map[string]any{"text": "x", "n": 100}), // the declared limit is capped at 500 000
	)
	res := sink.results()
	for id, stored := range map[string]bool{"d1": false, "d2": true, "c1": false, "c2": true, "g1": false} {
		text := res[id].Content[0].Text
		if got := strings.HasPrefix(text, "<persisted-output>"); got != stored {
			t.Errorf("%s: stored %v, want %v (%d characters)", id, got, stored, utf8.RuneCountInString(text))
		}
		if !stored && strings.Contains(text, "truncated") {
			t.Errorf("%s: inline result was cut", id)
		}
	}
	// Other blocks stay beside the preview.
	if c := res["d2"].Content; len(c) != 2 || c[1].Type != tool.BlockImage {
		t.Errorf("d2 content = %+v", c)
	}
	// The preview never splits a character.
	if !utf8.ValidString(res["d2"].Content[0].Text) {
		t.Error("preview is not valid UTF-8")
	}
	if resultLimit(tool.Definition{MaxResultChars: 900_000}) != MaxDeclaredResultChars {
		t.Error("a declared limit past the ceiling is not capped")
	}
}
