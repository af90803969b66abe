#!/usr/bin/env bash
# docs/schema.md against what the commands write: every top-level key of each command's --json
# is named (`key`) in that record's section of the document, so a key added without its meaning
# fails here. schema_version is described once, for every record.
# Usage: schema_doc_test.sh ROOFSIM DOCS/SCHEMA.MD [PYTHON]
set -euo pipefail
R=$1
doc=$2
python=${3:-python3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { local name=$1; shift; "$R" "$@" --json "$dir/$name.json" >/dev/null 2>&1 || { echo "FAIL: roofsim $* exited $?"; exit 1; }; }
run run run --gen 3
run serve serve --requests 8 --concurrency 4 --prompt 64 --output 4
run op op --gemm 64,64,64
run sweep roofline --sweep --points 6
run collective collective --hw tpu_v4 --topology 4x4 --op allreduce --bytes 1MiB
run whatif whatif --scale hbm.bandwidth=2 --gen 3
run explain explain --gen 3
run search search --gpus 1 --concurrency 1 --prompt 64 --output 4 --requests-per-client 1
run roofline roofline
run hw hw show h100_sxm5
"$python" - "$doc" "$dir" <<'PY'
import json, re, sys
doc, folder = open(sys.argv[1]).read(), sys.argv[2]
sections = {}
for part in re.split(r"\n## ", doc)[1:]:
    title, _, body = part.partition("\n")
    sections[title] = body
# record file -> the section title it starts with
records = {"run": "`run`", "serve": "`serve`", "op": "`op`", "sweep": "`sweep` (", "collective": "`collective`",
           "whatif": "`whatif` (", "explain": "`explain`", "search": "`search`", "roofline": "`hw show`", "hw": "`hw show`"}
bad = 0
for name, start in records.items():
    titles = [t for t in sections if t.startswith(start)]
    if len(titles) != 1:
        print(f"FAIL: docs/schema.md has {len(titles)} sections starting {start}")
        bad += 1
        continue
    body = sections[titles[0]]
    keys = json.load(open(f"{folder}/{name}.json")).keys()
    missing = [k for k in keys if k != "schema_version" and f"`{k}`" not in body]
    if missing:
        print(f"FAIL: docs/schema.md section {titles[0]} does not name {', '.join(missing)} (roofsim's {name} JSON has them)")
        bad += 1
print("schema doc:", len(records) - bad, "of", len(records), "records named in full")
sys.exit(1 if bad else 0)
PY
