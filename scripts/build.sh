#!/usr/bin/env bash
# Configures and builds roofsim (Release) in ./build, and makes `import roofsim` work in python3. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$(nproc)"
scripts/install-python-path.sh
