#!/usr/bin/env python3
"""Leave-groups-out check of one fitted serving parameter.

Runs `roofsim cases serving` once per value of a flag (a stack's fitted host cost, say
--sequence-overhead-us) over the rows of one backend, then for every group of rows (backend x
model x system x mode, or by model, or by system) picks the value that fits the *other* groups
best and reports the left-out group's error at that value beside its in-sample error (at the
value that fits all rows best). A parameter that only helps the group it was fitted on shows
up as a left-out error far above the in-sample one.

    python3 scripts/serving_group_out.py --flag sequence-overhead-us --values 0,10,15,20,30 \\
        --backend trtllm --metric tpot -j 2 validation/serving/h100_llama31_8b_trtllm.csv

Prints a table and, with --json FILE, writes it. Exit 2 on bad arguments.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_value(roofsim, files, flag, value, jobs, extra):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    try:
        cmd = [roofsim, "cases", "serving", *files, "-j", str(jobs), "--json", out, f"--{flag}", value, *extra]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)["cases"]
    finally:
        os.unlink(out)


def group_key(case, by):
    if by == "group":
        return case["group"]
    if by == "model":
        return case["model"]
    if by == "system":
        return case["system"]
    if by == "mode":
        return case["mode"]
    return case["backend"]


def mape(cases, metric):
    if not cases:
        return float("nan")
    return sum(abs(c[f"{metric}_error"]) for c in cases) / len(cases)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", help="serving-case CSVs")
    p.add_argument("--flag", required=True, help="a `cases serving` flag without its dashes (sequence-overhead-us, ...)")
    p.add_argument("--values", required=True, help="comma-separated values to try")
    p.add_argument("--backend", help="only rows of this backend (the stack whose parameter it is)")
    p.add_argument("--mode", choices=["agg", "disagg"], help="only rows of this mode (disaggregated rows' worker counts are often blank)")
    p.add_argument("--metric", choices=["ttft", "tpot", "requests_per_s"], default="tpot")
    p.add_argument("--by", choices=["group", "model", "system", "mode"], default="group")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--roofsim", default=os.path.join(ROOT, "build", "sim", "roofsim"))
    p.add_argument("--extra", default="", help="more `cases serving` arguments, space-separated")
    p.add_argument("--json", help="write the table to FILE")
    a = p.parse_args()
    values = [v for v in a.values.split(",") if v]
    if not values:
        p.error("--values: give at least one value")
    if not os.path.exists(a.roofsim):
        p.error(f"--roofsim {a.roofsim}: not built (bash scripts/build.sh)")
    extra = a.extra.split()
    runs = {}
    for v in values:
        print(f"--{a.flag} {v} ...", file=sys.stderr)
        cases = run_value(a.roofsim, a.files, a.flag, v, a.jobs, extra + (["--backend", a.backend] if a.backend else []))
        runs[v] = [c for c in cases if (not a.backend or c["backend"] == a.backend) and (not a.mode or c["mode"] == a.mode)]
    groups = sorted({group_key(c, a.by) for c in runs[values[0]]})
    if len(groups) < 2:
        p.error(f"only {len(groups)} group of rows: nothing to leave out")
    best_all = min(values, key=lambda v: mape(runs[v], a.metric))
    table = []
    for g in groups:
        inside = {v: [c for c in runs[v] if group_key(c, a.by) == g] for v in values}
        others = {v: [c for c in runs[v] if group_key(c, a.by) != g] for v in values}
        fit = min(values, key=lambda v: mape(others[v], a.metric))
        in_sample = mape(inside[best_all], a.metric)
        left_out = mape(inside[fit], a.metric)
        table.append({"group": g, "rows": len(inside[fit]), "value_all": best_all, "value_without": fit,
                      "in_sample": in_sample, "left_out": left_out,
                      "holds": left_out <= max(1.5 * in_sample, in_sample + 0.05)})
    print(f"--{a.flag}: best over all rows {best_all}; {a.metric} MAPE per {a.by}, in-sample (fitted on all rows) "
          f"and left out (fitted on the others)")
    for r in table:
        print(f"  {r['group']} ({r['rows']}): in-sample {100 * r['in_sample']:.1f}% at {r['value_all']}, "
              f"left out {100 * r['left_out']:.1f}% at {r['value_without']}{'' if r['holds'] else '  <- does not transfer'}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"flag": a.flag, "values": values, "metric": a.metric, "by": a.by, "best_all": best_all, "groups": table}, f, indent=2)


if __name__ == "__main__":
    main()
