#!/usr/bin/env python3
"""What the simulated TTFT misses at low concurrency, per group and prompt length.

Reads the JSON of `roofsim cases serving ... --json FILE` and prints, for the aggregated rows of
at most --max-concurrency clients, the offset measured - simulated TTFT in milliseconds and in
units of the row's measured TPOT, by backend | model | system | prompt length. A constant offset
in milliseconds across prompt lengths points at a fixed cost per request (host, API server,
streaming); one that grows with the prompt at the prefill's speed; one that clusters at a whole
number of TPOTs at iterations the client waits for (a stream interval, a held slot).

    scripts/serving_ttft_offsets.py cases.json [--max-concurrency 16] [--mode agg]
"""
import argparse
import collections
import json
import statistics
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="the JSON `roofsim cases serving --json` wrote")
    ap.add_argument("--max-concurrency", type=int, default=16, help="rows of at most this many clients (default 16)")
    ap.add_argument("--mode", default="agg", choices=["agg", "disagg"], help="aggregated or disaggregated rows (default agg)")
    a = ap.parse_args()
    try:
        with open(a.json) as f:
            cases = json.load(f)["cases"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{a.json}: not the JSON of `roofsim cases serving --json` ({e})", file=sys.stderr)
        return 2
    groups = collections.defaultdict(list)
    for c in cases:
        if c["mode"] != a.mode or c["concurrency"] > a.max_concurrency:
            continue
        offset_s = c["ttft_s"] - c["sim_ttft_s"]
        key = (c["backend"], c["model"].split("/")[-1], c["system"], c["isl"])
        groups[key].append((offset_s * 1e3, offset_s / c["tpot_s"]))
    if not groups:
        print("no rows match", file=sys.stderr)
        return 1
    print(f"{'backend | model | system':58} {'isl':>6} {'rows':>4} {'offset ms':>10} {'in TPOTs':>9}  (median; range in TPOTs)")
    for key in sorted(groups):
        v = groups[key]
        ms = statistics.median(x[0] for x in v)
        tpots = sorted(x[1] for x in v)
        print(f"{' | '.join(map(str, key[:3])):58} {key[3]:>6} {len(v):>4} {ms:>10.0f} {statistics.median(tpots):>9.1f}  ({tpots[0]:.1f} .. {tpots[-1]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
