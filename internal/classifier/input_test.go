package classifier

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/internal/audit"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func redacting(t testing.TB, patterns ...string) func(*Options) {
	res, err := audit.CompileRedactions(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return func(o *Options) { o.Redact = audit.Redactor(res) }
}

func TestInputRedactsSecrets(t *testing.T) {
	f := newFixture(t, verdict(vAllow, ""), redacting(t, `sk-[A-Za-z0-9]+`))
	in := f.k.input(tool.ClassifierInput{Fields: []string{"command"}, Cwd: true}, map[string]any{"command": "curl -H 'Authorization: sk-abc123' x"}, "/ws")
	if got := in["command"].(string); strings.Contains(got, "sk-abc123") || !strings.Contains(got, audit.Redacted) {
		t.Fatalf("command %q", got)
	}
}

// An excerpt is bounded, keeps UTF-8 whole, says how much was cut, and a
// secret that straddles the cut is redacted rather than half sent.
func TestExcerptIsBounded(t *testing.T) {
	f := newFixture(t, verdict(vAllow, ""), redacting(t, `SECRET[0-9]+`))
	content := strings.Repeat("é", maxExcerpt/2-3) + "SECRET0123456789" + strings.Repeat("x", 1<<20)
	in := f.k.input(tool.ClassifierInput{Fields: []string{"file_path"}, Excerpts: []string{"content"}}, map[string]any{"file_path": "/ws/a", "content": content, "other": "no"}, "/ws")
	got := in["content"].(string)
	if len(got) > maxExcerpt+64 || !utf8.ValidString(got) || !strings.Contains(got, "more bytes]") {
		t.Fatalf("excerpt of %d bytes: %q…", len(got), got[len(got)-40:])
	}
	if strings.Contains(got, "SECRET") || strings.Contains(got, "0123") {
		t.Fatalf("the secret at the cut leaked: …%q", got[len(got)-60:])
	}
	if in["file_path"] != "/ws/a" || in["other"] != nil || in["cwd"] != nil {
		t.Fatalf("input %v", in)
	}
}

// A non-string change (MultiEdit's edits) is excerpted as its JSON.
func TestExcerptOfStructuredChange(t *testing.T) {
	f := newFixture(t, verdict(vAllow, ""))
	edits := []any{map[string]any{"old_string": "a", "new_string": "b"}}
	in := f.k.input(tool.ClassifierInput{Fields: []string{"file_path"}, Excerpts: []string{"edits"}}, map[string]any{"file_path": "/ws/a", "edits": edits}, "/ws")
	if in["edits"] != `[{"new_string":"b","old_string":"a"}]` {
		t.Fatalf("edits %v", in["edits"])
	}
}

// A tool that declares nothing passes its input, bounded in keys and
// lengths, nested values as JSON text.
func TestDefaultInput(t *testing.T) {
	f := newFixture(t, verdict(vAllow, ""), redacting(t, `tok_[a-z]+`))
	args := map[string]any{"title": strings.Repeat("t", 3*maxField), "n": 3.0, "nested": map[string]any{"k": "tok_abc"}}
	for i := range 2 * maxDefaultFields {
		args["z"+string(rune('A'+i))] = "v"
	}
	in := f.k.input(tool.ClassifierInput{}, args, "/ws")
	if len(in) != maxDefaultFields || in["n"] != 3.0 {
		t.Fatalf("%d fields: %v", len(in), in["n"])
	}
	if s := in["title"].(string); len(s) > maxField+64 {
		t.Fatalf("title of %d bytes", len(s))
	}
	if s, _ := in["nested"].(string); s != `{"k":"[REDACTED]"}` {
		t.Fatalf("nested %v", in["nested"])
	}
}

func TestRecentIsBounded(t *testing.T) {
	r := NewRecent(3, 2)
	for i := range 5 {
		r.Add("a", &tooldv1.RecentDecision{Summary: string(rune('0' + i))})
	}
	got := r.Of("a")
	if len(got) != 3 || got[0].GetSummary() != "2" || got[2].GetSummary() != "4" {
		t.Fatalf("a: %v", got)
	}
	r.Add("b", &tooldv1.RecentDecision{})
	r.Add("a", &tooldv1.RecentDecision{})
	r.Add("c", &tooldv1.RecentDecision{})
	// b was decided least recently and made room for c.
	if r.Of("b") != nil || r.Of("a") == nil || r.Of("c") == nil {
		t.Fatalf("eviction kept b")
	}
	r.Forget("a")
	if r.Of("a") != nil {
		t.Fatal("forgotten session kept")
	}
}
