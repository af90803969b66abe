#!/usr/bin/env bash
# A sweep sharded as a Slurm job array, end to end on a real (single-node) Slurm:
#   tests/slurm_test.sh ROOFSIM
# starts Slurm on localhost (scripts/local-slurm.sh; needs root and the packages of
# scripts/install-deps.sh --tests), submits a sweep of 8 points as a 4-task array with
# `roofsim sweep FILE --slurm DIR --submit --array-size 4`, waits for the merge job, checks that
# the 4 tasks and the merge completed, and that the merged results.csv equals, byte for byte,
# the CSV of the same sweep run in one process. A Slurm that does not start is a failure, not a
# skip. Slurm is stopped at the end if this test started it. docs/slurm.md says more.
#
# SLURM_TEST_TIMEOUT: seconds to wait for the jobs (default 600).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 ROOFSIM" >&2; exit 2; }
roofsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
local_slurm=$root/scripts/local-slurm.sh
timeout=${SLURM_TEST_TIMEOUT:-600}

work=$(mktemp -d /tmp/roofsim-slurm-test.XXXXXX)
jobs=$work/jobs
started_slurm=no

cleanup() {
  if [ "$started_slurm" = yes ]; then "$local_slurm" stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM  # cleanup runs on these too

# What a failure shows: the jobs Slurm knows, the jobs' logs, the end of Slurm's own logs.
fail() {
  echo "slurm_test: FAIL: $*" >&2
  if command -v squeue >/dev/null && [ -n "${SLURM_CONF:-}" ]; then
    echo "--- squeue --states=all" >&2
    timeout 20 squeue --states=all -r ${array_job:+-j "$array_job,$merge_job"} -o '%.12i %.24j %.12T %r' >&2 || true
  fi
  for f in "$jobs"/logs/*; do
    [ -f "$f" ] || continue
    echo "--- $f" >&2
    tail -n 20 "$f" >&2
  done
  eval "$("$local_slurm" env)"
  for f in "$(dirname "$SLURM_CONF")"/log/slurmctld.log "$(dirname "$SLURM_CONF")"/log/slurmd.log; do
    [ -f "$f" ] || continue
    echo "--- $f (end; slurmd's complaints about the PMIx library, which no job here uses, left out)" >&2
    grep -v -e pmix -e 'MPI: Cannot create context' "$f" | tail -n 15 >&2 || true
  done
  exit 1
}

# --- Slurm on localhost -----------------------------------------------------------------------
"$local_slurm" status >/dev/null 2>&1 || started_slurm=yes
"$local_slurm" start || fail "the local Slurm did not start (scripts/local-slurm.sh start); this test needs root and the packages that scripts/install-deps.sh --tests installs (slurm-wlm, munge)"
eval "$("$local_slurm" env)"  # SLURM_CONF: sbatch and squeue, here and in the jobs, talk to it

# --- the sweep: 8 points -----------------------------------------------------------------------
cat >"$work/sweep.toml" <<'EOF'
[base]
hw = "h100_sxm5"
model = "llama-3-8b"
prompt = 128
gen = 8
[grid]
batch = [1, 2, 4, 8]
"hbm.bandwidth_gb_per_s" = [3350, 6700]
EOF

# --- submitted as a 4-task array and a merge -----------------------------------------------------
"$roofsim" sweep "$work/sweep.toml" --slurm "$jobs" --submit --array-size 4 ||
  fail "roofsim sweep --slurm --submit exited $?"
[ -f "$jobs/jobs.txt" ] || fail "no $jobs/jobs.txt: the job ids of the submission"
array_job=$(sed -n 's/^array_job=//p' "$jobs/jobs.txt")
merge_job=$(sed -n 's/^merge_job=//p' "$jobs/jobs.txt")
[ -n "$array_job" ] && [ -n "$merge_job" ] || fail "$jobs/jobs.txt does not name both jobs: $(cat "$jobs/jobs.txt")"
echo "slurm_test: array job $array_job, merge job $merge_job"

# Finished jobs stay listed for 10 minutes (MinJobAge in the local slurm.conf); a merge whose
# array failed is cancelled (kill_invalid_depend) rather than left pending.
# (squeue waits for a controller that does not answer: 20 s at most here.)
state_of() { timeout 20 squeue -h --states=all -j "$1" -o '%T' 2>/dev/null | head -n1 || true; }
start=$SECONDS
known=$SECONDS  # when squeue last knew the merge job
while :; do
  merge_state=$(state_of "$merge_job")
  case $merge_state in
    PENDING | CONFIGURING | RUNNING | COMPLETING) known=$SECONDS ;;
    "") [ $((SECONDS - known)) -lt 60 ] || fail "squeue has not known the merge job $merge_job for 60 s (slurmctld down?)" ;;
    *) break ;;
  esac
  [ $((SECONDS - start)) -lt "$timeout" ] || fail "the merge job $merge_job is still ${merge_state:-unknown} after ${timeout} s"
  sleep 2
done
echo "slurm_test: merge job $merge_job $merge_state after $((SECONDS - start)) s"

# --- all 4 tasks and the merge completed -------------------------------------------------------
tasks=$(timeout 20 squeue -h --states=all -r -j "$array_job" -o '%i %T' | sort || true)
echo "$tasks" | sed 's/^/slurm_test: task /'
[ "$(echo "$tasks" | grep -c ' COMPLETED$')" -eq 4 ] || fail "not all 4 array tasks completed"
for i in 0 1 2 3; do
  echo "$tasks" | grep -q "^${array_job}_$i COMPLETED$" || fail "array task ${array_job}_$i did not complete"
done
[ "$merge_state" = COMPLETED ] || fail "the merge job $merge_job ended $merge_state"
[ -s "$jobs/results.csv" ] || fail "the merge job completed but wrote no $jobs/results.csv"

# --- the merged results equal an in-process run of the same sweep ------------------------------
"$roofsim" sweep "$work/sweep.toml" --store "$work/inproc.db" --export-csv "$work/inproc.csv" ||
  fail "the in-process sweep exited $?"
lines=$(wc -l <"$jobs/results.csv")
[ "$lines" -ge 9 ] || fail "results.csv has $lines lines, expected a header and the 8 points"
if ! cmp -s "$jobs/results.csv" "$work/inproc.csv"; then
  diff -u "$work/inproc.csv" "$jobs/results.csv" | head -n 40 >&2 || true
  fail "the merged results.csv differs from the in-process run's CSV (diff above: - in-process, + Slurm)"
fi
echo "slurm_test: the merged results.csv ($lines lines) equals the in-process run's"
