#!/usr/bin/env bash
# Makes `import roofsim` work in the machine's python3 interpreters: writes a roofsim.pth that
# names build/python (where the module is built) into each interpreter's site-packages. Only
# interpreters whose extension suffix matches the built module get it (same CPython version).
set -euo pipefail
cd "$(dirname "$0")/.."
module_dir="$(pwd)/build/python"
module=$(ls "$module_dir"/roofsim*.so 2>/dev/null | head -1)
[ -n "$module" ] || { echo "install-python-path: no module in $module_dir (build first)" >&2; exit 1; }
seen=""
for py in /usr/bin/python3 "$(command -v python3 || true)"; do
  [ -n "$py" ] && [ -x "$py" ] || continue
  real=$(readlink -f "$("$py" -c 'import sys; print(sys.executable)')")
  case " $seen " in *" $real "*) continue ;; esac
  seen="$seen $real"
  suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  if [[ "$module" != *"$suffix" ]]; then
    echo "install-python-path: $py (${suffix}) cannot load $(basename "$module"); skipped" >&2
    continue
  fi
  # The first site-packages folder this user may write to, else the user's own.
  site=$("$py" - <<'PY'
import os, site
dirs = [d for d in site.getsitepackages() if os.access(d, os.W_OK) or (not os.path.exists(d) and os.access(os.path.dirname(d), os.W_OK))]
print(dirs[0] if dirs else site.getusersitepackages())
PY
)
  mkdir -p "$site"
  echo "$module_dir" > "$site/roofsim.pth"
done
