package worktree

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCreate: what the fresh base costs over head in a repository
// without origin (the fetch that fails, and the lookups around it), git
// run without the sandbox.
func BenchmarkCreate(b *testing.B) {
	if testing.Short() {
		b.Skip("runs git")
	}
	for _, ref := range []string{BaseHead, BaseFresh} {
		b.Run(ref, func(b *testing.B) {
			ws := b.TempDir()
			newRepo(b, ws)
			m := NewManager(Options{BaseRef: ref})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := req(ws)
				r.Name = fmt.Sprintf("b%d", i)
				wt, err := m.Create(context.Background(), r)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				m.Remove(context.Background(), r, wt.Path, wt.Branch)
				b.StartTimer()
			}
		})
	}
}
