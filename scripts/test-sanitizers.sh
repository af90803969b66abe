#!/usr/bin/env bash
# The sanitizer configuration and the loader fuzzers (fuzz/README.md). Builds ./build-fuzz with
# clang, ASan and UBSan (float-cast-overflow included, every finding fatal) and libFuzzer
# (ROOFSIM_FUZZ=ON), runs the unit and systemc tests there, then fuzzes each loader from its
# seed corpus and its saved regressions. Fails on a test failure, a sanitizer report or a
# fuzzer finding (saved as build-fuzz/findings/TARGET/crash-*, ...).
#
#   scripts/test-sanitizers.sh              # build, unit + systemc tests, 30 s per fuzzer
#   FUZZ_SECONDS=600 scripts/test-sanitizers.sh fuzz   # the 10-minute run per loader
#   TEST_LABELS=unit FUZZ_SECONDS=20 scripts/test-sanitizers.sh   # what CI runs (scripts/README.md)
#
# Steps (arguments; default all three): build, tests, fuzz.
# Environment: FUZZ_SECONDS (per target, default 30), FUZZ_TARGETS (default every target,
# e.g. "fuzz_model fuzz_csv"), TEST_LABELS (the ctest labels, default "unit systemc"; only
# their test programs are built), JOBS (parallel compiles, tests and fuzzers; default nproc),
# BUILD_DIR (default build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${BUILD_DIR:-build-fuzz}
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-30}
labels=${TEST_LABELS:-unit systemc}
all_targets="fuzz_hardware fuzz_model fuzz_hf_config fuzz_experiment fuzz_csv fuzz_user_cases fuzz_kernel_tables fuzz_stack"
targets=${FUZZ_TARGETS:-$all_targets}
build_targets=(fuzzers)
for label in $labels; do
  case "$label" in
    unit) build_targets+=(roofsim_tests) ;;
    systemc) build_targets+=(roofsim_sc_tests) ;;
    *) echo "test-sanitizers: TEST_LABELS: unit and systemc only, not '$label'" >&2; exit 2 ;;
  esac
done
label_regex="^($(echo $labels | tr ' ' '|'))\$"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build tests fuzz)

command -v clang++ >/dev/null || { echo "test-sanitizers: clang++ not found (scripts/install-deps.sh --tests installs it)" >&2; exit 1; }

# Every sanitizer finding stops the process with a non-zero status. Leaks are findings too;
# fuzz/lsan.supp lists the ones that are not ours (and says why).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_init_order=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

for step in "${steps[@]}"; do
  case "$step" in
    build)
      t0=$(date +%s)
      # -O1 with line tables: readable stack traces at a fraction of a debug build's cost.
      # Warnings are not errors here: clang warns where the gcc build (-Werror) does not.
      cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DROOFSIM_FUZZ=ON -DROOFSIM_WERROR=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
      cmake --build "$build" -j "$jobs" --target "${build_targets[@]}"
      echo "test-sanitizers: build took $(elapsed "$t0")"
      ;;
    tests)
      t0=$(date +%s)
      # ASan holds freed memory back (its quarantine, 256 MB) to catch uses after free, which
      # the test of flat memory over a thousand simulations would read as growth: that test
      # runs apart, without the quarantine (leaks are still reported).
      flat='^a thousand simulations in one process keep memory flat$'
      (cd "$build" && ctest -L "$label_regex" -E "$flat" --output-on-failure -j "$jobs")
      case " $labels " in
        *" systemc "*) (cd "$build" && ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0" ctest -L "$label_regex" -R "$flat" --output-on-failure) ;;
      esac
      echo "test-sanitizers: tests ($labels) took $(elapsed "$t0")"
      ;;
    fuzz)
      t0=$(date +%s)
      run_target() {
        local t=$1 name=${1#fuzz_}
        local work="$build/fuzz-corpus/$name" findings="$build/findings/$name"
        mkdir -p "$work" "$findings"
        local dirs=("$work" "fuzz/corpus/$name")
        [ -d "fuzz/regressions/$name" ] && dirs+=("fuzz/regressions/$name")
        local dict=()
        [ -f "fuzz/dict/$name.dict" ] && dict=("-dict=fuzz/dict/$name.dict")
        # New inputs go to the first folder (kept between local runs); a finding stops the
        # target with a non-zero status and is written to $findings.
        if "$build/fuzz/$t" "${dirs[@]}" "${dict[@]}" -max_total_time="$fuzz_seconds" -timeout=20 -rss_limit_mb=2048 \
             -artifact_prefix="$findings/" -print_final_stats=1 >"$build/findings/$name.log" 2>&1; then
          echo "test-sanitizers: $t: $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$build/findings/$name.log" | grep -o '[0-9]*$') runs in ${fuzz_seconds} s, nothing found"
        else
          echo "test-sanitizers: $t FOUND A PROBLEM (log: $build/findings/$name.log):" >&2
          grep -E "ERROR|SUMMARY|Test unit written|runtime error|terminate called|what\(\)" "$build/findings/$name.log" | head -20 >&2
          return 1
        fi
      }
      failed=0
      running=0
      for t in $targets; do
        if [ "$running" -ge "$jobs" ]; then
          wait -n || failed=1
          running=$((running - 1))
        fi
        run_target "$t" &
        running=$((running + 1))
      done
      while [ "$running" -gt 0 ]; do
        wait -n || failed=1
        running=$((running - 1))
      done
      echo "test-sanitizers: fuzzing ($fuzz_seconds s per target, $jobs at a time) took $(elapsed "$t0")"
      [ "$failed" -eq 0 ] || { echo "test-sanitizers: fuzzers found problems ($build/findings/)" >&2; exit 1; }
      ;;
    *)
      echo "test-sanitizers: unknown step '$step' (build, tests, fuzz)" >&2
      exit 2
      ;;
  esac
done
