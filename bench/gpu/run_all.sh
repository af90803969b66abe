#!/usr/bin/env bash
# Every bench/gpu measurement in one pass, for one short device lease: writes CSVs to $1
# (default ./gpu-results), each with a header comment naming the GPU, driver, versions and date.
# GEMM table first (the longest, cut at its budget), then the memory probes, then the PyTorch
# grouped-GEMM and write-rate sweeps. Each step has its own timeout, so one hang costs only itself.
#   bash bench/gpu/run_all.sh "$OUT" [STEP...]   (no STEP: every one; steps as named below)
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: bash bench/gpu/run_all.sh [OUT_DIR] [STEP...]"
  echo "Runs bench/gpu's measurements on this machine's GPU, one CSV per step in OUT_DIR (default gpu-results)."
  echo "Steps:$(sed -n 's/^step \([a-z0-9_]*\) .*/ \1/p' "$here/run_all.sh" | tr -d '\n')"
  exit 0
fi
command -v nvidia-smi >/dev/null || { echo "run_all.sh: no nvidia-smi: this needs a machine with an NVIDIA GPU" >&2; exit 2; }
out=${1:-gpu-results}
shift $(( $# > 0 ? 1 : 0 ))
only=" $* "
for s in $only; do
  grep -q "^step $s " "$here/run_all.sh" || { echo "run_all.sh: no step '$s' (--help lists them)" >&2; exit 2; }
done
mkdir -p "$out"
repo=$(cd "$here/../.." && pwd)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z_' | sed 's/nvidia_//; s/_.*//')
stamp="$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv,noheader | head -1), nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), $(date -u +%F)"
echo "run_all.sh: $gpu: $stamp" >&2
export PYTHONUNBUFFERED=1 PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"

build=$(mktemp -d)
(for p in hbm_latency hbm_inflight l2_bandwidth; do
   [ "$only" = "  " ] || [[ "$only" == *" $p "* ]] || continue
   nvcc -O3 -arch=sm_90a -o "$build/$p" "$here/$p.cu" || echo "run_all.sh: $p did not build" >&2
 done) &
builder=$!

step() {  # step NAME TIMEOUT_S COMMAND...: stdout to $out/${gpu}_NAME.csv, stamped
  local name=$1 limit=$2; shift 2
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
  local t0=$SECONDS
  { echo "# $stamp"; timeout "$limit" "$@"; } >"$out/${gpu}_$name.csv"
  echo "run_all.sh: $name: exit $?, $((SECONDS - t0)) s" >&2
}

cd "$repo"
step gemm 200 python3 "$here/gemm_table.py" validation/kernels/h100/gemm.csv --budget-s 170
step gemm_repeat 200 python3 "$here/gemm_table.py" validation/kernels/h100/gemm.csv --budget-s 170  # the same again: the noise
step gemm_fp8 200 python3 "$here/gemm_table.py" validation/kernels/h100/gemm.csv --dtype fp8 --budget-s 170
# The shapes whose weights fit a fifth of the L2, rotated as the shared table's collector rotated
# them: against the `gemm` step's rows, the L2's resident reads (onchip.l2.latency_ns, resident_share).
step gemm_l2 120 python3 "$here/gemm_table.py" validation/kernels/h100/gemm.csv --rotation collector --max-weight-mib 12 --budget-s 100
wait $builder
step hbm_latency 30 "$build/hbm_latency"
step hbm_inflight 60 "$build/hbm_inflight"
step l2_bandwidth 30 "$build/l2_bandwidth"
step grouped_gemm_weights 60 python3 "$here/grouped_gemm.py" --weights-sweep
step grouped_gemm 45 python3 "$here/grouped_gemm.py"
step write_bound 60 python3 "$here/write_bound.py" --reps 10
step stream_sizes 90 python3 "$here/stream_sizes.py"
step write_resident 60 python3 "$here/write_bound.py" --reps 10 --copies 1 --max-bytes 134217728
step grouped_gemm_rows 120 python3 "$here/grouped_gemm.py" --rows-sweep --graph
step grouped_gemm_graph 60 python3 "$here/grouped_gemm.py" --graph
step clock_under_load 60 python3 "$here/clock_under_load.py" --seconds 3
# Triton fused-MoE expert GEMMs (bf16, block-scaled fp8, 4-bit weights) at the serving rows' prefill shapes
step fused_moe_triton 360 python3 "$here/fused_moe_triton.py" --budget-s 330
step attention_prefill 120 python3 "$here/attention_prefill.py"
