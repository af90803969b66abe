#!/usr/bin/env bash
# Installs the Debian 12 packages roofsim builds and runs with, if any are missing.
#   scripts/install-deps.sh           what building and running need (scripts/bootstrap.sh)
#   scripts/install-deps.sh --tests   that and what only the test suite needs: the sanitizer
#                                     toolchain, a local Slurm and a browser (scripts/test.sh)
set -euo pipefail
with_tests=0
case "${1:-}" in
  "") ;;
  --tests) with_tests=1 ;;
  *) echo "install-deps.sh: unknown argument '$1' (expected nothing or --tests)" >&2; exit 2 ;;
esac
packages=(cmake g++ make pkg-config
  libsystemc-dev libboost-graph-dev libtomlplusplus-dev catch2  # catch2: the build compiles the tests too
  libcli11-dev nlohmann-json3-dev gnuplot-nox graphviz libsqlite3-dev
  python3 python3-dev pybind11-dev python3-pybind11
  nodejs)  # roofsim ui: npm installs its chart libraries
if [ "$with_tests" -eq 1 ]; then
  packages+=(python3-pytest
    clang libclang-rt-14-dev llvm  # scripts/test-sanitizers.sh: clang, libFuzzer, sanitizer runtimes, llvm-symbolizer
    slurm-wlm munge  # tests/slurm_test.sh: a single-node Slurm (scripts/local-slurm.sh)
    chromium)  # tests/ui/ui_test.mjs drives it
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  # munge and slurm-wlm ask invoke-rc.d to start their daemons when installed. Without systemd
  # (a container) no daemon may start here: scripts/local-slurm.sh starts them, with its own
  # configuration. Where no policy-rc.d says so already, one refuses for this install only.
  if [ ! -d /run/systemd/system ] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod +x /usr/sbin/policy-rc.d
    trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm: Debian's package, unless the nodejs installed brings its own (NodeSource's does).
if ! command -v npm >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm >/dev/null
fi

# roofsim ui's JavaScript (Vega-Lite charts, playwright-core for the browser test), pinned by
# ui/package-lock.json; skipped when ui/node_modules was installed from this very lockfile.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lock_sum="$(sha256sum "$root/ui/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$root/ui/node_modules/.roofsim-lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
  echo "installing ui/node_modules (npm ci)"
  npm ci --prefix "$root/ui" --no-audit --no-fund --loglevel=error >/dev/null
  echo "$lock_sum" > "$root/ui/node_modules/.roofsim-lock-sha256"
fi
