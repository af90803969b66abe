#!/usr/bin/env bash
# A serving policy from a shared library: unknown without --plugin (refused naming the policies
# there are), loaded with it and run: planning the prompts first within the token budget gives
# new requests their first token sooner and the running ones their tokens later than decode_first
# (a budget of 2,056 tokens: a 2,048-token prompt fits only if it goes before 15 decodes). A
# stack file's [serving] priority takes the library's name as well.
# Usage: policy_plugin_test.sh ROOFSIM PLUGIN.so
set -euo pipefail
R=$1
P=$2
fail() { echo "FAIL: $*"; exit 1; }
load=(serve --concurrency 16 --prompt 2048 --output 64 --requests 64 --max-tokens 2056 --json -)
set +e
err=$("$R" "${load[@]}" --priority prompts_first_mixed 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" -eq 2 ] && echo "$err" | grep -q "prompts_first_mixed" && echo "$err" | grep -q "decode_first" ||
  fail "an unknown policy wants exit 2 naming the policies there are: $rc $err"
summary() { python3 -c 'import json, sys; s = json.load(sys.stdin)["summary"]; print(s["ttft_s"]["mean"], s["tpot_s"]["mean"])'; }
read -r base_ttft base_tpot < <("$R" "${load[@]}" --priority decode_first 2>/dev/null | summary)
read -r mixed_ttft mixed_tpot < <("$R" --plugin "$P" "${load[@]}" --priority prompts_first_mixed 2>/dev/null | summary)
echo "decode_first: TTFT $base_ttft s, TPOT $base_tpot s; prompts_first_mixed: TTFT $mixed_ttft s, TPOT $mixed_tpot s"
python3 -c 'import sys; bt, bp, mt, mp = map(float, sys.argv[1:]); sys.exit(0 if mt < bt and mp > bp else 1)' \
  "$base_ttft" "$base_tpot" "$mixed_ttft" "$mixed_tpot" || fail "prompts first wants a shorter TTFT and a longer TPOT"
"$R" --plugin "$P" settings serving --json - | python3 -c '
import json, sys
s = [x for x in json.load(sys.stdin)["domains"]["serving"]["settings"] if x["name"] == "priority"][0]
sys.exit(0 if "prompts_first_mixed" in s["choices"] else 1)' || fail "settings --json wants the library's policy among the choices"
# A stack file may name the library's policy too: refused at its line without the library, run with it.
stack=$(mktemp --suffix=.toml)
trap 'rm -f "$stack"' EXIT
sed 's/^priority = "decode_first"/priority = "prompts_first_mixed"/' "$(dirname "$0")/../configs/stacks/vllm.toml" > "$stack"
grep -q '^priority = "prompts_first_mixed"' "$stack" || fail "configs/stacks/vllm.toml no longer sets priority = \"decode_first\""
set +e
err=$("$R" serve --stack "$stack" --requests 8 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" -eq 2 ] && echo "$err" | grep -q "$stack:[0-9]*: serving.priority" && echo "$err" | grep -q "decode_first" ||
  fail "a stack file naming an unknown policy wants exit 2 at its line: $rc $err"
"$R" --plugin "$P" serve --stack "$stack" --requests 8 >/dev/null 2>&1 || fail "a stack file naming the library's policy wants to run with it"
echo PASS
