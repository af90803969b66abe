#!/bin/bash
# docs/settings.md is what `roofsim settings --markdown` prints (regenerate it with that command
# when a setting changes); `settings --json` lists every setting with its flag, and each run
# setting of the table is a flag of `roofsim run` whose --help says its default.
set -u
roofsim=$1
doc=$2
python=${3:-python3}
fail=0
if ! diff -u "$doc" <("$roofsim" settings --markdown); then
  echo "FAIL: $doc is stale: run 'roofsim settings --markdown > docs/settings.md'"
  fail=1
fi
json=$("$roofsim" settings --json - 2>/dev/null) || { echo "FAIL: settings --json"; exit 1; }
help=$("$roofsim" run --help)
while IFS=$'\t' read -r flag default; do
  # "  --gen INT", or with its aliases' flags after it: "  --gen,--generate INT"
  line=$(grep -E -- "^ +$flag[ ,]" <<<"$help" | head -1)
  if [ -z "$line" ]; then
    echo "FAIL: run --help lacks $flag"
    fail=1
  fi
done < <("$python" -c '
import json, sys
d = json.load(sys.stdin)["domains"]["run"]["settings"]
assert len(d) >= 25, len(d)
for s in d:
    assert s["flag"].startswith("--") and s["help"] and s["default"], s
    print(s["flag"] + "\t" + s["default"])
' <<<"$json")
if "$roofsim" settings nope >/dev/null 2>&1; then
  echo "FAIL: settings nope accepted"
  fail=1
fi
[ $fail -eq 0 ] && echo "settings: docs current, every run setting a flag"
exit $fail
