"""Choices made per CPU: the cpu back end's split thresholds and sort choices, measured.

Whether handing part of a call to another thread pays, and whether NumPy's
own sort beats a split one, depends on the processor: its cores, caches and
memory bandwidth, the cost of waking a thread (a virtual machine's vCPU may
not even be running), and which SIMD sort NumPy's dispatch picks for it.  So
the first time the cpu back end loads on a machine it measures, in a fraction
of a second (:func:`measure`):

* the hand-off: a :func:`.parallel.run` of one piece per thread, each
  waiting until every thread has woken;
* ``add`` and ``exp`` of float64, a streaming sum (float64) and a converting
  one (float32 summed in float64), each as one NumPy call and split the way
  the kernels split them, at two sizes;
* NumPy's ``sort``/``argsort`` of float32, int32, float64 and int64 as one
  call and as the kernels' split sort, at one moderate size.

and the share of the cores other processes used meanwhile.

A small model turns those into the decisions (:func:`derive`): from the two
sizes, a split costs ``overhead + t1 / speedup`` where one call costs ``t1``
(per-element rate times size); a split is made once it saves ``MARGIN``
times its overhead.  A sort splits for a dtype only when the split's cost
per element beats one NumPy call's by ``SORT_GAIN``; otherwise NumPy's own
single call is used (as on CPUs whose NumPy has a fast SIMD sort).  Every
derived value is kept within :data:`BOUNDS`.

The result is cached on disk per CPU (model, vendor, SIMD features), thread
count, NumPy version and :data:`FORMAT`: one JSON file per key in
:func:`cache_dir`, so later processes only read it.  A file that does not
parse, holds wrong types or values out of bounds, whose choices do not
follow from its measurements, or whose key is another's, is ignored,
measured again and rewritten; an unusable directory just means the
measurements live in memory.  Measurements taken while other work held the
cores (``BUSY_SHARE`` of them, from /proc/stat, or a thread that did not
wake) say what splitting gains on a busy machine, not on this CPU: they are
*provisional*, give the defaults, and are measured again by the first
process that finds the machine quiet (a load average under ``BUSY_LOAD`` per
thread).
``ASNUMPY_CALIBRATION=off`` skips all this and uses :data:`DEFAULTS` (the
constants of the kernel modules).

The choices are written into the kernel modules' attributes
(:func:`apply`), which the kernels (and the ufunc fast lane) read at each
call: tests that lower a threshold keep doing so by setting the attribute.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import secrets
import stat
import sys
import threading
import time
import warnings
from pathlib import Path
from types import MappingProxyType

import numpy as np

from . import math_kernels, parallel, sort_kernels, statistics_kernels

__all__ = ["BOUNDS", "DEFAULTS", "FORMAT", "CpuCalibration", "apply", "cache_dir", "cache_key",
           "calibrate", "cpu_identity", "current", "derive", "measure"]

FORMAT = 2                       # bump when what is measured or how it is derived changes
MARGIN = 4.0                     # a split must save this many times its own overhead
SORT_GAIN = 1.1                  # ... and a split sort be this much faster per element
BUSY_SHARE = 0.25                # others' share of our cores that makes a measurement busy
BUSY_LOAD = 0.5                  # load average per thread from which the machine is busy
SORT_DTYPES = ("float32", "int32", "float64", "int64")

# choice -> (module, attribute): where the kernels read each threshold
_TARGETS = {
    "split_min_work": (math_kernels, "SPLIT_MIN_WORK"),
    "reduce_split_min": (math_kernels, "REDUCE_SPLIT_MIN"),
    "reduce_streaming_split_min": (math_kernels, "REDUCE_STREAMING_SPLIT_MIN"),
    "copy_split_min_bytes": (parallel, "PARALLEL_MIN_BYTES"),
    "arg_split_min_bytes": (statistics_kernels, "ARG_SPLIT_MIN_BYTES"),
    "where_piece": (statistics_kernels, "_WHERE_PIECE"),
    "sort_split_min": (sort_kernels, "SPLIT_MIN"),
}
# the integer choices' sane range (inclusive)
BOUNDS = {
    "split_min_work": (1 << 20, 1 << 28),
    "reduce_split_min": (2 * math_kernels.REDUCE_CHUNK, 1 << 26),   # fewer: one piece
    "reduce_streaming_split_min": (2 * math_kernels.REDUCE_CHUNK, 1 << 26),
    "copy_split_min_bytes": (1 << 20, 1 << 28),
    "arg_split_min_bytes": (1 << 20, 1 << 28),
    "where_piece": (1 << 16, 1 << 24),
    "sort_split_min": (1 << 15, 1 << 23),
}
DEFAULTS = MappingProxyType({
    **{name: getattr(module, attr) for name, (module, attr) in _TARGETS.items()},
    "sort_split": MappingProxyType(dict.fromkeys(SORT_DTYPES, True)),
    "argsort_split": MappingProxyType(dict.fromkeys(SORT_DTYPES, True)),
})
"""The choices without calibration: the kernel modules' constants, and every sort split."""

# the measured quantities a calibration file must hold: seconds, but for the count of
# hand-offs a thread missed and the load average (all floats >= 0)
_MEASURED = (
    "handoff", "missed", "load", "others", "threads", "add_small_1", "add_small_n", "add_large_1", "add_large_n",
    "exp_small_1", "exp_small_n", "exp_large_1", "exp_large_n",
    "sum_small_1", "sum_small_n", "sum_large_1", "sum_large_n",
    "convert_small_1", "convert_small_n", "convert_large_1", "convert_large_n",
    *(f"{op}_{dt}_{how}" for op in ("sort", "argsort") for dt in SORT_DTYPES for how in "1n"),
)
# elements of the measured calls (part of the format: changing one bumps FORMAT)
_SIZES = {"add": (1 << 17, 1 << 21), "exp": (1 << 14, 1 << 17), "sum": (1 << 21, 1 << 22),
          "convert": (1 << 21, 1 << 22), "sort": 1 << 17}
_X86_FEATURES = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl",
                 "avx512_vbmi2", "avx512_fp16", "amx_tile")


@dataclasses.dataclass(frozen=True)
class CpuCalibration:
    """The cpu back end's choices for this CPU, and what they were derived from.

    Attributes
    ----------
    cpu, vendor : str
        The processor's model name and vendor.
    features : tuple of str
        The SIMD features that matter to NumPy's loops (as NumPy names them).
    threads : int
        The thread count the calibration was made for.
    numpy : str
        NumPy's version.
    source : str
        ``"measured"`` (by this process), ``"cache"`` (read from ``path``) or
        ``"defaults"`` (``ASNUMPY_CALIBRATION=off``, or a single thread).
    path : str or None
        The cache file, when there is one.
    seconds : float
        How long the measurement took (0 for defaults).
    measured : mapping
        The measured times, in seconds (empty for defaults).
    choices : mapping
        The thresholds (``split_min_work`` ... ``sort_split_min``) and, per
        dtype, whether ``sort``/``argsort`` split (``sort_split``,
        ``argsort_split``; False: NumPy's own single call).
    """

    cpu: str
    vendor: str
    features: tuple
    threads: int
    numpy: str
    source: str
    path: str | None
    seconds: float
    measured: MappingProxyType
    choices: MappingProxyType

    @property
    def provisional(self) -> bool:
        """Measured while other work held the cores: measured again once the machine is quiet."""
        return bool(self.measured) and _busy(dict(self.measured))

    def lines(self) -> list[str]:
        """A short human-readable summary (what ``python -m asnumpy.check`` prints)."""
        c = self.choices
        single = [f"{op} {dt}" for op in ("sort", "argsort") for dt in SORT_DTYPES
                  if not c[f"{op}_split"][dt]]
        where = f" ({self.path})" if self.path else ""
        out = [f"{self.cpu} [{self.vendor}], {self.threads} threads, NumPy {self.numpy}: "
               f"{self.source}{where}"]
        if self.measured:
            m = self.measured
            busy = (", provisional: the cores were busy, so the defaults"
                    if self.provisional else "")
            out.append(f"measured in {self.seconds:.2f} s at load {m['load']:.2f}, other work "
                       f"{m['others']:.0%} of the cores{busy}")
            out.append(f"hand-off {m['handoff'] * 1e6:.0f} us; one call per element: add "
                       f"{_rate(m, 'add'):.2f} ns, exp {_rate(m, 'exp'):.2f} ns, sum "
                       f"{_rate(m, 'sum'):.2f} ns, converting sum {_rate(m, 'convert'):.2f} ns")
        out.append(f"split from: elementwise work {c['split_min_work']:,}, reductions "
                   f"{c['reduce_split_min']:,} / streaming {c['reduce_streaming_split_min']:,} "
                   f"elements, copies {c['copy_split_min_bytes']:,} B, argmax "
                   f"{c['arg_split_min_bytes']:,} B, where pieces {c['where_piece']:,}, sorts "
                   f"{c['sort_split_min']:,} elements")
        out.append("NumPy's single sort call: " + (", ".join(single) if single else "none"))
        return out


def _rate(measured, name):
    """Nanoseconds per element of one call of ``name`` at its larger size."""
    return measured[f"{name}_large_1"] / _SIZES[name][1] * 1e9


# ---------------------------------------------------------------------------
# the CPU's identity

def _proc_cpuinfo() -> dict:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 16)
    except OSError:
        return {}
    info = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, sep, value = line.partition(":")
        if sep:
            info.setdefault(key.strip(), value.strip())
    return info


def cpu_identity() -> dict:
    """``{"cpu", "vendor", "features", "machine"}`` of this processor.

    Linux: /proc/cpuinfo's model name (an Arm core's implementer and part),
    vendor and flags (those in :data:`_X86_FEATURES`, or all of a non-x86
    CPU's); elsewhere the machine's name (``platform.machine()``).  ``features`` adds the features NumPy's dispatch found
    (``numpy._core._multiarray_umath.__cpu_features__``) and the targets it
    was built for (``__cpu_dispatch__``).
    """
    info = _proc_cpuinfo()
    # (not platform.processor(): on Linux it runs `uname -p` in a subprocess)
    arm = " ".join(f"{k} {info[k]}" for k in ("CPU implementer", "CPU part") if k in info)
    model = info.get("model name") or info.get("Model") or arm or platform.machine() or "unknown"
    vendor = info.get("vendor_id") or info.get("CPU implementer") or platform.machine()
    flags = set((info.get("flags") or info.get("Features") or "").split())
    if flags & set(_X86_FEATURES):
        flags &= set(_X86_FEATURES)
    features = sorted(flags)
    try:
        from numpy._core import _multiarray_umath as umath
        found = sorted(name for name, on in umath.__cpu_features__.items() if on)
        features += ["numpy:" + ",".join(found), "dispatch:" + ",".join(umath.__cpu_dispatch__)]
    except (ImportError, AttributeError):
        pass
    return {"cpu": model, "vendor": vendor, "features": features, "machine": platform.machine()}


def cache_key(identity=None, threads=None) -> dict:
    """What a calibration file must have been measured under to be used."""
    identity = cpu_identity() if identity is None else identity
    return {"format": FORMAT, **identity,
            "threads": parallel.thread_count() if threads is None else threads,
            "numpy": np.__version__}


def _key_name(key) -> str:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return f"cpu-{digest[:24]}.json"


def cache_dir() -> Path:
    """The directory of calibration files.

    ``$ASNUMPY_CALIBRATION_DIR`` when set; else
    ``$XDG_CACHE_HOME/asnumpy/calibration`` or ``~/.cache/asnumpy/calibration``
    (``%LOCALAPPDATA%`` on Windows).  Created 0700; used only when it is a
    directory of this user that group and others cannot write.
    """
    explicit = os.environ.get("ASNUMPY_CALIBRATION_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or (
        os.environ.get("LOCALAPPDATA") if sys.platform == "win32" else None)
    return (Path(base) if base else Path.home() / ".cache") / "asnumpy" / "calibration"


# ---------------------------------------------------------------------------
# measuring

def _load() -> float:
    """The 1-minute load average (0 where the platform has none)."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return 0.0


def _busy_seconds():
    """CPU seconds spent so far on the cores this process may use, by anyone (steal
    time included: a vCPU the hypervisor ran elsewhere); None without /proc/stat."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            lines = handle.read(1 << 16).splitlines()
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None
    busy = 0
    for line in lines:
        name, _, rest = line.partition(" ")
        if name[:3] == "cpu" and name[3:].isdigit() and (cores is None or int(name[3:]) in cores):
            fields = [int(v) for v in rest.split()]
            # user nice system idle iowait irq softirq steal: all but idle and iowait
            busy += sum(fields[:3]) + sum(fields[5:8])
    return busy / ticks


class _Others:
    """The share of this process's cores that other work used while it was open."""

    def __enter__(self):
        self.wall, self.own, self.busy = time.perf_counter(), time.process_time(), _busy_seconds()
        return self

    def share(self, threads) -> float:
        wall = time.perf_counter() - self.wall
        busy = _busy_seconds()
        if self.busy is None or busy is None or wall <= 0:     # no /proc/stat: the load
            return min(1.0, _load() / threads)
        others = (busy - self.busy) - (time.process_time() - self.own)
        return min(1.0, max(0.0, others / (wall * threads)))

    def __exit__(self, *exc_info):
        return False


def _busy(measured_or_load) -> bool:
    """Whether other work held the cores: the split timings then understate what
    splitting gains, and the calibration is provisional (measured again once quiet).

    A measurement is busy when other work used ``BUSY_SHARE`` of the cores while
    it ran, or a thread missed a hand-off; the machine is busy now when its load
    average reaches ``BUSY_LOAD`` per thread.
    """
    if isinstance(measured_or_load, float):
        return measured_or_load >= BUSY_LOAD * parallel.thread_count()
    return measured_or_load["others"] >= BUSY_SHARE or measured_or_load["missed"] > 0


def _best(functions, repeats):
    """The shortest of ``repeats`` runs of each function (runs alternate)."""
    best = [float("inf")] * len(functions)
    for _ in range(repeats):
        for i, function in enumerate(functions):
            start = time.perf_counter()
            function()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def _split_elementwise(f, args, out, pieces):
    bounds = [out.size * i // pieces for i in range(pieces + 1)]

    def piece(i):
        lo, hi = bounds[i], bounds[i + 1]
        f(*(a[lo:hi] for a in args), out=out[lo:hi])

    return lambda: parallel.run(piece, pieces)


def _split_sum(a, dtype):
    # as math_kernels cuts a full reduction: REDUCE_CHUNK runs, partials added in order
    chunk = math_kernels.REDUCE_CHUNK
    bounds = [*range(0, a.size, chunk), a.size]
    partials = np.empty(len(bounds) - 1, np.float64)

    def piece(i):
        partials[i] = np.add.reduce(a[bounds[i]:bounds[i + 1]], dtype=dtype)

    def run():
        parallel.run(piece, len(bounds) - 1)
        return partials.sum()

    return run


def _split_sort(x, want_index):
    dest = np.empty(x.shape[0], np.intp if want_index else x.dtype)
    if want_index and x.dtype.itemsize <= 4:
        return lambda: sort_kernels._argsort_packed(x, dest)
    if want_index:
        values = np.empty(x.shape[0], x.dtype)
        return lambda: sort_kernels._sort_line(x, None, False, True, values, dest)
    return lambda: sort_kernels._sort_line(x, None, False, False, dest, None)


def measure() -> dict:
    """The times (seconds) :func:`derive` needs, measured now (about 0.3 s on 2 cores)."""
    threads = parallel.thread_count()
    rng = np.random.default_rng(12345)
    out = {"load": _load(), "threads": float(threads)}
    others = _Others().__enter__()
    # the hand-off: one piece per thread, each waiting for all the others to have woken
    # (so none is called off); a thread not there within 20 ms breaks the barrier
    barrier = [threading.Barrier(threads, timeout=0.02)]
    missed = [0]

    def meet(i):
        try:
            barrier[0].wait()
        except threading.BrokenBarrierError:
            missed[0] += 1
            barrier[0] = threading.Barrier(threads, timeout=0.02)

    def handoff():
        parallel.run(meet, threads)

    _best([handoff], 3)                                  # the workers start on first use
    missed[0] = 0
    out["handoff"] = _best([handoff], 16)[0]
    out["missed"] = float(missed[0])
    pieces = threads * math_kernels._SLABS_PER_THREAD
    # one random operand serves every call (slices of it): making data costs time too
    half = max(_SIZES["add"][1], _SIZES["exp"][1])
    base = rng.random(max(2 * half, _SIZES["sum"][1], _SIZES["convert"][1]))
    result = np.empty(half)
    for name, f in (("add", np.add), ("exp", np.exp)):
        for label, n in zip(("small", "large"), _SIZES[name]):
            args = [base[:n], base[half:half + n]][:2 if f is np.add else 1]
            o = result[:n]
            single, split = _best([lambda: f(*args, out=o), _split_elementwise(f, args, o, pieces)],
                                  3 if label == "large" else 7)
            out[f"{name}_{label}_1"], out[f"{name}_{label}_n"] = single, split
    del result
    for name, data, acc in (("sum", base, None), ("convert", base.astype(np.float32), np.float64)):
        for label, n in zip(("small", "large"), _SIZES[name]):
            a = data[:n]
            single, split = _best([lambda: np.add.reduce(a, dtype=acc), _split_sum(a, acc)], 3)
            out[f"{name}_{label}_1"], out[f"{name}_{label}_n"] = single, split
    del base
    n = _SIZES["sort"]
    for dt in SORT_DTYPES:
        if dt[0] == "f":
            x = rng.standard_normal(n).astype(dt)
        else:
            x = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, dtype=dt)
        for op, want_index in (("sort", False), ("argsort", True)):
            function = np.argsort if want_index else np.sort
            # one run each: a sort of this size takes milliseconds (NumPy's argsort slows
            # down per element as its index gathers leave the cache: smaller sizes flatter it)
            single, split = _best([lambda: function(x), _split_sort(x, want_index)], 1)
            out[f"{op}_{dt}_1"], out[f"{op}_{dt}_n"] = single, split
    out["others"] = others.share(threads)
    return out


# ---------------------------------------------------------------------------
# the model

def _clamp(name, value) -> int:
    lo, hi = BOUNDS[name]
    value = max(lo, min(hi, value))
    return 1 << round(np.log2(value))                    # a power of two, still in bounds


def _crossover(m, name, margin=MARGIN):
    """Elements from which a split of ``name`` saves ``margin`` times its overhead.

    Two sizes ``n1 < n2`` give one call's time ``t1(n)`` and the split's
    ``tn(n)``; fitted as ``tn = overhead + t1 / speedup``.  Inf when the split
    never pays (no speedup).
    """
    n1, n2 = _SIZES[name]
    a1, an = m[f"{name}_small_1"], m[f"{name}_small_n"]
    b1, bn = m[f"{name}_large_1"], m[f"{name}_large_n"]
    if b1 - a1 < 0.5 * (1 - n1 / n2) * b1 or bn <= an:
        # one call's time did not grow with the size (half as much as it should, or
        # less): noise in the small one, so no fit -- the large size's ratio, hand-off
        # included, is the speedup
        inverse = bn / b1 if b1 > 0 else 1.0
        overhead = max(m["handoff"], 0.0)
    else:
        inverse = (bn - an) / (b1 - a1)     # 1 / speedup
        overhead = max(bn - b1 * inverse, m["handoff"], 0.0)
    gain = 1.0 - inverse                     # of one call's time, per element
    if gain <= 0.02:
        return float("inf")
    rate = b1 / n2                           # one call, seconds per element
    return margin * overhead / (gain * rate)


def derive(measured) -> dict:
    """The choices that follow from ``measured`` (the model; see the module docstring).

    Measurements of a busy machine say what splitting gains while another
    process holds the cores, not on this CPU: they give :data:`DEFAULTS`
    (until a quiet process measures again).
    """
    m = measured
    if _busy(m):
        return _plain(DEFAULTS)
    # elementwise: work = out.nbytes * weight; add of float64 weighs 1 (8 bytes per
    # element), exp 4 (32): the geometric mean of their crossovers, as work
    add, exp = _crossover(m, "add") * 8, _crossover(m, "exp") * 32
    work = float(np.sqrt(add * exp)) if np.isfinite(add * exp) else min(add, exp)
    choices = {
        "split_min_work": _clamp("split_min_work", work),
        "reduce_split_min": _clamp("reduce_split_min", _crossover(m, "convert")),
        "reduce_streaming_split_min": _clamp("reduce_streaming_split_min", _crossover(m, "sum")),
        # a copy streams like add (two arrays instead of three); an argmax reads like a sum
        "copy_split_min_bytes": _clamp("copy_split_min_bytes", add),
        "arg_split_min_bytes": _clamp("arg_split_min_bytes", _crossover(m, "sum") * 8),
        # where's bit selection (a few passes over cache-sized blocks) costs about what
        # a ufunc of weight 2 does on float64: pieces of the elementwise threshold / 16
        "where_piece": _clamp("where_piece", work / 16),
    }
    n = _SIZES["sort"]
    crossovers = []
    for op in ("sort", "argsort"):
        chosen = {}
        for dt in SORT_DTYPES:
            single, split = m[f"{op}_{dt}_1"], m[f"{op}_{dt}_n"]
            # a split sort runs 2-3 parallel.run calls (runs, merges, unpacking)
            overhead = 3 * m["handoff"]
            per_single, per_split = single / n, max(split - overhead, 0.0) / n
            chosen[dt] = per_single > SORT_GAIN * per_split
            if chosen[dt]:
                crossovers.append(MARGIN * overhead / (per_single - per_split))
        choices[f"{op}_split"] = chosen
    choices["sort_split_min"] = _clamp("sort_split_min", max(crossovers, default=float("inf")))
    return choices


# ---------------------------------------------------------------------------
# the cache

def _valid_measured(value) -> bool:
    return (isinstance(value, dict) and set(value) == set(_MEASURED)
            and all(type(v) is float and 0.0 <= v < 1e3 for v in value.values()))


def _valid_choices(value) -> bool:
    if not isinstance(value, dict) or set(value) != set(DEFAULTS):
        return False
    for name, (lo, hi) in BOUNDS.items():
        v = value[name]
        if type(v) is not int or not lo <= v <= hi:
            return False
    return all(isinstance(value[f"{op}_split"], dict)
               and set(value[f"{op}_split"]) == set(SORT_DTYPES)
               and all(type(v) is bool for v in value[f"{op}_split"].values())
               for op in ("sort", "argsort"))


def _open_dir(path: Path) -> int | None:
    """A descriptor of ``path`` (made 0700 when missing) when it is ours and private."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                     | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    info = os.fstat(fd)
    if (hasattr(os, "geteuid") and info.st_uid != os.geteuid()) or info.st_mode & 0o022:
        os.close(fd)
        return None
    return fd


def _read(directory: Path, name: str, key: dict):
    """``(measured, seconds)`` from a sound file for ``key``, else None."""
    fd = _open_dir(directory)
    if fd is None:
        return None
    try:
        entry = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0), dir_fd=fd)
        with os.fdopen(entry, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > 1 << 16:
                return None
            data = json.loads(handle.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    measured, choices, seconds = data.get("measured"), data.get("choices"), data.get("seconds")
    if not _valid_measured(measured) or not _valid_choices(choices) or type(seconds) is not float:
        return None
    if _plain(derive(measured)) != choices:       # choices must follow from the measurements
        return None
    return measured, seconds


def _write(directory: Path, name: str, payload: dict) -> bool:
    """Write ``payload`` as ``name`` atomically (a temporary file, then a rename)."""
    fd = _open_dir(directory)
    if fd is None:
        return False
    temporary = f".tmp-{os.getpid()}-{secrets.token_hex(8)}.json"
    try:
        entry = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                        | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=fd)
        with os.fdopen(entry, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
        return True
    except OSError:
        try:
            os.unlink(temporary, dir_fd=fd)
        except OSError:
            pass
        return False
    finally:
        os.close(fd)


def _plain(choices) -> dict:
    return {k: dict(v) if isinstance(v, (dict, MappingProxyType)) else v
            for k, v in choices.items()}


def _frozen(choices) -> MappingProxyType:
    return MappingProxyType({k: MappingProxyType(dict(v)) if isinstance(v, dict) else v
                             for k, v in choices.items()})


# ---------------------------------------------------------------------------
# the process's calibration

_lock = threading.Lock()
_current: CpuCalibration | None = None


def _common(identity) -> dict:
    return {"cpu": identity["cpu"], "vendor": identity["vendor"],
            "features": tuple(identity["features"]), "threads": parallel.thread_count(),
            "numpy": np.__version__}


def _defaults(identity) -> CpuCalibration:
    return CpuCalibration(**_common(identity), source="defaults", path=None, seconds=0.0,
                          measured=MappingProxyType({}), choices=DEFAULTS)


def calibrate(force: bool = False) -> CpuCalibration:
    """This CPU's calibration: read from the cache, else measured (and cached).

    ``force`` measures again even when the cache holds a sound file (and
    rewrites it).  ``ASNUMPY_CALIBRATION=off`` (or ``0``, ``no``,
    ``false``), or a single thread, gives :data:`DEFAULTS` without measuring.
    Does not apply the choices (:func:`apply` does).
    """
    identity = cpu_identity()
    threads = parallel.thread_count()
    setting = os.environ.get("ASNUMPY_CALIBRATION", "").strip().lower()
    if setting in ("off", "0", "no", "false") or threads < 2:
        return _defaults(identity)
    common = _common(identity)
    key = cache_key(identity, threads)
    directory, name = cache_dir(), _key_name(key)
    found = None if force else _read(directory, name, key)
    if found is not None and _busy(found[0]) and not _busy(_load()):
        found = None                  # measured on a busy machine, and now it is quiet
    if found is not None:
        measured, seconds = found
        source = "cache"
    else:
        start = time.perf_counter()
        measured = measure()
        seconds = time.perf_counter() - start
        payload = {"key": key, "measured": measured, "choices": _plain(derive(measured)),
                   "seconds": seconds}
        source = "measured"
        if not _write(directory, name, payload):
            directory = None                          # kept in memory only
    return CpuCalibration(**common, source=source,
                          path=None if directory is None else str(directory / name),
                          seconds=seconds, measured=MappingProxyType(dict(measured)),
                          choices=_frozen(derive(measured)))


def apply(calibration: CpuCalibration) -> None:
    """Write ``calibration``'s choices into the kernel modules' attributes."""
    global _current
    choices = calibration.choices
    for name, (module, attr) in _TARGETS.items():
        setattr(module, attr, choices[name])
    sort_kernels.SINGLE_SORTS = frozenset(dt for dt, split in choices["sort_split"].items()
                                          if not split)
    sort_kernels.SINGLE_ARGSORTS = frozenset(dt for dt, split in choices["argsort_split"].items()
                                             if not split)
    _current = calibration


def current(recalibrate: bool = False) -> CpuCalibration:
    """The calibration in use (made and applied on first call, or again with ``recalibrate``)."""
    with _lock:
        if recalibrate:
            apply(calibrate(force=True))
        elif _current is None:
            try:
                made = calibrate()
            except Exception as exc:        # noqa: BLE001 (never fail the back end's loading)
                warnings.warn(f"asnumpy: the cpu calibration failed ({exc!r}); using the "
                              "default thresholds (ASNUMPY_CALIBRATION=off)", RuntimeWarning,
                              stacklevel=2)
                made = _defaults(cpu_identity())
            apply(made)
        return _current
