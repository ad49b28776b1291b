package read

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// BenchmarkReadSmallFile is the hot path: Parse and Run of a whole read of
// a 40-line source file, stamp recorded.
func BenchmarkReadSmallFile(b *testing.B) {
	env, _, _ := tooltest.Env(b)
	var src strings.Builder
	for i := range 40 {
		fmt.Fprintf(&src, "\tx%d := compute(%d, \"some text on line %d\") // comment\n", i, i, i)
	}
	p := put(b, env.Cwd, "pkg/file.go", src.String())
	raw := []byte(`{"file_path":"` + p + `"}`)
	benchRead(b, env, raw)
}

// BenchmarkReadLimit10OfLargeFile reads 10 lines of a 64 MiB file: the cost
// is the 10 lines plus the bounded line count, not the file's size.
func BenchmarkReadLimit10OfLargeFile(b *testing.B) {
	env, _, _ := tooltest.Env(b)
	line := strings.Repeat("abcdefgh", 8)[:63] + "\n"
	p := put(b, env.Cwd, "big.log", strings.Repeat(line, (64<<20)/len(line)))
	raw := []byte(`{"file_path":"` + p + `","limit":10}`)
	benchRead(b, env, raw)
}

// BenchmarkReadDeepPath is the small read seven directories down: each
// directory costs a few system calls (resolution, stat, open through
// os.Root), which dominate.
func BenchmarkReadDeepPath(b *testing.B) {
	env, _, _ := tooltest.Env(b)
	p := put(b, env.Cwd, "a/b/c/d/e/f/file.go", strings.Repeat("\tsome line of code here\n", 40))
	raw := []byte(`{"file_path":"` + p + `"}`)
	benchRead(b, env, raw)
}

// benchRead parses and runs one Read input per iteration.
func benchRead(b *testing.B, env *tool.Env, raw []byte) {
	rd := New(Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		inv, err := rd.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := inv.Run(ctx, env); err != nil {
			b.Fatal(err)
		}
	}
}
