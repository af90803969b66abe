#!/usr/bin/env bash
# First command of the README: install what is missing, build, run the default experiment.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
./build/sim/roofsim run
