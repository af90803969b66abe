#!/usr/bin/env bash
# The speed issue's table (issue 51): each figure in CPU seconds (user + sys, the least of
# --repeat runs), its goal, and, given a second binary (say, one built from the previous
# commit), that binary's figure and the ratio new / old, old and new interleaved in one run so
# the shared machine's noise falls on both. Measured, never asserted.
#
#   bench/speed_goals.sh [--repeat N] [--quick] NEW_ROOFSIM [OLD_ROOFSIM]
#
# --quick leaves out the two 10,000-request serving runs (about a minute each before issue 51).
# The serving rows are `serve --concurrency 64 --prompt normal:1000:200 --output
# normal:500:150 --requests N` (--buckets 0: exact shapes); `cases serving` is per row, over
# every 24th row of both shared serving files (38 rows, --max-requests 600, one worker).
set -euo pipefail
repeat=3
quick=0
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    *) echo "speed_goals.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: bench/speed_goals.sh [--repeat N] [--quick] NEW_ROOFSIM [OLD_ROOFSIM]" >&2
  exit 2
fi
new_bin="$1"
old_bin="${2:-}"
here="$(cd "$(dirname "$0")/.." && pwd)"
serving="${ROOFSIM_SERVING_DIR:-$here/../shared/validation/serving}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CPU seconds (user + sys) of one command.
cpu() {
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >/dev/null 2>&1
  awk '{ printf "%.3f", $1 + $2 }' "$tmp/time"
}
least() { printf '%s\n' "$@" | sort -g | head -1; }

# label, goal (s), divisor (rows per figure), command...
row() {
  local label="$1" goal="$2" per="$3"
  shift 3
  local news=() olds=()
  for _ in $(seq "$repeat"); do
    news+=("$(cpu "$new_bin" "$@")")
    [[ -n "$old_bin" ]] && olds+=("$(cpu "$old_bin" "$@")")
  done
  local n o
  n=$(awk -v t="$(least "${news[@]}")" -v d="$per" 'BEGIN { printf "%.3f", t / d }')
  if [[ -n "$old_bin" ]]; then
    o=$(awk -v t="$(least "${olds[@]}")" -v d="$per" 'BEGIN { printf "%.3f", t / d }')
    printf '%-58s %8.3f s  goal %6.2f s  | old %8.3f s  new/old %5.2f\n' "$label" "$n" "$goal" "$o" "$(awk -v a="$n" -v b="$o" 'BEGIN { printf "%.2f", a / b }')"
  else
    printf '%-58s %8.3f s  goal %6.2f s\n' "$label" "$n" "$goal"
  fi
}

serve=(serve --concurrency 64 --prompt normal:1000:200 --output normal:500:150)
echo "CPU seconds (user + sys), least of $repeat runs; $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
row "default run (Llama-3-8B 512 + 128)" 0.10 1 run
row "run --model llama-2-70b --tp 8 --prompt 2048 --gen 128" 0.15 1 run --model llama-2-70b --tp 8 --prompt 2048 --gen 128
row "serve 1,000 requests, exact shapes (--buckets 0)" 1.0 1 "${serve[@]}" --requests 1000 --buckets 0
if [[ $quick -eq 0 ]]; then
  row "serve 10,000 requests, exact shapes (--buckets 0)" 10 1 "${serve[@]}" --requests 10000 --buckets 0
  row "serve 10,000 requests, bucketed" 1.5 1 "${serve[@]}" --requests 10000
fi
if [[ -f "$serving/multi_stack.csv" && -f "$serving/h100_llama31_8b_trtllm.csv" ]]; then
  row "cases serving, per row (38 rows of the shared files)" 0.2 38 cases serving "$serving/multi_stack.csv" \
    "$serving/h100_llama31_8b_trtllm.csv" --every 24 --max-requests 600 -j 1
else
  echo "cases serving: skipped ($serving has not the shared serving files; set ROOFSIM_SERVING_DIR)"
fi
row "collective --hw tpu_v4 --topology 16x16x16 allreduce 1GiB" 0.2 1 collective --hw tpu_v4 --topology 16x16x16 --op allreduce --bytes 1GiB
# Peak resident memory of an exact 8,192-token decode (goal 500 MB): one run each (memory is not noisy).
long=(run --prompt 128 --gen 8064 --decode-stride 1 --max-events 0)
peak() { /usr/bin/time -f "%M" -o "$tmp/mem" "$@" >/dev/null 2>&1; awk '{ printf "%.0f", $1 / 1024 }' "$tmp/mem"; }
if [[ -n "$old_bin" ]]; then
  printf '%-58s %8s MiB  goal %6s MiB  | old %8s MiB\n' "peak memory, exact 8,192-token decode" "$(peak "$new_bin" "${long[@]}")" 500 "$(peak "$old_bin" "${long[@]}")"
else
  printf '%-58s %8s MiB  goal %6s MiB\n' "peak memory, exact 8,192-token decode" "$(peak "$new_bin" "${long[@]}")" 500
fi
