"""Grouped (MoE expert) GEMMs against the dense GEMM of the same FLOPs on a real GPU, in bf16
and fp8 (row-wise scales), through PyTorch's CUTLASS-backed torch._grouped_mm and
torch._scaled_grouped_mm. Prints CSV rows.

Why: roofsim simulates the large-batch MoE rows of validation/kernels/h100/moe.csv faster
than measured (bf16 -20..-25%, fp8 -30% at >= 1024 tokens). This asks whether a grouped GEMM
at a few hundred rows per expert runs slower than the dense GEMM of the same shape on the same
chip, and whether fp8 keeps its 2x over bf16 there. PyTorch's kernels are not TensorRT-LLM's;
the ratios are what to compare, not the absolute times.

Run: python3 bench/gpu/grouped_gemm.py [--groups-sweep | --weights-sweep | --rows-sweep] [--graph]
(--groups-sweep: one shape, 16384 x 2048 x 4096, split over 1 to 128 experts.
 --weights-sweep: 8 experts of 256 or 512 rows, K = 4096, each expert's weights from 4 MiB to
 256 MiB: whether the grouped GEMM's cost over the dense one jumps once one expert's weights
 outgrow the 50 MiB L2, i.e. whether its tiles re-read the weights once per 128-row block of
 tokens. roofsim's planner assumes the weights stream from HBM once, as a dense GEMM's
 swizzled raster achieves; moe.csv's rows at 128-1024 rows per expert run 20-40% slower
 than roofsim, and the residual grows with the layer's FLOPs.)
"""
import statistics
import sys

import torch

from cuda_timing import event_times_us, graph_call_us

# (local experts, rows per expert, K, N): FC1 (K = hidden, N = 2 x inter/TP) and FC2 shapes of
# large-batch rows of moe.csv where roofsim is fastest against the measurement.
SHAPES = [
    (8, 352, 2048, 2560),
    (8, 352, 1280, 2048),
    (32, 352, 2048, 640),
    (64, 384, 3072, 1024),
    (64, 384, 512, 3072),
    (128, 512, 4096, 768),
    (128, 512, 384, 4096),
    (4, 2048, 6144, 16384),
    (16, 1024, 4096, 4096),
]


def median_us(fn, reps=20):
    """One call at a time (the default), or with --graph 8 calls in a CUDA graph (no launch time
    between them, as the kernel tables were timed)."""
    if "--graph" in sys.argv:
        return graph_call_us([fn] * 8, reps)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    return statistics.median(event_times_us(fn, reps))


def groups_sweep():
    """The same FLOPs and tile count split over 1 to 128 experts: M = 16384 rows in all."""
    m, k, n = 16384, 4096, 2048
    return [(g, m // g, k, n) for g in (1, 2, 4, 8, 16, 32, 64, 128)]


def weights_sweep():
    """8 experts of 256 or 512 rows, K = 4096, N from 512 to 32768: 4 MiB to 256 MiB of bf16
    weights per expert (half that in fp8), across the 50 MiB L2."""
    return [(8, r, 4096, n) for r in (256, 512) for n in (512, 1024, 2048, 4096, 8192, 16384, 32768)]


def rows_sweep():
    """64 experts of 64 to 1024 rows each, four (K, N) pairs of MoE layers' gate/up and down
    GEMMs: how the grouped GEMM's cost over the dense one falls with rows per expert."""
    return [(64, r, k, n) for r in (64, 128, 256, 512, 1024) for k, n in ((2048, 1536), (768, 2048), (4096, 1024), (512, 4096))]


def main():
    dev = torch.device("cuda")
    if "--groups-sweep" in sys.argv:
        shapes = groups_sweep()
    elif "--weights-sweep" in sys.argv:
        shapes = weights_sweep()
    elif "--rows-sweep" in sys.argv:
        shapes = rows_sweep()
    else:
        shapes = SHAPES
    print(f"# device,{torch.cuda.get_device_name()},torch,{torch.__version__},cuda,{torch.version.cuda}")
    print("dtype,experts,rows_per_expert,k,n,kernel,median_us,tflops")
    for g, r, k, n in shapes:
        m = g * r
        flops = 2.0 * m * n * k
        offs = torch.arange(r, m + 1, r, device=dev, dtype=torch.int32)
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        w = torch.randn(g, n, k, device=dev, dtype=torch.bfloat16)  # experts' weights, N x K each
        wd = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        rows = []
        rows.append(("bf16", "dense_mm", lambda: torch.mm(a, wd.t())))
        rows.append(("bf16", "grouped_mm", lambda: torch._grouped_mm(a, w.transpose(-2, -1), offs=offs)))
        a8 = a.to(torch.float8_e4m3fn)
        w8 = w.to(torch.float8_e4m3fn)
        wd8 = wd.to(torch.float8_e4m3fn)
        sa = torch.ones(m, 1, device=dev, dtype=torch.float32)
        sb = torch.ones(1, n, device=dev, dtype=torch.float32)
        sag = torch.ones(m, device=dev, dtype=torch.float32)
        sbg = torch.ones(g, n, device=dev, dtype=torch.float32)
        rows.append(("fp8", "dense_scaled_mm", lambda: torch._scaled_mm(a8, wd8.t(), scale_a=sa, scale_b=sb,
                                                                       out_dtype=torch.bfloat16, use_fast_accum=True)))
        rows.append(("fp8", "scaled_grouped_mm", lambda: torch._scaled_grouped_mm(
            a8, w8.transpose(-2, -1), sag, sbg, offs=offs, out_dtype=torch.bfloat16, use_fast_accum=True)))
        for dtype, kernel, fn in rows:
            try:
                us = median_us(fn)
                print(f"{dtype},{g},{r},{k},{n},{kernel},{us:.2f},{flops / us / 1e6:.1f}")
            except Exception as e:  # an API this torch lacks: say so and go on
                print(f"{dtype},{g},{r},{k},{n},{kernel},error,{type(e).__name__}: {str(e)[:120]}")
            sys.stdout.flush()
        del a, w, wd, a8, w8, wd8


if __name__ == "__main__":
    main()
