"""CUDA-event timing shared by the PyTorch benchmarks in bench/gpu/."""
import torch


def event_times_us(fn, reps):
    """`reps` calls of `fn`, each timed alone with CUDA events: microseconds per call."""
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return times
