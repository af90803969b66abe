#!/usr/bin/env bash
# `roofsim sweep FILE` killed with SIGKILL midway loses no finished point: a re-run runs only
# the missing points, and its results equal an uninterrupted run's. Usage: sweep_resume_test.sh ROOFSIM
# The sweep is long enough (about 5 s on two workers) for the kill to land midway on a loaded
# machine: at 64 generated tokens it once ended (1.8 s) before the poller saw three points.
set -euo pipefail
R=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/sweep.toml" <<'TOML'
[base]
model = "llama-3-8b"
prompt = 512
gen = 256
[grid]
batch = [1, 2, 4, 8, 16, 32]
"hbm.bandwidth_gb_per_s" = [2000, 2500, 3000, 3500, 4000, 5000, 6000, 8000]
TOML
stored() { "$R" sweep "$dir/sweep.toml" --store "$1" --plan | sed -n 's/^\([0-9]*\) points\{0,1\} stored.*/\1/p'; }

"$R" sweep "$dir/sweep.toml" --store "$dir/killed.db" -j 2 -q > "$dir/first.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  # The store may be half created while the sweep starts: a failed look is "none yet".
  n=$(stored "$dir/killed.db" 2>/dev/null || true)
  [ "${n:-0}" -ge 3 ] && break
  sleep 0.1
done
if ! kill -9 "$pid" 2>/dev/null; then
  echo "FAIL: the sweep ended before it was killed; its output:"; cat "$dir/first.log"; exit 1
fi
wait "$pid" 2>/dev/null || true
at_kill=$(stored "$dir/killed.db")
echo "killed with $at_kill of 48 points stored"
[ "$at_kill" -ge 3 ] || { echo "FAIL: fewer than 3 points stored before the kill"; exit 1; }
[ "$at_kill" -lt 48 ] || { echo "FAIL: the sweep finished before it was killed (make it longer)"; exit 1; }
sleep 0.5
if pgrep -f "$dir/sweep.toml" > /dev/null; then echo "FAIL: workers outlived the killed sweep"; exit 1; fi

out=$("$R" sweep "$dir/sweep.toml" --store "$dir/killed.db" -j 2 -q --export-csv "$dir/resumed.csv")
echo "$out"
echo "$out" | grep -q "^$at_kill points\{0,1\} already stored; ran $((48 - at_kill)) point" ||
  { echo "FAIL: the re-run did not run exactly the missing points"; exit 1; }
"$R" sweep "$dir/sweep.toml" --store "$dir/whole.db" -q --export-csv "$dir/whole.csv" > /dev/null
cmp "$dir/resumed.csv" "$dir/whole.csv" || { echo "FAIL: resumed results differ from an uninterrupted run"; exit 1; }
[ "$(wc -l < "$dir/whole.csv")" -eq 49 ] || { echo "FAIL: expected 48 points and a header"; exit 1; }

# Two sweeps writing one store at once share its points: each point simulated once, and each
# sweep returns with every point stored (it waits for the other's).
"$R" sweep "$dir/sweep.toml" --store "$dir/shared.db" -q --export-csv "$dir/shared_a.csv" > "$dir/a.log" 2>&1 &
a=$!
"$R" sweep "$dir/sweep.toml" --store "$dir/shared.db" -q -j 2 --export-csv "$dir/shared_b.csv" > "$dir/b.log" 2>&1 || { echo "FAIL: $(cat "$dir/b.log")"; exit 1; }
wait "$a" || { echo "FAIL: $(cat "$dir/a.log")"; exit 1; }
ran=$(( $(cat "$dir/a.log" "$dir/b.log" | sed -n 's/.*already stored; ran \([0-9]*\) point.*/\1/p' | paste -sd+) ))
cat "$dir/a.log" "$dir/b.log"
[ "$ran" -eq 48 ] || { echo "FAIL: two sweeps on one store ran $ran points, not 48"; exit 1; }
cmp "$dir/shared_a.csv" "$dir/whole.csv" && cmp "$dir/shared_b.csv" "$dir/whole.csv" || { echo "FAIL: a shared store exports otherwise"; exit 1; }

# A damaged record (a result no longer JSON) is not counted as stored: the next run computes
# that point again and the store is whole (byte-identical export) again.
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE points SET result = '{damaged' WHERE idx = 7\"); c.commit()" "$dir/whole.db"
out=$("$R" sweep "$dir/sweep.toml" --store "$dir/whole.db" -q --export-csv "$dir/repaired.csv")
echo "$out" | grep -q "^47 points already stored; ran 1 point" || { echo "FAIL: the damaged point was not run again: $out"; exit 1; }
cmp "$dir/repaired.csv" "$dir/whole.csv" || { echo "FAIL: the repaired store exports otherwise"; exit 1; }
# A record still JSON but changed (a digit flipped in its result) fails its digest: run again.
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE points SET result = replace(result, '1', '2') WHERE idx = 9\"); c.commit()" "$dir/whole.db"
out=$("$R" sweep "$dir/sweep.toml" --store "$dir/whole.db" -q --export-csv "$dir/repaired2.csv")
echo "$out" | grep -q "^47 points already stored; ran 1 point" || { echo "FAIL: the changed point was not run again: $out"; exit 1; }
cmp "$dir/repaired2.csv" "$dir/whole.csv" || { echo "FAIL: the store repaired from a changed record exports otherwise"; exit 1; }
# A store from before the digest (no such column) is read as it was, its records trusted.
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('ALTER TABLE points DROP COLUMN digest'); c.commit()" "$dir/whole.db"
out=$("$R" sweep "$dir/sweep.toml" --store "$dir/whole.db" -q --export-csv "$dir/old.csv")
echo "$out" | grep -q "^48 points already stored; ran 0 points" || { echo "FAIL: a store without digests: $out"; exit 1; }
cmp "$dir/old.csv" "$dir/whole.csv" || { echo "FAIL: a store without digests exports otherwise"; exit 1; }
# An SQLite file of something else is refused and left as it was.
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE people (name TEXT)'); c.commit()" "$dir/other.db"
if "$R" sweep "$dir/sweep.toml" --store "$dir/other.db" -q > "$dir/other.log" 2>&1; then echo "FAIL: another SQLite file taken as a store"; exit 1; fi
grep -q "not a roofsim sweep store (its tables: people)" "$dir/other.log" || { echo "FAIL: $(cat "$dir/other.log")"; exit 1; }
[ "$(python3 -c "import sqlite3, sys; print(len(sqlite3.connect(sys.argv[1]).execute('SELECT name FROM sqlite_master').fetchall()))" "$dir/other.db")" = 1 ] ||
  { echo "FAIL: tables added to another SQLite file"; exit 1; }
# A sweep and several `--plan` looks opening a new store at once all succeed (each used to hold
# a read lock and want to write; SQLite refused one "database is locked" about one start in 30).
printf '[base]\nmodel = "llama-3-8b"\nprompt = 64\ngen = 4\n[grid]\nbatch = [1, 2]\n' > "$dir/small.toml"
for round in $(seq 1 10); do
  pids=()
  for _ in 1 2 3 4 5 6; do "$R" sweep "$dir/small.toml" --store "$dir/race$round.db" --plan > /dev/null 2> "$dir/race.err" & pids+=($!); done
  "$R" sweep "$dir/small.toml" --store "$dir/race$round.db" -q > "$dir/race.log" 2>&1 || { echo "FAIL: round $round: $(cat "$dir/race.log")"; exit 1; }
  for p in "${pids[@]}"; do wait "$p" || { echo "FAIL: a --plan beside a starting sweep: $(cat "$dir/race.err")"; exit 1; }; done
done
echo "PASS"
