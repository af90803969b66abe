"""MoE expert GEMMs as a Triton fused-MoE kernel computes them, at the prefill shapes of the
shared serving rows' MoE models, beside the dense GEMM of the same FLOPs. Prints CSV rows.

The kernel is our own, written in the style vLLM's and SGLang's fused MoE kernels take on
Hopper when no CUTLASS path serves the format: the routed (token, expert) pairs sorted by
expert and padded to whole blocks of BLOCK_M rows, one program per block of rows and
BLOCK_N columns of one expert, the block's activation rows gathered through the sorted index,
tl.dot over K. Three weight formats:
  bf16   bf16 weights and activations;
  fp8b   fp8 (e4m3) weights in 128 x 128 scale blocks, activations in 1 x 128 scale groups
         (DeepSeek's and Qwen3-FP8's block scaling): each K block's dot is scaled before it is
         added to the accumulator, so the matrix unit's pipeline empties on every K step;
  w4a16  4-bit integers, two per byte, one bf16 scale per 32 weights of K, unpacked and scaled
         to bf16 in the main loop before the dot by our own code (naive: a decode-size call runs
         at a third of the weights' read rate, far below the stacks' 4-bit kernels);
  mxfp4  gpt-oss's e2m1 weights with an e8m0 scale per 32, through tl.dot_scaled, which on
         Hopper upcasts them to bf16 for the MMAs: the path triton_kernels' matmul_ogs takes,
         vLLM's gpt-oss MoE on Hopper.

Why: roofsim's serving cases simulate the prefill of every MoE model 2-3x faster than measured
on every stack (time to first token against prompt length, low concurrency: vLLM gpt-oss-120b
slope 2.4-2.7 with no intercept, SGLang Qwen3-235B-FP8 2.4, DeepSeek 1.4-1.7), while dense
models sit at 1.2-1.3, and its grouped GEMMs run at ~78% of the dtype's peak there. This asks
what a Triton fused MoE achieves at those shapes on a real Hopper chip. The kernel is ours,
not the stacks' (they tune BLOCK sizes per shape: each shape here takes its best of a few
configurations); the rates are what to compare.

Run: python3 bench/gpu/fused_moe_triton.py [--budget-s S] [--quick] [--formats bf16,fp8b,w4a16,mxfp4]
"""
import argparse
import statistics
import sys
import time

import torch
import triton
import triton.language as tl

from cuda_timing import device_description, event_times_us, require_gpu

MODES = ("bf16", "fp8b", "w4a16", "mxfp4")

# (model, tp, experts, top-k, hidden, expert intermediate): each expert TP-split over `tp` GPUs,
# as the shared rows deploy them (gpt-oss-120b TP 1-8, Qwen3-235B-A22B TP 2-8, DeepSeek-V3/R1 TP 8).
MODELS = [
    ("gpt-oss-120b", 1, 128, 4, 2880, 2880),
    ("gpt-oss-120b", 2, 128, 4, 2880, 2880),
    ("gpt-oss-120b", 4, 128, 4, 2880, 2880),
    ("gpt-oss-120b", 8, 128, 4, 2880, 2880),
    ("Qwen3-235B-A22B", 2, 128, 8, 4096, 1536),
    ("Qwen3-235B-A22B", 4, 128, 8, 4096, 1536),
    ("Qwen3-235B-A22B", 8, 128, 8, 4096, 1536),
    ("DeepSeek-V3", 8, 256, 8, 7168, 2048),
]
TOKENS = (64, 1024, 4096, 8192)

# (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages) tried per shape and format; the best is the figure.
# Blocks of 16 and 32 rows are what the stacks' tuned configurations take for few rows per expert.
CONFIGS = {
    "bf16": [(64, 128, 64, 4, 4), (128, 128, 64, 8, 3), (64, 64, 64, 4, 4), (128, 256, 64, 8, 3),
             (16, 64, 64, 4, 4), (32, 64, 64, 4, 4)],
    "fp8b": [(64, 128, 128, 4, 3), (128, 128, 128, 8, 3), (64, 64, 128, 4, 4), (16, 64, 128, 4, 3),
             (32, 128, 128, 4, 3)],
    "w4a16": [(64, 128, 64, 4, 3), (128, 128, 64, 8, 3), (64, 64, 128, 4, 3), (16, 64, 64, 4, 3)],
    "mxfp4": [(64, 128, 128, 4, 3), (128, 128, 128, 8, 3), (64, 64, 128, 4, 3), (16, 64, 128, 4, 3),
              (32, 128, 128, 4, 3)],
}
MODE_ID = {"bf16": 0, "fp8b": 1, "w4a16": 2, "mxfp4": 3}
# e2m1's eight magnitudes (the sign is the code's fourth bit).
E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


@triton.jit
def fused_moe_gemm(a_ptr, w_ptr, c_ptr, a_scale_ptr, w_scale_ptr, sorted_ids_ptr, block_expert_ptr,
                   padded_rows, routed_rows, topk, N, K,
                   stride_am, stride_we, stride_wn, stride_cm, stride_asm, stride_wse, stride_wsn,
                   MODE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C[sorted row] = A[token of that row] x W[expert of its block]^T, K a multiple of BLOCK_K.
    W is [experts, N, K] (bf16, fp8) or [experts, N, K / 2] bytes (w4a16)."""
    pid = tl.program_id(0)
    num_m = tl.cdiv(padded_rows, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    # Blocks of GROUP_M row blocks walk N together, so one expert's weight columns are read
    # from L2 by the row blocks that share them.
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_size = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_size
    pid_n = (pid % per_group) // group_size

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    ids = tl.load(sorted_ids_ptr + rows)
    valid = ids < routed_rows
    token = ids // topk
    expert = tl.load(block_expert_ptr + pid_m).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = cols < N
    ks = tl.arange(0, BLOCK_K)
    a_rows = a_ptr + token[:, None].to(tl.int64) * stride_am
    w_base = w_ptr + expert * stride_we + cols[None, :].to(tl.int64) * stride_wn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_rows + (k0 + ks)[None, :], mask=valid[:, None], other=0.0)
        if MODE == 3:
            # mxfp4 (gpt-oss's experts): e2m1 pairs in bytes along K, an e8m0 scale per 32
            # weights; tl.dot_scaled upcasts them to bf16 for the MMAs on Hopper, the path
            # triton_kernels' matmul_ogs (vLLM's gpt-oss MoE on Hopper) takes.
            half = k0 // 2 + tl.arange(0, BLOCK_K // 2)
            packed = tl.load(w_base + half[:, None], mask=col_ok[None, :], other=0)
            groups = k0 // 32 + tl.arange(0, BLOCK_K // 32)
            s = tl.load(w_scale_ptr + expert * stride_wse + cols[:, None] * stride_wsn + groups[None, :],
                        mask=col_ok[:, None], other=0)
            acc = tl.dot_scaled(a, None, "bf16", packed, s, "e2m1", acc)
        elif MODE == 2:
            half = k0 // 2 + tl.arange(0, BLOCK_K // 2)
            packed = tl.load(w_base + half[:, None], mask=col_ok[None, :], other=0).to(tl.int32)
            low = (packed & 15) - 8
            high = ((packed >> 4) & 15) - 8
            # byte i holds weights 2i (low nibble) and 2i + 1 (high): interleave along K
            w = tl.reshape(tl.permute(tl.join(low, high), (0, 2, 1)), (BLOCK_K, BLOCK_N)).to(tl.bfloat16)
            groups = k0 // 32 + tl.arange(0, BLOCK_K // 32)
            s = tl.load(w_scale_ptr + expert * stride_wse + cols[None, :] * stride_wsn + groups[:, None],
                        mask=col_ok[None, :], other=0.0)
            w = tl.reshape(tl.reshape(w, (BLOCK_K // 32, 32, BLOCK_N)) * s[:, None, :], (BLOCK_K, BLOCK_N))
            acc += tl.dot(a, w)
        else:
            w = tl.load(w_base + (k0 + ks)[:, None], mask=col_ok[None, :], other=0.0)
            if MODE == 1:
                a_s = tl.load(a_scale_ptr + token * stride_asm + k0 // 128, mask=valid, other=0.0)
                w_s = tl.load(w_scale_ptr + expert * stride_wse + (cols // 128) * stride_wsn + k0 // 128,
                              mask=col_ok, other=0.0)
                acc += tl.dot(a, w) * a_s[:, None] * w_s[None, :]
            else:
                acc += tl.dot(a, w)
    c = c_ptr + ids[:, None].to(tl.int64) * stride_cm + cols[None, :]
    tl.store(c, acc.to(tl.bfloat16), mask=valid[:, None] & col_ok[None, :])


def align_to_blocks(topk_ids, experts, block_m):
    """The routed rows sorted by expert, each expert's padded to whole blocks of block_m
    (padding rows hold the id tokens x topk, which the kernel skips), and each block's expert."""
    flat = topk_ids.flatten()
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=experts)
    padded = (counts + block_m - 1) // block_m * block_m
    starts = torch.cumsum(padded, 0) - padded
    count_starts = torch.cumsum(counts, 0) - counts
    by_expert = flat[order]
    rank = torch.arange(flat.numel(), device=flat.device) - count_starts[by_expert]
    total = int(padded.sum())
    sorted_ids = torch.full((total,), flat.numel(), dtype=torch.int32, device=flat.device)
    sorted_ids[starts[by_expert] + rank] = order.to(torch.int32)
    block_expert = torch.repeat_interleave(torch.arange(experts, device=flat.device), padded // block_m)
    return sorted_ids, block_expert.to(torch.int32), total


class Problem:
    """One expert GEMM: `tokens` tokens routed to `topk` of `experts` experts, [K] -> [N]."""

    def __init__(self, mode, tokens, experts, topk, k, n, seed=0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        dev = torch.device("cuda")
        self.mode, self.tokens, self.experts, self.topk, self.k, self.n = mode, tokens, experts, topk, k, n
        scores = torch.rand(tokens, experts, generator=g, device=dev)
        self.topk_ids = scores.topk(topk, dim=1).indices.to(torch.int64)
        a = torch.randn(tokens, k, generator=g, device=dev)
        self.a_scale = torch.ones(1, 1, device=dev)
        self.w_scale = torch.ones(1, 1, 1, device=dev)
        if mode == "bf16":
            self.a = a.to(torch.bfloat16)
            self.w = (torch.randn(experts, n, k, generator=g, device=dev) * 0.05).to(torch.bfloat16)
        elif mode == "fp8b":
            self.a = a.to(torch.float8_e4m3fn)
            self.a_scale = torch.rand(tokens, k // 128, generator=g, device=dev) + 0.5
            self.w = (torch.randn(experts, n, k, generator=g, device=dev) * 0.5).to(torch.float8_e4m3fn)
            self.w_scale = torch.rand(experts, (n + 127) // 128, k // 128, generator=g, device=dev) * 0.1 + 0.01
        elif mode == "mxfp4":
            self.a = a.to(torch.bfloat16)
            self.w = torch.randint(0, 256, (experts, n, k // 2), generator=g, device=dev, dtype=torch.uint8)
            self.w_scale = torch.randint(118, 127, (experts, n, k // 32), generator=g, device=dev, dtype=torch.uint8)
        else:
            self.a = a.to(torch.bfloat16)
            self.w = torch.randint(0, 256, (experts, n, k // 2), generator=g, device=dev, dtype=torch.uint8)
            self.w_scale = (torch.rand(experts, n, k // 32, generator=g, device=dev) * 0.02 + 0.001).to(torch.bfloat16)
        self.c = torch.empty(tokens * topk, n, device=dev, dtype=torch.bfloat16)
        self._aligned = {}

    def run(self, config):
        bm, bn, bk, warps, stages = config
        if bm not in self._aligned:
            self._aligned[bm] = align_to_blocks(self.topk_ids, self.experts, bm)
        sorted_ids, block_expert, total = self._aligned[bm]
        grid = (triton.cdiv(total, bm) * triton.cdiv(self.n, bn),)
        fused_moe_gemm[grid](
            self.a, self.w, self.c, self.a_scale, self.w_scale, sorted_ids, block_expert,
            total, self.tokens * self.topk, self.topk, self.n, self.k,
            self.a.stride(0), self.w.stride(0), self.w.stride(1), self.c.stride(0),
            self.a_scale.stride(0), self.w_scale.stride(0), self.w_scale.stride(1),
            MODE=MODE_ID[self.mode], BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
            num_warps=warps, num_stages=stages)

    def reference(self):
        """The same product in fp32 from the dequantized operands, expert by expert."""
        a = self.a.float()
        if self.mode == "fp8b":
            a = a * self.a_scale.repeat_interleave(128, dim=1)
        out = torch.empty(self.tokens * self.topk, self.n, device="cuda")
        flat = self.topk_ids.flatten()
        for e in range(self.experts):
            rows = (flat == e).nonzero().flatten()
            if rows.numel() == 0:
                continue
            out[rows] = a[rows // self.topk] @ self.dequantized_weights(e).t()
        return out

    def dequantized_weights(self, e):
        if self.mode == "bf16":
            return self.w[e].float()
        if self.mode == "fp8b":
            s = self.w_scale[e].repeat_interleave(128, dim=0)[: self.n].repeat_interleave(128, dim=1)
            return self.w[e].float() * s
        packed = self.w[e].to(torch.int32)
        if self.mode == "mxfp4":
            codes = torch.stack((packed & 15, (packed >> 4) & 15), dim=-1).reshape(self.n, self.k)
            lut = torch.tensor(E2M1, device="cuda")
            values = lut[codes & 7] * torch.where(codes >= 8, -1.0, 1.0)
            return values * torch.exp2(self.w_scale[e].float() - 127).repeat_interleave(32, dim=1)
        q = torch.stack(((packed & 15) - 8, ((packed >> 4) & 15) - 8), dim=-1).reshape(self.n, self.k)
        return q.float() * self.w_scale[e].float().repeat_interleave(32, dim=1)


def check_kernels(modes):
    """Each format and configuration against the fp32 reference on a small ragged problem."""
    ok = True
    for mode in modes:
        p = Problem(mode, tokens=100, experts=8, topk=2, k=256, n=200, seed=1)
        ref = p.reference()
        for config in CONFIGS[mode]:
            try:
                p.run(config)
                torch.cuda.synchronize()
            except Exception as e:  # a format this Triton cannot compile here
                print(f"# check {mode} {config}: did not run: {type(e).__name__}: {str(e)[:300]}", file=sys.stderr)
                ok = False
                continue
            err = ((p.c.float() - ref).norm() / ref.norm()).item()
            good = err < 2e-2
            ok &= good
            print(f"# check {mode} {config}: relative error {err:.2e} {'ok' if good else 'WRONG'}", file=sys.stderr)
    return ok


def median_us(fn, reps):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    return statistics.median(event_times_us(fn, reps))


def dense_us(mode, m, k, n):
    """The dense GEMM of the same rows (tokens x top-k), K and N: bf16 torch.mm, or fp8 with
    one scale per tensor through torch._scaled_mm; none for the 4-bit formats (no such dense
    kernel here)."""
    dev = torch.device("cuda")
    if mode in ("w4a16", "mxfp4"):
        return None
    a = torch.randn(m, k, device=dev)
    b = torch.randn(n, k, device=dev)
    if mode == "bf16":
        a, b = a.to(torch.bfloat16), b.to(torch.bfloat16)
        return median_us(lambda: torch.mm(a, b.t()), 10)
    a, b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    one = torch.ones((), device=dev)
    return median_us(lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16), 10)


def padded_k(mode, k):
    """K rounded up to whole K blocks: 128 for the fp8 scale blocks and mxfp4's dots, else 64 (vLLM pads
    gpt-oss's 2880 likewise for its 4-bit paths). The rates count the unpadded K."""
    block = 128 if mode in ("fp8b", "mxfp4") else 64
    return (k + block - 1) // block * block


def shapes(quick):
    """(model, tp, gemm, experts, top-k, K, N) of each expert GEMM."""
    out = []
    for model, tp, experts, topk, hidden, inter in MODELS:
        if quick and tp not in (2, 8):
            continue
        per_gpu = inter // tp
        for gemm, k, n in (("gate_up", hidden, 2 * per_gpu), ("down", per_gpu, hidden)):
            out.append((model, tp, gemm, experts, topk, k, n))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget-s", type=float, default=300, help="stop timing after this many seconds")
    parser.add_argument("--quick", action="store_true", help="TP 2 and 8 only")
    parser.add_argument("--formats", default=",".join(MODES), help="comma-separated, of " + ", ".join(MODES))
    args = parser.parse_args()
    modes = [m for m in args.formats.split(",") if m]
    for m in modes:
        if m not in MODES:
            parser.error(f"--formats: no format '{m}' (known: {', '.join(MODES)})")
    require_gpu("fused_moe_triton.py")
    start = time.time()
    print(f"# {device_description()}, triton {triton.__version__}")
    checked = check_kernels(modes)
    print(f"# kernels checked against the fp32 reference: {'all ok' if checked else 'SOME WRONG (rates below still printed)'}")
    print("model,tp,gemm,format,experts,topk,tokens,rows_per_expert,k,k_padded,n,block_m,block_n,block_k,"
          "warps,stages,median_us,tflops,dense_us,dense_tflops")
    for model, tp, gemm, experts, topk, k, n in shapes(args.quick):
        for tokens in TOKENS:
            for mode in modes:
                k_padded = padded_k(mode, k)
                if time.time() - start > args.budget_s:
                    print(f"# budget of {args.budget_s:.0f} s spent: stopped", file=sys.stderr)
                    return
                flops = 2.0 * tokens * topk * k * n
                try:
                    p = Problem(mode, tokens, experts, topk, k_padded, n)
                    dense = dense_us(mode, tokens * topk, k_padded, n)
                except RuntimeError as e:  # out of memory, a dtype this torch lacks
                    print(f"# {model} tp{tp} {gemm} {mode} {tokens}: {e}", file=sys.stderr)
                    continue
                for config in CONFIGS[mode]:
                    if k_padded % config[2]:
                        continue
                    try:
                        us = median_us(lambda: p.run(config), 10)
                    except Exception as e:  # a configuration the compiler refuses (shared memory)
                        print(f"# {model} tp{tp} {gemm} {mode} {config}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
                        continue
                    dense_cols = f"{dense:.2f},{flops / dense / 1e6:.1f}" if dense else ","
                    print(f"{model},{tp},{gemm},{mode},{experts},{topk},{tokens},{tokens * topk / experts:.1f},"
                          f"{k},{k_padded},{n},{','.join(map(str, config))},{us:.2f},{flops / us / 1e6:.1f},{dense_cols}",
                          flush=True)
                del p
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
