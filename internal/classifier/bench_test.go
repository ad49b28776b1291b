package classifier

import (
	"strings"
	"testing"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

// BenchmarkRequest builds the classifier's request for a Write whose
// content is 1 KiB, 64 KiB and 1 MiB, with a redaction pattern: the excerpt is
// bounded, so the last two should cost about the same (compare ns/op and
// B/op).
func BenchmarkRequest(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"content=1KiB", 1 << 10}, {"content=64KiB", 64 << 10}, {"content=1MiB", 1 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			f := newFixture(b, verdict(vAllow, ""), redacting(b, `sk-[A-Za-z0-9]{20,}`))
			c := bashCall("")
			c.Def = tool.Definition{Name: "Write", Classifier: tool.ClassifierInput{Fields: []string{"file_path"}, Excerpts: []string{"content"}}}
			c.Args = map[string]any{"file_path": "/ws/s1/a.txt", "content": strings.Repeat("line of text\n", size.n/13)}
			b.ReportAllocs()
			for b.Loop() {
				f.k.request(c, policy.Decision{Behavior: policy.Ask, Reason: "Write needs approval"})
			}
		})
	}
}
