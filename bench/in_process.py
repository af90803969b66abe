#!/usr/bin/env python3
"""Many simulations in one process against a process per simulation.

200 single-GEMM points through the Python module (one process, a fresh SystemC kernel each)
against 200 `roofsim op` processes; then 1,000 sequential runs in one process and the resident
set after 100 and after 1,000 of them. Measured, never asserted: compare the ratio, which both
sides of one run share the machine's noise for.

usage: bench/in_process.py [build/sim/roofsim]   (build/python must be importable)
"""
import subprocess
import sys
import time

import roofsim

ROOFSIM = sys.argv[1] if len(sys.argv) > 1 else "build/sim/roofsim"
SHAPES = [(m, 4096, 4096) for m in range(1, 201)]


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


start = time.perf_counter()
in_process = [roofsim.op(gemm=s)["sim_time_s"] for s in SHAPES]
one_process_s = time.perf_counter() - start

start = time.perf_counter()
for m, n, k in SHAPES:
    subprocess.run([ROOFSIM, "op", "--gemm", f"{m},{n},{k}"], check=True, stdout=subprocess.DEVNULL)
processes_s = time.perf_counter() - start

print(f"200 GEMM points in one process   {one_process_s:7.3f} s  ({1e3 * one_process_s / 200:.2f} ms a point)")
print(f"200 `roofsim op` processes       {processes_s:7.3f} s  ({1e3 * processes_s / 200:.2f} ms a point)")
print(f"speed-up of one process          {processes_s / one_process_s:7.1f}x")

for _ in range(100):
    roofsim.op(gemm=(64, 4096, 4096))
after_100 = rss_kib()
start = time.perf_counter()
for _ in range(900):
    roofsim.op(gemm=(64, 4096, 4096))
elapsed = time.perf_counter() - start
after_1000 = rss_kib()
print(f"resident set after 100 runs {after_100} KiB, after 1000 {after_1000} KiB "
      f"({after_1000 - after_100:+d} KiB; 900 runs in {elapsed:.2f} s)")
