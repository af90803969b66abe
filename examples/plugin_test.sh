#!/usr/bin/env bash
# A memory model from a shared library: unknown without --plugin (refused with the file, line and
# the models there are), loaded with it (or ROOFSIM_PLUGINS) and run: a decode step reads its
# weights through the model's link hops, so it takes longer than on the HBM alone, and longer
# again with a longer hop (the model's own hardware key, hop_ns).
# Usage: plugin_test.sh ROOFSIM PLUGIN.so
set -euo pipefail
R=$1
P=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/cxl.toml" <<'TOML'
base = "h100_sxm5"
[chip]
description = "H100 SXM5 with its HBM behind a CXL link"
[memory]
model = "cxl_expander"
[provenance]
"memory.model" = "hypothetical: examples/memory_plugin/cxl_expander.cpp"
TOML
fail() { echo "FAIL: $*"; exit 1; }
# refused WHAT PATTERN COMMAND...: the command exits 2 and its error matches PATTERN (grep).
refused() {
  local what=$1 pattern=$2
  shift 2
  set +e
  local err
  err=$("$@" 2>&1 >/dev/null)
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] && echo "$err" | grep -q -- "$pattern" || fail "$what wants exit 2 and '$pattern': $rc $err"
}
refused "an unknown model" "cxl.toml:5: memory.model: unknown model 'cxl_expander' (expected one of hbm, l2_hit_rate)" \
  "$R" run --hw "$dir/cxl.toml" --gen 4
tpot() { sed -n 's/^time per output token *\([0-9.]*\) ms.*/\1/p'; }
base=$("$R" run --gen 4 | tpot)
cxl=$("$R" run --plugin "$P" --hw "$dir/cxl.toml" --gen 4 | tpot)
env=$(ROOFSIM_PLUGINS="$P" "$R" run --hw "$dir/cxl.toml" --gen 4 | tpot)
after=$("$R" run --hw "$dir/cxl.toml" --gen 4 --plugin="$P" | tpot)
echo "TPOT: HBM $base ms, behind CXL $cxl ms (ROOFSIM_PLUGINS: $env, --plugin after the subcommand: $after)"
python3 -c "import sys; b, c = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if c > b * 1.001 else 1)" "$base" "$cxl" ||
  fail "the link hops want a slower decode step"
[ "$env" = "$cxl" ] && [ "$after" = "$cxl" ] || fail "the same library by ROOFSIM_PLUGINS or after the subcommand wants the same result"
# The model's own parameter: a longer hop, a slower step; a key it does not declare, or a value
# outside its range, refused at the file's line; `hw keys` lists it with the library loaded.
sed 's/^model = "cxl_expander"$/model = "cxl_expander"\nhop_ns = 1000/' "$dir/cxl.toml" > "$dir/far.toml"
far=$("$R" run --plugin "$P" --hw "$dir/far.toml" --gen 4 | tpot)
echo "TPOT with hop_ns = 1000 (default 250): $far ms"
python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) > float(sys.argv[1]) * 1.001 else 1)" "$cxl" "$far" ||
  fail "a longer hop wants a slower decode step"
sed 's/^hop_ns = 1000$/hopns = 1000/' "$dir/far.toml" > "$dir/typo.toml"
refused "an undeclared key" "typo.toml:6: memory.hopns: not a key of model 'cxl_expander' (its keys: hop_ns)" \
  "$R" run --plugin "$P" --hw "$dir/typo.toml" --gen 4
sed 's/^hop_ns = 1000$/hop_ns = -1/' "$dir/far.toml" > "$dir/negative.toml"
refused "a value outside the declared range" "negative.toml:6: memory.hop_ns: -1 is outside 0 to 1e+06 ns" \
  "$R" run --plugin "$P" --hw "$dir/negative.toml" --gen 4
"$R" --plugin "$P" hw keys | grep -q '| `cxl_expander` | .* | `hop_ns` (ns, 250,' || fail "hw keys wants the library's model and key"
refused "a missing library" "plugin $dir/none.so: cannot be loaded" "$R" --plugin "$dir/none.so" run
refused "a missing library named by ROOFSIM_PLUGINS" "ROOFSIM_PLUGINS $dir/none.so: cannot be loaded" \
  env ROOFSIM_PLUGINS="$dir/none.so" "$R" run
echo PASS
