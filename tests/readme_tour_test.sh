#!/usr/bin/env bash
# The README's five-minute tour, command by command, as a newcomer runs it: every command between
# its `<!-- tour begin -->` and `<!-- tour end -->` marks exits 0 and prints what the README says
# to look for. `build/sim/roofsim` is the program under test, `python3` the interpreter the module
# was built for; charts go to a scratch folder. `roofsim ui` serves until stopped: it passes once
# it prints its address (on a free port, not the default one another run may hold).
# Usage: readme_tour_test.sh README ROOFSIM PYTHON
set -u
readme=$(realpath "$1") roofsim=$(realpath "$2") python="$3"
tmp=$(mktemp -d)
ui_pid=""
trap '[ -n "$ui_pid" ] && kill "$ui_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0 runs=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The tour's commands: the lines of its ```sh blocks.
commands=$(awk '/<!-- tour begin -->/ {on = 1} /<!-- tour end -->/ {on = 0}
                on && /^```sh/ {block = 1; next} on && /^```/ {block = 0; next}
                on && block && NF' "$readme")
[ -n "$commands" ] || { echo "FAIL: no tour commands in $readme"; exit 1; }

# What each step's output must show (the README's "what to look for").
declare -A expect=(
  [roofline]="ridge" [sweep]="ridge" [run]="the embedding table" [whatif]="hbm.bandwidth x2"
  [explain]="gap" [serve]="time to first token" [python3]="." [ui]="http://"
)

cd "$tmp" || exit 1
while IFS= read -r line; do
  runs=$((runs + 1))
  case "$line" in
    build/sim/roofsim\ ui*)
      # Serves until stopped: started, its address awaited, then stopped.
      "$roofsim" ui --port 0 >"$tmp/ui.out" 2>&1 &
      ui_pid=$!
      for _ in $(seq 1 100); do grep -q "http://" "$tmp/ui.out" && break; sleep 0.2; done
      grep -q "http://" "$tmp/ui.out" || bad "$line: printed no address: $(cat "$tmp/ui.out")"
      kill "$ui_pid" 2>/dev/null; wait "$ui_pid" 2>/dev/null; ui_pid=""
      continue ;;
    build/sim/roofsim\ *) cmd="$roofsim ${line#build/sim/roofsim }"; word=$(echo "${line#build/sim/roofsim }" | awk '{print $1}') ;;
    python3\ *) cmd="$python ${line#python3 }"; word=python3 ;;
    *) bad "a tour command that is neither roofsim nor python3: $line"; continue ;;
  esac
  eval "$cmd" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc -ne 0 ]; then
    bad "$line (exit $rc): $(tail -3 "$tmp/err")"
    continue
  fi
  want="${expect[$word]:-}"
  # A software what-if shows its variant's fused ops as new rows.
  [[ "$line" == *" --with "* ]] && want="new "
  [ -z "$want" ] && { bad "no expectation for a tour command '$word': add one to this test"; continue; }
  cat "$tmp/out" "$tmp/err" | grep -qF -- "$want" || bad "$line: its output lacks '$want'"
done <<<"$commands"

# The charts the tour writes are there and are PNG files.
for chart in roofline.png whatif.png serve.png; do
  head -c 4 "$tmp/$chart" 2>/dev/null | grep -q PNG || bad "the tour's $chart was not written"
done
echo "readme tour: $runs commands, $fails failed"
[ "$fails" -eq 0 ]
