#!/usr/bin/env bash
# Prints events per second and wall time for the standard benchmark cases. Compare ratios
# within one run: the machines are shared and noisy.
set -euo pipefail
roofsim="${1:-build/sim/roofsim}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
top_level() { grep -E "^  \"$1\": " "$out" | awk '{print $2}' | tr -d ,; }
run() {
  local label="$1"; shift
  local start end
  start=$(date +%s.%N)
  "$roofsim" "$@" --json "$out" >/dev/null
  end=$(date +%s.%N)
  awk -v l="$label" -v e="$(top_level events)" -v j="$(top_level server_jobs || true)" -v w="$(top_level wall_s)" -v s="$start" -v f="$end" \
    'BEGIN { printf "%-42s %8d events %9d jobs  kernel %7.3f s  %5.2f M events/s %6.2f M jobs/s  process %6.3f s\n", l, e, j, w, e / w / 1e6, j / w / 1e6, f - s }'
}
run "gemm 8192x8192x8192 bf16 on h100_sxm5" op --hw h100_sxm5 --gemm 8192,8192,8192 --dtype bf16
run "gemm 8192x8192x8192 bf16 on h100 (fine)" op --hw h100_sxm5 --gemm 8192,8192,8192 --dtype bf16 --fine
run "roofline sweep on h100_sxm5" sweep --hw h100_sxm5
run "roofline sweep on tpu_v4" sweep --hw tpu_v4
run "llama-2-7b b1 2048+128 bf16 on h100_sxm5" run --model llama-2-7b --prompt 2048 --gen 128
run "all-reduce 1 GiB on a 4096-chip TPU v4 pod" collective --hw tpu_v4 --topology 16x16x16 --bytes 1GiB
echo "peak memory of the pod all-reduce: $(top_level peak_memory_bytes | awk '{printf "%.1f MiB", $1 / 1048576}')"
run "all-to-all 64 MiB routed on 8x8x8 TPU v4" collective --hw tpu_v4 --topology 8x8x8 --op alltoall --bytes 64MiB
# Many simulations in one process (the library, through the Python module) against a process each.
PYTHONPATH="$(dirname "$roofsim")/../python${PYTHONPATH:+:$PYTHONPATH}" python3 "$(dirname "$0")/in_process.py" "$roofsim"
# Layer replay against simulating every layer, old and new in one run (docs/speed.md).
"$(dirname "$0")/replay_bench.sh" "$roofsim"
