#!/usr/bin/env bash
# Runs the call-path benchmarks and prints each against its baseline, as
# ratios from one run. Usage: bench/run.sh [benchtime]   (default 3s)
set -euo pipefail
cd "$(dirname "$0")/.."
bt=${1:-3s}
out=$(go test -run "^$" -bench "HealthCheck|ExecuteRead|ExecuteFloor|ExecuteBashTrue|ExecBashTrue" -benchtime "$bt" ./bench/)
echo "$out"
echo
echo "$out" | awk '
  /^Benchmark/ {
    name=$1; sub(/-[0-9]+$/, "", name)
    for (i=2; i<NF; i++) { if ($(i+1)=="ns/op") ns[name]=$i; if ($(i+1)=="p50-ns") p50[name]=$i }
  }
  END {
    printf "Read p50 / health p50:             %.2fx\n", p50["BenchmarkExecuteRead/serial"]/p50["BenchmarkHealthCheck/serial"]
    printf "Read throughput / health (64 conc): %.2fx\n", ns["BenchmarkHealthCheck/parallel64"]/ns["BenchmarkExecuteRead/parallel64"]
    printf "Execute floor p50 / health p50:     %.2fx\n", p50["BenchmarkExecuteFloor"]/p50["BenchmarkHealthCheck/serial"]
    printf "Bash true added p50:               %.0f us\n", (p50["BenchmarkExecuteBashTrue"]-p50["BenchmarkExecBashTrue"])/1000
    printf "  sandboxed, cgroup:               %.0f us\n", (p50["BenchmarkExecuteBashTrueSandboxed/cgroup"]-p50["BenchmarkExecBashTrue"])/1000
    printf "  sandboxed, helper:               %.0f us\n", (p50["BenchmarkExecuteBashTrueSandboxed/helper"]-p50["BenchmarkExecBashTrue"])/1000
  }'
