"""add / multiply / exp / sum at every size from 10 to 10**8 elements, against NumPy.

For each op, dtype (float32, float64, int32) and size, NumPy and asnumpy are
timed side by side: after an untimed warm-up their repetitions alternate,
and each figure is the median per call (short calls are timed in runs of
back-to-back calls of about 2 ms).  Inputs are fresh random arrays, already
on the device; every asnumpy result is checked against NumPy's first.
``exp`` of int32 is NumPy's float64 result, as NumPy computes it.  A point
whose arrays would not fit in the memory available is skipped, and says so.

The table gives ratio = NumPy time / asnumpy time per point (the issue's
target: every point >= 0.9x; points below are starred).  ``--save`` writes
the table to benchmarks/results/size-sweep-<machine>.txt and plots it to
size-sweep-<machine>.png (matplotlib, the ``bench`` extra: one panel per op,
ratio against size on a log axis, a line per dtype, 0.9 dashed).

Usage: ``python benchmarks/size_sweep.py [--quick] [--save] [--device cpu:0]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

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

OPS = {                 # name -> (NumPy function, asnumpy function, number of inputs)
    "add": (np.add, ap.add, 2),
    "multiply": (np.multiply, ap.multiply, 2),
    "exp": (np.exp, ap.exp, 1),
    "sum": (np.sum, ap.sum, 1),
}
DTYPES = ("float32", "float64", "int32")
TARGET = 0.9


def sizes(quick):
    """10, 100, ..., 10**8 (10**6 with ``quick``)."""
    return [10 ** k for k in range(1, 7 if quick else 9)]


def _inputs(rng, dtype, size, count):
    if dtype == "int32":        # small integers: exp stays finite, sums exact
        return [rng.integers(-20, 21, size, dtype=np.int32) for _ in range(count)]
    return [rng.standard_normal(size).astype(dtype, copy=False) for _ in range(count)]


def _bytes_needed(op, dtype, size):
    """Memory one point holds at once: inputs on host and device, three results."""
    _, _, count = OPS[op]
    result = np.result_type(np.exp(np.zeros(1, dtype))) if op == "exp" else np.dtype(dtype)
    return 2 * count * size * np.dtype(dtype).itemsize + 3 * size * result.itemsize


def _check(result, expected, hosts):
    host = ap.asnumpy(result)
    if expected.dtype.kind in "iu":
        np.testing.assert_array_equal(host, expected)
    else:               # a sum's rounding depends on its order: bounded by eps * sum(|x|)
        eps = np.finfo(expected.dtype).eps
        scale = float(np.abs(hosts[0]).astype(np.float64).sum()) if expected.ndim == 0 else 0
        np.testing.assert_allclose(host, expected, rtol=4 * eps, atol=4 * eps * scale)


def time_point(op, dtype, size, device, quick):
    """(NumPy seconds, asnumpy seconds) per call, medians of alternating repetitions."""
    numpy_function, asnumpy_function, count = OPS[op]
    hosts = _inputs(np.random.default_rng(), dtype, size, count)
    on_device = [ap.asarray(h, device=device) for h in hosts]
    _check(asnumpy_function(*on_device), numpy_function(*hosts), hosts)
    functions = [lambda: numpy_function(*hosts), lambda: asnumpy_function(*on_device)]
    number = calls_per_sample(functions[0], quick)
    repeats = 3 if quick else (5 if size >= 10 ** 7 else 15)
    return alternating_medians(functions, repeats, number)


def sweep(device, quick, say):
    """{(op, dtype, size): ratio or None (skipped)}; prints each point as it is measured."""
    ratios = {}
    for op in OPS:
        for dtype in DTYPES:
            for size in sizes(quick):
                needed, available = _bytes_needed(op, dtype, size), available_memory()
                if needed * 5 // 4 + (1 << 30) > available:
                    ratios[(op, dtype, size)] = None
                    say(f"{op:<9}{dtype:<9}{size:>11,}  skipped: needs {needed / 2**30:.1f} GiB, "
                        f"{available / 2**30:.1f} GiB available")
                    continue
                numpy_s, asnumpy_s = time_point(op, dtype, size, device, quick)
                ratios[(op, dtype, size)] = numpy_s / asnumpy_s
                say(f"{op:<9}{dtype:<9}{size:>11,}  NumPy {format_seconds(numpy_s):>10}  "
                    f"asnumpy {format_seconds(asnumpy_s):>10}  {numpy_s / asnumpy_s:6.2f}x")
    return ratios


def table(ratios, quick, say):
    """The ratios as one line per (op, dtype), a column per size; below-target points starred."""
    columns = sizes(quick)
    say(f"\n{'op':<9}{'dtype':<9}" + "".join(f"{f'1e{len(str(n)) - 1}':>8}" for n in columns))
    below = measured = 0
    for op in OPS:
        for dtype in DTYPES:
            cells = []
            for size in columns:
                ratio = ratios.get((op, dtype, size))
                if ratio is None:
                    cells.append(f"{'-':>8}")
                    continue
                measured += 1
                below += ratio < TARGET
                cells.append(f"{ratio:>7.2f}{'*' if ratio < TARGET else ' '}")
            say(f"{op:<9}{dtype:<9}" + "".join(cells))
    say(f"ratio = NumPy time / asnumpy time per call; * below the {TARGET}x target "
        f"({below} of {measured} points); - skipped")


def plot(ratios, quick, title, path):
    """Ratio against size, one panel per op, a line per dtype, the target dashed (PNG)."""
    import matplotlib  # the bench extra, needed only here
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(1, len(OPS), figsize=(4 * len(OPS), 3.6), sharey=True)
    for ax, op in zip(axes, OPS):
        for dtype in DTYPES:
            points = [(n, ratios[(op, dtype, n)]) for n in sizes(quick)
                      if ratios.get((op, dtype, n)) is not None]
            if points:
                ax.plot(*zip(*points), marker="o", label=dtype)
        ax.axhline(TARGET, color="gray", linestyle="--", linewidth=1, label=f"{TARGET}x")
        ax.set_xscale("log")
        ax.set_title(op)
        ax.set_xlabel("elements")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("NumPy time / asnumpy time")
    axes[-1].legend()
    figure.suptitle(title, fontsize=9)
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
    print(f"saved {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="asnumpy device (default: the current one)")
    parser.add_argument("--quick", action="store_true",
                        help="sizes up to 10**6, few repetitions: a smoke test")
    parser.add_argument("--save", action="store_true",
                        help="write size-sweep-<machine>.txt and .png under --results")
    parser.add_argument("--results", default=str(RESULTS), help="folder --save writes to")
    args = parser.parse_args()
    device = ap.Device(args.device)
    say = open_transcript(device, args.quick)
    ratios = sweep(device, args.quick, say)
    table(ratios, args.quick, say)
    if args.save:
        stem = Path(args.results) / f"size-sweep-{machine_slug(device)}"
        say.save(stem.with_suffix(".txt"))
        plot(ratios, args.quick, say.lines[0], stem.with_suffix(".png"))


if __name__ == "__main__":
    main()
