"""Where splitting a cpu call across threads starts paying: the split thresholds, measured.

The cpu back end runs an elementwise call or a reduction as one NumPy call
on the calling thread until its size reaches a threshold
(``SPLIT_MIN_WORK`` for elementwise ufuncs: result bytes x the ufunc's cost
weight; for reductions ``REDUCE_SPLIT_MIN`` elements when each element is
converted (int32 summed in int64), ``REDUCE_STREAMING_SPLIT_MIN`` when the
reduction streams in the operand's own dtype (float sums), cut into
``REDUCE_CHUNK``-element runs), and across ``asnumpy.runtime.cpu_threads()``
threads above it.  This benchmark times, for each size from 2**14 to 2**26
elements, the same asnumpy call both ways:

* one call: the thresholds raised out of reach, so the call runs as one
  NumPy call, exactly as it does below the threshold (the path
  ``set_cpu_threads(1)`` takes too);
* split: the thresholds lowered to nothing (reductions: runs of size/8
  elements, as a large reduction is cut), across two threads
  (``set_cpu_threads(2)``).

The two alternate repetition by repetition (switching the module constants
between repetitions, untimed; switching the thread count instead would retire
the worker threads each time), and each figure is the median per call.  The
crossover is the smallest size from which the split call is faster at that
size and every larger one.  Each split call is checked to really run in
pieces (``parallel.run`` is counted), and its result against one call's.

Usage: ``python benchmarks/thresholds.py [--quick] [--save] [--device cpu:0]``.
"""

from __future__ import annotations

import argparse
import contextlib

import numpy as np
from _timing import (
    RESULTS,
    alternating_medians,
    available_memory,
    calls_per_sample,
    format_seconds,
    machine_slug,
    open_transcript,
)

import asnumpy as ap
from asnumpy.backends.cpu import math_kernels, parallel

CASES = {               # name -> (asnumpy call, NumPy ufunc, inputs, dtype, elementwise?)
    "add float64": (ap.add, np.add, 2, np.float64, True),
    "exp float64": (ap.exp, np.exp, 1, np.float64, True),
    "sum float64": (ap.sum, np.add, 1, np.float64, False),
    "sum float32": (ap.sum, np.add, 1, np.float32, False),
    "sum int32": (ap.sum, np.add, 1, np.int32, False),          # summed in int64: converts
}
_THRESHOLDS = ("SPLIT_MIN_WORK", "REDUCE_SPLIT_MIN", "REDUCE_STREAMING_SPLIT_MIN")
_SETTINGS = (*_THRESHOLDS, "REDUCE_CHUNK")
_NEVER = 1 << 62


def sizes(quick):
    """2**14 ... 2**26 elements (2**17 with ``quick``)."""
    return [1 << k for k in range(14, 18 if quick else 27)]


def _one_call():
    for name in _THRESHOLDS:
        setattr(math_kernels, name, _NEVER)


def _split(size, chunk):
    def setup():
        for name in _THRESHOLDS:
            setattr(math_kernels, name, 1)
        math_kernels.REDUCE_CHUNK = min(chunk, max(1, size // 8))
    return setup


@contextlib.contextmanager
def _settings_restored(threads):
    """Run with ``threads`` cpu threads; the module constants and thread count restored after."""
    missing = [name for name in _SETTINGS if not hasattr(math_kernels, name)]
    if missing:
        raise RuntimeError(f"math_kernels no longer has {missing}: update this benchmark")
    saved = {name: getattr(math_kernels, name) for name in _SETTINGS}
    saved_threads = ap.runtime.cpu_threads()
    ap.runtime.set_cpu_threads(threads)
    try:
        yield saved
    finally:
        for name, value in saved.items():
            setattr(math_kernels, name, value)
        ap.runtime.set_cpu_threads(saved_threads)


def _pieces_run(function):
    """How many ``parallel.run`` calls one call of ``function`` makes."""
    count = 0
    run = parallel.run

    def counting(*args, **kwargs):
        nonlocal count
        count += 1
        return run(*args, **kwargs)

    parallel.run = counting
    try:
        function()
    finally:
        parallel.run = run
    return count


def weight(case):
    """The ufunc's cost weight in ``SPLIT_MIN_WORK`` (reductions: 1, counted in elements)."""
    _, ufunc, _, _, elementwise = CASES[case]
    return math_kernels._weight(ufunc) if elementwise else 1


def _check(split, expected, host):
    """The split result against one call's: exact for integers and elementwise
    results, within ``4 eps sum(|x|)`` for a float sum (its order differs)."""
    if expected.ndim or expected.dtype.kind in "iu":
        np.testing.assert_array_equal(split, expected)
        return
    bound = 4 * np.finfo(expected.dtype).eps * float(np.abs(host).astype(np.float64).sum())
    np.testing.assert_allclose(split, expected, rtol=0, atol=bound)


def time_case(case, size, device, quick, chunk):
    """(one-call seconds, split seconds) per call, or None when the split did not happen."""
    function, _, count, dtype, _ = CASES[case]
    rng = np.random.default_rng()
    hosts = ([rng.integers(-1000, 1000, size, dtype=dtype) for _ in range(count)]
             if np.dtype(dtype).kind == "i" else
             [rng.standard_normal(size).astype(dtype) for _ in range(count)])
    arrays = [ap.asarray(host, device=device) for host in hosts]
    call = lambda: function(*arrays)
    split = _split(size, chunk)
    _one_call()
    expected = ap.asnumpy(call())
    split()
    if not _pieces_run(call):
        return None
    _check(ap.asnumpy(call()), expected, hosts[0])
    number = calls_per_sample(call, quick)
    repeats = 3 if quick else (7 if size >= 1 << 24 else 15)
    return alternating_medians([call, call], repeats, number, setups=[_one_call, split])


def measure(device, quick, say):
    """{case: crossover size or None}; prints every size and each case's crossover."""
    crossovers = {}
    with _settings_restored(threads=2) as defaults:
        say(f"{'case':<14}{'elements':>10}{'array bytes':>14}{'one call':>12}{'split':>12}"
            f"{'one/split':>11}")
        for case, (_, _, count, dtype, _) in CASES.items():
            itemsize = np.dtype(dtype).itemsize
            results = {}
            for size in sizes(quick):
                if 4 * (count + 1) * size * itemsize + (1 << 30) > available_memory():
                    say(f"{case:<14}{size:>10}  skipped: not enough memory")
                    continue
                times = time_case(case, size, device, quick, defaults["REDUCE_CHUNK"])
                if times is None:
                    say(f"{case:<14}{size:>10}  not split (the call never reached parallel.run)")
                    continue
                results[size] = times[0] / times[1]
                say(f"{case:<14}{size:>10}{size * itemsize:>14}{format_seconds(times[0]):>12}"
                    f"{format_seconds(times[1]):>12}{results[size]:>10.2f}x")
            crossovers[case] = crossover(results)
        say("")
        for case, size in crossovers.items():
            say(_crossover_line(case, size, defaults))
    return crossovers


def crossover(speedups):
    """The smallest size from which every speedup (one / split) is above 1; None if none is."""
    found = None
    for size in sorted(speedups, reverse=True):
        if speedups[size] <= 1:
            break
        found = size
    return found


def _crossover_line(case, size, defaults):
    if size is None:
        return f"{case:<14} crossover: none (split never faster at the sizes measured)"
    _, _, _, dtype, elementwise = CASES[case]
    if elementwise:
        work = size * np.dtype(dtype).itemsize * weight(case)
        return (f"{case:<14} crossover: 2**{size.bit_length() - 1} elements = work "
                f"{work} (bytes x weight {weight(case)}; SPLIT_MIN_WORK is now "
                f"{defaults['SPLIT_MIN_WORK']})")
    return (f"{case:<14} crossover: 2**{size.bit_length() - 1} elements (REDUCE_SPLIT_MIN "
            f"is now {defaults['REDUCE_SPLIT_MIN']}, REDUCE_STREAMING_SPLIT_MIN "
            f"{defaults['REDUCE_STREAMING_SPLIT_MIN']})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu:0", help="a cpu device (default cpu:0)")
    parser.add_argument("--quick", action="store_true",
                        help="sizes up to 2**17, few repetitions: a smoke test")
    parser.add_argument("--save", action="store_true",
                        help="write benchmarks/results/thresholds-<machine>.txt")
    args = parser.parse_args()
    device = ap.Device(args.device)
    say = open_transcript(device, args.quick)
    measure(device, args.quick, say)
    if args.save:
        say.save(RESULTS / f"thresholds-{machine_slug(device)}.txt")


if __name__ == "__main__":
    main()
