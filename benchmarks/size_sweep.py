"""Elementwise ops, reductions, sorts, searches and matmul across sizes, against NumPy.

add / multiply / exp / sum run from 10 to 10**8 elements (float32, float64,
int32); sort and argsort (32- and 64-bit keys: float32, int32, float64,
int64), mean, argmax, where (``where(a > 0, a, 0)``) and matmul (square
matrices of about ``size`` elements each; float32, float64) from 10**3 to
10**7.  For each op, dtype and size, NumPy and asnumpy are timed side by side: after an untimed warm-up their repetitions alternate,
and each figure is the median per call (short calls are timed in runs of
back-to-back calls of about 2 ms).  Inputs are fresh random arrays, already
on the device; every asnumpy result is checked against NumPy's first (sorts and searches
exactly; an argsort by the order it gives, since NumPy leaves the order of
ties to its dispatch; sums, means and products within their rounding).
``exp`` of int32 is NumPy's float64 result, as NumPy computes it.  A point
whose arrays would not fit in the memory available is skipped, and says so.

The table gives ratio = NumPy time / asnumpy time per point (the issue's
target: every point >= 0.9x; points below are starred).  ``--save`` writes
the table to benchmarks/results/size-sweep-<machine>.txt and plots it to
size-sweep-<machine>.png (matplotlib, the ``bench`` extra: one panel per op,
ratio against size on a log axis, a line per dtype, 0.9 dashed).

Usage: ``python benchmarks/size_sweep.py [--quick] [--save] [--device cpu:0] [--ops sort,mean]``.
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

def _where(xp):
    return lambda a: xp.where(a > 0, a, a.dtype.type(0))


ELEMENTWISE = ("float32", "float64", "int32")
KEYS = ("float32", "int32", "float64", "int64")      # sort keys of 32 and 64 bits
# name -> (NumPy function, asnumpy function, number of inputs, dtypes, sizes' powers of ten,
#          the quick run's): a table, one row an op
OPS = {
    "add": (np.add, ap.add, 2, ELEMENTWISE, range(1, 9), range(1, 7)),
    "multiply": (np.multiply, ap.multiply, 2, ELEMENTWISE, range(1, 9), range(1, 7)),
    "exp": (np.exp, ap.exp, 1, ELEMENTWISE, range(1, 9), range(1, 7)),
    "sum": (np.sum, ap.sum, 1, ELEMENTWISE, range(1, 9), range(1, 7)),
    "mean": (np.mean, ap.mean, 1, ELEMENTWISE, range(3, 8), range(3, 6)),
    "argmax": (np.argmax, ap.argmax, 1, ELEMENTWISE, range(3, 8), range(3, 6)),
    "where": (_where(np), _where(ap), 1, ELEMENTWISE, range(3, 8), range(3, 6)),
    "sort": (np.sort, ap.sort, 1, KEYS, range(3, 8), range(3, 6)),
    "argsort": (np.argsort, ap.argsort, 1, KEYS, range(3, 8), range(3, 6)),
    "matmul": (np.matmul, ap.matmul, 2, ("float32", "float64"), range(3, 8), range(3, 6)),
}
TARGET = 0.9


def sizes(quick, op=None):
    """The sizes of ``op`` (every op's, without): 10, 100, ..., 10**8 at most."""
    ops = [op] if op else list(OPS)
    return sorted({10 ** k for name in ops for k in OPS[name][5 if quick else 4]})


def _shape(op, size):
    """Square matrices of about ``size`` elements for matmul, else a line."""
    if op == "matmul":
        side = max(1, round(size ** 0.5))
        return (side, side)
    return (size,)


def _inputs(rng, op, dtype, size, count):
    shape = _shape(op, size)
    if op in ("sort", "argsort") and dtype[0] == "i":  # keys over the whole range
        info = np.iinfo(dtype)
        return [rng.integers(info.min, info.max, shape, dtype=dtype) for _ in range(count)]
    if dtype == "int32":        # small integers: exp stays finite, sums exact
        return [rng.integers(-20, 21, shape, dtype=np.int32) for _ in range(count)]
    return [rng.standard_normal(shape).astype(dtype, copy=False) for _ in range(count)]


def _bytes_needed(op, dtype, size):
    """Memory one point holds at once: inputs on host and device, three results."""
    count = OPS[op][2]
    result = np.result_type(np.exp(np.zeros(1, dtype))) if op == "exp" else np.dtype(dtype)
    if op == "argsort":
        result = np.dtype(np.intp)
    return 2 * count * size * np.dtype(dtype).itemsize + 3 * size * result.itemsize


def _check(op, result, expected, hosts):
    host = ap.asnumpy(result)
    if op == "argsort":         # NumPy's unstable order of ties is its dispatch's choice
        assert host.dtype == expected.dtype and host.shape == expected.shape
        np.testing.assert_array_equal(np.bincount(host, minlength=host.size), 1)
        assert hosts[0][host].tobytes() == hosts[0][expected].tobytes()
    elif op in ("sort", "where", "argmax") or expected.dtype.kind in "iu":
        assert host.dtype == expected.dtype
        assert host.tobytes() == expected.tobytes()
    elif op == "matmul":        # rounding grows with the inner length
        a, b = hosts
        eps = np.finfo(expected.dtype).eps
        bound = 4 * eps * a.shape[1] * float(np.abs(a).max()) * float(np.abs(b).max())
        np.testing.assert_allclose(host, expected, rtol=0, atol=bound)
    else:               # a sum's rounding depends on its order: bounded by eps * sum(|x|)
        eps = np.finfo(expected.dtype).eps
        scale = float(np.abs(hosts[0]).astype(np.float64).sum()) if expected.ndim == 0 else 0
        if op == "mean":
            scale /= hosts[0].size
        np.testing.assert_allclose(host, expected, rtol=4 * eps, atol=4 * eps * scale)


def time_point(op, dtype, size, device, quick):
    """(NumPy seconds, asnumpy seconds) per call, medians of alternating repetitions."""
    numpy_function, asnumpy_function, count = OPS[op][:3]
    hosts = _inputs(np.random.default_rng(), op, dtype, size, count)
    on_device = [ap.asarray(h, device=device) for h in hosts]
    _check(op, asnumpy_function(*on_device), numpy_function(*hosts), hosts)
    functions = [lambda: numpy_function(*hosts), lambda: asnumpy_function(*on_device)]
    number = calls_per_sample(functions[0], quick)
    repeats = 3 if quick else (5 if size >= 10 ** 7 else 15)
    return alternating_medians(functions, repeats, number)


def sweep(device, quick, say, ops=None):
    """{(op, dtype, size): ratio or None (skipped)}; prints each point as it is measured."""
    ratios = {}
    for op in ops or OPS:
        for dtype in OPS[op][3]:
            for size in sizes(quick, op):
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


def table(ratios, quick, say, ops=None):
    """The ratios as one line per (op, dtype), a column per size; below-target points starred."""
    ops = ops or list(OPS)
    columns = sorted({size for name in ops for size in sizes(quick, name)})
    say(f"\n{'op':<9}{'dtype':<9}" + "".join(f"{f'1e{len(str(n)) - 1}':>8}" for n in columns))
    below = measured = 0
    for op in ops:
        for dtype in OPS[op][3]:
            cells = []
            for size in columns:
                if size not in sizes(quick, op):
                    cells.append(" " * 8)
                    continue
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


def plot(ratios, quick, title, path, ops=None):
    """Ratio against size, one panel per op, a line per dtype, the target dashed (PNG)."""
    import matplotlib  # the bench extra, needed only here
    matplotlib.use("Agg")
    from matplotlib import pyplot

    ops = ops or list(OPS)
    figure, axes = pyplot.subplots(1, len(ops), figsize=(4 * len(ops), 3.6), sharey=True,
                                   squeeze=False)
    axes = axes[0]
    for ax, op in zip(axes, ops):
        for dtype in OPS[op][3]:
            points = [(n, ratios[(op, dtype, n)]) for n in sizes(quick, op)
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
    parser.add_argument("--ops", default=None,
                        help=f"comma-separated ops to run (default all: {', '.join(OPS)})")
    args = parser.parse_args()
    ops = args.ops.split(",") if args.ops else list(OPS)
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        parser.error(f"unknown ops {unknown}; known: {', '.join(OPS)}")
    device = ap.Device(args.device)
    say = open_transcript(device, args.quick)
    ratios = sweep(device, args.quick, say, ops)
    table(ratios, args.quick, say, ops)
    if args.save:
        stem = Path(args.results) / f"size-sweep-{machine_slug(device)}"
        say.save(stem.with_suffix(".txt"))
        plot(ratios, args.quick, say.lines[0], stem.with_suffix(".png"), ops)


if __name__ == "__main__":
    main()
