"""asnumpy.fuse against NumPy (and numexpr / numba when installed), in one run.

Cases (the issue's speed targets on cpu):

* ``a*b + c*2 - sqrt(a)`` on three float32 4000x4000 arrays;
* ``sum(a*b)`` of two float32 8000x8000 arrays;
* softmax along the last axis of a float32 (4096, 4096) array,
  ``exp(x - max) / sum(exp(x - max))`` (a reduction, elementwise work on
  its result, a second reduction and elementwise outputs: one ``rows`` kernel);
* ``sin``, ``log``, ``tanh``, ``exp`` of a float32 array of 4M elements
  (in [0.5, 1.5)): a fused kernel computes them with the C library's scalar
  calls, NumPy with SIMD loops, so the fused function measures both on its
  second and third calls and keeps the faster (the ``runs`` column says which).

Each time is the median of several repetitions after an untimed warm-up
(which also compiles the fused kernel); NumPy, asnumpy op by op, the fused
function and the other libraries alternate call by call, so all see the
same machine state.  Every result is checked against NumPy's first.  The
ratio is NumPy's time over the other's (higher is faster).

Usage: ``python benchmarks/fusion.py [--device cpu:0] [--quick] [--repeats N]``.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from _timing import alternating_medians, machine_line, optional

import asnumpy as ap
from asnumpy.extension.fusion import MEASURE


def expression(xp):
    sqrt = xp.sqrt

    def f(a, b, c):
        return a * b + c * 2 - sqrt(a)

    return f


def sum_of_products(xp):
    def f(a, b):
        return xp.sum(a * b)

    return f


def softmax(xp):
    def f(x):
        m = x.max(axis=-1, keepdims=True)
        e = xp.exp(x - m)
        return e / e.sum(axis=-1, keepdims=True)

    return f


def transcendental(name):
    def make(xp):
        function = getattr(xp, name)
        return lambda x: function(x)

    return make


TRANSCENDENTAL = ("sin", "log", "tanh", "exp")
# case -> (function of a namespace, input shape, arity, tolerance against NumPy, offset of
# the uniform [0, 1) inputs)
CASES = {
    "a*b + c*2 - sqrt(a)": (expression, (4000, 4000), 3, 0, 0.0),
    "sum(a*b)": (sum_of_products, (8000, 8000), 2, 1e-5, 0.0),
    "softmax(x, axis=-1)": (softmax, (4096, 4096), 1, 2e-6, 0.0),
    **{f"{name}(x)": (transcendental(name), (2000, 2000), 1, 2e-6, 0.5)
       for name in TRANSCENDENTAL},
}


def _numexpr_forms(numexpr):
    def softmax_ne(x):
        # numexpr reads m and s by name; it reduces whole arrays only
        m = x.max(axis=-1, keepdims=True)  # noqa: F841
        e = numexpr.evaluate("exp(x - m)")
        s = e.sum(axis=-1, keepdims=True)  # noqa: F841
        return numexpr.evaluate("e / s")

    return {
        "a*b + c*2 - sqrt(a)": lambda a, b, c: numexpr.evaluate("a * b + c * 2 - sqrt(a)"),
        "sum(a*b)": lambda a, b: numexpr.evaluate("sum(a * b)"),
        "softmax(x, axis=-1)": softmax_ne,
        **{f"{name}(x)": lambda x, e=f"{name}(x)": numexpr.evaluate(e)
           for name in TRANSCENDENTAL},
    }


def _numba_forms(numba):
    @numba.njit(parallel=True, fastmath=False)
    def expression_nb(a, b, c):
        return a * b + c * np.float32(2) - np.sqrt(a)

    @numba.njit(parallel=True, fastmath=False)
    def sum_nb(a, b):
        total = np.float32(0)
        for i in numba.prange(a.shape[0]):
            total += np.sum(a[i] * b[i])
        return total

    @numba.njit(parallel=True, fastmath=False)
    def softmax_nb(x):
        out = np.empty_like(x)
        for i in numba.prange(x.shape[0]):
            e = np.exp(x[i] - x[i].max())
            out[i] = e / e.sum()
        return out

    def elementwise_nb(function):
        @numba.njit(parallel=True, fastmath=False)
        def f(x):
            return function(x)

        return f

    return {"a*b + c*2 - sqrt(a)": expression_nb, "sum(a*b)": sum_nb,
            "softmax(x, axis=-1)": softmax_nb,
            **{f"{name}(x)": elementwise_nb(getattr(np, name)) for name in TRANSCENDENTAL}}


def _check(name, got, want, rtol):
    got = np.asarray(got)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--quick", action="store_true", help="small arrays (a smoke test)")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    device = ap.Device(args.device)
    print(machine_line(device))
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load is not None:
        print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    others = {}
    numexpr = optional("numexpr")
    if numexpr is not None:
        others[f"numexpr {numexpr.__version__}"] = _numexpr_forms(numexpr)
    numba = optional("numba")
    if numba is not None:
        others[f"numba {numba.__version__}"] = _numba_forms(numba)
    header = (f"{'case':<22}{'input':<24}{'NumPy ms':>10}{'op by op':>10}{'fused ms':>10}"
              f"{'ratio':>8}{'runs':>10}{'kernel ms':>10}{'kern/op':>8}"
              + "".join(f"{name:>19}" for name in others))
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for name, (make, shape, arity, rtol, offset) in CASES.items():
        if args.quick:
            shape = tuple(max(n // 16, 1) for n in shape)
        host = [rng.random(shape, dtype=np.float32) + np.float32(offset) for _ in range(arity)]
        arrays = [ap.asarray(h, device=device) for h in host]
        reference, unfused, fused = make(np), make(ap), ap.fuse(make(ap))
        want = reference(*host)
        for _ in range(3):        # compile, then the two measured calls that choose how it runs
            _check(name, ap.asnumpy(fused(*arrays)), want, rtol)
        runs = "op by op" if "op by op" in fused.explain() else "fused"
        kernel = ap.fuse(make(ap))           # the fused kernel itself: no measured choice
        MEASURE[0] = False
        try:
            _check(name, ap.asnumpy(kernel(*arrays)), want, rtol)
        finally:
            MEASURE[0] = True
        _check(name, ap.asnumpy(unfused(*arrays)), want, rtol)
        functions = [lambda f=reference, x=host: f(*x), lambda f=unfused, x=arrays: f(*x),
                     lambda f=fused, x=arrays: f(*x), lambda f=kernel, x=arrays: f(*x)]
        marks = []
        for forms in others.values():
            form = forms[name]
            # their own association; numexpr sums float32 in float32, one by one
            close = np.allclose(np.asarray(form(*host)), want, rtol=10 * rtol or 1e-6, atol=0)
            marks.append("" if close else "*")
            functions.append(lambda form=form, x=host: form(*x))
        times = alternating_medians(functions, args.repeats)
        label = f"float32 {'x'.join(map(str, shape))}"
        line = (f"{name:<22}{label:<24}{times[0] * 1e3:>10.2f}{times[1] * 1e3:>10.2f}"
                f"{times[2] * 1e3:>10.2f}{times[0] / times[2]:>7.2f}x{runs:>10}"
                f"{times[3] * 1e3:>10.2f}{times[1] / times[3]:>7.2f}x")
        line += "".join(f"{times[0] / t:>7.2f}x ({t * 1e3:6.1f}){mark:1}"
                        for t, mark in zip(times[4:], marks))
        print(line)
    print("runs = how the fused function ran after measuring both ways (its explain());")
    print("kernel ms = the fused kernel with the measured choice disabled; kern/op = op-by-op "
          "time / kernel time;")
    print("ratio = NumPy time / fused time (higher is faster); library columns: NumPy time / "
          "that library's time (its ms);\n* = that library's result differs from NumPy's by "
          "more than 10x the fused result's tolerance")
    if load is not None:
        load = os.getloadavg()
        print(f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
