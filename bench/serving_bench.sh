#!/usr/bin/env bash
# Serving speed: wall time against requests and against concurrency (Llama-3-8B on one H100,
# prompts ~1,000 and outputs ~500 tokens). Prints requests, concurrency, iterations, distinct
# shapes simulated, wall time and the part of it spent simulating passes. Measured, never
# asserted; compare ratios within one run. About 20 s in all.
set -euo pipefail
roofsim="${1:-build/sim/roofsim}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
point() {
  "$roofsim" serve --concurrency "$2" --requests "$1" --prompt normal:1000:200 --output normal:500:150 --json "$out" >/dev/null 2>&1
  python3 - "$out" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"requests {sys.argv[2]:>6}  concurrency {sys.argv[3]:>4}  iterations {d['iterations']:>7}  shapes {d['shapes_simulated']:>5}"
      f"  wall {d['wall_s']:8.2f} s  simulating passes {d['sim_wall_s']:8.2f} s")
PY
}
for n in 250 1000 4000 10000; do point "$n" 64; done
for c in 16 64 128; do point 1000 "$c"; done
