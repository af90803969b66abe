"""The roofsim ui server: the page, its vendored chart libraries and a JSON API over the roofsim
module (docs/ui.md). Standard library only.

Every call into the module runs in a forked child process: SystemC keeps one simulation per
process, a crash or a runaway run takes only its child with it, several browser tabs simulate at
once, and cancelling a simulation kills its child. Bad requests get 400 and a message (the
module's InputError messages where it has one); the server itself never stops on a request.
"""
import hashlib
import http.server
import json
import math
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import traceback
import urllib.parse
import webbrowser

import roofsim

HERE = os.path.dirname(os.path.abspath(__file__))
UI_DIR = os.path.dirname(HERE)
STATIC_DIR = os.path.join(UI_DIR, "static")
NODE_MODULES = os.environ.get("ROOFSIM_UI_NODE_MODULES", os.path.join(UI_DIR, "node_modules"))
VENDOR = {
    "vega.min.js": "vega/build/vega.min.js",
    "vega-lite.min.js": "vega-lite/build/vega-lite.min.js",
    "vega-embed.min.js": "vega-embed/build/vega-embed.min.js",
}
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
                 ".png": "image/png"}
MAX_BODY = 2 << 20          # bytes of a request body
MAX_UPLOAD = 1 << 20        # characters of an uploaded file
MAX_UPLOADS = 64            # distinct uploads one server keeps (64 MiB of files at most)
SYNC_TIMEOUT_S = 60         # analyze, uploads, hardware summaries
STALE_JOB_S = 60            # a running job nobody asked about for this long is killed
MAX_JOB_S = 900             # a running job is killed after this long, polled or not
MAX_EVENTS = 500e6          # the most kernel events a web client may allow (the library's default guard)
REQUEST_TIMEOUT_S = 30      # a request whose headers or body stop arriving for this long is dropped
KEEP_FINISHED_S = 600       # finished jobs are forgotten after this long
# Every setting as declared once (roofsim.settings(), `roofsim settings --json`): the page's
# choices and defaults come from it, so they are the command line's.
SETTINGS = roofsim.settings()["domains"]


RUN_DEFAULTS = {s["name"]: s["default"] for s in SETTINGS["run"]["settings"]}


def setting_choices(domain, name):
    """The values a choice setting takes, as its table lists them."""
    return next(s for s in SETTINGS[domain]["settings"] if s["name"] == name)["choices"]


DTYPES = {"weights": setting_choices("run", "weights_dtype"), "activations": setting_choices("run", "activations_dtype"),
          "kv": setting_choices("run", "kv_dtype")}
# What-if knobs: friendly names the module's Hardware.scale takes, and plain hardware keys.
WHATIF_KNOBS = ["hbm.bandwidth", "compute", "links.bandwidth", "pim.flops_per_clock"]
DEFAULT_SWEEPS_DIR = os.path.join(os.path.dirname(UI_DIR), "configs", "sweeps")
# Collectives: the settings of roofsim.collective and their types (bool before int: JSON true is no size).
# Collectives: roofsim.collective's keyword arguments and their values, as declared.
COLLECTIVE_SETTINGS = {c["name"]: c for c in SETTINGS["collective"]["settings"]}
COLLECTIVE_OPS = setting_choices("collective", "op")
COLLECTIVE_ALGOS = setting_choices("collective", "algo")
MAX_COLLECTIVE_BYTES = 1 << 40
MAX_SWEEP_POINTS = 32
SCHEDULERS = setting_choices("serving", "scheduler")


class BadRequest(Exception):
    """A request the server refuses with 400 (or `status`) and this message."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


def throttled_progress(emit):
    """A progress(done, total, what) callback for the module that emits at most ten reports a
    second (and always the last), so a long run does not flood the pipe to the server."""
    last = [0.0]

    def progress(done, total, what):
        now = time.monotonic()
        if now - last[0] > 0.1 or done == total:
            last[0] = now
            emit({"progress": {"done": done, "total": total, "what": what}})
    return progress


def finite(obj):
    """The object with NaN and infinities as None (JSON has no such numbers)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def dumps(obj):
    return json.dumps(finite(obj), allow_nan=False, separators=(",", ":"))


def _no_constant(name):
    raise BadRequest(f"malformed JSON: {name} is not a number JSON allows")


def parse_json(body):
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except BadRequest:
        raise
    except (UnicodeDecodeError, ValueError) as e:
        raise BadRequest(f"malformed JSON: {e}")
    except RecursionError:
        raise BadRequest("malformed JSON: nested too deeply")


# --- child processes -------------------------------------------------------------------------

def _child_message(kind, message):
    return {"error": message, "kind": kind}


def _run_child(fd, fn, replace):
    """In the child: run fn(emit) and write its result (or error) as the last line to fd."""
    def emit(obj):
        data = (dumps(obj) + "\n").encode()
        while data:
            n = os.write(fd, data)
            data = data[n:]
    try:
        try:
            out = {"result": fn(emit)}
        except (roofsim.InputError, ValueError, TypeError, OverflowError) as e:
            text = str(e)
            for a, b in replace.items():
                text = text.replace(a, b)
            out = _child_message("input", text)
        except KeyboardInterrupt:
            out = _child_message("cancelled", "cancelled")
        except BaseException as e:  # noqa: B902 - everything goes back to the parent
            out = _child_message("internal", f"{type(e).__name__}: {e}")
        emit(out)
    finally:
        os._exit(0)


def fork_child(fn, replace=None):
    """Forks; the child runs fn(emit). Returns (pid, read fd)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _run_child(w, fn, replace or {})
    os.close(w)
    return pid, r


def _reap(pid):
    try:
        _, status = os.waitpid(pid, 0)
        return status
    except ChildProcessError:
        return 0


def _ended_without_result(status):
    if os.WIFSIGNALED(status):
        return _child_message("internal", f"the simulation process ended by signal {os.WTERMSIG(status)} without a result")
    return _child_message("internal", "the simulation process ended without a result")


def call_in_child(fn, timeout=SYNC_TIMEOUT_S, replace=None):
    """fn(emit) in a child; its result, or BadRequest / RuntimeError with its message."""
    pid, r = fork_child(fn, replace)
    buf = b""
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                raise BadRequest(f"took more than {timeout} s; refused", 400)
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            buf += chunk
    finally:
        os.close(r)
        status = _reap(pid)
    lines = [line for line in buf.split(b"\n") if line.strip()]
    msg = json.loads(lines[-1]) if lines else _ended_without_result(status)
    if "result" in msg:
        return msg["result"]
    if msg.get("kind") == "input":
        raise BadRequest(msg["error"])
    raise RuntimeError(msg["error"])


class Job:
    """A simulation in a child process; a thread reads its progress and result."""

    def __init__(self, job_id, fn, replace):
        self.id = job_id
        self.state = "running"
        self.progress = {"done": 0, "total": 0, "what": "starting"}
        self.result = None
        self.error = None
        self.error_kind = None
        self.started = time.time()
        self.ended = None
        self.seen = time.monotonic()
        self.lock = threading.Lock()
        self.pid, self.fd = fork_child(fn, replace)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        last = None
        with os.fdopen(self.fd, "rb") as f:
            for line in f:
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "progress" in msg:
                    with self.lock:
                        self.progress = msg["progress"]
                else:
                    last = msg
        status = _reap(self.pid)
        with self.lock:
            self.ended = time.time()
            if self.state == "cancelled":
                return
            if last is None:
                last = _ended_without_result(status)
            if "result" in last:
                self.state, self.result = "done", last["result"]
            else:
                self.state, self.error, self.error_kind = "error", last["error"], last.get("kind")

    def cancel(self, reason="cancelled"):
        with self.lock:
            if self.state != "running":
                return
            self.state = "cancelled"
            self.error = reason
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def view(self):
        with self.lock:
            self.seen = time.monotonic()
            out = {"id": self.id, "state": self.state, "progress": self.progress,
                   "elapsed_s": (self.ended or time.time()) - self.started}
            if self.state == "done":
                out["result"] = self.result
            elif self.state in ("error", "cancelled"):
                out["error"] = self.error
                out["kind"] = self.error_kind or self.state
            return out


# --- the application -------------------------------------------------------------------------

class App:
    def __init__(self, max_jobs=4, sweeps_dir=None):
        self.max_jobs = max_jobs
        self.sweeps_dir = os.path.abspath(sweeps_dir or DEFAULT_SWEEPS_DIR)
        self.jobs = {}
        self.jobs_lock = threading.Lock()
        self.analyses = 0  # analyses running now (each in a child process), counted with the jobs
        self.next_job = 1
        self.upload_dir = tempfile.mkdtemp(prefix="roofsim-ui-")
        self.uploads = {}  # id -> (kind, path, file name)
        # Models: the TOML presets and the shipped Hugging Face configs by hub id
        # ("deepseek-ai/DeepSeek-V3"), with their sizes for the picker's labels.
        self.model_rows = roofsim.models()
        self.presets = {"hardware": roofsim.presets("hardware"), "models": [r["name"] for r in self.model_rows],
                        "stacks": roofsim.presets("stacks")}
        threading.Thread(target=self._reaper, daemon=True).start()

    # Settings: the names of `roofsim run`'s flags with underscores; hw and model are preset
    # names or upload ids (never paths: the page names files only by uploading them).
    def resolve(self, settings, replace):
        if not isinstance(settings, dict):
            raise BadRequest("settings: expected an object of run settings ({\"model\": \"llama-3-8b\", \"batch\": 8, ...})")
        s = dict(settings)
        for key in ("hw", "model"):
            value = s.get(key, RUN_DEFAULTS[key])
            if not isinstance(value, str):
                raise BadRequest(f"{key}={json.dumps(value)}: expected a preset name or an upload id")
            if value.startswith("upload:"):
                up = self.uploads.get(value)
                if up is None:
                    raise BadRequest(f"{key}: the upload '{value}' is not on this server (it keeps uploads while it "
                                     "runs): upload the file again")
                s[key] = up[1]
                replace[up[1]] = up[2]
            elif value not in self.presets["hardware" if key == "hw" else "models"]:
                kind = "hardware" if key == "hw" else "models"
                raise BadRequest(f"{key}='{value}': not a preset (presets: {', '.join(self.presets[kind])}); "
                                 "upload a file for anything else")
            else:
                s[key] = value
        for key in ("trace_steps", "requests_from", "trace_file"):
            s.pop(key, None)
        if "stack" in s:
            # A preset (NAME or NAME@VERSION), never a file on the server.
            stack = s["stack"]
            if not isinstance(stack, str) or stack.split("@")[0] not in self.presets["stacks"]:
                raise BadRequest(f"stack={json.dumps(stack)}: expected one of {', '.join(self.presets['stacks'])} "
                                 "(optionally @VERSION)")
        if "max_events" in s:
            # The work guard is the library's; a web client may lower it, never lift it (0 = none).
            v = s["max_events"]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_EVENTS:
                raise BadRequest(f"max_events={json.dumps(v)}: expected a number of events from 1 to {MAX_EVENTS:.0f}")
        return s

    @staticmethod
    def edits_from(edits):
        """{"scale": {knob: factor}, "set": {key: value}} checked as far as types go."""
        if edits is None:
            return {}, {}
        if not isinstance(edits, dict) or not set(edits) <= {"scale", "set"}:
            raise BadRequest('edits: expected {"scale": {"hbm.bandwidth": 2, ...}, "set": {"key": value, ...}}')
        out = []
        for part in ("scale", "set"):
            d = edits.get(part) or {}
            if not isinstance(d, dict):
                raise BadRequest(f"edits.{part}: expected an object of hardware keys and numbers")
            for k, v in d.items():
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                    raise BadRequest(f"edits.{part}.{k}={json.dumps(v)}: expected a number")
                if part == "scale" and not v > 0:
                    raise BadRequest(f"edits.scale.{k}={v}: the factor must be positive")
            out.append({str(k): float(v) for k, v in d.items()})
        return out[0], out[1]

    def analyze(self, body):
        replace = {}
        s = self.resolve(body.get("settings", body), replace)
        scale, setk = self.edits_from(body.get("edits"))

        def fn(emit):
            hw = self._hardware(s.pop("hw"), scale, setk)
            return roofsim.analyze(hw=hw, **s)
        return self._counted_child(fn, replace)

    def graph(self, body):
        """The operator graph of the settings' run (roofsim.graph), drawn as SVG by Graphviz's dot."""
        replace = {}
        s = self.resolve(body.get("settings", body), replace)
        scale, setk = self.edits_from(body.get("edits"))
        layers = body.get("layers", 1)
        if not isinstance(layers, int) or isinstance(layers, bool) or not 1 <= layers <= 8:
            raise BadRequest(f"layers={layers!r}: draw 1 to 8 decoder layers")

        def fn(emit):
            hw = self._hardware(s.pop("hw"), scale, setk)
            return roofsim.graph(hw=hw, layers=layers, **s)
        dot_text = self._counted_child(fn, replace)
        if not shutil.which("dot"):
            raise BadRequest("drawing the graph needs Graphviz's dot (apt-get install graphviz)", 501)
        try:
            drawn = subprocess.run(["dot", "-Tsvg"], input=dot_text.encode(), capture_output=True, timeout=SYNC_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise BadRequest(f"Graphviz's dot took more than {SYNC_TIMEOUT_S:g} s", 504)
        if drawn.returncode != 0:
            raise BadRequest("Graphviz's dot could not draw the graph: " + drawn.stderr.decode(errors="replace")[:300], 500)
        return {"svg": drawn.stdout.decode(), "dot": dot_text}

    def _counted_child(self, fn, replace):
        # An analysis is a child process too: it counts against --max-jobs with the simulations.
        with self.jobs_lock:
            busy = sum(1 for j in self.jobs.values() if j.state == "running") + self.analyses
            if busy >= self.max_jobs:
                raise BadRequest(f"{busy} simulations and analyses are running already (at most {self.max_jobs}): "
                                 "wait for one or cancel it", 429)
            self.analyses += 1
        try:
            return call_in_child(fn, replace=replace)
        finally:
            with self.jobs_lock:
                self.analyses -= 1

    @staticmethod
    def _hardware(name, scale, setk):
        if not scale and not setk:
            return name
        hw = roofsim.hardware(name)
        for k, f in scale.items():
            hw.scale(k, f)
        for k, v in setk.items():
            hw[k] = v
        return hw

    def hardware(self, query):
        replace = {}
        s = self.resolve({"hw": (query.get("hw") or [RUN_DEFAULTS["hw"]])[0]}, replace)

        def fn(emit):
            h = roofsim.hardware(s["hw"])
            keys = h.keys()
            knobs = {k: h[k] for k in ("hbm.bandwidth_gb_per_s", "matrix.macs_per_clock", "links.bandwidth_gb_per_s",
                                       "pim.flops_per_clock") if k in keys}
            return {"name": h.name, "summary": h.summary(), "knobs": knobs, "toml": h.toml()}
        return call_in_child(fn, replace=replace)

    def upload(self, body):
        kind, text = body.get("kind"), body.get("text")
        if kind not in ("hardware", "model"):
            raise BadRequest("upload: kind must be 'hardware' (a .toml) or 'model' (a Hugging Face config.json)")
        if not isinstance(text, str) or not text.strip():
            raise BadRequest("upload: the file is empty")
        if len(text) > MAX_UPLOAD:
            raise BadRequest(f"upload: the file has {len(text)} characters; at most {MAX_UPLOAD}")
        given = body.get("filename") if isinstance(body.get("filename"), str) else ""
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(given))[:64]
        stem = re.sub(r"\.(toml|json)$", "", stem) or ("hardware" if kind == "hardware" else "config")
        name = stem + (".toml" if kind == "hardware" else ".json")
        digest = hashlib.sha256((kind + "\0" + name + "\0" + text).encode()).hexdigest()[:16]
        upload_id = "upload:" + digest
        if upload_id not in self.uploads and len(self.uploads) >= MAX_UPLOADS:
            raise BadRequest(f"upload: this server keeps at most {MAX_UPLOADS} uploads; restart it for more", 429)
        folder = os.path.join(self.upload_dir, digest)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        replace = {path: given or name}

        def fn(emit):
            if kind == "hardware":
                h = roofsim.hardware(path)
                h.summary()  # checked as a run would
                return {"name": h.name}
            m = roofsim.model(path)
            return {"name": m.name, "total_params": m.total_params, "layers": m.layers, "hidden": m.hidden}
        try:
            info = call_in_child(fn, replace=replace)
        except Exception:
            if upload_id not in self.uploads:  # a file that does not load is not kept
                shutil.rmtree(folder, ignore_errors=True)
            raise
        self.uploads[upload_id] = (kind, path, given or name)
        return {"id": upload_id, "kind": kind, "filename": given or name, **info}

    def start_job(self, body):
        kind = body.get("kind", "run")
        if kind == "run":
            fn, replace = self._run_job(body)
        elif kind == "collective":
            fn, replace = self._collective_job(body)
        elif kind == "serve":
            fn, replace = self._serve_job(body)
        else:
            raise BadRequest(f"kind={json.dumps(kind)}: expected 'run', 'collective' or 'serve'")
        with self.jobs_lock:
            running = sum(1 for j in self.jobs.values() if j.state == "running")
            if running >= self.max_jobs:
                raise BadRequest(f"{running} simulations are running already (at most {self.max_jobs}): wait for one "
                                 "or cancel it", 429)
            job_id = str(self.next_job)
            self.next_job += 1
            job = Job(job_id, fn, replace)
            self.jobs[job_id] = job
        return {"id": job_id, "kind": kind, "state": job.state}

    def _run_job(self, body):
        replace = {}
        s = self.resolve(body.get("settings", body), replace)
        scale, setk = self.edits_from(body.get("edits"))
        # Settings the analysis refuses are refused here, at once, with its message.
        self.analyze(body)

        explain = body.get("explain", False)
        if not isinstance(explain, bool):
            raise BadRequest(f"explain={json.dumps(explain)}: expected true or false")

        def fn(emit):
            hw = self._hardware(s.pop("hw"), scale, setk)
            progress = throttled_progress(emit)
            if not explain:
                return roofsim.run(hw=hw, progress=progress, **s)
            # The run on the chip, each op carrying what its gap to the bound is made of
            # (roofsim.explain: the chip simulated again without one cost after another).
            g = roofsim.explain(hw=hw, progress=progress, **s)
            gaps = {(o["phase"], o["op"]): o for o in g["ops"]}
            causes = [c["name"] for c in g["causes"]]
            run = g["run"]
            for o in run["ops"]:
                row = gaps.get((o["phase"], o["name"]))
                if row is not None:
                    o["gap"] = {c: row[c + "_s"] for c in causes}
            run["gap_causes"] = g["causes"]
            return run
        return fn, replace

    def collective_settings(self, settings, replace):
        """roofsim.collective's keyword arguments, checked as far as names and types go."""
        if not isinstance(settings, dict):
            raise BadRequest('settings: expected an object ({"hw": "h100_sxm5", "op": "allreduce", "bytes": 1048576, ...})')
        s = {}
        for k, v in settings.items():
            decl = COLLECTIVE_SETTINGS.get(k)
            if decl is None:
                raise BadRequest(f"collective: unknown setting '{k}' (settings: {', '.join(COLLECTIVE_SETTINGS)})")
            if v is None or v == "":
                continue
            kind = decl["kind"]
            if k == "bytes" or kind == "whole":  # sizes come as bytes from the page
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v):
                    raise BadRequest(f"{k}={json.dumps(v)}: expected a whole number")
                v = int(v)
                lo, hi = decl.get("min", 1), decl.get("max", MAX_COLLECTIVE_BYTES)
                if k == "bytes":
                    lo, hi = 1, MAX_COLLECTIVE_BYTES
                if not lo <= v <= hi:
                    raise BadRequest(f"{k}={v}: expected {lo} to {hi}" + (" bytes per chip" if k == "bytes" else ""))
            elif kind == "flag":
                if not isinstance(v, bool):
                    raise BadRequest(f"{k}={json.dumps(v)}: expected true or false")
            elif not isinstance(v, str):
                raise BadRequest(f"{k}={json.dumps(v)}: expected a string")
            elif kind == "choice" and v not in decl["choices"]:
                raise BadRequest(f"{k}='{v}': expected one of {', '.join(decl['choices'])}")
            s[k] = v
        hw = self.resolve({"hw": s.get("hw", COLLECTIVE_SETTINGS["hw"]["default"])}, replace)["hw"]
        s["hw"] = hw
        return s

    def _collective_job(self, body):
        replace = {}
        s = self.collective_settings(body.get("settings", {}), replace)
        sizes = body.get("sweep") or []
        if not isinstance(sizes, list) or len(sizes) > MAX_SWEEP_POINTS or any(
                isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= MAX_COLLECTIVE_BYTES for b in sizes):
            raise BadRequest(f"sweep: expected a list of at most {MAX_SWEEP_POINTS} sizes in bytes (1 B to 1 TiB)")

        def fn(emit):
            total = 1 + len(sizes)
            emit({"progress": {"done": 0, "total": total, "what": f"{s.get('op', 'allreduce')} of {s.get('bytes', 1 << 30)} B"}})
            point = roofsim.collective(**s)
            sweep = []
            for i, b in enumerate(sizes):
                emit({"progress": {"done": i + 1, "total": total, "what": f"sweep: {b} B"}})
                try:
                    sweep.append(roofsim.collective(**{**s, "bytes": b}))
                except (roofsim.InputError, ValueError) as e:  # one size refused: the others still run
                    sweep.append({"bytes": b, "error": str(e)})
            emit({"progress": {"done": total, "total": total, "what": "done"}})
            return {"collective": point, "sweep": sweep}
        return fn, replace

    def _serve_job(self, body):
        replace = {}
        settings = body.get("settings", {})
        if not isinstance(settings, dict):
            raise BadRequest('settings: expected an object of serve settings ({"concurrency": 8, "requests": 64, ...})')
        for key in ("requests_from", "trace_file"):
            if key in settings:
                raise BadRequest(f"{key}: the page cannot name files on the server (use roofsim serve --requests-from)")
        s = self.resolve(settings, replace)
        draft = s.get("draft")
        if isinstance(draft, str) and draft not in ("", "mtp"):
            s["draft"] = self.resolve({"model": draft}, replace)["model"]
        for k in ("batch", "gen"):
            if k in s:
                raise BadRequest(f"'{k}' is a run setting; a serving run takes prompt, output and the arrivals instead")

        def fn(emit):
            hw, model = s.pop("hw"), s.pop("model")
            progress = throttled_progress(emit)
            record = roofsim.serve(hw=hw, model=model, progress=progress, **s)
            try:  # the ridge of the activations dtype, to put the decode intensity beside it
                a = roofsim.analyze(hw=hw, model=model, batch=1, prompt=16, gen=2,
                                    **{k: s[k] for k in ("activations_dtype",) if k in s})
                record["ridge"] = a["ridge"]
            except Exception:  # noqa: B902 - the record stands without it
                record["ridge"] = None
            return record
        return fn, replace

    # --- sweep stores --------------------------------------------------------------------------
    def sweep_files(self):
        """The sweep files in the sweeps folder (never any other path)."""
        try:
            names = sorted(n for n in os.listdir(self.sweeps_dir) if n.endswith(".toml") and not n.startswith("."))
        except OSError as e:
            raise BadRequest(f"the sweeps folder {self.sweeps_dir} cannot be read: {e.strerror}", 404)
        out = []
        for n in names:
            path = os.path.join(self.sweeps_dir, n)
            about, command = [], "run"
            try:
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("#") and len(about) < 4 and not line.startswith("#   roofsim") and not line.startswith("# roofsim"):
                            about.append(line[1:].strip())
                        m = re.match(r'\s*command\s*=\s*"(\w+)"', line)
                        if m:
                            command = m.group(1)
            except OSError:
                continue
            store = path[:-5] + ".db"
            out.append({"name": n, "about": " ".join(about), "command": command, "stored": os.path.exists(store)})
        return {"dir": self.sweeps_dir, "files": out}

    def sweep_rows(self, query):
        name = (query.get("name") or [""])[0]
        if name not in {f["name"] for f in self.sweep_files()["files"]}:
            raise BadRequest(f"no sweep file '{name}' in the sweeps folder", 404)
        path = os.path.join(self.sweeps_dir, name)
        store = path[:-5] + ".db"
        # The command names the file as the shell the server was started from finds it.
        shown = os.path.relpath(path)
        shown = shown if not shown.startswith("..") else os.path.abspath(path)
        if not os.path.exists(store):
            return {"name": name, "rows": [], "columns": [], "stored": False,
                    "message": f"{name} has no store yet: run `roofsim sweep {shown}` to fill it"}

        def fn(emit):
            return roofsim.read_sweep(path)
        rows = call_in_child(fn, replace={self.sweeps_dir + os.sep: ""})
        if not rows:
            return {"name": name, "rows": [], "columns": [], "stored": True,
                    "message": f"the store of {name} holds no points of this file for this build of roofsim (points "
                               "are kept per roofsim version): run `roofsim sweep " + shown + "` again"}
        # Columns: index, the varying settings (grid, then sampled), the fixed ones, status, error, the results.
        axes, fixed = [], []
        try:
            with open(path, "rb") as f:
                doc = tomllib.load(f)
            axes = list(doc.get("grid", {})) + list(doc.get("sample", {}).get("ranges", {}))
            fixed = [k for k in doc.get("base", {}) if k not in axes]
        except (OSError, tomllib.TOMLDecodeError, AttributeError):
            pass
        present = set().union(*(r.keys() for r in rows))
        first = [k for k in ["index"] + axes + fixed + ["status", "error"] if k in present]
        columns = first + sorted(present - set(first))
        return {"name": name, "rows": rows, "columns": columns, "axes": [a for a in axes if a in present],
                "settings": [k for k in axes + fixed if k in present], "stored": True}

    def job(self, job_id):
        with self.jobs_lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise BadRequest(f"no job '{job_id}' (finished jobs are kept {KEEP_FINISHED_S} s)", 404)
        return job

    def _reaper(self):
        while True:
            time.sleep(5)
            now = time.monotonic()
            with self.jobs_lock:
                jobs = list(self.jobs.items())
            for job_id, job in jobs:
                if job.state == "running" and now - job.seen > STALE_JOB_S:
                    job.cancel()
                elif job.state == "running" and time.time() - job.started > MAX_JOB_S:
                    job.cancel(f"stopped after {MAX_JOB_S} s, the server's limit per simulation")
                elif job.state != "running" and job.ended and time.time() - job.ended > KEEP_FINISHED_S:
                    with self.jobs_lock:
                        self.jobs.pop(job_id, None)

    def shutdown(self):
        with self.jobs_lock:
            jobs = list(self.jobs.values())
        for job in jobs:
            job.cancel()
        shutil.rmtree(self.upload_dir, ignore_errors=True)  # the uploads go with the server


def split_host(netloc, default_port):
    """'name:port' (a Host header, a URL's netloc) -> (name, port); None for a port that is no number."""
    try:
        url = urllib.parse.urlsplit("//" + netloc)
        return (url.hostname or ""), (url.port or default_port)
    except ValueError:
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "roofsim-ui"
    app = None  # set by serve()
    timeout = REQUEST_TIMEOUT_S  # the socket's: a client that stops sending does not hold a thread

    def log_message(self, fmt, *args):  # quiet: errors only
        pass

    def send_json(self, status, obj):
        data = dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def send_file(self, path):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            raise BadRequest(f"{os.path.basename(path)} is missing on the server", 404)
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPES.get(os.path.splitext(path)[1], "application/octet-stream"))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            # Also keeps other web sites' simple cross-origin POSTs out (they cannot send JSON).
            raise BadRequest("POST bodies must be JSON (Content-Type: application/json)", 415)
        try:
            n = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise BadRequest("Content-Length missing or not a number", 411)
        if n < 0 or n > MAX_BODY:
            raise BadRequest(f"request body of {n} bytes; at most {MAX_BODY}", 413)
        try:
            data = self.rfile.read(n)
        except TimeoutError:
            raise BadRequest(f"the request body stopped arriving ({REQUEST_TIMEOUT_S} s)", 408)
        if len(data) < n:
            raise BadRequest(f"the request body ended after {len(data)} of {n} bytes", 400)
        obj = parse_json(data)
        if not isinstance(obj, dict):
            raise BadRequest("expected a JSON object")
        return obj

    def bound_to_all(self):
        return self.server.server_address[0] in ("", "0.0.0.0", "::")

    def own_name(self, name_port):
        """Whether (name, port) is this server's: one of its names, with its port."""
        return name_port is not None and name_port[1] == self.server.server_address[1] and name_port[0] in self.server.own_names

    def host_allowed(self):
        """A page of another site that rebinds its name to 127.0.0.1 (DNS rebinding) sends its
        own name as Host: only this server's own names are answered. Bound to a loopback address
        (the default) those are 127.0.0.1, localhost and [::1]; bound to another address, that
        address too, and the names given to --allow-host; bound to every interface (0.0.0.0,
        chosen on purpose), any name."""
        return self.bound_to_all() or self.own_name(split_host(self.headers.get("Host", ""), 80))

    def origin_allowed(self):
        """A browser names the page that sends a POST in Origin. Another site's page may post to
        127.0.0.1 (a form's text/plain body can look like JSON): only this server's own pages
        change anything. No Origin (curl, scripts, Python) is not a browser's cross-site call."""
        origin = self.headers.get("Origin")
        if origin is None:
            return True
        url = urllib.parse.urlsplit(origin)
        if url.scheme not in ("http", "https"):
            return False  # "null" (a sandboxed or local file page) and other schemes
        page = split_host(url.netloc, 80 if url.scheme == "http" else 443)
        if self.bound_to_all():
            # Served to every interface: the page must come from the name the request was sent to.
            return page is not None and page == split_host(self.headers.get("Host", ""), 80)
        return self.own_name(page)

    def handle_any(self, method):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        try:
            if not self.host_allowed():
                raise BadRequest(f"Host '{self.headers.get('Host', '')}' is not this server's name (another site's page "
                                 f"rebinding its name?): open http://127.0.0.1:{self.server.server_address[1]}/", 403)
            if method == "GET":
                if path in ("/", "/index.html"):
                    return self.send_file(os.path.join(STATIC_DIR, "index.html"))
                if path.startswith("/static/"):
                    name = path[len("/static/"):]
                    if name not in os.listdir(STATIC_DIR):
                        raise BadRequest(f"no file {name}", 404)
                    return self.send_file(os.path.join(STATIC_DIR, name))
                if path.startswith("/vendor/"):
                    name = path[len("/vendor/"):]
                    if name not in VENDOR:
                        raise BadRequest(f"no file {name}", 404)
                    file = os.path.join(NODE_MODULES, VENDOR[name])
                    if not os.path.exists(file):
                        raise BadRequest(f"{VENDOR[name]} is not installed: run scripts/install-deps.sh "
                                         "(npm ci --prefix ui)", 404)
                    return self.send_file(file)
                if path == "/api/presets":
                    return self.send_json(200, {**self.app.presets, "model_rows": self.app.model_rows, "dtypes": DTYPES,
                                                "attention": setting_choices("run", "attention"),
                                                "near_memory": setting_choices("run", "near_memory"),
                                                "settings": SETTINGS,
                                                "whatif_knobs": WHATIF_KNOBS,
                                                "collective": {"ops": COLLECTIVE_OPS, "algorithms": COLLECTIVE_ALGOS},
                                                "schedulers": SCHEDULERS,
                                                "schema_version": roofsim.schema_version})
                if path == "/api/hardware":
                    return self.send_json(200, self.app.hardware(urllib.parse.parse_qs(url.query)))
                if path == "/api/sweeps":
                    return self.send_json(200, self.app.sweep_files())
                if path == "/api/sweep":
                    return self.send_json(200, self.app.sweep_rows(urllib.parse.parse_qs(url.query)))
                m = re.fullmatch(r"/api/jobs/([0-9]+)", path)
                if m:
                    return self.send_json(200, self.app.job(m.group(1)).view())
                raise BadRequest(f"GET {path}: no such page or endpoint", 404)
            if method == "POST":
                if not self.origin_allowed():
                    raise BadRequest(f"Origin '{self.headers.get('Origin')}' is another site's page: only this server's own "
                                     "pages may start or change work", 403)
                if path == "/api/analyze":
                    return self.send_json(200, self.app.analyze(self.body()))
                if path == "/api/graph":
                    return self.send_json(200, self.app.graph(self.body()))
                if path == "/api/jobs":
                    return self.send_json(202, self.app.start_job(self.body()))
                if path == "/api/upload":
                    return self.send_json(200, self.app.upload(self.body()))
                m = re.fullmatch(r"/api/jobs/([0-9]+)/cancel", path)
                if m:
                    job = self.app.job(m.group(1))
                    job.cancel()
                    return self.send_json(200, job.view())
                raise BadRequest(f"POST {path}: no such endpoint", 404)
            raise BadRequest(f"{method} is not supported", 405)
        except BadRequest as e:
            self.send_json(e.status, {"error": str(e)})
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as e:  # noqa: B902 - a bug answers 500, the server goes on
            traceback.print_exc(file=sys.stderr)
            try:
                self.send_json(500, {"error": f"internal error: {type(e).__name__}: {e}"})
            except OSError:
                pass

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def serve(host="127.0.0.1", port=8765, open_browser=False, max_jobs=4, sweeps_dir=None, allow_hosts=()):
    app = App(max_jobs=max_jobs, sweeps_dir=sweeps_dir)
    handler = type("BoundHandler", (Handler,), {"app": app})
    httpd = Server((host, port), handler)
    # The names a request may give as Host (and its page as Origin): the loopback names, the bound
    # address, and those the user allows (an SSH tunnel's or a proxy's name).
    httpd.own_names = {"127.0.0.1", "localhost", "::1", str(host).lower()} | {h.lower() for h in allow_hosts}
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    url = f"http://{shown}:{httpd.server_address[1]}/"
    print(f"roofsim ui: serving {url} (Ctrl-C stops)", flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    def stop(*_):
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, stop)
    try:
        httpd.serve_forever()
    finally:
        app.shutdown()
        httpd.server_close()
