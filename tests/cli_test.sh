#!/usr/bin/env bash
# The roofsim program end to end, as a user calls it: exit codes, messages, JSON keys.
set -u
roofsim="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_ok NAME CMD... : exits 0
expect_ok() { local name="$1"; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "$name (exit $?): $(cat "$tmp/err")"; fi; }
# expect_error NAME PATTERN CMD... : exits non-zero, stderr contains PATTERN
expect_error() {
  local name="$1" pattern="$2"; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 0 ]; then bad "$name: exited 0"; return; fi
  if grep -qF -- "$pattern" "$tmp/err"; then ok; else bad "$name: stderr lacks '$pattern': $(cat "$tmp/err")"; fi
}
contains() { if grep -qF -- "$2" "$tmp/out"; then ok; else bad "$1: output lacks '$2'"; fi; }

expect_ok "help" "$roofsim" --help
contains "help lists subcommands" "roofline"
for sub in hw roofline run; do expect_ok "$sub --help" "$roofsim" "$sub" --help; done

expect_ok "hw list" "$roofsim" hw list
for p in h100_sxm5 h200_sxm a100_sxm4_80gb tpu_v4; do contains "hw list $p" "$p"; done
expect_ok "hw show" "$roofsim" hw show tpu_v4
contains "hw show has sources" "SPEC-V4-FLOPS"

expect_ok "roofline json" "$roofsim" roofline --hw h100_sxm5 --json -
for k in '"hardware"' '"peak_flops"' '"bandwidth"' '"ridge"' '"bf16"'; do contains "roofline json $k" "$k"; done
expect_ok "roofline table" "$roofsim" roofline --hw tpu_v4
contains "tpu ridge" "229.4 FLOP/B"
expect_ok "gemm bound" "$roofsim" roofline --hw h100_sxm5 --gemm 1,4096,4096 --dtype bf16 --json "$tmp/g.json"
contains "gemm table" "memory"
if grep -q '"roof": "memory"' "$tmp/g.json" && grep -q '"intensity"' "$tmp/g.json"; then ok; else bad "gemm json file"; fi

expect_ok "default run" "$roofsim" run
contains "default run is llama-3-8b" "Llama-3-8B"

expect_error "unknown preset" "unknown hardware preset 'h999'" "$roofsim" roofline --hw h999
expect_error "missing file" "no such file" "$roofsim" roofline --hw /nonexistent.toml
expect_error "bad gemm" "expected M,N,K" "$roofsim" roofline --gemm 1,2
expect_error "zero gemm" "must be positive" "$roofsim" roofline --gemm 0,4096,4096
expect_error "bad dtype" "unknown dtype" "$roofsim" roofline --dtype bf17
expect_error "unknown flag" "--frobnicate" "$roofsim" roofline --frobnicate
expect_error "model too big" "does not fit" "$roofsim" run --model llama-2-70b
sed 's/^units = 132/units = -1/' "$(dirname "$0")/../configs/hardware/h100_sxm5.toml" > "$tmp/neg.toml"
expect_error "negative units" "neg.toml:14: matrix.units: expected a positive integer, got -1" "$roofsim" roofline --hw "$tmp/neg.toml"
printf '[chip\n' > "$tmp/syntax.toml"
expect_error "syntax error" "syntax.toml:1" "$roofsim" roofline --hw "$tmp/syntax.toml"

echo "cli: $passes passed, $fails failed"
[ $fails -eq 0 ]
