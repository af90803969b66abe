"""CUDA-event timing and the device's description, shared by the PyTorch benchmarks in bench/gpu/."""
import datetime
import statistics
import subprocess
import sys

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


def require_gpu(script):
    """Exits with a message naming `script` where there is no CUDA device."""
    if not torch.cuda.is_available():
        sys.exit(f"{script}: no CUDA device (this benchmark needs a GPU)")


def device_description():
    """'NAME (SMs, L2), driver, torch, CUDA, date': what a results file's header names."""
    props = torch.cuda.get_device_properties(0)
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, check=True).stdout.split("\n")[0].strip()
    except (OSError, subprocess.CalledProcessError):
        driver = "unknown"
    return (f"{props.name} ({props.multi_processor_count} SMs, {getattr(props, 'L2_cache_size', 0) >> 20} MiB L2), "
            f"driver {driver}, torch {torch.__version__}, CUDA {torch.version.cuda}, {datetime.date.today().isoformat()}")


def graph_call_us(calls, reps):
    """Median time of one call of `calls`, captured in order in one CUDA graph: each call run once
    first on a side stream (libraries pick and load their kernels there, outside the capture),
    the graph replayed twice, then `reps` replays timed with CUDA events."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for c in calls:
            c()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for c in calls:
            c()
    for _ in range(2):
        graph.replay()
    torch.cuda.synchronize()
    us = statistics.median(event_times_us(graph.replay, reps)) / len(calls)
    del graph
    return us
