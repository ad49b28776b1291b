#!/usr/bin/env bash
# Runs the Glob and Grep benchmarks on $(go env GOROOT)/src against bare
# ripgrep and prints the median of each time ratio (below 1: faster than
# rg). Every benchmark iteration runs the tool and rg in turn, so load from
# other processes weighs on both alike.
# Usage: bench/search_run.sh [count] [benchtime]   (default 5 runs of 10x)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
bt=${2:-10x}
command -v rg >/dev/null || { echo "rg not installed" >&2; exit 1; }
out=$(go test -run '^$' -bench 'RatioGOROOT' -benchtime "$bt" -count "$count" \
  ./internal/tools/glob/ ./internal/tools/grep/)
echo "$out" | awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
    for (i = 3; i < NF; i += 2) {
      if ($(i+1) == "ns/op") continue
      key = name " " $(i+1)
      if (!(key in n)) order[++keys] = key
      v[key, ++n[key]] = $i
    }
  }
  function median(key,   k, j, t, a, c) {
    c = n[key]
    for (k = 1; k <= c; k++) a[k] = v[key, k]
    for (k = 1; k <= c; k++) for (j = k + 1; j <= c; j++) if (a[j] < a[k]) { t = a[k]; a[k] = a[j]; a[j] = t }
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
  }
  END {
    for (k = 1; k <= keys; k++) {
      split(order[k], p, " ")
      printf "%-50s %-24s %8.2f\n", p[1], p[2], median(order[k])
    }
  }'
