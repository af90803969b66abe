"""bf16 (or fp8) GEMMs of a measured kernel table, timed again on the GPU at hand, written in the same
format (validation/kernels/<gpu>/gemm.csv), so that `roofsim validate --kernels` can read it.

Why: the shared tables are H100 measurements. The h200_sxm preset says an H200 is an H100 with
HBM3e (4.8 TB/s, 141 GB); nothing measured on an H200 has tested that. Timing the H100 table's
own shapes on an H200 gives, shape for shape, the H200/H100 ratio the preset must reproduce:
about 1 where the tensor cores bind, up to 4.8/3.35 where the weights' stream binds.

How a call is timed, as the source table's README says its rows were: y = x W^T through
torch.nn.functional.linear (cuBLAS, what TensorRT-LLM's PyTorch flow calls for a bf16 linear),
several weight copies in rotation so the L2 does not hold the weights, the calls captured in a
CUDA graph, the graph replayed and timed with CUDA events; a row's latency is the median
replay's time divided by the calls in it, in milliseconds.

--dtype fp8 times the table's fp8 shapes as the scaled GEMM alone (torch._scaled_mm: cuBLASLt,
per-tensor scales, fast accumulation, operands already in e4m3), written as gemm_dtype
`fp8_gemm`: the table's own fp8 rows also quantize the activations, so the two together split
that family's time between the GEMM and the quantization.

--rotation collector rotates the weights as the shared table's collector did (aiconfigurator's
collect_gemm.py: max(1, min(5, ceil(L2 / W))) copies of a W-byte weight), so that weights under a
fifth of the L2 stay in it: run once each way and the rows give the L2's resident reads shape by
shape (docs/calibration.md, "The L2 holds the benchmark's working set"). Every row says how many
copies rotated (column weight_copies), which `roofsim validate --kernels` reads to decide whether
the call's operands were resident.

Run: python3 bench/gpu/gemm_table.py validation/kernels/h100/gemm.csv [--dtype fp8] [--rotation collector] [--budget-s 240] > gemm.csv
Shapes run in a fixed shuffled order, so a run cut short by --budget-s is an unbiased sample.
"""
import argparse
import csv
import random
import sys
import time

import torch

from cuda_timing import device_description, graph_call_us, require_gpu

ROTATION_BYTES = 256 << 20  # weights in rotation per graph: over 4x the 50-60 MiB L2
GRAPH_TARGET_MS = 2.0       # enough calls per graph that one replay is well above event resolution
MAX_CALLS = 200
REPLAYS = 7


def shapes_of(path, dtype):
    rows = [r for r in csv.DictReader(line for line in open(path) if not line.startswith("#"))
            if r["gemm_dtype"] == dtype]
    # The source's latency only sizes the graph (how many calls make GRAPH_TARGET_MS).
    return [(int(r["m"]), int(r["n"]), int(r["k"]), float(r["latency"])) for r in rows]


def weight_copies(weight_bytes, rotation):
    if rotation == "collector":
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        return max(1, min(5, -(-l2 // weight_bytes)))
    return max(1, min(16, ROTATION_BYTES // weight_bytes))


def time_shape(m, n, k, estimate_ms, fp8, rotation):
    weight_bytes = n * k * (1 if fp8 else 2)
    copies = weight_copies(weight_bytes, rotation)
    calls = max(copies, min(MAX_CALLS, int(GRAPH_TARGET_MS / max(estimate_ms, 1e-4))))
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
    if fp8:
        x = x.to(torch.float8_e4m3fn)
        ws = [w.to(torch.float8_e4m3fn) for w in ws]
        one = torch.ones((), device="cuda")

        def call(w):
            return torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True)
    else:
        def call(w):
            return torch.nn.functional.linear(x, w)
    # Every call runs once before the capture (cuBLAS picks and loads its kernel).
    us = graph_call_us([lambda w=ws[i % copies]: call(w) for i in range(calls)], REPLAYS)
    return us * 1e-3, copies


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", help="a gemm.csv whose bfloat16 shapes to time")
    parser.add_argument("--dtype", choices=["bf16", "fp8"], default="bf16", help="the table's bfloat16 rows (default), or its fp8 rows' scaled GEMM alone")
    parser.add_argument("--rotation", choices=["256mib", "collector"], default="256mib",
                        help="weights in rotation: over 256 MiB (default: never in the L2), or as the shared table's collector rotated them")
    parser.add_argument("--max-weight-mib", type=float, default=0,
                        help="only the shapes whose weight is at most this many MiB (default 0: all), e.g. 12 with --rotation collector")
    parser.add_argument("--budget-s", type=float, default=240, help="stop after this many seconds (default 240)")
    args = parser.parse_args()
    require_gpu("gemm_table.py")
    fp8 = args.dtype == "fp8"
    shapes = shapes_of(args.table, "fp8" if fp8 else "bfloat16")
    if args.max_weight_mib > 0:
        shapes = [s for s in shapes if s[1] * s[2] * (1 if fp8 else 2) <= args.max_weight_mib * (1 << 20)]
    random.Random(42).shuffle(shapes)
    print(f"# bench/gpu/gemm_table.py {args.table} on {device_description()}: "
          f"{'torch._scaled_mm (cuBLASLt, per-tensor scales, fast accumulation)' if fp8 else 'F.linear (cuBLAS)'} in a CUDA graph, "
          + (f"weights rotating over {ROTATION_BYTES >> 20} MiB" if args.rotation == "256mib"
             else "weights rotating as aiconfigurator's collector rotates them (max(1, min(5, ceil(L2 / W))) copies)")
          + f", median of {REPLAYS} replays")
    print("framework,version,op_name,kernel_source,gemm_dtype,m,n,k,latency,weight_copies")
    start = time.monotonic()
    done = 0
    for m, n, k, estimate_ms in shapes:
        if time.monotonic() - start > args.budget_s:
            break
        try:
            ms, copies = time_shape(m, n, k, estimate_ms, fp8, args.rotation)
        except RuntimeError as e:  # a shape this torch's kernels refuse: say so and go on
            print(f"# {m},{n},{k}: {str(e).splitlines()[0][:160]}", flush=True)
            continue
        kernel, dtype = ("torch_scaled_mm_cublaslt", "fp8_gemm") if fp8 else ("torch_linear_cublas", "bfloat16")
        print(f"torch,{torch.__version__},gemm,{kernel},{dtype},{m},{n},{k},{ms:.6g},{copies}", flush=True)
        done += 1
    print(f"gemm_table.py: {done} of {len(shapes)} shapes in {time.monotonic() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
