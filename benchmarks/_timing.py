"""Timing helpers shared by the benchmarks: medians taken side by side in one run."""

from __future__ import annotations

import importlib
import itertools
import os
import re
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

import asnumpy as ap


def _processor() -> str:
    """The processor's model name (Linux's /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return f"{line.split(':', 1)[1].strip()} ({platform.machine()})"
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_line(device) -> str:
    """One line naming the versions, the machine and the cpu thread count."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"asnumpy {ap.__version__} on {device}, NumPy {np.__version__}, "
            f"{_processor()}, {cores} cores, "
            f"{ap.runtime.cpu_threads()} cpu threads")


RESULTS = Path(__file__).resolve().parent / "results"
"""Where ``--save`` writes recorded figures."""


def cpu_kind() -> str:
    """The processor's kind in a results file name: the first two words of its model name
    and its widest x86 vector extension (``amd-epyc-avx512``, ``intel-xeon-avx2``)."""
    words = re.findall(r"[a-z0-9]+", _processor().split("(")[0].lower())
    words = [w for w in words if w not in ("r", "tm", "cpu", "processor")][:2]
    flags = ""
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line for line in info if line.startswith("flags")), "")
    except OSError:
        pass
    simd = next((name for name in ("avx512f", "avx2", "avx") if f" {name}" in flags), "")
    return "-".join(words + ([simd.replace("avx512f", "avx512")] if simd else [])) or "cpu"


def machine_slug(device) -> str:
    """The machine part of a results file name: ``cpu-2core-amd-epyc-avx512`` (device kind,
    usable cores, processor kind: :func:`cpu_kind`); files recorded before issue 28 lack
    the processor's kind (those were a 2-vCPU AMD EPYC with AVX2)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{str(device).split(':')[0]}-{cores}core-{cpu_kind()}"


def host_times(function, repeats, warmup=0):
    """Seconds of each of ``repeats`` timed calls of ``function``, after ``warmup`` untimed.

    :func:`asnumpy.profiler.benchmark` with no device timed (``devices=()``):
    the host's time only, as these benchmarks have always measured it --
    recording device events would add a wait for the device to each repeat.
    Imported here, not at the top: ``call_path.py``'s workers import this
    module from older source trees, which have no ``asnumpy.profiler``.
    """
    from asnumpy.profiler._benchmark import benchmark

    return benchmark(function, n_repeat=repeats, n_warmup=warmup, devices=()).host_times


def back_to_back(function, number):
    """One call that makes ``number`` back-to-back calls of ``function``."""
    if number == 1:
        return function

    def calls():
        for _ in range(number):
            function()
    return calls


def alternating_medians(functions, repeats, number=1, setups=None):
    """Median seconds per call of each function, their repetitions interleaved.

    Each repetition times ``number`` back-to-back calls of one function (for
    calls too short to time one by one) and records the time per call.
    ``setups``: one callable per function, run untimed before each of its
    repetitions and its warm-up (e.g. to switch a setting the function runs under).
    """
    setups = setups or [lambda: None] * len(functions)
    for setup, function in zip(setups, functions):
        setup()
        function()                                # warm-up, untimed
    batches = [back_to_back(function, number) for function in functions]
    times = [[] for _ in functions]
    # One benchmark() per repetition of each function, round by round: benchmark() alone
    # runs all the repeats of one function before the next's, and the point here is that
    # the functions take turns (no one of them finds the caches the way it left them).
    for _ in range(repeats):
        for setup, batch, record in zip(setups, batches, times):
            setup()
            record.append(host_times(batch, 1)[0] / number)
    return [statistics.median(record) for record in times]


def per_call_times(call, calls, repeats):
    """Seconds per call of each of ``repeats`` runs of ``calls`` back-to-back calls.

    Its own loop, not :func:`host_times`: ``call_path.py --compare`` times
    older source trees with it (no ``asnumpy.profiler`` there), and every
    tree must be timed by the very same code.
    """
    times = np.empty(repeats)
    for repeat in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        times[repeat] = (time.perf_counter() - start) / calls
    return times


def per_call_us(call, calls, repeats):
    """Median microseconds per call over ``repeats`` runs of ``calls`` back-to-back calls."""
    return statistics.median(per_call_times(call, calls, repeats).tolist()) * 1e6


def calls_per_sample(function, quick=False, limit=100_000):
    """How many back-to-back calls of ``function`` take about 2 ms (0.2 ms when ``quick``)."""
    target_seconds = 2e-4 if quick else 2e-3
    once = host_times(function, 1, warmup=1)[0]
    return max(1, min(limit, int(target_seconds / max(once, 1e-7))))


def format_seconds(seconds) -> str:
    """A time in the unit that suits it: ``0.24 us``, ``3.10 ms``, ``1.20 s``."""
    for unit, scale in (("us", 1e-6), ("ms", 1e-3)):
        if seconds < 1000 * scale:
            return f"{seconds / scale:.2f} {unit}"
    return f"{seconds:.2f} s"


def available_memory() -> int:
    """Bytes of memory available to new allocations (MemAvailable; total RAM elsewhere)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def copy_bandwidth(nbytes=512 << 20, threads=2, repeats=7):
    """The machine's copy bandwidth with ``threads`` threads, bytes moved per second.

    Each thread ``numpy.copyto``-s its own slice of an ``nbytes`` buffer
    into another (NumPy releases the GIL while copying); the best of
    ``repeats`` runs is kept.  Bytes moved = bytes read + bytes written
    (2 x ``nbytes``), the way STREAM counts them.
    """
    source = np.random.default_rng().random(nbytes // 8)
    target = np.empty_like(source)
    bounds = [len(source) * i // threads for i in range(threads + 1)]
    pieces = [(target[lo:hi], source[lo:hi]) for lo, hi in itertools.pairwise(bounds)]
    # a thread starts once: each run's threads are made beforehand, outside the timing
    runs = iter([[threading.Thread(target=np.copyto, args=piece) for piece in pieces]
                 for _ in range(repeats + 1)])

    def run():
        workers = next(runs)
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

    # the warm-up run faults the pages in
    return 2 * source.nbytes / host_times(run, repeats, warmup=1).min()


def back_to_back_medians(functions, repeats):
    """Median seconds of each function, each repeated in a run of its own.

    Back to back, data that fits in the last-level cache partly stays there;
    alternating (above) is the colder, fairer figure.  Both are printed.
    """
    return [statistics.median(host_times(function, repeats, warmup=1).tolist())
            for function in functions]


class Transcript:
    """Lines printed as they come and kept, to be saved with ``--save``."""

    def __init__(self):
        self.lines = []

    def __call__(self, line=""):
        print(line, flush=True)
        self.lines.append(line)

    def save(self, path):
        """Write the lines to ``path`` (its folder created if need be)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines) + "\n")
        print(f"saved {path}")


def open_transcript(device, quick) -> Transcript:
    """A transcript headed by the machine line, Python's version and the load average."""
    say = Transcript()
    say(machine_line(device))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    say(f"python {sys.version.split()[0]}, {'quick run, ' if quick else ''}"
        f"load average {load:.2f} at the start")
    return say


def optional(module):
    """The module, or None when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
