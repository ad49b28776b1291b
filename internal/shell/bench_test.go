package shell

import "testing"

// BenchmarkAnalyze is the analysis of a typical command.
func BenchmarkAnalyze(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(`git status && go test ./... 2>&1 | tail -20`)
	}
}

// BenchmarkReadOnly is the Bash tool's use: analysis, read-only check and
// kinds of a search pipeline.
func BenchmarkReadOnly(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		a := Analyze(`grep -rn "func New" internal | sort | head -20`)
		a.ReadOnly()
		a.Kinds()
	}
}

// BenchmarkAnalyzeNested is a wrapped nested script.
func BenchmarkAnalyzeNested(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(`timeout 60 bash -c 'cd sub && make -j4 test' 2>&1 | tee build.log`)
	}
}
