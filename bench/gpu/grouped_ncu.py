"""One grouped and one dense bf16 GEMM per shape, for Nsight Compute (ncu) to name their kernels
(CUTLASS tile shape, cluster, stages), launch shapes and achieved DRAM throughput.

Run: ncu --clock-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,launch__cluster_dim_x \
python3 bench/gpu/grouped_ncu.py
"""
import torch

SHAPES = [(64, 64, 2048, 1536), (64, 512, 2048, 1536), (64, 384, 512, 3072)]  # experts, rows, K, N


def main():
    for g, r, k, n in SHAPES:
        m = g * r
        offs = torch.arange(r, m + 1, r, device="cuda", dtype=torch.int32)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(g, n, k, device="cuda", dtype=torch.bfloat16)
        wd = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        for _ in range(2):  # the second call of each is the one to read
            torch._grouped_mm(a, w.transpose(-2, -1), offs=offs)
            torch.mm(a, wd.t())
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
