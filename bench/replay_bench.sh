#!/usr/bin/env bash
# Layer replay against simulating every layer (--all-layers), in one run: the process wall time
# of each command, median of 3 (old and new interleaved, so that the shared machine's noise
# falls on both), and the ratio. The pod all-reduce has no layers: it is timed to show that
# nothing else got slower. Usage: bench/replay_bench.sh [path/to/roofsim]
set -euo pipefail
roofsim="${1:-build/sim/roofsim}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
seconds() {
  local start end
  start=$(date +%s.%N)
  "$roofsim" "$@" --json "$out" >/dev/null 2>&1
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
compare() {
  local label="$1"; shift
  local old=() new=()
  for _ in 1 2 3; do
    old+=("$(seconds "$@" --all-layers)")
    new+=("$(seconds "$@")")
  done
  local o n
  o=$(median "${old[@]}")
  n=$(median "${new[@]}")
  awk -v l="$label" -v o="$o" -v n="$n" 'BEGIN { printf "%-46s all layers %6.3f s  replayed %6.3f s  %5.1fx\n", l, o, n, o / n }'
}
compare "llama-2-70b tp8 on 8 x h100, 2048+128" run --model llama-2-70b --tp 8 --prompt 2048 --gen 128
compare "default run (llama-3-8b, h100, 512+128)" run
compare "llama-2-7b b1 2048+128 on h100" run --model llama-2-7b --prompt 2048 --gen 128
pod=()
for _ in 1 2 3; do pod+=("$(seconds collective --hw tpu_v4 --topology 16x16x16 --op allreduce --bytes 1GiB)"); done
memory=$(grep -E '^  "peak_memory_bytes": ' "$out" | awk '{printf "%.1f MiB", $2 / 1048576}' | tr -d ,)
printf '%-46s %6.3f s (median of 3), peak memory %s\n' "all-reduce 1 GiB on a 4096-chip TPU v4 pod" "$(median "${pod[@]}")" "$memory"
