#!/usr/bin/env bash
# Two roofsim binaries (say, one built from main and one from a branch) on the same commands, in
# one run: old and new interleaved, 3 times each (the shared machine's noise falls on both), and
# per command the medians of process wall time, user CPU time and peak resident memory
# (/usr/bin/time). Usage: bench/compare_bench.sh OLD_ROOFSIM NEW_ROOFSIM
set -euo pipefail
old_bin="$1"
new_bin="$2"
# "wall user peak_kib" of one command.
measure() {
  local out
  out=$(mktemp)
  /usr/bin/time -f "%e %U %M" -o "$out" "$@" >/dev/null 2>&1
  cat "$out"
  rm -f "$out"
}
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
compare() {
  local label="$1"; shift
  local ow=() ou=() om=() nw=() nu=() nm=()
  for _ in 1 2 3; do
    read -r w u m < <(measure "$old_bin" "$@"); ow+=("$w"); ou+=("$u"); om+=("$m")
    read -r w u m < <(measure "$new_bin" "$@"); nw+=("$w"); nu+=("$u"); nm+=("$m")
  done
  printf '%-44s old %5.2f s wall %5.2f s user %6.1f MiB | new %5.2f s wall %5.2f s user %6.1f MiB\n' "$label" \
    "$(median "${ow[@]}")" "$(median "${ou[@]}")" "$(awk -v k="$(median "${om[@]}")" 'BEGIN { print k / 1024 }')" \
    "$(median "${nw[@]}")" "$(median "${nu[@]}")" "$(awk -v k="$(median "${nm[@]}")" 'BEGIN { print k / 1024 }')"
}
compare "llama-2-70b tp8 on 8 x h100, 2048+128" run --model llama-2-70b --tp 8 --prompt 2048 --gen 128
compare "default run (llama-3-8b, h100, 512+128)" run
compare "all-reduce 1 GiB on a 4096-chip TPU v4 pod" collective --hw tpu_v4 --topology 16x16x16 --op allreduce --bytes 1GiB
