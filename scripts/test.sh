#!/usr/bin/env bash
# Second command of the README (and CI): install what is missing, build, run every test, then
# the sanitizer build's unit tests and a short fuzzing run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc)")
# The sanitizer build (clang, ASan + UBSan) with the unit tests, and every loader fuzzed for
# 20 s: what fits in CI's time. The full run (systemc tests too, 30 s per fuzzer) is
# `bash scripts/test-sanitizers.sh` (scripts/README.md).
TEST_LABELS=unit FUZZ_SECONDS=20 scripts/test-sanitizers.sh
