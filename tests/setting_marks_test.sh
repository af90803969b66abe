#!/usr/bin/env bash
# Every ${name} mark the library writes into an error names a real setting: the CLI renders it
# as --name-with-dashes (and settings files as the key name), so a mark that is no flag of any
# roofsim command points the user at a flag that does not exist. Comment lines are skipped;
# marks built at run time ("${" + key + "}") are not seen here.
set -u
roofsim="$1"
here="$(cd "$(dirname "$0")/.." && pwd)"
help=$(mktemp)
trap 'rm -f "$help"' EXIT
"$roofsim" --help-all >"$help" 2>&1 || { echo "FAIL: $roofsim --help-all"; exit 1; }
fails=0; marks=0
while IFS= read -r mark; do
  marks=$((marks + 1))
  flag="--${mark//_/-}"
  if ! grep -qE -- "${flag}([ ,=]|\$)" "$help"; then
    echo "FAIL: \${$mark} is written in $(grep -rlE --include=*.cpp --include=*.hpp "\\\$\\{$mark\\}" "$here"/{core,serving,experiment,workloads,components,sim,sweep} | sed "s|$here/||" | tr '\n' ' ')but no command has $flag"
    fails=$((fails + 1))
  fi
done < <(grep -rhE --include=*.cpp --include=*.hpp -v '^\s*//' "$here"/{core,serving,experiment,workloads,components,sim,sweep} |
         grep -oE '\$\{[a-z0-9_]+\}' | sed 's/^\${//; s/}$//' | sort -u)
[ "$marks" -gt 20 ] || { echo "FAIL: only $marks marks found: is the source tree at $here?"; exit 1; }
echo "$marks setting marks, $fails without a flag"
[ "$fails" -eq 0 ]
