#!/usr/bin/env python3
"""Writes the example serving traces in configs/traces/ (Python 3 standard library only).

    python3 scripts/make_traces.py [OUTPUT_DIR]     # default: configs/traces next to this script

The traces are SYNTHETIC: every length below is drawn from a distribution whose parameters are
our own choice, picked to give a shape typical of the workload named (long prompts and very short
outputs for code completion, and so on). They are not fitted to any dataset. The only published
numbers used are two arrival rates, taken from the Azure LLM inference trace 2023 (the sample
released with Patel et al., "Splitwise: Efficient generative LLM inference using phase splitting",
ISCA 2024; github.com/Azure/AzurePublicDataset, AzureLLMInferenceDataset2023.md): its
conversation trace holds 19,366 requests between 18:15:46.7 and 19:14:08.4 (about 5.5 requests/s)
and its code trace 8,819 requests between 18:17:04.0 and 19:14:19.9 (about 2.6 requests/s), as the
dataset's own notebook (analysis/AzureLLMInferenceDataset2023.ipynb) prints them.

The generator is roofsim's own (serving/workload.cpp), re-implemented here: std::mt19937_64 for
bits, a uniform double from the top 53 bits, exponential gaps by inverse CDF, normals by
Box-Muller (cosine branch), lognormal lengths with the given mean and standard deviation of the
lengths themselves, rounding half away from zero and clamping. Prompts use the seed, outputs the
seed ^ 0x9E3779B97F4A7C15, arrivals the seed ^ 0xD1B54A32D192ED03. So chat.csv and code.csv are
exactly what roofsim generates for the same settings (tests/test_serving_workload.cpp checks that),
and the output is the same on every machine with an IEEE-754 libm.
"""
import math
import os
import sys

M64 = (1 << 64) - 1
OUTPUT_STREAM = 0x9E3779B97F4A7C15
ARRIVAL_STREAM = 0xD1B54A32D192ED03
PREFIX_STREAM = 0x94D049BB133111EB  # shared_prefix.csv only: which system prompt a request uses


class MT19937_64:
    """std::mt19937_64 (its output sequence is fixed by the C++ standard)."""

    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed & M64
        for i in range(1, 312):
            prev = self.mt[i - 1]
            self.mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & M64
        self.i = 312

    def __call__(self):
        if self.i >= 312:
            mt = self.mt
            for k in range(312):
                y = (mt[k] & 0xFFFFFFFF80000000) | (mt[(k + 1) % 312] & 0x7FFFFFFF)
                v = mt[(k + 156) % 312] ^ (y >> 1)
                if y & 1:
                    v ^= 0xB5026F5AA96619E9
                mt[k] = v
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & M64


def uniform01(g):
    return (g() >> 11) * 2.0**-53


def standard_normal(g):
    u1 = 1.0 - uniform01(g)
    u2 = uniform01(g)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def round_clamp(x, lo, hi):
    r = math.floor(x)
    if x - r >= 0.5:  # half away from zero, as std::round (x > 0 here)
        r += 1
    return max(lo, min(hi, r))


def lognormal(g, mean, sd, lo, hi):
    sigma2 = math.log1p((sd / mean) ** 2)
    mu = math.log(mean) - sigma2 / 2
    return round_clamp(math.exp(mu + math.sqrt(sigma2) * standard_normal(g)), lo, hi)


def poisson_arrivals(seed, rate, n):
    g = MT19937_64(seed ^ ARRIVAL_STREAM)
    t, out = 0.0, []
    for _ in range(n):
        t += -math.log(1.0 - uniform01(g)) / rate
        out.append(t)
    return out


# (name, seed, rate per s, prompt (mean, sd, min, max), output (mean, sd, min, max), description)
SIMPLE = [
    ("chat.csv", 1, 5.5, (1000, 1000, 16, 8192), (250, 250, 1, 2048),
     "conversation-like: lognormal prompts mean 1000 sd 1000 [16, 8192], outputs mean 250 sd 250 [1, 2048]"),
    ("code.csv", 2, 2.6, (2000, 1500, 16, 8192), (20, 20, 1, 512),
     "code-completion-like: long prompts (lognormal mean 2000 sd 1500 [16, 8192]), short outputs "
     "(mean 20 sd 20 [1, 512])"),
]
REQUESTS = 1000


def simple_trace(seed, rate, prompt, output):
    gp, go = MT19937_64(seed), MT19937_64(seed ^ OUTPUT_STREAM)
    rows = []
    for t in poisson_arrivals(seed, rate, REQUESTS):
        rows.append((t, lognormal(gp, *prompt), lognormal(go, *output)))
    return rows


# shared_prefix.csv: four system prompts (prefix ids 0-3) of these lengths, each request picks one
# uniformly and adds its own user turn.
PREFIX_SEED, PREFIX_RATE = 3, 4.0
SYSTEM_PROMPTS = [256, 512, 1024, 2048]
USER_TURN = (200, 150, 1, 4096)
PREFIX_OUTPUT = (200, 150, 1, 1024)


def prefix_trace():
    gp, go = MT19937_64(PREFIX_SEED), MT19937_64(PREFIX_SEED ^ OUTPUT_STREAM)
    gs = MT19937_64(PREFIX_SEED ^ PREFIX_STREAM)
    rows = []
    for t in poisson_arrivals(PREFIX_SEED, PREFIX_RATE, REQUESTS):
        pid = min(int(uniform01(gs) * len(SYSTEM_PROMPTS)), len(SYSTEM_PROMPTS) - 1)
        prefix = SYSTEM_PROMPTS[pid]
        rows.append((t, prefix + lognormal(gp, *USER_TURN), lognormal(go, *PREFIX_OUTPUT), pid, prefix))
    return rows


def write(path, header, rows):
    with open(path, "w", newline="\n") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join([repr(r[0])] + [str(v) for v in r[1:]]) + "\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "configs", "traces")
    os.makedirs(out, exist_ok=True)
    for name, seed, rate, prompt, output, _ in SIMPLE:
        write(os.path.join(out, name), ["arrival_s", "prompt_tokens", "output_tokens"],
              simple_trace(seed, rate, prompt, output))
    write(os.path.join(out, "shared_prefix.csv"),
          ["arrival_s", "prompt_tokens", "output_tokens", "prefix_id", "prefix_tokens"], prefix_trace())
    for name in [s[0] for s in SIMPLE] + ["shared_prefix.csv"]:
        path = os.path.join(out, name)
        with open(path) as f:
            rows = [line.split(",") for line in f.read().splitlines()[1:]]
        prompts = [int(r[1]) for r in rows]
        outputs = [int(r[2]) for r in rows]
        print("%s: %d requests over %.1f s, prompt mean %.0f, output mean %.0f, %d bytes" % (
            name, len(rows), float(rows[-1][0]), sum(prompts) / len(prompts), sum(outputs) / len(outputs),
            os.path.getsize(path)))


if __name__ == "__main__":
    main()
