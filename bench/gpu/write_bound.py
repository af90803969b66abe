"""Write-bound kernels on a real GPU: how fast an output stream reaches HBM, and whether the
L2 absorbs outputs that fit it. Prints CSV rows (one header comment with the GPU, driver,
PyTorch and CUDA versions and the date, then `kind,m,n,k,out_bytes,median_us,out_tb_per_s`).

Why: in validation/kernels/h100/gemm.csv the GEMMs whose time is their output (K <= 256,
outputs of 64 MB or more) write at 2.2-2.6 TB/s with cuBLAS in bf16 and 1.0-1.5 TB/s with
DeepGEMM (fp8_block), where roofsim streams writes at about 2.9 TB/s, while short-K GEMMs whose
outputs fit the 50 MB L2 run faster than roofsim gives them (docs/calibration.md, the GEMM
fp8_block row). roofsim has no L2 server; this asks the silicon for the curve an L2 write-back
model would need: write rate against output size, for a plain fill, a copy and short-K GEMMs.

Each case runs as the public benchmark times its calls: several output buffers in rotation
(so that one call's output is not the next call's cache-resident target unless the buffers
fit the L2 together), the calls captured in one CUDA graph, the graph replayed and timed with
CUDA events, the median of `--reps` replays.

Run: python3 bench/gpu/write_bound.py [--reps 20] > bench/gpu/results/h100_write_bound.csv
"""
import argparse
import sys

import torch

from cuda_timing import device_description, graph_call_us, require_gpu

# Output sizes from well inside the 50 MB L2 to far beyond it (bytes of one output).
OUT_BYTES = [4 << 20, 8 << 20, 16 << 20, 32 << 20, 48 << 20, 64 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30]
SHORT_K = [64, 128, 256]
COPIES = 4  # buffers in rotation per case (--copies)


CALLS_PER_GRAPH = 8  # at least: a graph of one short kernel would time the graph's own launch


def graph_median_us(calls, reps):
    """Median time of one call: `calls` (one per buffer), repeated in turn to at least
    CALLS_PER_GRAPH, captured in a graph, replayed."""
    return graph_call_us(calls * -(-CALLS_PER_GRAPH // len(calls)), reps)


def row(kind, m, n, k, out_bytes, us):
    print(f"{kind},{m},{n},{k},{out_bytes},{us:.2f},{out_bytes / us / 1e6:.3f}", flush=True)


def fills(reps):
    for size in OUT_BYTES:
        outs = [torch.empty(size // 2, dtype=torch.bfloat16, device="cuda") for _ in range(COPIES)]
        row("fill", size // 2, 1, 0, size, graph_median_us([lambda o=o: o.fill_(1.0) for o in outs], reps))
        src = torch.ones(size // 2, dtype=torch.bfloat16, device="cuda")
        row("copy", size // 2, 1, 0, size, graph_median_us([lambda o=o: o.copy_(src) for o in outs], reps))
        del outs, src


def gemms(reps, fp8):
    for k in SHORT_K:
        for size in OUT_BYTES:
            n = 8192
            m = size // 2 // n  # bf16 output rows
            a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
            b = torch.randn(n, k, device="cuda").to(torch.bfloat16)
            outs = [torch.empty(m, n, dtype=torch.bfloat16, device="cuda") for _ in range(COPIES)]
            if fp8:
                a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
                one = torch.ones((), device="cuda")
                calls = [lambda o=o: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, out=o)
                         for o in outs]
                kind = "gemm_fp8"
            else:
                calls = [lambda o=o: torch.mm(a, b.t(), out=o) for o in outs]
                kind = "gemm_bf16"
            row(kind, m, n, k, size, graph_median_us(calls, reps))
            del a, b, outs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20, help="timed graph replays per case (default 20)")
    parser.add_argument("--copies", type=int, default=4,
                        help="output buffers in rotation (default 4; 1: one output written again and again, which "
                             "stays in the L2 when it fits: does the L2 take writes faster than HBM?)")
    parser.add_argument("--max-bytes", type=int, default=1 << 30, help="largest output (default 1 GiB)")
    args = parser.parse_args()
    if args.reps < 1:
        sys.exit("write_bound.py: --reps must be at least 1")
    if args.copies < 1:
        sys.exit("write_bound.py: --copies must be at least 1")
    global COPIES, OUT_BYTES
    COPIES = args.copies
    OUT_BYTES = [b for b in OUT_BYTES if b <= args.max_bytes]
    require_gpu("write_bound.py")
    print(f"# bench/gpu/write_bound.py on {device_description()}, median of {args.reps} graph replays, "
          f"{COPIES} output buffers in rotation, at least {CALLS_PER_GRAPH} calls per graph")
    print("kind,m,n,k,out_bytes,median_us,out_tb_per_s")
    fills(args.reps)
    gemms(args.reps, fp8=False)
    if hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability()[0] >= 9:
        gemms(args.reps, fp8=True)


if __name__ == "__main__":
    main()
