#!/usr/bin/env bash
# Runs the Bash tool benchmarks (internal/tools/bash) for several rounds,
# interleaved, and prints the medians: a tool call of `true` against a bare
# `bash -c true` from Go, and the paired per-call overhead.
# Usage: bench/bash_run.sh [rounds] [benchtime]   (default 7 rounds, 300x)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
bt=${2:-300x}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" ./internal/tools/bash/
out=""
for ((i = 1; i <= rounds; i++)); do
  out+=$("$bin" -test.run '^$' -test.bench 'BashTrue' -test.benchtime "$bt" -test.benchmem)$'\n'
done
echo "$out" | grep '^Benchmark'
echo
echo "$out" | awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    for (i = 2; i < NF; i++) {
      if ($(i+1) == "ns/op") { n[name]++; v[name, n[name]] = $i }
      if ($(i+1) == "p50-overhead-ns") { m++; o[m] = $i }
    }
  }
  function median(a, c,   k, j, t) {
    for (k = 1; k <= c; k++) for (j = k + 1; j <= c; j++) if (a[j] < a[k]) { t = a[k]; a[k] = a[j]; a[j] = t }
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
  }
  function med(name,   k, a) { for (k = 1; k <= n[name]; k++) a[k] = v[name, k]; return median(a, n[name]) }
  END {
    t = med("BenchmarkBashTrue"); e = med("BenchmarkExecBashTrue")
    printf "Bash tool `true`:            %8.0f us/op (median of %d)\n", t / 1000, n["BenchmarkBashTrue"]
    printf "bash -c true from Go:        %8.0f us/op\n", e / 1000
    printf "difference of medians:       %8.0f us\n", (t - e) / 1000
    printf "paired overhead, median p50: %8.0f us\n", median(o, m) / 1000
  }'
