"""Every row of issue 17's cpu speed targets, against NumPy, in one run.

Each row times NumPy and asnumpy side by side: after an untimed warm-up the
two alternate repetition by repetition, and each figure is the median of the
repetitions.  PyTorch (on its cpu device) and numba, when installed, are
then each timed alternating with NumPy in a run of their own, PyTorch with
passive OpenMP threads (``OMP_WAIT_POLICY=PASSIVE`` unless set): its
threads spinning after each call slowed NumPy's BLAS a hundredfold.  Calls too short to time one by one (the per-call rows) are
timed in runs of back-to-back calls sized to about 2 ms.  Inputs are fresh
random arrays on every run, already on the device; every asnumpy result is
checked against NumPy's before it is timed.

Two rows are measured differently:

* ``import asnumpy``: fresh interpreters (``benchmarks/import_time.py``'s
  measurement), NumPy and asnumpy alternating, the minimum of the runs;
  the target is NumPy's import plus 30 ms.
* memory-bound ``a + b`` on large float64 arrays: asnumpy's bytes moved per
  second (2 read + 1 written per element) as a fraction of the machine's
  two-thread copy bandwidth, measured right after it (two threads each
  ``numpy.copyto`` half of a 512 MB buffer, the best of several runs).

ratio = NumPy's time / asnumpy's time (higher is faster); the library
columns are NumPy's time / that library's time.

Usage: ``python benchmarks/cpu_speed.py [--quick] [--save] [--rows TEXT] [--device cpu:0]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from _timing import (
    RESULTS,
    alternating_medians,
    calls_per_sample,
    copy_bandwidth,
    format_seconds,
    machine_slug,
    open_transcript,
    optional,
)
from import_time import CHILD_ENV, import_seconds

import asnumpy as ap


class Target(NamedTuple):
    """A row's target as the issue states it, and the smallest passing score."""

    text: str
    minimum: float          # of NumPy time / asnumpy time, or of the bandwidth fraction
    bandwidth: bool = False     # scored as a fraction of the 2-thread copy bandwidth


class Row(NamedTuple):
    """One benchmark row: the inputs, the call in each library, the target."""

    name: str
    label: str
    inputs: Callable        # (rng, quick) -> list of host arrays
    numpy: Callable         # (*host arrays) -> result
    asnumpy: Callable       # (*device arrays) -> result
    target: Target
    per_call: bool = False  # timed in runs of back-to-back calls
    torch: Callable | None = None   # (torch module, *tensors) -> result
    numba: str | None = None    # source of a function body over the inputs, for numba.njit


def _slower(times):
    """Target 'at most `times` NumPy's time' as a minimum ratio."""
    return Target(f"<= {times}x NumPy time", 1 / times)


def _faster(ratio):
    """Target 'at least `ratio` times NumPy's speed'."""
    return Target(f">= {ratio}x", ratio)


def _floats(dtype, *shape_of_each):
    """inputs(rng, quick): random standard normal arrays of ``dtype``, one per shape pair."""
    def make(rng, quick):
        return [rng.standard_normal(shape[quick]).astype(dtype, copy=False)
                for shape in shape_of_each]
    return make


def _complex64(full, quick_size):
    """inputs(rng, quick): one random complex64 signal of ``full`` (or ``quick_size``) points."""
    def make(rng, quick):
        n = quick_size if quick else full
        return [(rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)]
    return make


def _rows():
    """The issue's rows; shapes are (full, quick) pairs (index False/True)."""
    small = ((10,), (10,))
    rows = [
        # the per-call targets of issue 28 (the compiled path), each against NumPy's time
        # for the same expression
        ("a + b", "float64 10", _floats(np.float64, small, small), np.add,
         lambda a, b: a + b, _slower(1.5), True, lambda torch, a, b: a + b, "a + b"),
        ("add(a, b)", "float64 10", _floats(np.float64, small, small), np.add, ap.add,
         _slower(1.5), True, lambda torch, a, b: torch.add(a, b), None),
        ("add(a, b, out=o)", "float64 10", _floats(np.float64, small, small, small),
         lambda a, b, o: np.add(a, b, out=o), lambda a, b, o: ap.add(a, b, out=o),
         _slower(1.5), True, lambda torch, a, b, o: torch.add(a, b, out=o), None),
        ("a.sum()", "float64 10", _floats(np.float64, small), lambda a: a.sum(),
         lambda a: a.sum(), _slower(1.5), True, lambda torch, a: a.sum(), "a.sum()"),
        ("a[3]", "float64 10", _floats(np.float64, small), lambda a: a[3], lambda a: a[3],
         _slower(2), True, lambda torch, a: a[3], None),
        ("a[1:5]", "float64 10", _floats(np.float64, small), lambda a: a[1:5],
         lambda a: a[1:5], _slower(2), True, lambda torch, a: a[1:5], None),
        ("a.shape", "float64 10", _floats(np.float64, small), lambda a: a.shape,
         lambda a: a.shape, _slower(1.2), True, lambda torch, a: a.shape, None),
    ]
    for n, quick_n, target in ((3000, 600, 2.7), (500, 100, 1.0)):
        rows.append(("mean", f"float32 {n}x{n} | float32 {quick_n}x{quick_n}",
                     _floats(np.float32, ((n, n), (quick_n, quick_n))), np.mean, ap.mean,
                     _faster(target), False, lambda torch, a: a.mean(), "np.mean(a)"))
    rows.append(("std(axis=0)", "float32 3000x3000 | float32 600x600",
                 _floats(np.float32, ((3000, 3000), (600, 600))),
                 lambda a: np.std(a, axis=0), lambda a: ap.std(a, axis=0), _faster(3.1), False,
                 lambda torch, a: a.std(dim=0, correction=0), None))
    rows.append(("where(a > 0, a, 0)", "float32 2**23 | float32 2**16",
                 _floats(np.float32, ((1 << 23,), (1 << 16,))),
                 lambda a: np.where(a > 0, a, 0), lambda a: ap.where(a > 0, a, 0), _faster(2.5),
                 False, lambda torch, a: torch.where(a > 0, a, 0.0),
                 "np.where(a > 0, a, np.float32(0))"))
    for name, np_f, ap_f, torch_f, numba_src in (
            ("sort", np.sort, ap.sort, lambda torch, a: a.sort().values, "np.sort(a)"),
            ("argsort", np.argsort, ap.argsort, lambda torch, a: a.argsort(), "np.argsort(a)")):
        for log2 in (22, 23, 24):
            rows.append((name, f"float32 2**{log2} | float32 2**{log2 - 8}",
                         _floats(np.float32, ((1 << log2,), (1 << (log2 - 8),))),
                         np_f, ap_f, _faster(1.2), False, torch_f, numba_src))
    rows.append(("argmax", "float32 2**23 | float32 2**16",
                 _floats(np.float32, ((1 << 23,), (1 << 16,))), np.argmax, ap.argmax,
                 _faster(1.5), False, lambda torch, a: a.argmax(), "np.argmax(a)"))
    rows.append(("fft", "complex64 2**22 | complex64 2**14", _complex64(1 << 22, 1 << 14),
                 np.fft.fft, lambda a: ap.fft.fft(a), _faster(3), False,
                 lambda torch, a: torch.fft.fft(a), None))
    rows.append(("a + b (memory-bound)", "float64 2**25 | float64 2**18",
                 _floats(np.float64, ((1 << 25,), (1 << 18,)), ((1 << 25,), (1 << 18,))),
                 np.add, lambda a, b: a + b, Target(">= 80% of copy bandwidth", 0.8, True),
                 False, lambda torch, a, b: a + b, "a + b"))
    rows.append(("matmul", "float32 4000x4000 | float32 200x200",
                 _floats(np.float32, ((4000, 4000), (200, 200)), ((4000, 4000), (200, 200))),
                 np.matmul, ap.matmul, _faster(1.0), False, lambda torch, a, b: a @ b, None))
    return [Row(*row) for row in rows]


def _label(row, quick):
    """The row's input label for this run: full and quick labels are split by ' | '."""
    full, _, small = row.label.partition(" | ")
    return small if quick and small else full


def _numba_function(numba, row):
    """The row's call compiled with ``numba.njit`` (compiled on the warm-up call)."""
    arity = len(row.inputs(np.random.default_rng(0), True))
    params = ", ".join("abo"[:arity])
    namespace = {"np": np}
    exec(f"def kernel({params}):\n    return {row.numba}\n", namespace)      # noqa: S102
    return numba.njit(cache=False)(namespace["kernel"])


def _check(row, result, expected, hosts):
    """asnumpy's result against NumPy's: exact for shapes, indices and integers;
    floats within single-precision rounding (summation orders differ); argsort
    by the values its indices pick (equal values may come in either order)."""
    if isinstance(expected, tuple):                   # a.shape
        assert tuple(result) == expected, (result, expected)
        return
    host = ap.asnumpy(result) if isinstance(result, ap.ndarray) else np.asarray(result)
    expected = np.asarray(expected)
    if row.name == "argsort":
        host, expected = hosts[0][host], hosts[0][expected]
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(host, expected)
        return
    # a reduction's rounding: a few eps of the mean magnitude; else 1e-5 of the largest result
    rounding = 8 * np.finfo(np.float32).eps * float(np.mean(np.abs(hosts[0])))
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(host, expected, rtol=1e-4, atol=max(1e-5 * scale, rounding))


class Timing(NamedTuple):
    numpy: float            # seconds per call
    asnumpy: float
    others: dict            # library -> NumPy seconds / library seconds
    moved: int              # bytes read and written by one call: inputs + result


def time_row(row, device, quick, libraries):
    """The row's :class:`Timing`.  NumPy and asnumpy alternate on their own;
    each other library then alternates with NumPy in a run of its own, so
    that its thread pool (PyTorch's spins after each call) cannot slow the
    NumPy and asnumpy figures."""
    rng = np.random.default_rng()
    hosts = row.inputs(rng, quick)
    on_device = [ap.asarray(h, device=device) for h in hosts]
    expected = row.numpy(*hosts)
    _check(row, row.asnumpy(*on_device), expected, hosts)
    moved = sum(h.nbytes for h in hosts) + getattr(expected, "nbytes", 0)

    def numpy_call():
        return row.numpy(*hosts)

    others = {}
    torch, numba = libraries.get("torch-cpu"), libraries.get("numba")
    if torch is not None and row.torch is not None:
        tensors = [torch.from_numpy(h.copy()) for h in hosts]
        others["torch-cpu"] = lambda: row.torch(torch, *tensors)
    if numba is not None and row.numba is not None:
        kernel, copies = _numba_function(numba, row), [h.copy() for h in hosts]
        others["numba"] = lambda: kernel(*copies)
    number = calls_per_sample(numpy_call, quick) if row.per_call else 1
    big = hosts[0].nbytes >= 16 << 20             # sorts of 2**22 and up take ~0.3 s or more
    repeats = 3 if quick else (25 if row.per_call else (7 if big else 15))
    numpy_s, asnumpy_s = alternating_medians(
        [numpy_call, lambda: row.asnumpy(*on_device)], repeats, number)
    ratios = {}
    for name, call in others.items():
        baseline, theirs = alternating_medians([numpy_call, call], repeats, number)
        ratios[name] = baseline / theirs
    return Timing(numpy_s, asnumpy_s, ratios, moved)


def time_import(quick):
    """(NumPy's import seconds, asnumpy's): the minimum of interleaved fresh interpreters."""
    for module in ("numpy", "asnumpy"):          # warm-up: bytecode written, files cached
        import_seconds(module)
    runs = 3 if quick else 15
    samples = {"numpy": [], "asnumpy": []}
    for _ in range(runs):
        for module, record in samples.items():
            record.append(import_seconds(module))
    return min(samples["numpy"]), min(samples["asnumpy"])


def _libraries():
    """The comparison libraries installed: {column name: module}."""
    # PyTorch's OpenMP threads spin after each call by default, taking both cores
    # from the NumPy and asnumpy calls timed next (NumPy's 200x200 matmul: 0.2 ms
    # -> 20-50 ms); passive threads sleep at once.  Read when torch is first imported.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    found = {}
    for name, module in (("torch-cpu", "torch"), ("numba", "numba")):
        loaded = optional(module)
        if loaded is not None:
            found[name] = loaded
    return found


def run(device, quick, rows_filter, say):
    """Time every selected row and print the table through ``say``; returns the rows' ratios."""
    libraries = _libraries()
    names = list(libraries)
    header = (f"{'row':<22}{'input':<28}{'NumPy':>11}{'asnumpy':>11}{'ratio':>8}  "
              f"{'target':<26}{'met':<5}" + "".join(f"{n + ' x':>12}" for n in names) + "  note")
    say(header)
    say("-" * len(header))

    def line(name, label, numpy_s, asnumpy_s, target_text, met, others, note=""):
        extra = "".join(f"{others[n]:>11.2f}x" if n in others else f"{'':>12}" for n in names)
        say(f"{name:<22}{label:<28}{format_seconds(numpy_s):>11}{format_seconds(asnumpy_s):>11}"
            f"{numpy_s / asnumpy_s:>7.2f}x  {target_text:<26}{'yes' if met else 'NO':<5}"
            f"{extra}  {note}".rstrip())

    def selected(name, label):
        return rows_filter is None or rows_filter in f"{name} {label}"

    ratios = {}
    for row in _rows():
        label = _label(row, quick)
        if not selected(row.name, label):
            continue
        timing = time_row(row, device, quick, libraries)
        ratio = timing.numpy / timing.asnumpy
        ratios[(row.name, label)] = ratio
        score, note = ratio, ""
        if row.target.bandwidth:
            bandwidth = copy_bandwidth((16 if quick else 512) << 20, threads=2,
                                       repeats=3 if quick else 7)
            score = timing.moved / timing.asnumpy / bandwidth
            note = (f"{score:.0%} of {bandwidth / 1e9:.1f} GB/s "
                    f"(NumPy {timing.moved / timing.numpy / bandwidth:.0%})")
        line(row.name, label, timing.numpy, timing.asnumpy, row.target.text,
             score >= row.target.minimum, timing.others, note)
    if selected("import asnumpy", "bytecode cached"):
        numpy_s, asnumpy_s = time_import(quick)
        ratios[("import asnumpy", "bytecode cached")] = numpy_s / asnumpy_s
        line("import asnumpy", "bytecode cached", numpy_s, asnumpy_s, "<= NumPy + 30 ms",
             asnumpy_s - numpy_s <= 0.030, {},
             f"NumPy + {(asnumpy_s - numpy_s) * 1e3:.1f} ms (min of runs)")
    say("ratio = NumPy time / asnumpy time (higher is faster), medians of alternating "
        "repetitions; library columns: NumPy time / that library's time, alternating in runs of "
        "their own")
    return ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="asnumpy device (default: the current one)")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, few repetitions: a smoke test, not a measurement")
    parser.add_argument("--rows", default=None, help="only rows whose name or input contain this")
    parser.add_argument("--save", action="store_true",
                        help="write benchmarks/results/cpu-speed-<machine>.txt")
    args = parser.parse_args()
    device = ap.Device(args.device)
    say = open_transcript(device, args.quick)
    try:
        run(device, args.quick, args.rows, say)
    finally:            # import_time's private bytecode folder for the child interpreters
        shutil.rmtree(CHILD_ENV["PYTHONPYCACHEPREFIX"], ignore_errors=True)
    if args.save:
        say.save(RESULTS / f"cpu-speed-{machine_slug(device)}.txt")


if __name__ == "__main__":
    main()
