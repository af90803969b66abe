#!/usr/bin/env python3
"""Bad-input campaign for roofsim: try it as a demanding user would and classify every outcome.

Generates thousands of cases deterministically (no randomness beyond a fixed seed) from mutated
hardware, model, Hugging Face config.json and experiment files, every numeric CLI flag of every
subcommand, semantic nonsense (impossible parallelism, bad topologies) and bad CSV inputs of
`validate`; runs each under a timeout and a memory limit; classifies the outcome as

  crash              killed by a signal, an exit status outside {0,1,2,3} (CLI11's 100-110
                     excepted), or stderr with "uncaught exception", "E549", "terminate called",
                     "Segmentation", "AddressSanitizer" or "runtime error:"
  internal           exit 3 (an internal error roofsim asks to be reported)
  hang               the timeout or the memory / file-size limit was hit
  refused_located    exit 1, 2 or 100-110 with a message naming file:line (or file:line: key, or
                     file + key for a key that was removed) for file inputs, the flag for flag inputs
  refused_unlocated  such an exit without that
  suspicious_ok      exit 0 with nonsense in the output (nan, inf, negative times or sizes, JSON
                     numbers that are null/NaN/negative where they must not be, a simulated time
                     faster than the analytic bound printed beside it), or exit 0 on an input that
                     is clearly invalid ("accepted nonsense")
  ok                 exit 0 and sane

Python 3 standard library only. See README.md beside this file.
"""

import argparse
import csv
import io
import json
import math
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import random
from collections import Counter, OrderedDict, defaultdict
from pathlib import Path

SEED = 20261123
REPO = Path(__file__).resolve().parents[2]
CLASSES = ["crash", "internal", "hang", "suspicious_ok", "refused_unlocated", "refused_located", "ok"]

# Expectations of a case: whether a sane program must refuse it.
INVALID = "invalid"    # clearly invalid: exit 0 is "accepted nonsense"
VALID = "valid"        # legitimately valid: exit 0 must be sane
EXTREME = "extreme"    # valid in form but physically absurd: refusing is fine, exit 0 must be sane
ANY = "any"            # either is defensible: exit 0 must be sane

# The values every numeric key or field is set to: (slug, TOML text, JSON text).
NUM_VALUES = [
    ("zero", "0", "0"),
    ("neg1", "-1", "-1"),
    ("half", "0.5", "0.5"),
    ("tiny", "1e-300", "1e-300"),
    ("huge", "1e308", "1e308"),
    ("nan", "nan", "NaN"),
    ("inf", "inf", "Infinity"),
    ("ninf", "-inf", "-Infinity"),
    ("2pow63", "9223372036854775808", "9223372036854775808"),
    ("i64max", "9223372036854775807", "9223372036854775807"),
    ("garbage", '"garbage"', '"garbage"'),
    ("1e400", "1e400", "1e400"),
]
NUM_SLUG_VALUE = {
    "zero": 0.0, "neg1": -1.0, "half": 0.5, "tiny": 1e-300, "huge": 1e308, "nan": math.nan,
    "inf": math.inf, "ninf": -math.inf, "2pow63": 2.0 ** 63, "i64max": 9223372036854775807.0,
    "garbage": None, "1e400": math.inf,
}

# Values every numeric CLI flag is given: (slug, text).
FLAG_VALUES = [
    ("zero", "0"), ("neg1", "-1"), ("i64max", "9223372036854775807"), ("2pow31", "2147483648"),
    ("huge", "1e308"), ("nan", "nan"), ("inf", "inf"), ("garbage", "garbage"), ("0.4", "0.4"),
    ("empty", ""), ("hex", "0x10"), ("1e3", "1e3"), ("plus4", "+4"),
]


def expect_number(cons, slug):
    """Expectation of a key with constraint cons ('int>0', 'num>0', 'num>=0', 'frac') set to a NUM_VALUES slug."""
    if slug in ("nan", "inf", "ninf", "2pow63", "garbage", "1e400", "neg1"):
        return INVALID
    if slug == "zero":
        return VALID if cons == "num>=0" else INVALID
    if slug == "half":
        return INVALID if cons == "int>0" else VALID
    if slug == "tiny":
        return INVALID if cons == "int>0" else EXTREME
    if slug == "huge":
        return INVALID if cons in ("int>0", "frac") else EXTREME
    if slug == "i64max":
        return INVALID if cons == "frac" else EXTREME
    return ANY


def expect_flag_int(slug, huge=EXTREME, minimum=1):
    """Expectation of an integer flag (at least minimum) given a FLAG_VALUES slug."""
    if slug in ("neg1", "nan", "inf", "garbage", "0.4", "empty", "huge"):
        return INVALID
    if slug == "zero":
        return VALID if minimum <= 0 else INVALID
    if slug in ("i64max", "2pow31"):
        return huge
    if slug == "plus4":
        return VALID
    return ANY  # hex, 1e3: a parser may read them either way


# ----------------------------------------------------------------------------------------------
# Cases


class Case:
    __slots__ = ("id", "kind", "desc", "argv", "files", "expect", "locators", "timeout", "json", "meta")

    def __init__(self, id, kind, desc, argv, files=None, expect=ANY, locators=(), timeout=None, json=None, meta=None):
        self.id, self.kind, self.desc, self.argv = id, kind, desc, list(argv)
        self.files = files or {}
        self.expect, self.locators, self.timeout, self.json = expect, list(locators), timeout, json
        self.meta = meta or {}

    def command(self):
        return "roofsim " + shlex.join(self.argv)


def slugify(s):
    s = re.sub(r"[^A-Za-z0-9_.+=-]+", "_", s).strip("_")
    return s[:90] or "x"


class Builder:
    def __init__(self):
        self.cases = []
        self.ids = set()

    def add(self, case):
        base = case.id = slugify(case.id)
        n = 2
        while case.id in self.ids:
            case.id = f"{base}~{n}"
            n += 1
        self.ids.add(case.id)
        self.cases.append(case)


def file_locators(fname, key=None, removed=False):
    """A refusal names the file and a line; for a removed key, the file and the key suffice."""
    locs = [re.escape(fname) + r":\d+"]
    if removed and key:
        locs.append(re.escape(fname) + r".*" + re.escape(key.split(".")[-1]))
    return locs


def flag_locators(*flags):
    return [r"(?<![\w-])" + re.escape(f) + r"(?![\w-])" for f in flags]


def given_file_locators(argv, flag):
    """A path given to flag, named at a line (PATH:LINE), locates a refusal of what is in that file."""
    if flag in argv and argv.index(flag) + 1 < len(argv) and "/" in argv[argv.index(flag) + 1]:
        return [re.escape(argv[argv.index(flag) + 1]) + r":\d+"]
    return []


def combination_locators(fname):
    """A refusal of a file as a whole combined with the run's settings (the model does not fit, has
    no experts for --ep) has no line: it is located when it names the file and a flag beside it."""
    f = r"(?<![\w.])" + re.escape(fname) + r"(?![\w])"
    flag = r"--(?!model\b)[a-z][\w-]*"
    return [rf"{f}.*{flag}|{flag}.*{f}"]


# ---- TOML text surgery (line based; the repository's files are one key per line)

TOML_KV = re.compile(r'^(\s*)("[^"]*"|[A-Za-z0-9_\-]+)(\s*=\s*)(.*?)\s*(#.*)?$')
TOML_NUM = re.compile(r"^[+-]?\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?$")


def toml_entries(text):
    """(line index, full key, raw value) of every key outside [provenance]."""
    out, table = [], ""
    for i, line in enumerate(text.split("\n")):
        s = line.strip()
        if s.startswith("["):
            table = s.strip("[]").strip()
            continue
        if not s or s.startswith("#") or table == "provenance":
            continue
        m = TOML_KV.match(line)
        if m:
            key = m.group(2).strip('"')
            out.append((i, (table + "." + key) if table else key, m.group(4)))
    return out


def toml_number(raw):
    raw = raw.strip()
    if TOML_NUM.match(raw):
        return float(raw.replace("_", ""))
    return None


def toml_set(text, line_index, value):
    lines = text.split("\n")
    m = TOML_KV.match(lines[line_index])
    if value is None:
        del lines[line_index]
    else:
        lines[line_index] = f"{m.group(1)}{m.group(2)} = {value}"
    return "\n".join(lines)


def drop_provenance(text, prefix):
    """Remove the [provenance] entries of key prefix (a key, or a table followed by '.')."""
    out, table = [], ""
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("["):
            table = s.strip("[]").strip()
        elif table == "provenance":
            m = TOML_KV.match(line)
            if m:
                k = m.group(2).strip('"')
                if k == prefix or (prefix.endswith(".") and k.startswith(prefix)):
                    continue
        out.append(line)
    return "\n".join(out)


def toml_line_of_table(text, table):
    for i, line in enumerate(text.split("\n")):
        if line.strip() == f"[{table}]":
            return i
    return None


def nested(depth, open_="[", close="]", inner="1"):
    return open_ * depth + inner + close * depth


# ---- hardware keys: constraints from `roofsim hw keys`

def hw_key_table(binary, env):
    cons = []
    try:
        out = subprocess.run([binary, "hw", "keys"], env=env, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    for line in out.splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|", line)
        if not m:
            continue
        key, _unit, value, required, default = (x.strip() for x in m.groups())
        pat = "^" + re.escape(key).replace("DTYPE", r"[^.]+").replace("NAME", r"[^.]+") + "$"
        kind = ("int>0" if value.startswith("integer > 0") else "num>0" if value.startswith("number > 0")
                else "num>=0" if value.startswith("number >= 0") else "frac" if value.startswith("fraction")
                else "bool" if "true or false" in value else "text")
        cons.append((re.compile(pat), kind, required == "yes"))
    return cons


def hw_constraint(table, key):
    for pat, kind, required in table:
        if pat.match(key):
            return kind, required
    return "num>0", False  # unknown to `hw keys`: assume a positive quantity


def hw_cross_invalid(values, key, newval, removed):
    """Cross-key rules of docs/hardware-keys.md broken by setting key to newval (finite values only)."""
    v = dict(values)
    if removed:
        v.pop(key, None)
    else:
        v[key] = newval
    if any(x is None or (isinstance(x, float) and not math.isfinite(x)) for x in v.values()):
        return False
    clock = v.get("matrix.clock_mhz")
    sustained = v.get("matrix.sustained_clock_mhz", clock)
    if clock is not None and sustained is not None and sustained > clock:
        return True
    eff = v.get("hbm.efficiency", 1.0)
    tile = v.get("hbm.tile_efficiency", eff)
    if tile > eff:
        return True
    if v.get("hbm.write_efficiency", eff) > eff:
        return True
    if "dma.request_bytes" in v and "dma.max_inflight_bytes" in v and v["dma.request_bytes"] > v["dma.max_inflight_bytes"]:
        return True
    return False


def hw_commands(name, fname, key, is_gpu, pim=False):
    """The commands one mutated hardware file is run through: (suffix, argv)."""
    gemm = "1,4096,4096" if pim else "4096,4096,4096"
    cmds = [("op", ["op", "--hw", fname, "--gemm", gemm, "--json", "out.json"]),
            ("run", ["run", "--hw", fname, "--prompt", "16", "--gen", "2", "--json", "out.json"])]
    if key is None or key.startswith("links.") or key.startswith("collectives.") or key == "*":
        topo = "switch:8" if is_gpu else "4x4"
        cmds.append(("coll", ["collective", "--hw", fname, "--topology", topo, "--bytes", "1MiB", "--json", "out.json"]))
    return cmds


def gen_hardware(b, tree, keytable):
    presets = [("h100_sxm5", True, None), ("tpu_v4", False, None), ("h100_pim", True, "pim.")]
    for name, is_gpu, only_prefix in presets:
        path = tree / "configs" / "hardware" / f"{name}.toml"
        if not path.exists():
            continue
        text = path.read_text()
        fname = "hw.toml"
        entries = toml_entries(text)
        values = {key: toml_number(raw) for _i, key, raw in entries if toml_number(raw) is not None}
        stationary = any((key == "matrix.weight_stationary" and raw.strip() == "true") or
                         (key == "matrix.dataflow" and raw.strip() in ('"weight_stationary"', '"input_stationary"'))
                         for _i, key, raw in entries)
        numeric = [(i, k, r) for i, k, r in entries if toml_number(r) is not None]
        if only_prefix:
            numeric = [(i, k, r) for i, k, r in numeric if k.startswith(only_prefix)]
        for i, key, raw in numeric:
            cons, required = hw_constraint(keytable, key)
            muts = [(slug, tv, expect_number(cons, slug), NUM_SLUG_VALUE[slug]) for slug, tv, _jv in NUM_VALUES]
            muts.append(("removed", None, INVALID if required else VALID, None))
            for slug, tv, exp, num in muts:
                removed = tv is None
                if exp != INVALID and (removed or num is not None) and hw_cross_invalid(values, key, num, removed):
                    exp = INVALID
                if key == "matrix.weight_load_cycles" and removed and stationary:
                    exp = INVALID
                if removed and key.startswith("matrix.dtype_rate.") and key != "matrix.dtype_rate.bf16":
                    exp = VALID  # a dtype not listed is not supported; only bf16 must be listed
                if key.endswith("capacity_bytes") and slug in ("half", "tiny"):
                    exp = ANY  # legitimately refused: nothing fits
                mutated = toml_set(text, i, tv)
                if removed:
                    mutated = drop_provenance(mutated, key)  # else refused for the orphaned entry
                for suffix, argv in hw_commands(name, fname, key, is_gpu, pim=bool(only_prefix)):
                    b.add(Case(f"hw-{name}-{key}-{slug}-{suffix}", "hw_toml",
                               f"{name}.toml {key} = {tv if tv is not None else '(removed)'}", argv,
                               {fname: mutated}, exp, file_locators(fname, key, removed), json="out.json"))
        if only_prefix:
            continue
        # Structural mutations.
        structural = []
        lines = text.split("\n")
        rng = random.Random(f"{SEED}-{name}")
        for frac in (0.1, 0.25, 0.5, 0.75, 0.9):
            cut = int(len(text) * frac) + rng.randrange(0, 7)
            structural.append((f"truncated-{int(frac * 100)}pct", text[:cut], ANY))
        structural.append(("truncated-midline", text[:text.index("units = ") + 6], INVALID))
        structural.append(("empty", "", INVALID))
        structural.append(("only-comment", "# nothing\n", INVALID))
        for tbl in ("matrix", "hbm", "vector", "dma", "links", "chip"):
            li = toml_line_of_table(text, tbl)
            if li is None:
                continue
            end = li + 1
            while end < len(lines) and not lines[end].strip().startswith("["):
                end += 1
            block = "\n".join(lines[li:end])
            structural.append((f"dup-table-{tbl}", text + "\n" + block + "\n", INVALID))
            without = drop_provenance("\n".join(lines[:li] + lines[end:]), tbl + ".")
            structural.append((f"no-table-{tbl}", without, VALID if tbl == "links" else INVALID))
            structural.append((f"table-as-value-{tbl}", f"{tbl} = 5\n" + text, INVALID))
        # Wrong types for the first keys of a few tables.
        by_key = {k: (i, r) for i, k, r in entries}
        wrong = [("matrix.units", "[132]"), ("matrix.units", "{ a = 1 }"), ("matrix.units", "true"),
                 ("matrix.units", '"132"'), ("matrix.units", "132.0"), ("matrix.units", "1979-05-27"),
                 ("matrix.units", "0x84"), ("matrix.units", "0o204"), ("matrix.units", "+132"),
                 ("hbm.bandwidth_gb_per_s", '"3350 GB/s"'), ("hbm.bandwidth_gb_per_s", "[1, 2]"),
                 ("matrix.kind", '"bogus"'), ("matrix.kind", "5"), ("chip.tile_buffer", '"nonexistent"'),
                 ("chip.tile_buffer", "1"), ("links.kind", '"bogus"'), ("links.kind", '""'),
                 ("chip.description", "5"), ("chip.description", '""'), ("matrix.weight_stationary", '"yes"'),
                 ("matrix.weight_stationary", "1"), ("matrix.dataflow", '"bogus"'), ("matrix.dataflow", "5"),
                 ("matrix.dataflow", '"output_stationary"'), ("matrix.weight_load_overlap", '"yes"'), ("links.in_switch_reduction", '"true"'),
                 ("links.in_switch_reduction", "0"), ("hbm.capacity_bytes", "80_000_000_000_"),
                 ("hbm.capacity_bytes", "8e"), ("hbm.capacity_bytes", "--1")]
        for key, val in wrong:
            if key not in by_key:
                continue
            i, _raw = by_key[key]
            exp = ANY if val in ("132.0", "0x84", "0o204", "+132", '"nonexistent"') else INVALID
            if key == "links.kind" and val != "5" or key == "chip.description" and val == '""':
                exp = ANY  # free text
            if key == "matrix.dataflow" and val == '"output_stationary"':
                exp = VALID  # another dataflow, not a typo
            if key == "chip.tile_buffer" and val == '"nonexistent"':
                exp = INVALID
            structural.append((f"type-{key}={val}", toml_set(text, i, val), exp))
        structural.append(("dup-key", text.replace("[hbm]\n", "[hbm]\nstacks = 1\n", 1), INVALID))
        structural.append(("unknown-key", text.replace("[hbm]\n", "[hbm]\nbogus_key = 1\n", 1), INVALID))
        structural.append(("unknown-table", text + "\n[bogus]\nx = 1\n", INVALID))
        structural.append(("unknown-dtype", text.replace("[matrix.dtype_rate]\n", "[matrix.dtype_rate]\nfp64 = 1\n", 1), INVALID))
        structural.append(("dtype-eff-unlisted", text + "\n[matrix.dtype_efficiency]\nint4 = 0.5\n"
                           if "[matrix.dtype_efficiency]" not in text else
                           text.replace("[matrix.dtype_efficiency]\n", "[matrix.dtype_efficiency]\nint4 = 0.5\n", 1), INVALID))
        structural.append(("no-bf16-rate", re.sub(r"(?m)^bf16 = 1\n", "", text, count=1), INVALID))
        structural.append(("nested-array-100000", text + "\n[extra]\nx = " + nested(100000) + "\n", INVALID))
        structural.append(("nested-inline-10000", "x = " + nested(10000, "{a=", "}", "1") + "\n" + text, INVALID))
        structural.append(("long-string-8MiB", f'# {"A" * 10}\n' + text.replace(
            'description = "', 'description = "' + "A" * (8 << 20), 1), ANY))
        structural.append(("crlf", text.replace("\n", "\r\n"), VALID))
        structural.append(("bom", "\ufeff" + text, ANY))
        structural.append(("nul-byte", text.replace("[hbm]", "[hbm]\0", 1), INVALID))
        structural.append(("invalid-utf8", text.replace('description = "', 'description = "\udcff', 1), INVALID))
        structural.append(("channels-lt-stacks", re.sub(r"(?m)^channels = \d+", "channels = 1", text, count=1), ANY))
        structural.append(("granule-gt-tile", re.sub(r"(?m)^granule_m = \d+", "granule_m = 1024", text, count=1), ANY))
        structural.append(("switch-red-without-isr", text.replace("in_switch_reduction = true", "in_switch_reduction = false")
                           if "in_switch_reduction = true" in text else text.replace(
                               "[links]\n", "[links]\nswitch_reduction_gb_per_s = 100\n", 1), INVALID))
        for slug, content, exp in structural:
            data = content.encode("utf-8", "surrogateescape")
            for suffix, argv in hw_commands(name, fname, "*", is_gpu):
                e = INVALID if slug == "no-table-links" and suffix == "coll" else exp
                b.add(Case(f"hw-{name}-struct-{slug}-{suffix}", "hw_toml_struct", f"{name}.toml {slug}", argv,
                           {fname: data}, e, file_locators(fname), json="out.json"))
    # Special paths given to --hw.
    specials = [("dev-null", "/dev/null", INVALID), ("dev-zero", "/dev/zero", INVALID), ("directory", ".", INVALID),
                ("missing-file", "missing.toml", INVALID), ("binary-file", "{BIN}", INVALID),
                ("empty-name", "", INVALID), ("preset-bogus", "h100_sxm6", INVALID),
                ("preset-path-escape", "../../../../etc/passwd", INVALID),
                ("dir-named-toml", "d.toml", INVALID), ("name-too-long", "a" * 300, INVALID),
                ("path-part-too-long", "a" * 300 + "/x.toml", INVALID)]
    for slug, path, exp in specials:
        files = {"d.toml/x": b""} if slug == "dir-named-toml" else {}
        for suffix, argv in (("op", ["op", "--hw", path, "--gemm", "64,64,64"]),
                             ("run", ["run", "--hw", path, "--prompt", "16", "--gen", "2"]),
                             ("show", ["hw", "show", path])):
            loc = r"roofsim:\d+" if path == "{BIN}" else re.escape(path) if path else r"--hw"
            b.add(Case(f"hwpath-{slug}-{suffix}", "hw_path", f"--hw {path!r}", argv, files, exp, flag_locators("--hw") + [loc]))


# ---- model .toml

MODEL_CROSS = [("attention_heads", "kv_heads"), ("experts", "experts_per_token")]


def model_cross_invalid(vals, key, num, removed):
    v = dict(vals)
    if removed:
        v.pop(key, None)
    else:
        v[key] = num
    try:
        heads = v["attention_heads"]
        kv = v.get("kv_heads", heads)
        if heads is None or kv is None:
            return False
        if not all(math.isfinite(x) and x == int(x) and x > 0 for x in (heads, kv)):
            return False
        if int(heads) % int(kv) != 0:
            return True
        if "head_dim" not in v and int(v["hidden_size"]) % int(heads) != 0:
            return True
        if v.get("experts_per_token", 1) > v.get("experts", 1):
            return True
    except (KeyError, TypeError, ValueError, OverflowError):
        return False
    return False


def gen_models(b, tree):
    required = {"model.name", "model.hidden_size", "model.layers", "model.attention_heads",
                "model.intermediate_size", "model.vocab_size", "model.mlp"}
    for name in ("llama-3-8b", "mixtral-8x7b", "gpt-j-6b"):
        path = tree / "configs" / "models" / f"{name}.toml"
        if not path.exists():
            continue
        text = path.read_text()
        fname = "model.toml"
        entries = toml_entries(text)
        vals = {k.split(".", 1)[1]: toml_number(r) for _i, k, r in entries if toml_number(r) is not None}
        argv = ["run", "--model", fname, "--prompt", "16", "--gen", "2", "--json", "out.json"]
        if name == "mixtral-8x7b":
            argv = ["run", "--model", fname, "--prompt", "16", "--gen", "2", "--batch", "2", "--ep", "2", "--json", "out.json"]
        for i, key, raw in entries:
            short = key.split(".", 1)[1]
            if toml_number(raw) is not None:
                muts = [(slug, tv, expect_number("int>0", slug), NUM_SLUG_VALUE[slug]) for slug, tv, _ in NUM_VALUES]
                muts.append(("removed", None, INVALID if key in required else VALID, None))
                muts += [("float-integral", raw.replace("_", "") + ".0", ANY, None), ("string", f'"{raw}"', INVALID, None),
                         ("bool", "true", INVALID, None), ("array", f"[{raw}]", INVALID, None),
                         ("inline-table", "{ v = 1 }", INVALID, None), ("times10", str(int(float(raw)) * 10), EXTREME, None)]
            else:
                muts = [("removed", None, INVALID if key in required else VALID, None), ("number", "5", INVALID, None),
                        ("empty", '""', INVALID, None), ("garbage", '"garbage"', INVALID, None)]
                if raw.strip() in ("true", "false"):
                    muts = [("removed", None, VALID, None), ("string", '"yes"', INVALID, None), ("number", "1", INVALID, None)]
                if short == "architecture":  # the family, for people: free text, but not empty
                    muts = [m if m[0] != "garbage" else ("garbage", m[1], ANY, None) for m in muts]
                if short in ("name", "source"):
                    muts = [("removed", None, INVALID if key in required else VALID, None), ("number", "5", INVALID, None),
                            ("empty", '""', ANY, None), ("long", '"' + "x" * 100000 + '"', ANY, None)]
            for slug, tv, exp, num in muts:
                removed = tv is None
                if exp not in (INVALID,) and short in vals and (removed or num is not None) and model_cross_invalid(vals, short, num, removed):
                    exp = INVALID
                if exp not in (INVALID,) and slug == "times10" and short in ("kv_heads", "experts_per_token"):
                    exp = INVALID  # kv_heads > heads; experts_per_token > experts
                if exp not in (INVALID,) and slug == "times10" and short == "attention_heads" and "head_dim" not in vals:
                    exp = ANY
                b.add(Case(f"model-{name}-{short}-{slug}", "model_toml",
                           f"{name}.toml {key} = {tv if tv is not None else '(removed)'}"[:200], argv,
                           {fname: toml_set(text, i, tv)}, exp, file_locators(fname, key, removed) + combination_locators(fname), json="out.json"))
        structural = [("empty", "", INVALID), ("no-model-table", text.replace("[model]\n", "", 1), INVALID),
                      ("truncated-half", text[: len(text) // 2], ANY), ("dup-table", text + "\n[model]\nlayers = 2\n", INVALID),
                      ("dup-key", text.replace("[model]\n", "[model]\nlayers = 2\n", 1), INVALID),
                      ("unknown-key", text.replace("[model]\n", "[model]\nrope_theta = 500000\n", 1), INVALID),
                      ("mlp-bogus", re.sub(r'(?m)^mlp = .*$', 'mlp = "swiglu"', text), INVALID),
                      ("kv-gt-heads", re.sub(r"(?m)^kv_heads = .*$", "kv_heads = 64", text), INVALID),
                      ("nested-array-100000", text + "\nx = " + nested(100000) + "\n", INVALID),
                      ("model-is-array", "model = [1,2]\n", INVALID), ("tiny-model",
                       "[model]\nname='t'\nhidden_size=1\nlayers=1\nattention_heads=1\nintermediate_size=1\nvocab_size=1\nmlp='plain'\n",
                       VALID if name != "mixtral-8x7b" else ANY)]
        for slug, content, exp in structural:
            b.add(Case(f"model-{name}-struct-{slug}", "model_toml_struct", f"{name}.toml {slug}", argv,
                       {fname: content}, exp, file_locators(fname) + combination_locators(fname), json="out.json"))


# ---- Hugging Face config.json

HF_BASES = OrderedDict([
    ("llama", OrderedDict([("architectures", ["LlamaForCausalLM"]), ("model_type", "llama"), ("hidden_size", 4096),
                           ("intermediate_size", 14336), ("num_attention_heads", 32), ("num_hidden_layers", 32),
                           ("num_key_value_heads", 8), ("head_dim", 128), ("vocab_size", 128256),
                           ("tie_word_embeddings", False), ("torch_dtype", "bfloat16"), ("rope_theta", 500000.0)])),
    ("mixtral", OrderedDict([("model_type", "mixtral"), ("hidden_size", 4096), ("intermediate_size", 14336),
                             ("num_attention_heads", 32), ("num_hidden_layers", 32), ("num_key_value_heads", 8),
                             ("vocab_size", 32000), ("num_local_experts", 8), ("num_experts_per_tok", 2)])),
    ("gptj", OrderedDict([("model_type", "gptj"), ("n_embd", 4096), ("n_layer", 28), ("n_head", 16), ("n_inner", None),
                          ("vocab_size", 50400), ("rotary_dim", 64)])),
    ("gpt_neox", OrderedDict([("model_type", "gpt_neox"), ("hidden_size", 2560), ("num_hidden_layers", 32),
                              ("num_attention_heads", 32), ("intermediate_size", 10240), ("vocab_size", 50432),
                              ("rotary_pct", 0.25)])),
])
HF_REQUIRED = {"llama": {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"},
               "mixtral": {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size",
                           "num_local_experts", "num_experts_per_tok"},
               "gptj": {"n_embd", "n_layer", "n_head", "vocab_size"},
               "gpt_neox": {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"}}
HF_IGNORED = {"rope_theta", "rotary_dim", "rotary_pct"}


def hf_dump(d, key=None, raw=None):
    """JSON text with one key per line; key's value replaced by raw JSON text (None: key removed)."""
    d = OrderedDict(d)
    if key is not None:
        if raw is None:
            d.pop(key, None)
        else:
            d[key] = "__RAW__"
    text = json.dumps(d, indent=2)
    if key is not None and raw is not None:
        text = text.replace('"__RAW__"', raw, 1)
    return text + "\n"


def hf_cross_invalid(arch, d, key, num, removed):
    v = {k: x for k, x in d.items() if isinstance(x, (int, float)) and not isinstance(x, bool)}
    if removed:
        v.pop(key, None)
    else:
        v[key] = num
    try:
        if arch in ("llama", "mixtral"):
            heads = v["num_attention_heads"]
            kv = v.get("num_key_value_heads", heads)
            if all(math.isfinite(x) and x == int(x) and x > 0 for x in (heads, kv)) and int(heads) % int(kv):
                return True
            if arch == "mixtral" and v.get("num_experts_per_tok", 1) > v.get("num_local_experts", 1):
                return True
    except (KeyError, TypeError, ValueError, OverflowError):
        return False
    return False


def gen_hf(b):
    for arch, d in HF_BASES.items():
        fname = "config.json"
        argv = ["run", "--model", fname, "--prompt", "16", "--gen", "2", "--json", "out.json"]
        if arch == "mixtral":
            argv = ["run", "--model", fname, "--prompt", "16", "--gen", "2", "--batch", "2", "--ep", "2", "--json", "out.json"]
        b.add(Case(f"hf-{arch}-base", "hf_json", f"{arch} config.json as is", argv, {fname: hf_dump(d)}, VALID,
                   file_locators(fname) + combination_locators(fname), json="out.json"))
        for key, val in d.items():
            numeric = (isinstance(val, (int, float)) and not isinstance(val, bool)) or (val is None and key == "n_inner")
            if not numeric:
                continue
            req = key in HF_REQUIRED[arch]
            cons = "num>0" if isinstance(val, float) else "int>0"
            muts = [(slug, jv, expect_number(cons, slug), NUM_SLUG_VALUE[slug]) for slug, _tv, jv in NUM_VALUES]
            muts.append(("removed", None, INVALID if req else VALID, None))
            base = val if val is not None else 16384
            muts += [("float-integral", f"{float(base)}", ANY, None), ("string", f'"{base}"', INVALID, None),
                     ("bool", "true", INVALID, None), ("null", "null", INVALID if req else VALID, None),
                     ("array", f"[{base}]", INVALID, None), ("object", '{"v": 1}', INVALID, None),
                     ("nested-100000", nested(100000), INVALID, None), ("times10", str(int(base) * 10), EXTREME, None),
                     ("uint64max", "18446744073709551615", INVALID, None), ("neg-zero", "-0", INVALID, None),
                     ("exp-form", "4.096e3", ANY, None)]
            for slug, jv, exp, num in muts:
                removed = jv is None
                if key in HF_IGNORED:
                    exp = ANY
                elif exp != INVALID and (removed or num is not None) and hf_cross_invalid(arch, d, key, num, removed):
                    exp = INVALID
                if exp != INVALID and slug == "times10" and key in ("num_key_value_heads", "num_experts_per_tok"):
                    exp = INVALID
                b.add(Case(f"hf-{arch}-{key}-{slug}", "hf_json",
                           f"{arch} config.json {key} = {jv[:40] if jv is not None else '(removed)'}", argv,
                           {fname: hf_dump(d, key, jv)}, exp, file_locators(fname, key, removed) + combination_locators(fname), json="out.json"))
        if arch != "llama":
            continue
        good = hf_dump(d)
        structural = [
            ("empty", "", INVALID), ("null", "null", INVALID), ("array", "[]", INVALID), ("number", "42", INVALID),
            ("truncated", good[: len(good) // 2], INVALID), ("trailing-comma", good.replace('"bfloat16"', '"bfloat16",'), INVALID),
            ("comment", "// llama\n" + good, INVALID), ("single-quotes", good.replace('"', "'"), INVALID),
            ("bom", "\ufeff" + good, ANY), ("trailing-garbage", good + "xyz", INVALID),
            ("dup-key", good.replace('"hidden_size": 4096', '"hidden_size": 4096, "hidden_size": 0'), INVALID),
            ("root-nested-100000", nested(100000), INVALID), ("root-nested-1000000", nested(1000000), INVALID),
            ("root-obj-nested-100000", nested(100000, '{"a":', "}", "1"), INVALID),
            ("extra-key-nested-100000", good.replace("{", '{"extra": ' + nested(100000) + ",", 1), ANY),
            ("model-type-missing", hf_dump(d, "model_type", None), INVALID),
            ("model-type-bogus", hf_dump(d, "model_type", '"bert"'), INVALID),
            ("model-type-number", hf_dump(d, "model_type", "5"), INVALID),
            ("model-type-empty", hf_dump(d, "model_type", '""'), INVALID),
            ("hidden-not-div-heads", hf_dump(OrderedDict((k, v) for k, v in d.items() if k != "head_dim"), "hidden_size", "4100"), ANY),
            ("huge-string", hf_dump(d, "torch_dtype", '"' + "x" * (4 << 20) + '"'), VALID),
            ("invalid-utf8", good.replace('"bfloat16"', '"bf\udcff16"'), INVALID),
            ("nul-byte", good.replace('"bfloat16"', '"bf\\u000016"'), VALID),
            ("tie-string", hf_dump(d, "tie_word_embeddings", '"false"'), INVALID),
        ]
        for slug, content, exp in structural:
            b.add(Case(f"hf-{arch}-struct-{slug}", "hf_json_struct", f"{arch} config.json {slug}", argv,
                       {fname: content.encode("utf-8", "surrogateescape")}, exp, file_locators(fname) + combination_locators(fname), json="out.json"))
        # The same file under another name: .json routes to the HF reader.
        b.add(Case("hf-llama-named-other.json", "hf_json_struct", "llama config under another name", [
            "run", "--model", "llama.json", "--prompt", "16", "--gen", "2"], {"llama.json": good}, VALID, file_locators("llama.json")))


# ---- experiment .toml

def gen_experiments(b, tree):
    for path in sorted((tree / "configs" / "experiments").glob("*.toml")):
        name = path.stem
        text = path.read_text()
        # Shrunk so legitimate runs are fast; the mutated key keeps its mutation.
        text = re.sub(r"(?m)^prompt = \d+", "prompt = 16", text)
        text = re.sub(r"(?m)^generate = \d+", "generate = 2", text)
        if "[experiment]" not in text:
            continue
        extra = {"tp": "1", "pp": "1", "ep": "1", "microbatches": "1", "decode_stride": "1"}
        for k, v in extra.items():
            if not re.search(rf"(?m)^{k}\s*=", text):
                text_k = text.replace("[experiment]\n", f"[experiment]\n{k} = {v}\n", 1)
            else:
                text_k = text
            base_entries = {key: (i, raw) for i, key, raw in toml_entries(text_k)}
            extra[k] = (text_k, base_entries)
        fname = "exp.toml"
        argv = ["run", fname, "--json", "out.json"]
        entries = toml_entries(text)
        done = set()
        for i, key, raw in entries:
            short = key.split(".", 1)[1]
            if toml_number(raw) is None:
                continue
            done.add(short)
            for slug, tv, _jv in NUM_VALUES + [("removed", None, None), ("times100", str(int(toml_number(raw)) * 100), None)]:
                exp = VALID if slug == "removed" else EXTREME if slug == "times100" else expect_number("int>0", slug)
                b.add(Case(f"exp-{name}-{short}-{slug}", "experiment_toml", f"{name}.toml {key} = {tv}", argv,
                           {fname: toml_set(text, i, tv)}, exp, file_locators(fname, key, tv is None), json="out.json"))
        for k, (text_k, ents) in extra.items():
            if k in done:
                continue
            i, _raw = ents[f"experiment.{k}"]
            for slug, tv, _jv in NUM_VALUES + [("two", "2", None), ("three", "3", None), ("64", "64", None)]:
                exp = expect_number("int>0", slug) if slug not in ("two", "three", "64") else ANY
                if k in ("tp", "pp", "ep", "microbatches") and slug == "i64max":
                    exp = INVALID  # 9.2e18 chips or micro-batches of a batch of 1 or 16
                if k in ("ep",) and slug in ("two", "three", "64") and "mixtral" not in text:
                    exp = ANY
                if k == "tp" and slug in ("three", "64"):
                    exp = INVALID  # Llama-3-8B: 32 heads, 8 KV heads
                if k == "pp" and slug == "64":
                    exp = INVALID  # 32 layers
                if k == "microbatches" and slug in ("three", "64"):
                    exp = INVALID  # must divide the batch, at most the batch; pp = 1
                b.add(Case(f"exp-{name}-{k}-{slug}", "experiment_toml", f"{name}.toml experiment.{k} = {tv}", argv,
                           {fname: toml_set(text_k, i, tv)}, exp, file_locators(fname, k), json="out.json"))
        by_key = {key: (i, raw) for i, key, raw in entries}
        strings = [("hw", '"bogus"', INVALID), ("hw", '""', INVALID), ("hw", "5", INVALID), ("hw", '"/dev/null"', INVALID),
                   ("hw", '"tpu_v4"', VALID), ("hw", '"../hardware/tpu_v4.toml"', ANY),
                   ("model", '"bogus"', INVALID), ("model", '""', INVALID), ("model", "5", INVALID),
                   ("model", '"palm-540b"', INVALID), ("weights_dtype", '"fp64"', INVALID), ("weights_dtype", '"int4"', VALID),
                   ("weights_dtype", "16", INVALID), ("kv_dtype", '"int4"', INVALID), ("kv_dtype", '"fp32"', ANY),
                   ("activations_dtype", '"int8"', ANY), ("activations_dtype", '"fp8"', VALID),
                   ("attention", '"bogus"', INVALID), ("attention", '"vector"', VALID), ("launch", '"bogus"', INVALID),
                   ("launch", "true", INVALID), ("batch", "1.0", ANY)]
        for key, val, exp in strings:
            full = f"experiment.{key}"
            if full in by_key:
                mutated = toml_set(text, by_key[full][0], val)
            else:
                mutated = text.replace("[experiment]\n", f"[experiment]\n{key} = {val}\n", 1)
            b.add(Case(f"exp-{name}-{key}={val}", "experiment_toml", f"{name}.toml {full} = {val}", argv,
                       {fname: mutated}, exp, file_locators(fname, key), json="out.json"))
        inserted = [("topology", '"bogus"', INVALID), ("topology", '"4x"', INVALID), ("topology", "8", INVALID),
                    ("near_memory", '"bogus"', INVALID), ("near_memory", '"all"', ANY), ("ideal", '"yes"', INVALID),
                    ("ideal", "true", VALID), ("bogus_key", "1", INVALID), ("generate_tokens", "2", INVALID)]
        for key, val, exp in inserted:
            mutated = text.replace("[experiment]\n", f"[experiment]\n{key} = {val}\n", 1)
            b.add(Case(f"exp-{name}-ins-{key}={val}", "experiment_toml", f"{name}.toml + experiment.{key} = {val}", argv,
                       {fname: mutated}, exp, file_locators(fname, key), json="out.json"))
        structural = [("empty", "", INVALID), ("no-table", text.replace("[experiment]\n", "", 1), INVALID),
                      ("dup-table", text + "\n[experiment]\nbatch = 2\n", INVALID),
                      ("truncated", text[: len(text) * 2 // 3], ANY), ("unknown-table", text + "\n[bogus]\n", INVALID),
                      ("nested-array-100000", text + "\nx = " + nested(100000) + "\n", INVALID)]
        for slug, content, exp in structural:
            b.add(Case(f"exp-{name}-struct-{slug}", "experiment_toml_struct", f"{name}.toml {slug}", argv,
                       {fname: content}, exp, file_locators(fname), json="out.json"))
    for slug, path, exp in (("missing", "missing.toml", INVALID), ("dev-null", "/dev/null", INVALID),
                            ("directory", ".", INVALID), ("hw-file-as-exp", "hw.toml", INVALID)):
        files = {"hw.toml": (tree / "configs" / "hardware" / "h100_sxm5.toml").read_text()} if slug == "hw-file-as-exp" else {}
        b.add(Case(f"exp-path-{slug}", "experiment_toml_struct", f"run {path}", ["run", path], files, exp,
                   [re.escape(path) if path != "." else r"\.", r"EXPERIMENT"]))


# ---- CLI flags

RUN_BASE = ["--prompt", "16", "--gen", "2"]


def flag_cases_for(b, kind, sub, flag, base, huge=EXTREME, minimum=1, json_ok=True, overrides=None, timeout=None):
    """One case per FLAG_VALUES value of flag, added to (or replacing its value in) base."""
    for slug, text in FLAG_VALUES:
        exp = (overrides or {}).get(slug) or expect_flag_int(slug, huge=huge, minimum=minimum)
        argv = list(sub) + list(base)
        if flag in argv:
            argv[argv.index(flag) + 1] = text
        else:
            argv += [flag, text]
        if json_ok:
            argv += ["--json", "out.json"]
        locs = flag_locators(flag, "--jobs") if flag == "-j" else flag_locators(flag)
        b.add(Case(f"flag-{'-'.join(sub)}-{flag.lstrip('-')}-{slug}", kind, f"{' '.join(sub)} {flag} {text!r}", argv, {},
                   exp, locs, timeout=timeout, json="out.json" if json_ok else None))


def gen_flags(b):
    # run and whatif: every numeric flag.
    run_flags = {
        "--batch": (RUN_BASE, EXTREME), "--prompt": (RUN_BASE, EXTREME), "--gen": (RUN_BASE, EXTREME),
        "--decode-stride": (["--prompt", "16", "--gen", "8"], VALID), "--tp": (RUN_BASE, INVALID),
        "--pp": (RUN_BASE, INVALID), "--ep": (["--model", "mixtral-8x7b", "--batch", "8"] + RUN_BASE, INVALID),
        "--microbatches": (["--pp", "2", "--batch", "4"] + RUN_BASE, INVALID), "--top": (RUN_BASE, EXTREME),
        "--trace-steps": (["--trace", "trace.json"] + RUN_BASE, EXTREME),
    }
    for flag, (base, huge) in run_flags.items():
        # A traced run of 16 + 2 tokens takes about 8 s and 1.4 GB: 30 s for those.
        flag_cases_for(b, "flag_run", ["run"], flag, base, huge=huge, timeout=30 if "--trace" in base else None)
        if flag not in ("--top", "--trace-steps"):  # run-only options
            flag_cases_for(b, "flag_whatif", ["whatif"], flag, base + ["--scale", "hbm.bandwidth=2"], huge=huge)
    # whatif's own.
    flag_cases_for(b, "flag_whatif", ["whatif"], "-j", ["--sweep", "batch=1,2"] + RUN_BASE, huge=INVALID)
    for key in ("hbm.bandwidth", "compute", "links.bandwidth", "hbm.capacity", "matrix.units", "hbm.efficiency",
                "matrix.clock_mhz", "hbm.channels", "dma.request_bytes"):
        for slug, text in FLAG_VALUES:
            exp = {"zero": INVALID, "neg1": INVALID, "nan": INVALID, "inf": INVALID, "garbage": INVALID, "empty": INVALID,
                   "huge": EXTREME, "i64max": EXTREME, "2pow31": EXTREME, "0.4": VALID, "plus4": VALID}.get(slug, ANY)
            if key == "hbm.efficiency":
                exp = INVALID  # above 1, or (x 0.4) below hbm.tile_efficiency 0.84 and hbm.write_efficiency 0.74
            if key == "dma.request_bytes" and slug not in ("0.4", "plus4"):
                exp = INVALID  # above dma.max_inflight_bytes (x4 just reaches it), or not positive
            if key == "matrix.units" and slug == "0.4":
                exp = INVALID  # 132 x 0.4 is not an integer
            if key in ("matrix.units", "hbm.channels") and slug in ("huge", "i64max", "2pow31"):
                exp = INVALID  # an integer key scaled past 2^63
            if key == "matrix.clock_mhz" and slug == "0.4":
                exp = INVALID  # below matrix.sustained_clock_mhz
            argv = ["whatif"] + RUN_BASE + ["--scale", f"{key}={text}", "--json", "out.json"]
            b.add(Case(f"flag-whatif-scale-{key}-{slug}", "flag_whatif", f"whatif --scale {key}={text}", argv, {}, exp,
                       flag_locators("--scale") + [re.escape(key)], json="out.json"))
    sets = [("hbm.bandwidth_gb_per_s", v, e) for v, e in (("0", INVALID), ("-1", INVALID), ("nan", INVALID), ("inf", INVALID),
                                                           ("1e308", EXTREME), ("garbage", INVALID), ("", INVALID), ("6700", VALID))]
    sets += [("matrix.units", "0.5", INVALID), ("matrix.units", "9223372036854775808", INVALID), ("matrix.units", "1e3", ANY),
             ("links.count", "-1", INVALID), ("chip.description", "5", ANY), ("links.kind", "bogus", ANY),
             ("matrix.kind", "bogus", INVALID), ("matrix.weight_stationary", "maybe", INVALID), ("bogus.key", "1", INVALID),
             ("matrix.dtype_rate.int4", "4", VALID), ("matrix.dtype_rate.fp64", "1", INVALID),
             ("hbm.efficiency", "1.5", INVALID), ("hbm.tile_efficiency", "1", INVALID), ("hbm.write_efficiency", "1", INVALID), ("matrix.sustained_clock_mhz", "5000", INVALID),
             ("dma.request_bytes", "1e12", INVALID), ("onchip.l2.capacity_bytes", "0", INVALID), ("chip.tile_buffer", "bogus", INVALID),
             ("pim.clock_mhz", "1000", INVALID), ("hbm.capacity_bytes", "1", INVALID)]
    for key, val, exp in sets:
        argv = ["whatif"] + RUN_BASE + ["--set", f"{key}={val}", "--json", "out.json"]
        b.add(Case(f"flag-whatif-set-{key}={val}", "flag_whatif", f"whatif --set {key}={val}", argv, {}, exp,
                   flag_locators("--set") + [re.escape(key)], json="out.json"))
    sweeps = [("batch=1:256:x1", INVALID), ("batch=256:1:x2", ANY), ("batch=1:256:x0", INVALID), ("batch=1:256:x-2", INVALID),
              ("batch=1:256:xnan", INVALID), ("batch=1:256:x0.5", INVALID), ("batch=0,1", INVALID), ("batch=-1", INVALID),
              ("batch=1:9223372036854775807:x2", EXTREME), ("batch=1:1000000000:x1.0001", INVALID), ("batch=", INVALID),
              ("batch=1,,2", INVALID), ("=1", INVALID), ("bogus=1", INVALID), ("batch", INVALID), ("tp=3", ANY),
              ("hbm.bandwidth_gb_per_s=0,-1,nan", INVALID), ("hbm.bandwidth_gb_per_s=1:1e308:x10", EXTREME),
              ("prompt=1:100000000:x10", EXTREME), ("batch=1.5", INVALID), ("batch=1:4:x2,8", INVALID),
              ("batch=nan", INVALID), ("batch=9223372036854775808", INVALID), ("matrix.units=0.5", INVALID)]
    for sw, exp in sweeps:
        argv = ["whatif"] + RUN_BASE + ["--sweep", sw, "--json", "out.json"]
        b.add(Case(f"flag-whatif-sweep-{sw}", "flag_whatif", f"whatif --sweep {sw}", argv, {}, exp,
                   flag_locators("--sweep") + [re.escape(sw.split("=")[0] or "=")], json="out.json"))
    for sh, exp in (("0/0", INVALID), ("1/0", INVALID), ("2/2", INVALID), ("-1/2", INVALID), ("a/b", INVALID), ("1", INVALID),
                    ("0/9223372036854775808", INVALID), ("0/1", VALID), ("1/2", VALID), ("0/2/3", INVALID)):
        argv = ["whatif"] + RUN_BASE + ["--sweep", "batch=1,2", "--shard", sh, "--json", "out.json"]
        b.add(Case(f"flag-whatif-shard-{sh}", "flag_whatif", f"whatif --shard {sh}", argv, {}, exp, flag_locators("--shard"),
                   json="out.json"))
    merges = [("missing", None, INVALID), ("empty", "", INVALID), ("not-json", "hello", INVALID), ("run-json", '{"schema_version": 1, "batch": 1}', INVALID),
              ("nested-100000", nested(100000), INVALID), ("points-garbage", '{"schema_version":1,"sweep":"batch","axes":["batch"],"grid_points":2,"shard":"0/1","points":[{"index":"x"}]}', INVALID),
              ("points-nan", '{"schema_version":1,"sweep":"batch","axes":["batch"],"grid_points":1,"shard":"0/1","points":[{"index":0,"value":1,"values":[1],"batch":1,"ttft_s":-1,"tpot_s":NaN,"throughput_tok_s":1e400,"decode_tok_s":0,"decode_intensity":1,"prefill_intensity":1,"decode_compute_share":0,"bound_tpot_s":1}]}', INVALID),
              ("index-out-of-grid", '{"schema_version":1,"sweep":"batch","axes":["batch"],"grid_points":1,"shard":"0/1","points":[{"index":99999999999,"value":1,"values":[1],"batch":1,"ttft_s":1,"tpot_s":1,"throughput_tok_s":1,"decode_tok_s":1,"decode_intensity":1,"prefill_intensity":1,"decode_compute_share":0,"bound_tpot_s":1}]}', INVALID)]
    for slug, content, exp in merges:
        files = {} if content is None else {"shard.json": content}
        b.add(Case(f"flag-whatif-merge-{slug}", "flag_whatif", f"whatif --merge shard.json ({slug})",
                   ["whatif", "--merge", "shard.json", "--json", "out.json"], files, exp,
                   flag_locators("--merge") + [r"shard\.json"], json="out.json"))
    # op and roofline: GEMM components, element-wise and reduce sizes, dtypes.
    for sub in (["op"], ["roofline"]):
        k = "flag_" + sub[0]
        for pos, name in enumerate("MNK"):
            for slug, text in FLAG_VALUES:
                dims = ["4096", "4096", "4096"]
                dims[pos] = text
                exp = expect_flag_int(slug, huge=EXTREME)
                argv = sub + ["--gemm", ",".join(dims), "--json", "out.json"]
                b.add(Case(f"flag-{sub[0]}-gemm-{name}-{slug}", k, f"{sub[0]} --gemm {','.join(dims)}", argv, {}, exp,
                           flag_locators("--gemm"), json="out.json"))
        for slug, text in FLAG_VALUES:
            argv = sub + ["--gemm", f"{text},64,64,64", "--json", "out.json"]
            b.add(Case(f"flag-{sub[0]}-gemm-B-{slug}", k, f"{sub[0]} --gemm {text},64,64,64", argv, {},
                       expect_flag_int(slug, huge=EXTREME), flag_locators("--gemm"), json="out.json"))
        for g, exp in (("4096,4096", INVALID), ("1,2,3,4,5", INVALID), ("4096,,4096", INVALID), ("", ANY), (",,", INVALID),
                       ("4096,4096,4096,", ANY), (" 64, 64, 64", ANY), ("-0,64,64", INVALID), ("1,1,1", VALID),
                       ("65536,65536,65536", VALID), ("3037000500,3037000500,3037000500", EXTREME),
                       ("2147483648,1,1", EXTREME), ("1,2147483648,2147483648", EXTREME), ("64x64x64", INVALID),
                       ("1,1,9223372036854775807", EXTREME)):
            argv = sub + ["--gemm", g, "--json", "out.json"]
            b.add(Case(f"flag-{sub[0]}-gemm-shape-{g}", k, f"{sub[0]} --gemm {g!r}", argv, {}, exp, flag_locators("--gemm"),
                       json="out.json"))
        for slug, text in FLAG_VALUES:
            argv = sub + ["--elementwise", text, "--json", "out.json"]
            b.add(Case(f"flag-{sub[0]}-elementwise-{slug}", k, f"{sub[0]} --elementwise {text!r}", argv, {},
                       expect_flag_int(slug, huge=EXTREME), flag_locators("--elementwise"), json="out.json"))
            for pos, name in enumerate(("rows", "cols")):
                dims = ["4096", "4096"]
                dims[pos] = text
                argv = sub + ["--reduce", ",".join(dims), "--json", "out.json"]
                b.add(Case(f"flag-{sub[0]}-reduce-{name}-{slug}", k, f"{sub[0]} --reduce {','.join(dims)}", argv, {},
                           expect_flag_int(slug, huge=EXTREME), flag_locators("--reduce"), json="out.json"))
        for r, exp in (("4096", INVALID), ("1,2,3", INVALID), ("0,0", INVALID), ("1,1", VALID)):
            argv = sub + ["--reduce", r, "--json", "out.json"]
            b.add(Case(f"flag-{sub[0]}-reduce-shape-{r}", k, f"{sub[0]} --reduce {r!r}", argv, {}, exp, flag_locators("--reduce"),
                       json="out.json"))
        for hw, dt, exp in (("h100_sxm5", "fp64", INVALID), ("h100_sxm5", "int4", INVALID), ("h100_sxm5", "", INVALID),
                            ("tpu_v4", "fp8", INVALID), ("tpu_v4", "fp16", INVALID), ("h100_sxm5", "BF16", ANY),
                            ("h100_sxm5", "fp32", ANY), ("h100_sxm5", "tf32", VALID)):
            argv = sub + ["--hw", hw, "--gemm", "256,256,256", "--dtype", dt, "--json", "out.json"]
            b.add(Case(f"flag-{sub[0]}-dtype-{hw}-{dt or 'empty'}", k, f"{sub[0]} --hw {hw} --dtype {dt!r}", argv, {}, exp,
                       flag_locators("--dtype") + [re.escape(dt) if dt else r"dtype"], json="out.json"))
        b.add(Case(f"flag-{sub[0]}-gemm-and-elementwise", k, "two ops at once", sub + ["--gemm", "64,64,64", "--elementwise", "64"],
                   {}, ANY, flag_locators("--gemm", "--elementwise")))
        b.add(Case(f"flag-{sub[0]}-no-op", k, "no op given", sub + ["--hw", "tpu_v4"], {}, ANY,
                   flag_locators("--gemm", "--elementwise", "--reduce")))
    for g in ("8192,8192,8192", "1,1,1"):
        b.add(Case(f"flag-op-fine-{g}", "flag_op", f"op --fine --gemm {g}", ["op", "--fine", "--gemm", g, "--json", "out.json"],
                   {}, VALID, flag_locators("--gemm"), json="out.json"))
        b.add(Case(f"flag-op-ideal-{g}", "flag_op", f"op --ideal --gemm {g}", ["op", "--ideal", "--gemm", g, "--json", "out.json"],
                   {}, VALID, flag_locators("--gemm"), json="out.json"))
    # roofline --sweep --points.
    for slug, text in FLAG_VALUES:
        exp = ANY if slug == "plus4" else expect_flag_int(slug, huge=EXTREME)  # at least 6 points
        b.add(Case(f"flag-sweep-points-{slug}", "flag_sweep", f"roofline --sweep --points {text!r}",
                   ["roofline", "--sweep", "--points", text, "--json", "out.json"], {}, exp, flag_locators("--points"), json="out.json"))
    for p, exp in (("1", ANY), ("2", ANY), ("6", VALID), ("100000", EXTREME)):
        b.add(Case(f"flag-sweep-points-n{p}", "flag_sweep", f"roofline --sweep --points {p}", ["roofline", "--sweep", "--points", p, "--json", "out.json"],
                   {}, exp, flag_locators("--points"), json="out.json"))
    for plot, exp in (("chart.txt", INVALID), ("/dev/full", INVALID), ("nodir/chart.png", INVALID), ("chart.svg", VALID)):
        b.add(Case(f"flag-sweep-plot-{plot}", "flag_sweep", f"roofline --sweep --plot {plot}", ["roofline", "--sweep", "--points", "8", "--plot", plot],
                   {}, exp, flag_locators("--plot") + [re.escape(plot)]))
    # collective.
    coll = ["collective", "--bytes", "1MiB"]
    flag_cases_for(b, "flag_collective", ["collective"], "--concurrent", ["--bytes", "1MiB"], huge=INVALID)
    flag_cases_for(b, "flag_collective", ["collective"], "--group", ["--bytes", "1MiB"], huge=INVALID)
    flag_cases_for(b, "flag_collective", ["collective"], "--to", ["--op", "sendrecv", "--bytes", "1MiB"], huge=INVALID, minimum=0,
                   overrides={"zero": INVALID})  # chip 0 sending to itself
    for slug, text in FLAG_VALUES + [("1EiB", "1EiB"), ("1ZiB", "1ZiB"), ("2pow64", "18446744073709551616"),
                                    ("space", "1 MiB"), ("lower", "1mib"), ("frac", "1.5MiB"), ("unit-only", "MiB"),
                                    ("neg-unit", "-1MiB"), ("1GB", "1GB"), ("1", "1"), ("3", "3")]:
        exp = {"zero": ANY, "neg1": INVALID, "i64max": EXTREME, "2pow31": VALID, "huge": EXTREME, "nan": INVALID,
               "inf": INVALID, "garbage": INVALID, "0.4": INVALID, "empty": INVALID, "hex": ANY, "1e3": ANY, "plus4": ANY,
               "1EiB": EXTREME, "1ZiB": INVALID, "2pow64": INVALID, "space": ANY, "lower": ANY, "frac": ANY,
               "unit-only": INVALID, "neg-unit": INVALID, "1GB": VALID, "1": VALID, "3": VALID}[slug]
        for hw, topo in (("h100_sxm5", "switch:8"), ("tpu_v4", "4x4")):
            argv = ["collective", "--hw", hw, "--topology", topo, "--bytes", text, "--json", "out.json"]
            b.add(Case(f"flag-collective-bytes-{hw}-{slug}", "flag_collective", f"collective --hw {hw} --bytes {text!r}", argv,
                       {}, exp, flag_locators("--bytes"), json="out.json"))
    topos = [("4x", INVALID), ("bogus", INVALID), ("0x4", INVALID), ("4x0", INVALID), ("0", INVALID), ("1", ANY), ("-8", INVALID),
             ("1x1x1", ANY), ("4x4x4x4", INVALID), ("99999999x99999999", EXTREME), ("1024x1024x1024", EXTREME),
             ("switch:0", INVALID), ("switch:1", ANY), ("switch:-1", INVALID), ("switch:", INVALID),
             ("switch:9223372036854775807", EXTREME), ("switch:4x4", INVALID), ("4 x 4", ANY), ("4X4", ANY),
             ("2147483648", EXTREME), ("65536", EXTREME), ("", INVALID), ("x", INVALID), ("4x4x", INVALID),
             ("switch:8:8", INVALID), ("nan", INVALID), ("4.5", INVALID), ("3", VALID), ("2x3x5", VALID)]
    topos = [(t, ANY if t == "" else e) for t, e in topos]  # an empty --topology may mean the default
    for topo, exp in topos:
        for hw in ("h100_sxm5", "tpu_v4"):
            argv = ["collective", "--hw", hw, "--topology", topo, "--bytes", "1MiB", "--json", "out.json"]
            b.add(Case(f"flag-collective-topology-{hw}-{topo}", "flag_collective", f"collective --hw {hw} --topology {topo!r}",
                       argv, {}, exp, flag_locators("--topology"), json="out.json"))
    sem = [
        (["--group", "1"], INVALID, "--group"), (["--group", "3"], INVALID, "--group"), (["--group", "16"], INVALID, "--group"),
        (["--op", "sendrecv", "--to", "8"], INVALID, "--to"), (["--op", "sendrecv", "--to", "0"], INVALID, "--to"),
        (["--op", "sendrecv", "--group", "4"], ANY, "--group"), (["--op", "bogus"], INVALID, "--op"), (["--op", ""], INVALID, "--op"),
        (["--algo", "bogus"], INVALID, "--algo"), (["--algo", "torus"], INVALID, "--algo"), (["--algo", "routed"], INVALID, "--algo"),
        (["--algo", "nccl_nvls", "--dtype", "fp8"], INVALID, "--dtype"), (["--dtype", "bogus"], INVALID, "--dtype"),
        (["--dtype", "int4"], ANY, "--dtype"), (["--to", "3"], ANY, "--to"), (["--concurrent", "64", "--bytes", "64MiB"], VALID, "--concurrent"),
        (["--topology", "switch:2", "--group", "4"], INVALID, "--group"), (["--topology", "4x4", "--algo", "switch_reduce"], INVALID, "--algo"),
        (["--topology", "switch:8", "--algo", "torus_split"], INVALID, "--algo"), (["--op", "alltoall", "--algo", "switch_reduce"], INVALID, "--algo"),
        (["--op", "alltoall", "--bytes", "3"], ANY, "--bytes"), (["--op", "reducescatter", "--bytes", "7"], ANY, "--bytes"),
        (["--ideal", "--algo", "nccl"], VALID, "--algo"), (["--topology", "1", "--op", "sendrecv"], INVALID, "--topology"),
    ]
    for extra, exp, loc in sem:
        argv = merge_args(coll, extra) + ["--json", "out.json"]
        b.add(Case("sem-collective-" + "_".join(x.strip("-") for x in extra), "semantic", "collective " + " ".join(extra), argv,
                   {}, exp, flag_locators(loc), json="out.json"))
    for extra, exp, loc in [(["--hw", "tpu_v4", "--topology", "4x4x4", "--algo", "nccl_nvls"], INVALID, "--algo"),
                            (["--hw", "tpu_v4", "--topology", "4x4x4", "--group", "3"], ANY, "--group"),
                            (["--hw", "tpu_v4", "--topology", "4x4x4", "--group", "32"], ANY, "--group"),
                            (["--hw", "tpu_v4", "--topology", "8x8", "--op", "sendrecv", "--to", "64"], INVALID, "--to"),
                            (["--hw", "a100_sxm4_80gb", "--algo", "nccl_nvls"], INVALID, "--algo"),
                            (["--hw", "tpu_v4", "--topology", "switch:8"], ANY, "--topology")]:
        argv = merge_args(coll, extra) + ["--json", "out.json"]
        b.add(Case("sem-collective-" + "_".join(x.strip("-") for x in extra), "semantic", "collective " + " ".join(extra), argv,
                   {}, exp, flag_locators(loc), json="out.json"))
    # cases run.
    for slug, text in (("zero", "0"), ("neg1", "-1"), ("nan", "nan"), ("inf", "inf"), ("huge", "1e308"), ("garbage", "garbage"),
                       ("empty", ""), ("tiny", "1e-300")):
        exp = {"huge": VALID, "tiny": ANY, "inf": ANY}.get(slug, INVALID)
        argv = ["cases", "run", "TTFT-H100-TRT090-GPT-J6B-tp1-128", "--tolerance", text, "--json", "out.json"]
        b.add(Case(f"flag-cases-tolerance-{slug}", "flag_cases", f"cases run --tolerance {text!r}", argv, {}, exp,
                   flag_locators("--tolerance"), json="out.json"))
    for cid, exp in (("bogus", INVALID), ("", INVALID), ("TTFT-H100-TRT090-GPT-J6B-tp1-128\n", INVALID), ("../x", INVALID)):
        b.add(Case(f"flag-cases-id-{cid.strip() or 'empty'}{'-nl' if chr(10) in cid else ''}", "flag_cases", f"cases run {cid!r}",
                   ["cases", "run", cid], {}, exp, [re.escape(cid.strip()) if cid.strip() else r"ID", r"(?i)case"]))
    # Output destinations that cannot be written.
    outs = [("run-json-devfull", ["run"] + RUN_BASE + ["--json", "/dev/full"], "--json"),
            ("run-json-nodir", ["run"] + RUN_BASE + ["--json", "nodir/out.json"], "--json"),
            ("run-json-dir", ["run"] + RUN_BASE + ["--json", "."], "--json"),
            ("run-csv-devfull", ["run"] + RUN_BASE + ["--csv", "/dev/full"], "--csv"),
            ("run-trace-devfull", ["run"] + RUN_BASE + ["--trace", "/dev/full"], "--trace"),
            ("run-trace-nodir", ["run"] + RUN_BASE + ["--trace", "nodir/t.json"], "--trace"),
            ("op-json-devfull", ["op", "--gemm", "64,64,64", "--json", "/dev/full"], "--json"),
            ("collective-json-devfull", ["collective", "--bytes", "1MiB", "--json", "/dev/full"], "--json"),
            ("whatif-csv-devfull", ["whatif"] + RUN_BASE + ["--scale", "compute=2", "--csv", "/dev/full"], "--csv"),
            ("whatif-plot-bad-ext", ["whatif"] + RUN_BASE + ["--scale", "compute=2", "--plot", "chart.txt"], "--plot"),
            ("hw-show-json-devfull", ["hw", "show", "h100_sxm5", "--json", "/dev/full"], "--json"),
            ("roofline-json-devfull", ["roofline", "--json", "/dev/full"], "--json")]
    for slug, argv, flag in outs:
        b.add(Case(f"out-{slug}", "output_path", " ".join(argv[-2:]), argv, {}, INVALID,
                   flag_locators(flag) + [re.escape(argv[argv.index(flag) + 1])], timeout=30 if flag == "--trace" else None))


def merge_args(base, extra):
    """base with extra's options appended, an option both give taking extra's value."""
    out = list(base)
    i = 0
    while i < len(extra):
        a = extra[i]
        has_value = a.startswith("-") and i + 1 < len(extra) and not (extra[i + 1].startswith("--") and len(extra[i + 1]) > 2)
        if a.startswith("-") and a in out and has_value and out.index(a) + 1 < len(out):
            out[out.index(a) + 1] = extra[i + 1]
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def gen_semantic_run(b):
    R = ["run", "--prompt", "16", "--gen", "2"]
    sem = [
        (["--tp", "3"], INVALID, "--tp"), (["--tp", "5"], INVALID, "--tp"), (["--tp", "6"], INVALID, "--tp"),
        (["--tp", "16"], ANY, "--tp"), (["--tp", "64"], INVALID, "--tp"), (["--tp", "1024"], INVALID, "--tp"),
        (["--tp", "3", "--model", "llama-2-7b"], INVALID, "--tp"), (["--tp", "7", "--model", "mixtral-8x7b"], INVALID, "--tp"),
        (["--ep", "3", "--model", "mixtral-8x7b", "--batch", "3"], INVALID, "--ep"),
        (["--ep", "16", "--model", "mixtral-8x7b", "--batch", "16"], INVALID, "--ep"),
        (["--ep", "2", "--batch", "2"], INVALID, "--ep"), (["--ep", "2", "--model", "mixtral-8x7b"], INVALID, "--ep"),
        (["--pp", "33"], INVALID, "--pp"), (["--pp", "32"], VALID, "--pp"), (["--pp", "64"], INVALID, "--pp"),
        (["--pp", "3"], ANY, "--pp"), (["--pp", "2", "--batch", "4", "--microbatches", "3"], INVALID, "--microbatches"),
        (["--pp", "2", "--batch", "4", "--microbatches", "8"], INVALID, "--microbatches"),
        (["--microbatches", "2"], INVALID, "--microbatches"), (["--microbatches", "4", "--batch", "4"], ANY, "--microbatches"),
        (["--prompt", "100000"], EXTREME, "--prompt"), (["--prompt", "1000000"], EXTREME, "--prompt"),
        (["--prompt", "10000000"], EXTREME, "--prompt"), (["--batch", "100000"], INVALID, "--batch"),
        (["--gen", "100000"], EXTREME, "--gen"), (["--gen", "1"], VALID, "--gen"),
        (["--decode-stride", "1000"], ANY, "--decode-stride"), (["--trace-steps", "1000"], ANY, "--trace-steps"),
        (["--tp", "2", "--topology", "4x"], INVALID, "--topology"), (["--tp", "2", "--topology", "bogus"], INVALID, "--topology"),
        (["--tp", "8", "--topology", "switch:4"], INVALID, "--topology"), (["--tp", "8", "--topology", "3"], INVALID, "--topology"),
        (["--tp", "2", "--topology", "4x4"], ANY, "--topology"), (["--topology", "switch:8"], ANY, "--topology"),
        (["--tp", "2", "--topology", "switch:0"], INVALID, "--topology"), (["--tp", "2", "--topology", ""], ANY, "--topology"),
        (["--tp", "4", "--pp", "2", "--hw", "tpu_v4", "--model", "llama-2-7b", "--topology", "4x4"], ANY, "--topology"),
        (["--tp", "4", "--pp", "2", "--hw", "tpu_v4", "--model", "llama-2-7b", "--topology", "2x2"], INVALID, "--topology"),
        (["--tp", "2", "--hw", "tpu_v4", "--topology", "switch:2"], ANY, "--topology"),
        (["--tp", "2", "--hw", "a100_sxm4_80gb", "--topology", "2"], ANY, "--topology"),
        (["--attention", "vector", "--hw", "tpu_v4"], ANY, "--attention"), (["--near-memory", "all"], ANY, "--near-memory"),
        (["--near-memory", "all", "--hw", "h100_pim"], VALID, "--near-memory"),
        (["--weights-dtype", "int4"], VALID, "--weights-dtype"), (["--weights-dtype", "fp64"], INVALID, "--weights-dtype"),
        (["--activations-dtype", "fp8", "--hw", "tpu_v4"], INVALID, "--activations-dtype"),
        (["--activations-dtype", "int8"], INVALID, "--activations-dtype"), (["--kv-dtype", "int4"], INVALID, "--kv-dtype"),
        (["--kv-dtype", "fp32"], ANY, "--kv-dtype"), (["--weights-dtype", ""], INVALID, "--weights-dtype"),
        (["--weights-dtype", "fp8", "--hw", "tpu_v4"], ANY, "--weights-dtype"),
        (["--model", "palm-540b"], INVALID, "--model"), (["--model", "gpt-3-175b", "--hw", "tpu_v4"], INVALID, "--model"),
        (["--model", "bogus"], INVALID, "--model"), (["--model", ""], INVALID, "--model"), (["--model", "/dev/null"], INVALID, "--model"),
        (["--model", "/dev/zero"], INVALID, "--model"), (["--model", "."], INVALID, "--model"),
        (["--model", "x.json"], INVALID, "--model"), (["--hw", "tpu_v4", "--model", "palm-540b", "--tp", "64", "--weights-dtype", "int8"], VALID, "--tp"),
        (["--model", "llama-2-70b", "--tp", "8"], VALID, "--tp"), (["--model", "mixtral-8x7b", "--tp", "2", "--ep", "4", "--batch", "8"], VALID, "--ep"),
        (["--batch", "2", "--ep", "1", "--tp", "1", "--pp", "1", "--microbatches", "1"], VALID, "--microbatches"),
        (["--ideal", "--launch", "per_op"], VALID, "--launch"), (["--launch", "per_op", "--hw", "tpu_v4"], ANY, "--launch"),
        (["--csv", "-"], VALID, "--csv"), (["--json", "-"], VALID, "--json"),
    ]
    for extra, exp, loc in sem:
        argv = merge_args(R, extra)
        if "--json" not in extra:
            argv += ["--json", "out.json"]
        b.add(Case("sem-run-" + "_".join(x.strip("-") for x in extra), "semantic", "run " + " ".join(extra), argv, {}, exp,
                   flag_locators(loc) + given_file_locators(extra, loc), json="out.json" if "--json" not in extra else None))
    W = ["whatif", "--prompt", "16", "--gen", "2"]
    wsem = [(["--variant", "bogus"], INVALID, "--variant"), (["--variant", "/dev/null"], INVALID, "--variant"),
            (["--variant", "tpu_v4"], VALID, "--variant"), (["--scale", "hbm.bandwidth"], INVALID, "--scale"),
            (["--scale", "=2"], INVALID, "--scale"), (["--scale", "hbm.bandwidth=2,hbm.bandwidth=3"], ANY, "--scale"),
            (["--scale", "hbm.bandwidth=2", "--sweep", "batch=1,2"], ANY, "--sweep"),
            (["--set", "hbm.bandwidth_gb_per_s"], INVALID, "--set"), (["--scale", "chip.description=2"], INVALID, "--scale"),
            (["--scale", "matrix.kind=2"], INVALID, "--scale"), (["--scale", "links.bandwidth=2", "--hw", "h100_sxm5"], VALID, "--scale"),
            (["--tp", "3", "--scale", "compute=2"], INVALID, "--tp"), (["--sweep", "tp=1,3"], ANY, "--sweep"),
            (["--sweep", "batch=1,2", "-j", "2"], VALID, "-j"), (["--sweep", "batch=1,2", "--shard", "0/2", "-j", "2"], VALID, "--shard"),
            (["--plot", "chart.png", "--scale", "compute=2"], VALID, "--plot"), (["--merge", "/dev/zero"], INVALID, "--merge"),
            (["--sweep", "batch=1:64:x2", "-j", "2"], VALID, "--sweep")]
    for extra, exp, loc in wsem:
        argv = merge_args(W, extra) + ["--json", "out.json"]
        b.add(Case("sem-whatif-" + "_".join(x.strip("-") for x in extra), "semantic", "whatif " + " ".join(extra), argv, {}, exp,
                   flag_locators(loc) + given_file_locators(extra, loc), json="out.json"))
    misc = [(["hw", "show", "bogus"], INVALID, "bogus"), (["hw", "show"], INVALID, "NAME"), (["hw", "list", "--json", "out.json"], VALID, "-"),
            (["hw", "keys"], VALID, "-"), (["cases", "list"], VALID, "-"), (["bogus-subcommand"], INVALID, "bogus"),
            ([], INVALID, "SUBCOMMAND"), (["run", "--prompt"], INVALID, "--prompt"), (["run", "--prompt", "16", "--prompt", "32"], ANY, "--prompt"),
            (["run", "a.toml", "b.toml"], INVALID, "a.toml|b.toml"), (["--prompt", "16", "run"], INVALID, "--prompt"),
            (["run", "--prompt=16", "--gen=2"], VALID, "-"), (["run", "-prompt", "16"], INVALID, "-prompt"),
            (["validate", "--kernels", "missing-dir"], INVALID, "missing-dir"), (["validate", "--kernels", "/dev/null"], INVALID, "/dev/null"),
            (["validate", "--kernels", "."], INVALID, r"\."), (["validate", "--cases", "missing.csv"], INVALID, "missing.csv"),
            (["validate", "--cases", "/dev/null", "--quick"], INVALID, "/dev/null"),
            (["validate", "--hw", "tpu_v4"], INVALID, "--hw"), (["validate", "--limits", "x.csv"], INVALID, "--limits")]
    for argv, exp, loc in misc:
        b.add(Case("misc-" + ("_".join(x.strip("-").replace("/", "_") for x in argv) or "no-args"), "semantic",
                   " ".join(argv) or "(no arguments)", argv, {}, exp,
                   [re.escape(loc) if loc not in (r"\.", "a.toml|b.toml") else loc]))


# ---- CSV inputs of validate

CASES_HEADER = "id,hw,model,batch,prompt,generate,weights,activations,kv,launch,attention,metric,reference,unit"
CASES_ROW = ["U1", "h100_sxm5", "llama-3-8b", "1", "16", "2", "bf16", "bf16", "bf16", "graph", "fused", "ttft", "6.5", "ms"]


def gen_csv(b, tree, slow_timeout):
    cols = CASES_HEADER.split(",")

    def cases_file(**over):
        row = list(CASES_ROW)
        for k, v in over.items():
            row[cols.index(k)] = v
        return CASES_HEADER + "\n" + ",".join(row) + "\n"

    cases = [("batch-zero", cases_file(batch="0"), INVALID), ("batch-garbage", cases_file(batch="garbage"), INVALID),
             ("batch-i64max", cases_file(batch="9223372036854775807"), INVALID), ("prompt-1e308", cases_file(prompt="1e308"), INVALID),
             ("generate-neg", cases_file(generate="-1"), INVALID), ("weights-fp64", cases_file(weights="fp64"), INVALID),
             ("launch-bogus", cases_file(launch="bogus"), INVALID), ("metric-bogus", cases_file(metric="bogus"), INVALID),
             ("reference-nan", cases_file(reference="nan"), INVALID), ("reference-garbage", cases_file(reference="garbage"), INVALID),
             ("reference-zero", cases_file(reference="0"), INVALID), ("reference-neg", cases_file(reference="-5"), INVALID),
             ("hw-bogus", cases_file(hw="bogus"), INVALID), ("model-bogus", cases_file(model="bogus"), INVALID),
             ("missing-column", CASES_HEADER.replace(",unit", "") + "\n" + ",".join(CASES_ROW[:-1]) + "\n", INVALID),
             ("header-only", CASES_HEADER + "\n", INVALID), ("ragged-row", CASES_HEADER + "\n" + ",".join(CASES_ROW[:5]) + "\n", INVALID)]
    for slug, content, exp in cases:
        b.add(Case(f"csv-cases-{slug}", "csv_cases", f"validate --cases with {slug}",
                   ["validate", "--quick", "--cases", "cases.csv", "--report", "rep.md", "--json", "out.json"],
                   {"cases.csv": content}, exp, file_locators("cases.csv"), timeout=slow_timeout, json="out.json"))
    kdir = tree / "validation" / "kernels" / "h100"
    if not kdir.is_dir():
        return
    base = {}
    for f in sorted(kdir.glob("*.csv")):
        lines = f.read_text().split("\n")
        base[f.name] = lines[:9]  # header + 8 rows
    numeric_cols = {"gemm.csv": ["m", "n", "k", "latency"], "nccl.csv": ["num_gpus", "message_size", "latency"],
                    "custom_allreduce_trtllm.csv": ["num_gpus", "message_size", "latency"],
                    "custom_allreduce_vllm.csv": ["num_gpus", "message_size", "latency"],
                    "moe.csv": ["num_tokens", "hidden_size", "topk", "num_experts"],
                    "generation_attention.csv": ["batch_size", "isl", "num_heads"]}
    not_simulated = {"moe.csv", "generation_attention.csv", "context_attention.csv"}
    text_cols = {"gemm.csv": ["gemm_dtype", "op_name"], "nccl.csv": ["nccl_dtype", "op_name"],
                 "custom_allreduce_trtllm.csv": ["allreduce_dtype", "implementation"]}
    argv = ["validate", "--kernels", "kd", "--report", "rep.md", "--json", "out.json", "--rows-csv", "rows.csv"]

    def files_with(fname, lines):
        files = {f"kd/{n}": "\n".join(l) + "\n" for n, l in base.items()}
        if lines is None:
            files.pop(f"kd/{fname}")
        else:
            files[f"kd/{fname}"] = "\n".join(lines) + "\n"
        return files

    b.add(Case("csv-kernels-base", "csv_kernels", "8 rows of each table as is", argv, files_with("gemm.csv", base["gemm.csv"]),
               VALID, [], json="out.json"))
    for fname, cols_ in numeric_cols.items():
        if fname not in base:
            continue
        header = base[fname][0].split(",")
        for col in cols_:
            if col not in header:
                continue
            ci = header.index(col)
            for slug, _tv, _jv in NUM_VALUES + [("empty", "", None), ("removed-col", None, None)]:
                lines = [l.split(",") for l in base[fname]]
                text = {"garbage": "garbage", "empty": "", "i64max": "9223372036854775807", "2pow63": "9223372036854775808"}.get(slug, _tv)
                if slug == "removed-col":
                    lines = [row[:ci] + row[ci + 1:] for row in lines]
                else:
                    lines[1][ci] = text.strip('"')
                cons = "num>0" if col == "latency" else "int>0"
                exp = INVALID if slug in ("empty", "removed-col") else expect_number(cons, slug)
                if (col == "latency" and slug == "tiny") or fname in not_simulated:
                    exp = ANY
                if col == "latency" and slug == "2pow63":
                    exp = EXTREME  # a float column: 9.2e18 parses
                b.add(Case(f"csv-kernels-{fname[:-4]}-{col}-{slug}", "csv_kernels", f"kernels {fname} row 1 {col} = {text}",
                           argv, files_with(fname, [",".join(r) for r in lines]), exp,
                           file_locators(fname, col, slug == "removed-col"), json="out.json"))
        for col in text_cols.get(fname, []):
            if col not in header:
                continue
            ci = header.index(col)
            for val in ("bogus", "", '"quoted,comma"', "ＢＦ16"):
                lines = [l.split(",") for l in base[fname]]
                lines[1][ci] = val
                b.add(Case(f"csv-kernels-{fname[:-4]}-{col}-{slugify(val) or 'empty'}", "csv_kernels",
                           f"kernels {fname} row 1 {col} = {val!r}", argv, files_with(fname, [",".join(r) for r in lines]), ANY,
                           file_locators(fname, col), json="out.json"))
    g = base["gemm.csv"]
    structural = [("header-only", [g[0]], ANY), ("empty", [""], ANY), ("ragged-short", g[:2] + [",".join(g[2].split(",")[:4])], INVALID),
                  ("ragged-long", g[:2] + [g[2] + ",extra,cells"], INVALID), ("dup-column", [g[0] + ",m"] + [r + ",1" for r in g[1:]], INVALID),
                  ("bom", ["\ufeff" + g[0]] + g[1:], ANY), ("crlf", [r + "\r" for r in g], VALID), ("unterminated-quote", g + ['"abc,1,2'], INVALID),
                  ("nul-byte", g[:2] + [g[2].replace(",", "\0,", 1)], INVALID), ("blank-lines", g[:2] + ["", ""] + g[2:], ANY),
                  ("no-header", g[1:], INVALID), ("missing", None, ANY)]
    for slug, lines, exp in structural:
        b.add(Case(f"csv-kernels-gemm-struct-{slug}", "csv_kernels", f"kernels gemm.csv {slug}", argv, files_with("gemm.csv", lines),
                   exp, file_locators("gemm.csv"), json="out.json"))
    lim_head = "family,max_mape_percent\n"
    limits = [("nan", lim_head + "gemm bf16,nan\n", INVALID), ("neg", lim_head + "gemm bf16,-1\n", INVALID),
              ("garbage", lim_head + "gemm bf16,garbage\n", INVALID), ("unknown-family", lim_head + "bogus family,10\n", ANY),
              ("empty", "", ANY), ("no-value", lim_head + "gemm bf16\n", INVALID), ("inf", lim_head + "gemm bf16,inf\n", INVALID),
              ("ok", lim_head + "gemm bf16,1000\n", VALID)]
    for slug, content, exp in limits:
        files = files_with("gemm.csv", base["gemm.csv"])
        files["limits.csv"] = content
        b.add(Case(f"csv-kernels-limits-{slug}", "csv_kernels", f"kernels --limits {slug}", argv + ["--limits", "limits.csv"], files,
                   exp, file_locators("limits.csv"), json="out.json"))
    for hw, exp in (("tpu_v4", ANY), ("bogus", INVALID)):
        b.add(Case(f"csv-kernels-hw-{hw}", "csv_kernels", f"kernels on --hw {hw}", argv + ["--hw", hw],
                   files_with("gemm.csv", base["gemm.csv"]), exp, flag_locators("--hw") + [re.escape(hw)], json="out.json"))


def generate(tree, keytable, slow_timeout):
    b = Builder()
    gen_hardware(b, tree, keytable)
    gen_models(b, tree)
    gen_hf(b)
    gen_experiments(b, tree)
    gen_flags(b)
    gen_semantic_run(b)
    gen_csv(b, tree, slow_timeout)
    return b.cases


# ----------------------------------------------------------------------------------------------
# Running and classifying

CRASH_RE = re.compile(r"uncaught exception|E549|terminate called|Segmentation|AddressSanitizer|runtime error:|Aborted|core dumped|"
                      r"stack smashing|double free|free\(\): |malloc\(\): |corrupted", re.I)
MEM_RE = re.compile(r"bad_alloc|Cannot allocate memory|out of memory|memory exhausted|std::length_error.*vector", re.I)
NANINF_RE = re.compile(r"(?<![\w.-])[-+]?(?:nan|inf|infinity)(?![\w-])(?! Fabric)", re.I)  # AMD's Infinity Fabric is a link
NEG_RE = re.compile(r"(?<![\w.\-+])-\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?\s?(?:ps|ns|us|µs|ms|s|B|kB|KB|MB|GB|TB|PB|EB|KiB|MiB|GiB|TiB|"
                    r"[kMGTPE]?FLOP/s|[kMGTPE]?FLOP|[kMGTPE]?B/s|tokens/s|tok/s)(?![\w/])")
POSITIVE_KEYS = {"sim_time_s", "bound_time_s", "ttft_s", "bound_ttft_s", "total_s", "bound_total_s", "throughput_tok_s"}
DECODE_KEYS = {"tpot_s", "bound_tpot_s", "decode_tok_s"}
NONNEG_RE = re.compile(r"(_s|bytes|flops|events|jobs|count|chips|steps|intensity|algbw|busbw|utilisation|capacity|weights|kv_cache|"
                       r"activations|total|ridge|bandwidth|percent_of_roof|batch|prompt|generate|^tp|^pp|^ep|group|concurrent)$")


def json_problems(obj, path="", problems=None, generate=None):
    if problems is None:
        problems = []
    if len(problems) > 5:
        return problems
    if isinstance(obj, dict):
        gen = obj.get("generate", generate)
        for k, v in obj.items():
            p = f"{path}.{k}" if path else k
            if isinstance(v, bool):
                continue
            if isinstance(v, (int, float)):
                if isinstance(v, float) and not math.isfinite(v):
                    problems.append(f"{p}={v}")
                elif v < 0 and NONNEG_RE.search(k) and "error" not in k and "signed" not in k and ".gap." not in p:
                    problems.append(f"{p}={v:g} negative")
                elif k in POSITIVE_KEYS and v <= 0:
                    problems.append(f"{p}={v:g} not positive")
                elif k in DECODE_KEYS and v <= 0 and (gen is None or gen > 1):
                    problems.append(f"{p}={v:g} not positive")
                elif k == "utilisation" and v > 1 + 1e-9:
                    problems.append(f"{p}={v:g} above 1")
            elif v is None:
                if k in POSITIVE_KEYS or (k in DECODE_KEYS and (gen is None or gen > 1)):
                    problems.append(f"{p}=null (NaN?)")
            else:
                json_problems(v, p, problems, gen)
        for sim, bound in (("sim_time_s", "bound_time_s"), ("ttft_s", "bound_ttft_s"), ("tpot_s", "bound_tpot_s"),
                           ("total_s", "bound_total_s"), ("tpot_s", "decode_speed_of_light_s")):
            s, bd = obj.get(sim), obj.get(bound)
            if bound == "decode_speed_of_light_s" and isinstance(obj.get("bound_tpot_s"), (int, float)) and \
                    isinstance(bd, (int, float)) and obj["bound_tpot_s"] < bd:
                continue  # near-memory units: the bound itself is below the HBM speed of light
            if isinstance(s, (int, float)) and isinstance(bd, (int, float)) and math.isfinite(s) and math.isfinite(bd):
                tol = 1e-6
                if "topology" in obj and "algorithm" in obj:
                    tol = 1e-3  # a collective's closed form, rounded to the kernel's time resolution
                if s < bd * (1 - tol) - 2e-12:
                    problems.append(f"{path or 'top'}: {sim}={s:.6g} < {bound}={bd:.6g} (faster than the bound)")
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:20000]):
            json_problems(v, f"{path}[{i}]", problems, generate)
    return problems


def text_problems(text):
    probs = []
    m = NANINF_RE.search(text)
    if m:
        line = text[text.rfind("\n", 0, m.start()) + 1: text.find("\n", m.end())].strip()
        probs.append(f"'{m.group(0)}' in output: {line[:120]}")
    m = NEG_RE.search(text)
    if m:
        line = text[text.rfind("\n", 0, m.start()) + 1: text.find("\n", m.end())].strip()
        probs.append(f"negative quantity '{m.group(0)}': {line[:120]}")
    return probs


def first_line(stderr):
    lines = [l.strip() for l in stderr.replace("\r", "\n").split("\n") if l.strip()]
    for l in lines:
        if re.search(r"error|terminate|exception|Segmentation|runtime error|abort|warning", l, re.I):
            return l[:300]
    return lines[0][:300] if lines else ""


def classify(case, rc, timed_out, stdout, stderr, json_text):
    """(class, detail)."""
    if timed_out:
        last = [l.strip() for l in stderr.replace("\r", "\n").split("\n") if l.strip()]
        return "hang", "timeout" + (f"; last stderr line: {last[-1][:150]}" if last else "")
    # SystemC reports an uncaught exception (E549) on standard output.
    both = stderr + "\n" + (stdout if len(stdout) <= 40000 else stdout[:20000] + "\n" + stdout[-20000:])
    mem = MEM_RE.search(both)
    if rc is not None and rc < 0:
        sig = -rc
        if sig == signal.SIGXFSZ:
            return "hang", "file size limit (SIGXFSZ)"
        if mem:
            return "hang", f"memory limit ({mem.group(0)}), killed by {signal.Signals(sig).name}"
        return "crash", f"killed by {signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig}"
    if mem:
        line = both[both.rfind("\n", 0, mem.start()) + 1: both.find("\n", mem.end()) if both.find("\n", mem.end()) >= 0 else None]
        return "hang", f"memory limit, exit {rc}: {line.strip()[:200]}"
    m = CRASH_RE.search(both)
    if m:
        line = both[both.rfind("\n", 0, m.start()) + 1: both.find("\n", m.end()) if both.find("\n", m.end()) >= 0 else None]
        return "crash", f"exit {rc}: {line.strip()[:200]}"
    if rc == 3:
        return "internal", "exit 3"
    if rc in (1, 2) or (rc is not None and 100 <= rc <= 114):
        if any(re.search(l, stderr) for l in case.locators):
            return "refused_located", f"exit {rc}"
        return "refused_unlocated", f"exit {rc}"
    if rc != 0:
        return "crash", f"exit status {rc}"
    probs = text_problems(stdout)
    if json_text is not None:
        try:
            probs += json_problems(json.loads(json_text))
        except ValueError as e:
            if case.json and case.json != "-":
                probs.append(f"--json output is not valid JSON: {e}"[:160])
    if case.expect == INVALID:
        return "suspicious_ok", "accepted nonsense" + ("; " + "; ".join(probs) if probs else "")
    if probs:
        return "suspicious_ok", "; ".join(probs)[:400]
    return "ok", ""


def read_head(path, limit):
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
        return data.decode("utf-8", "replace")
    except OSError:
        return ""


def read_stderr(path, limit=1 << 20):
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if size <= 2 * limit:
                data = f.read()
            else:
                data = f.read(limit) + b"\n...\n"
                f.seek(size - limit)
                data += f.read()
        return data.decode("utf-8", "replace")
    except OSError:
        return ""


class Runner:
    def __init__(self, binary, env, work, timeout, mem_bytes, keep):
        self.binary, self.env, self.work, self.timeout, self.mem, self.keep = binary, env, work, timeout, mem_bytes, keep

    def limits(self):
        resource.setrlimit(resource.RLIMIT_AS, (self.mem, self.mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def start(self, case):
        d = Path(tempfile.mkdtemp(prefix="c-", dir=self.work))
        for name, content in case.files.items():
            p = d / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogateescape"))
        argv = [self.binary] + [a.replace("{BIN}", self.binary) for a in case.argv]
        out = open(d / ".stdout", "wb")
        err = open(d / ".stderr", "wb")
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=d, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=self.env,
                             start_new_session=True, preexec_fn=self.limits)
        out.close()
        err.close()
        return {"case": case, "proc": p, "dir": d, "t0": t0, "deadline": t0 + (case.timeout or self.timeout)}

    def finish(self, job, timed_out):
        p, d, case = job["proc"], job["dir"], job["case"]
        secs = time.monotonic() - job["t0"]
        if timed_out:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
        else:
            try:  # reap any worker processes it left behind
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        rc = p.returncode
        stdout = read_head(d / ".stdout", 4 << 20)
        stderr = read_stderr(d / ".stderr")
        json_text = None
        if case.json and (d / case.json).is_file() and (d / case.json).stat().st_size < (64 << 20):
            json_text = read_head(d / case.json, 64 << 20)
        elif "--json" in case.argv and case.argv[case.argv.index("--json") + 1] == "-":
            json_text = None  # the JSON is in stdout, mixed with nothing else: checked as text
        cls, detail = classify(case, rc, timed_out, stdout, stderr, json_text)
        if not self.keep:
            shutil.rmtree(d, ignore_errors=True)
        return {"id": case.id, "kind": case.kind, "input": case.desc, "command": case.command(),
                "rc": "timeout" if timed_out else rc, "class": cls, "stderr": first_line(stderr),
                "seconds": f"{secs:.2f}", "expect": case.expect, "detail": detail}


def run_all(cases, runner, jobs, progress=True):
    pending = list(cases)
    pending.reverse()
    running, results = [], {}
    done, n, t_start = 0, len(cases), time.monotonic()
    last = t_start
    while pending or running:
        while pending and len(running) < jobs:
            running.append(runner.start(pending.pop()))
        time.sleep(0.005)
        now = time.monotonic()
        still = []
        for job in running:
            rc = job["proc"].poll()
            if rc is not None:
                results[job["case"].id] = runner.finish(job, False)
                done += 1
            elif now > job["deadline"]:
                results[job["case"].id] = runner.finish(job, True)
                done += 1
            else:
                still.append(job)
        running = still
        if progress and (now - last > 15 or done == n) and done:
            last = now
            c = Counter(r["class"] for r in results.values())
            sys.stderr.write(f"\r[{done}/{n}] {now - t_start:.0f}s " + " ".join(f"{k}={c[k]}" for k in CLASSES if c[k]) + "   \n")
            sys.stderr.flush()
    return [results[c.id] for c in cases]


# ----------------------------------------------------------------------------------------------
# Set-up, output

def snapshot_tree(source, work):
    """configs/ and validation/ as the binary should read them: from git HEAD (default) or the working tree."""
    tree = work / "tree"
    tree.mkdir(parents=True, exist_ok=True)
    if source == "head":
        try:
            data = subprocess.run(["git", "-C", str(REPO), "archive", "HEAD", "configs", "validation"], capture_output=True,
                                  check=True).stdout
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                t.extractall(tree)
            return tree
        except (OSError, subprocess.CalledProcessError, tarfile.TarError):
            sys.stderr.write("campaign: git archive HEAD failed; using the working tree's configs\n")
    for sub in ("configs", "validation"):
        shutil.copytree(REPO / sub, tree / sub, dirs_exist_ok=True)
    return tree


def summarize(results, out=sys.stdout, max_list=None):
    total = len(results)
    byclass = Counter(r["class"] for r in results)
    out.write(f"\n{total} cases\n\nby class:\n")
    for c in CLASSES:
        out.write(f"  {c:18} {byclass[c]:6}\n")
    kinds = sorted(set(r["kind"] for r in results))
    short = {"crash": "crash", "internal": "intern", "hang": "hang", "suspicious_ok": "susp", "refused_unlocated": "unloc",
             "refused_located": "located", "ok": "ok"}
    out.write("\nby input kind:\n  " + f"{'kind':24}" + "".join(f"{short[c]:>8}" for c in CLASSES) + f"{'total':>8}\n")
    for k in kinds:
        cnt = Counter(r["class"] for r in results if r["kind"] == k)
        out.write(f"  {k:24}" + "".join(f"{cnt[c]:8}" for c in CLASSES) + f"{sum(cnt.values()):8}\n")
    false_ref = [r for r in results if r["expect"] == VALID and r["class"].startswith("refused")]
    out.write(f"\nrefused although expected valid: {len(false_ref)}\n")
    for c in CLASSES:
        if c in ("ok", "refused_located"):
            continue
        rs = [r for r in results if r["class"] == c]
        if not rs:
            continue
        out.write(f"\n== {c} ({len(rs)})\n")
        for r in rs[: max_list or len(rs)]:
            why = r["detail"] if c == "suspicious_ok" else r["stderr"] or r["detail"]
            out.write(f"  {r['id']}\n      $ {r['command'][:220]}\n      rc={r['rc']} {r['seconds']}s: {why[:220]}\n")
        if max_list and len(rs) > max_list:
            out.write(f"  ... {len(rs) - max_list} more\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(REPO / "build" / "sim" / "roofsim"), help="roofsim binary (copied before the run)")
    ap.add_argument("--configs", choices=("head", "worktree"), default="head",
                    help="configs/ and validation/ the binary reads (ROOFSIM_CONFIG_DIR): git HEAD (default) or the working tree")
    ap.add_argument("--out", default="results.csv", help="CSV of every case (default results.csv)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel processes (default 2)")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    ap.add_argument("--slow-timeout", type=float, default=120.0,
                    help="seconds for 'validate --quick --cases' cases, which run the quick suite first (default 120)")
    ap.add_argument("--mem-gib", type=float, default=4.0, help="address-space limit per process in GiB (default 4)")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N cases (after --filter)")
    ap.add_argument("--every", type=int, default=1, help="run every Nth case (after --filter; a sample spread over every kind, for CI)")
    ap.add_argument("--gate", action="store_true",
                    help="exit 1 when a case is a crash, hang, internal error, suspicious success or unlocated refusal")
    ap.add_argument("--filter", action="append", default=[], help="only cases whose id, kind or command contains SUBSTR (repeatable: any)")
    ap.add_argument("--exclude", action="append", default=[], help="skip cases whose id, kind or command contains SUBSTR")
    ap.add_argument("--from", dest="from_csv", help="with --classes: only the cases of an earlier results CSV in those classes")
    ap.add_argument("--classes", default="", help="comma-separated classes to take from --from (e.g. crash,hang,suspicious_ok)")
    ap.add_argument("--list", action="store_true", help="print the cases (id, kind, expectation, command) and exit")
    ap.add_argument("--max-list", type=int, default=0, help="in the summary, list at most N cases per class (default all)")
    ap.add_argument("--workdir", help="scratch folder (default: a new temporary one, removed afterwards)")
    ap.add_argument("--keep", action="store_true", help="keep each case's folder (inputs, stdout, stderr, JSON)")
    args = ap.parse_args()

    work = Path(args.workdir or tempfile.mkdtemp(prefix="roofsim-badinput-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        binary = work / "roofsim"
        shutil.copy2(args.binary, binary)  # others may rebuild the tree's binary while we run
        tree = snapshot_tree(args.configs, work)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOFSIM")}
        env.update({"ROOFSIM_CONFIG_DIR": str(tree / "configs"), "LC_ALL": "C", "LANG": "C"})
        keytable = hw_key_table(str(binary), env)
        cases = generate(tree, keytable, args.slow_timeout)
        if args.filter:
            cases = [c for c in cases if any(f in c.id or f == c.kind or f in c.command() for f in args.filter)]
        if args.exclude:
            cases = [c for c in cases if not any(f in c.id or f == c.kind or f in c.command() for f in args.exclude)]
        if args.from_csv:
            want = set(x for x in args.classes.split(",") if x)
            with open(args.from_csv, newline="") as f:
                keep = {r["id"] for r in csv.DictReader(f) if not want or r["class"] in want}
            cases = [c for c in cases if c.id in keep]
        if args.every > 1:
            cases = cases[:: args.every]
        if args.limit:
            cases = cases[: args.limit]
        if args.list:
            for c in cases:
                print(f"{c.id}\t{c.kind}\t{c.expect}\t" + c.command().replace("\n", "\\n"))
            print(f"{len(cases)} cases", file=sys.stderr)
            return 0
        runs = work / "runs"
        runs.mkdir(exist_ok=True)
        runner = Runner(str(binary), env, runs, args.timeout, int(args.mem_gib * (1 << 30)), args.keep)
        sys.stderr.write(f"campaign: {len(cases)} cases, -j {args.jobs}, timeout {args.timeout:g} s, memory {args.mem_gib:g} GiB, "
                         f"configs from {args.configs}, scratch {work}\n")
        t0 = time.monotonic()
        results = run_all(cases, runner, max(1, args.jobs))
        with open(args.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["id", "kind", "input", "command", "rc", "class", "stderr", "seconds", "expect", "detail"])
            w.writeheader()
            for r in results:
                w.writerow(r)
        summarize(results, max_list=args.max_list or None)
        print(f"\nwall time {time.monotonic() - t0:.0f} s; results in {args.out}")
        bad = [r for r in results if r["class"] not in ("ok", "refused_located")]
        if args.gate and bad:
            print(f"campaign: {len(bad)} of {len(results)} cases neither ok nor a located refusal (listed above)", file=sys.stderr)
            return 1
        return 0
    finally:
        if not args.workdir and not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
