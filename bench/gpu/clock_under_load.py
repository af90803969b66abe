"""The SM clock and board power a GEMM runs at when it runs back to back, read with NVML while a
CUDA graph of it replays for a few seconds. Prints CSV rows:
`case,experts,rows,k,n,us_per_call,tflops,dram_gb_per_s,sm_mhz_median,power_w_median`.

Why: Nsight Compute times a kernel alone at boost clock; the same grouped GEMM back to back in
a graph took 1.25x as long, the dense GEMM of the same FLOPs 1.07x (docs/calibration.md, "The
grouped kernels, named"). roofsim runs every kernel at one sustained clock (1410 MHz on the
H100, fitted to long dense GEMMs). This asks whether the clock under load depends on the
kernel's DRAM traffic (the grouped GEMM moves 3.7x the bytes of the dense one).

Run: python3 bench/gpu/clock_under_load.py [--seconds 3]
"""
import argparse
import statistics
import threading
import time

import pynvml
import torch

from cuda_timing import device_description, require_gpu

SHAPES = [(64, 512, 2048, 1536), (64, 64, 2048, 1536), (16, 1024, 4096, 4096), (1, 8192, 8192, 8192)]  # experts, rows per expert, K, N
# Each shape as a grouped GEMM over its experts, then as the dense GEMM of the same rows (one weight matrix).
CASES = [(e, r, k, n, grouped) for e, r, k, n in SHAPES for grouped in (True, False)]


def sample(handle, stop, out):
    while not stop.is_set():
        out.append((pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                    pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0))
        time.sleep(0.02)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="replay time per case (default 3)")
    args = parser.parse_args()
    require_gpu("clock_under_load.py")
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    print(f"# bench/gpu/clock_under_load.py on {device_description()}: a CUDA graph of 8 calls replayed "
          f"for {args.seconds} s per case, NVML sampled every 20 ms (first 0.5 s dropped)")
    print("case,experts,rows,k,n,us_per_call,tflops,dram_gb_per_s,sm_mhz_median,power_w_median")
    for experts, rows, k, n, grouped in CASES:
        m = experts * rows
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        if grouped:
            w = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16)
            offs = torch.arange(rows, m + 1, rows, device="cuda", dtype=torch.int32)
            def call():
                return torch._grouped_mm(a, w.transpose(-2, -1), offs=offs)
            weight_bytes = experts * n * k * 2
        else:
            w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            def call():
                return torch.mm(a, w.t())
            weight_bytes = n * k * 2
        call()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(8):
                call()
        graph.replay()
        torch.cuda.synchronize()
        samples, stop = [], threading.Event()
        t = threading.Thread(target=sample, args=(handle, stop, samples))
        start = time.monotonic()
        t.start()
        replays = 0
        while time.monotonic() - start < args.seconds:
            graph.replay()
            replays += 1
            if replays % 20 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        elapsed = time.monotonic() - start
        stop.set()
        t.join()
        steady = samples[len(samples) // 6:] or samples
        us = elapsed / (replays * 8) * 1e6
        flops = 2.0 * m * n * k
        dram = (weight_bytes + m * k * 2 + m * n * 2) / us / 1e3
        print(f"{'grouped' if grouped else 'dense'},{experts},{rows},{k},{n},{us:.1f},{flops / us / 1e6:.1f},{dram:.0f},"
              f"{statistics.median(s[0] for s in steady):.0f},{statistics.median(s[1] for s in steady):.0f}", flush=True)


if __name__ == "__main__":
    main()
