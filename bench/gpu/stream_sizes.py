"""Memory-bound calls against their size on a real GPU: a row-wise sum (a read stream), a fill (a
write stream) and a copy, from 256 KiB to 4 GiB, each with its buffers in rotation (together
more than 3x the L2, so every call meets HBM) and, up to 32 MiB, one buffer called again and
again (so it stays in the L2). Prints CSV rows: `kind,buffers,bytes,median_us,gb_per_s`, where
bytes counts what the call reads and writes.

Why: roofsim's small memory-bound ops (decode's norms, activations, residual adds) get their
time from a launch floor, a DMA window over the HBM latency (Little's law) and the HBM rates; a
rate against size curve on silicon checks the ramp between the floor and the roof, and the
resident-buffer rows show what the L2 gives a call whose data it holds (roofsim: nothing for
reads; an op's writes up to hbm.write_back_bytes at the streaming rate).

Each case is timed as the kernel tables were: the calls captured in one CUDA graph, the graph
replayed and timed with CUDA events, the median of REPLAYS replays divided by the calls.

Run: python3 bench/gpu/stream_sizes.py > bench/gpu/results/<gpu>_stream_sizes.csv
"""

import torch

from cuda_timing import device_description, graph_call_us, require_gpu

SIZES = [1 << p for p in range(18, 33)]  # 256 KiB .. 4 GiB per buffer
ROTATION_BYTES = 3 << 28                 # 768 MiB of buffers in rotation: over 12x a 60 MiB L2
RESIDENT_MAX = 32 << 20
COLS = 4096                              # the sum's rows are 4096 bf16 values (8 KiB)
CALLS = 32
REPLAYS = 7


def cases(size, buffers):
    elems = size // 2
    bufs = [torch.empty(elems, dtype=torch.bfloat16, device="cuda").fill_(1.0) for _ in range(buffers)]
    src = [torch.ones(elems, dtype=torch.bfloat16, device="cuda") for _ in range(buffers)] if buffers > 1 else bufs
    rows = max(1, elems // COLS)
    yield "sum", size + rows * 2, [lambda b=b: b.view(rows, -1).sum(dim=1) for b in bufs]
    yield "fill", size, [lambda b=b: b.fill_(2.0) for b in bufs]
    # A copy from a buffer of its own (resident: the same one read and written is no copy).
    dst = [torch.empty_like(b) for b in src] if buffers == 1 else bufs
    yield "copy", 2 * size, [lambda d=d, s=s: d.copy_(s) for d, s in zip(dst, reversed(src))]


def main():
    require_gpu("stream_sizes.py")
    print(f"# bench/gpu/stream_sizes.py on {device_description()}: {CALLS} calls per CUDA graph, "
          f"median of {REPLAYS} replays; rotated buffers span at least {ROTATION_BYTES >> 20} MiB")
    print("kind,buffers,bytes,median_us,gb_per_s")
    for size in SIZES:
        layouts = [max(2, min(CALLS, -(-ROTATION_BYTES // size)))]
        if size <= RESIDENT_MAX:
            layouts.append(1)
        for buffers in layouts:
            for kind, moved, fns in cases(size, buffers):
                calls = [fns[i % len(fns)] for i in range(CALLS)]
                us = graph_call_us(calls, REPLAYS)
                print(f"{kind},{buffers},{moved},{us:.2f},{moved / us / 1e3:.1f}", flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
