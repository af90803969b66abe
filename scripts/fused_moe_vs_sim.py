#!/usr/bin/env python3
"""The Triton fused-MoE expert GEMMs measured on an H200 (bench/gpu/fused_moe_triton.py,
bench/gpu/results/h200_fused_moe_triton.csv) against what roofsim simulates for the same
experts' GEMMs in a prefill of that many tokens on one GPU of that TP group, through the path
a serving run takes (`roofsim run`, the stack's grouped MoE kernel).

Each measured shape's best configuration is its figure (the stacks tune theirs per shape).
Rows: odd or even lines of the results (--rows odd|even|all), so a kernel parameter can be
fitted on one half and checked on the other. Prints one line per GEMM and the MAPE per format.

--set KEY=VALUE overrides a hardware key in the stack's own table (where the stack's values win).
Run from the repository's root.

Usage: scripts/fused_moe_vs_sim.py [--roofsim build/sim/roofsim] [--stack vllm] [--rows all]
                                   [--min-tokens 1024] [--set KEY=VALUE ...] [--csv FILE]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import tomllib

HUB = {"gpt-oss-120b": "openai/gpt-oss-120b", "Qwen3-235B-A22B": "Qwen/Qwen3-235B-A22B",
       "DeepSeek-V3": "deepseek-ai/DeepSeek-V3"}
# The formats as `roofsim run` takes them: weights (and block scaling) with bf16 activations.
FORMAT_FLAGS = {"bf16": ["--weights-dtype", "bf16"],
                "fp8b": ["--weights-dtype", "fp8", "--fp8-scaling", "block"],
                "w4a16": ["--weights-dtype", "int4"],
                "mxfp4": ["--weights-dtype", "mxfp4", "--activations-dtype", "bf16"]}


def best_rows(path, rows, min_tokens):
    lines = [l for l in open(path) if not l.startswith("#")]
    data = list(csv.DictReader(lines))
    best = {}
    for r in data:
        key = (r["model"], int(r["tp"]), r["gemm"], r["format"], int(r["tokens"]))
        if key not in best or float(r["median_us"]) < float(best[key]["median_us"]):
            best[key] = r
    keys = sorted(k for k in best if k[4] >= min_tokens)
    if rows != "all":
        keys = [k for i, k in enumerate(keys) if (i % 2 == 0) == (rows == "odd")]
    return {k: best[k] for k in keys}


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def hardware_file(base, folder):
    """A hardware file over `base` that holds a whole expert table on one GPU."""
    path = os.path.join(folder, "hw.toml")
    with open(path, "w") as f:
        f.write(f'base = "{base}"\n[hbm]\ncapacity_bytes = 1e13\n[provenance]\n'
                '"hbm.capacity_bytes" = "scripts/fused_moe_vs_sim.py: raised to hold one TP shard\'s experts"\n')
    return path


def stack_file(stack, settings, folder):
    """The stack's file with its [hardware] keys overridden by --set (a stack's keys win over
    the hardware file's, so that is where a trial value has to go)."""
    with open(os.path.join("configs", "stacks", stack + ".toml"), "rb") as f:
        doc = tomllib.load(f)
    hardware = doc.setdefault("hardware", {})
    provenance = doc.setdefault("provenance", {})
    for s in settings:
        key, value = s.split("=", 1)
        hardware[key] = float(value)
        provenance[key] = "scripts/fused_moe_vs_sim.py --set"
    path = os.path.join(folder, stack + ".toml")
    with open(path, "w") as f:
        for table, kv in doc.items():
            f.write(f"[{table}]\n" + "".join(f'"{k}" = {toml_value(v)}\n' for k, v in kv.items()))
    return path


def simulate(roofsim, hw, stack, model, tp, fmt, tokens):
    """Per-layer seconds of the prefill's experts.gate_up and experts.down."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [roofsim, "run", "--hw", hw, "--model", HUB[model], "--tp", str(tp), "--prompt", str(tokens),
               "--gen", "2", "--stack", stack, "--allow-long-context", "--json", out.name] + FORMAT_FLAGS[fmt]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        ops = json.load(open(out.name))["ops"]
    per_layer = {}
    for op in ops:
        if op["phase"] == "prefill" and op["name"] in ("experts.gate_up", "experts.down"):
            per_layer[op["name"].split(".")[1]] = op["sim_time_s"] / op["count"]
    return per_layer


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--roofsim", default="build/sim/roofsim")
    p.add_argument("--results", default="bench/gpu/results/h200_fused_moe_triton.csv")
    p.add_argument("--hw", default="h200_sxm")
    p.add_argument("--stack", default="vllm")
    p.add_argument("--rows", choices=("odd", "even", "all"), default="all")
    p.add_argument("--min-tokens", type=int, default=1024, help="prefill sizes only (default 1024 tokens and up)")
    p.add_argument("--set", action="append", default=[], help="a hardware key for the simulation, KEY=VALUE")
    p.add_argument("--csv", help="write the rows to FILE")
    args = p.parse_args()
    rows = best_rows(args.results, args.rows, args.min_tokens)
    cache, errors, out = {}, {}, []
    with tempfile.TemporaryDirectory() as folder:
        hw = hardware_file(args.hw, folder)
        stack = stack_file(args.stack, args.set, folder)
        for (model, tp, gemm, fmt, tokens), r in rows.items():
            key = (model, tp, fmt, tokens)
            if key not in cache:
                cache[key] = simulate(args.roofsim, hw, stack, model, tp, fmt, tokens)
            sim_us = cache[key][gemm] * 1e6
            meas_us = float(r["median_us"])
            err = sim_us / meas_us - 1
            errors.setdefault(fmt, []).append(err)
            out.append((model, tp, gemm, fmt, tokens, r["rows_per_expert"], meas_us, sim_us, err))
            print(f"{model:16s} tp{tp} {gemm:7s} {fmt:5s} {tokens:5d} tok ({float(r['rows_per_expert']):5.0f}/expert): "
                  f"measured {meas_us:8.1f} us, simulated {sim_us:8.1f} us ({err:+.1%})")
    allerr = [e for v in errors.values() for e in v]
    for fmt, v in sorted(errors.items()):
        print(f"{fmt}: {len(v)} GEMMs, MAPE {100 * sum(map(abs, v)) / len(v):.1f}%, median {100 * sorted(v)[len(v) // 2]:+.1f}%")
    print(f"all: {len(allerr)} GEMMs, MAPE {100 * sum(map(abs, allerr)) / len(allerr):.1f}%")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["model", "tp", "gemm", "format", "tokens", "rows_per_expert", "measured_us", "simulated_us", "error"])
            w.writerows(out)


if __name__ == "__main__":
    sys.exit(main())
