"""Causal prefill attention of one prompt through PyTorch's fused kernels, at the head layouts of
the shared serving rows' models (query and KV heads per GPU of each TP group), 1k-16k tokens.
Prints CSV rows: for `roofsim op --attention prefill,1,TOKENS,HEADS,KV_HEADS,HEAD_DIM
--attention-kernel fused`, the kernel vLLM and SGLang run (FlashAttention 3 / FlashInfer on
Hopper; cuDNN's fused attention is of that generation: warp-specialised, TMA-fed wgmma; PyTorch's
"flash" backend is FlashAttention 2, the generation before).

FLOPs counted as roofsim counts a causal prompt: 4 x heads x head_dim x tokens^2 / 2.

Run: python3 bench/gpu/attention_prefill.py
"""
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cuda_timing import device_description, event_times_us, require_gpu

# (model, tp, query heads, KV heads, head dim), heads per GPU.
LAYOUTS = [
    ("Llama-3.1-8B", 1, 32, 8, 128),
    ("Llama-3.1-70B", 2, 32, 4, 128),
    ("Llama-3.1-70B", 8, 8, 1, 128),
    ("Qwen3-32B", 2, 32, 4, 128),
    ("Qwen3-235B-A22B", 2, 32, 2, 128),
    ("Qwen3-235B-A22B", 8, 8, 1, 128),
    ("gpt-oss-120b", 1, 64, 8, 64),
    ("gpt-oss-120b", 4, 16, 2, 64),
]
TOKENS = (1024, 4096, 8192, 16384)
BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash2": SDPBackend.FLASH_ATTENTION}


def time_us(backend, q, k, v):
    def call():
        with sdpa_kernel(backend):
            F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    return statistics.median(event_times_us(call, 10))


def main():
    require_gpu("attention_prefill.py")
    print(f"# {device_description()}")
    print("model,tp,heads,kv_heads,head_dim,tokens,backend,median_us,tflops")
    dev = torch.device("cuda")
    for model, tp, heads, kv_heads, dim in LAYOUTS:
        for tokens in TOKENS:
            q = torch.randn(1, heads, tokens, dim, device=dev, dtype=torch.bfloat16)
            k = torch.randn(1, kv_heads, tokens, dim, device=dev, dtype=torch.bfloat16)
            v = torch.randn(1, kv_heads, tokens, dim, device=dev, dtype=torch.bfloat16)
            flops = 4.0 * heads * dim * tokens * tokens / 2
            for name, backend in BACKENDS.items():
                try:
                    us = time_us(backend, q, k, v)
                except RuntimeError as e:  # a backend that refuses the layout
                    print(f"# {model} tp{tp} {tokens} {name}: {str(e)[:160]}", file=sys.stderr)
                    continue
                print(f"{model},{tp},{heads},{kv_heads},{dim},{tokens},{name},{us:.2f},{flops / us / 1e6:.1f}", flush=True)


if __name__ == "__main__":
    main()
