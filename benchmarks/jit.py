"""asnumpy.jit against NumPy, eager asnumpy, asnumpy.fuse, numexpr, numba and JAX, in one run.

Cases (issue 29's targets on cpu):

* Black-Scholes call and put prices of 10**7 float64 options (the benchmark
  Bohrium reported), the cumulative normal by the Abramowitz-Stegun
  polynomial written with ``sign``/``absolute`` (no branch on values); the
  same eager code under ``with ap.lazy():`` too (also for the chain);
* a 10-op elementwise chain on float32 4000x4000;
* ``sum(a*b)`` on float32 8000x8000 and softmax on float32 (4096, 4096), as in
  benchmarks/fusion.py (the ``fuse`` column beside ``jit``'s);
* ``sin``, ``log``, ``tanh``, ``exp`` of 4M float32 (jit against the unfused call);
* a k-means step (squared distances, argmin, per-cluster means through a
  one-hot matrix product) on 10**6 points x 8 dims, 16 clusters;
* small: 20 elementwise ops on two 100-element float64 arrays (per-call cost).

Every function is written once against a namespace ``xp`` and run on NumPy
(``np``), asnumpy eagerly (``ap``), under ``ap.jit``, and (where the case is one
fusible function) under ``ap.fuse``; numexpr / numba (``parallel=True``) / JAX's
``jax.jit`` (on its cpu device, float64 enabled) run their own forms of the
same computation.  Times are medians of repetitions that alternate call by call
between NumPy and asnumpy's columns after warm-ups (the jit and fuse warm-ups
include the trace, compilation and the two measured calls that choose how each
region runs); each peer is then timed on its own, in the same run (their
worker threads spin on after a call and would slow the next column).  Results are checked
against NumPy's first.  ratio = NumPy's time / that column's (higher is faster).

Usage: ``python benchmarks/jit.py [--device cpu:0] [--quick] [--repeats N] [--save]``.
"""

from __future__ import annotations

import argparse
import math
import os

import numpy as np
from _timing import (alternating_medians, machine_slug, open_transcript, optional,
                     per_call_us)

import asnumpy as ap

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
WARMUPS = 5          # trace, compile, two measured calls, one decided replay


# -- the cases, written once against a namespace ------------------------------------------

def black_scholes(xp):
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429

    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * xp.absolute(d))
        poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))
        w = 1.0 - 0.3989422804014327 * xp.exp(-0.5 * d * d) * poly
        return 0.5 + xp.sign(d) * (w - 0.5)

    def prices(s, x, t, r, v):
        sqrt_t = xp.sqrt(t)
        d1 = (xp.log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        discounted = x * xp.exp(-r * t)
        call = s * cnd(d1) - discounted * cnd(d2)
        put = discounted * cnd(-d2) - s * cnd(-d1)
        return call, put

    return prices


def chain10(xp):
    def f(a, b):
        c = a * b + 1.0
        c = c * a - b
        c = c * 0.5 + a
        c = c * c - b
        return c * 0.25 + 1.0

    return f


def sum_of_products(xp):
    return lambda a, b: xp.sum(a * b)


def softmax(xp):
    def f(x):
        e = xp.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    return f


def transcendental(name):
    def make(xp):
        function = getattr(xp, name)
        return lambda x: function(x)

    return make


def kmeans_step(xp):
    def step(points, centres):
        distances = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1)
        labels = distances.argmin(axis=1)
        onehot = (labels[:, None] == xp.arange(centres.shape[0])).astype(points.dtype)
        counts = onehot.sum(axis=0)
        return (onehot.T @ points) / xp.maximum(counts, 1.0)[:, None]

    return step


def small20(xp):
    def f(a, b):
        c = a * b + 1.5
        c = c * a - b
        c = c / (b + 2.0)
        c = c * c + a
        c = c - 0.25 * b
        c = c * 1.01 + a * b
        c = c - a / (b + 3.0)
        c = c * 0.5 + 0.1
        return c + a

    return f


# -- inputs -----------------------------------------------------------------------------

def _options(n, rng):
    return [rng.uniform(5.0, 30.0, n), rng.uniform(1.0, 100.0, n), rng.uniform(0.25, 10.0, n),
            0.02, 0.30]


def _uniform(shape, count, dtype=np.float32, offset=0.0):
    def make(rng):
        return [rng.random(shape, dtype=np.float64).astype(dtype) + dtype(offset)
                for _ in range(count)]

    return make


def _kmeans_inputs(n, dims=8, clusters=16):
    def make(rng):
        return [rng.standard_normal((n, dims)), rng.standard_normal((clusters, dims))]

    return make


# case -> (function of xp, inputs(rng), quick inputs(rng), rtol, fuse-able, targets text)
CASES = {
    "black-scholes 1e7 f64": (black_scholes, lambda rng: _options(10**7, rng),
                              lambda rng: _options(10**5, rng), 1e-9, False,
                              "jit >= 4x NumPy and >= the best peer"),
    "10-op chain f32 4000^2": (chain10, _uniform((4000, 4000), 2), _uniform((400, 400), 2),
                               1e-5, True, "jit >= 5x NumPy"),
    "sum(a*b) f32 8000^2": (sum_of_products, _uniform((8000, 8000), 2),
                            _uniform((800, 800), 2), 1e-4, True, "jit >= fuse"),
    "softmax f32 4096^2": (softmax, _uniform((4096, 4096), 1), _uniform((256, 256), 1),
                           2e-6, True, "jit >= fuse"),
    **{f"{name}(x) f32 4M": (transcendental(name), _uniform((2000, 2000), 1, offset=0.5),
                             _uniform((200, 200), 1, offset=0.5), 2e-6, True,
                             "jit >= 1.0x eager")
       for name in ("sin", "log", "tanh", "exp")},
    "k-means 1e6x8, 16": (kmeans_step, _kmeans_inputs(10**6), _kmeans_inputs(10**4), 1e-9,
                          False, "jit >= 2x NumPy"),
}


# -- the peers' forms -----------------------------------------------------------------------

def _numexpr_forms(ne):
    cnd = ("(0.5 + where(d > 0, 1.0, where(d < 0, -1.0, 0.0)) * ((1.0 - 0.3989422804014327 "
           "* exp(-0.5 * d * d) * (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k "
           "* (-1.821255978 + k * 1.330274429)))))) - 0.5))")

    def black_scholes_ne(s, x, t, r, v):
        d1 = ne.evaluate("(log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt(t))")
        d2 = ne.evaluate("d1 - v * sqrt(t)")
        parts = {}
        for name, value in (("n1", d1), ("n2", d2), ("m1", -d1), ("m2", -d2)):
            d = value  # noqa: F841 (read by name)
            k = ne.evaluate("1.0 / (1.0 + 0.2316419 * abs(d))")  # noqa: F841
            parts[name] = ne.evaluate(cnd)
        n1, n2, m1, m2 = parts["n1"], parts["n2"], parts["m1"], parts["m2"]  # noqa: F841
        discounted = ne.evaluate("x * exp(-r * t)")  # noqa: F841
        return (ne.evaluate("s * n1 - discounted * n2"), ne.evaluate("discounted * m2 - s * m1"))

    return {
        "black-scholes 1e7 f64": black_scholes_ne,
        "10-op chain f32 4000^2": lambda a, b: ne.evaluate(
            "((((a * b + 1) * a - b) * 0.5 + a) ** 2 - b) * 0.25 + 1"),
        "sum(a*b) f32 8000^2": lambda a, b: ne.evaluate("sum(a * b)"),
        **{f"{name}(x) f32 4M": (lambda x, e=f"{name}(x)": ne.evaluate(e))
           for name in ("sin", "log", "tanh", "exp")},
    }


def _numba_forms(numba):
    @numba.njit(parallel=True, fastmath=False)
    def black_scholes_nb(s, x, t, r, v):
        call, put = np.empty_like(s), np.empty_like(s)
        for i in numba.prange(s.shape[0]):
            sqrt_t = math.sqrt(t[i])
            d1 = (math.log(s[i] / x[i]) + (r + 0.5 * v * v) * t[i]) / (v * sqrt_t)
            d2 = d1 - v * sqrt_t
            discounted = x[i] * math.exp(-r * t[i])
            n = np.empty(4)
            for j, d in enumerate((d1, d2, -d1, -d2)):
                k = 1.0 / (1.0 + 0.2316419 * abs(d))
                poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (
                    -1.821255978 + k * 1.330274429))))
                w = 1.0 - 0.3989422804014327 * math.exp(-0.5 * d * d) * poly
                n[j] = 0.5 + np.sign(d) * (w - 0.5)
            call[i] = s[i] * n[0] - discounted * n[1]
            put[i] = discounted * n[3] - s[i] * n[2]
        return call, put

    @numba.njit(parallel=True, fastmath=False)
    def kmeans_nb(points, centres):
        n, k = points.shape[0], centres.shape[0]
        labels = np.empty(n, np.int64)
        for i in numba.prange(n):
            best, best_j = np.inf, 0
            for j in range(k):
                d = 0.0
                for c in range(points.shape[1]):
                    diff = points[i, c] - centres[j, c]
                    d += diff * diff
                if d < best:
                    best, best_j = d, j
            labels[i] = best_j
        sums = np.zeros_like(centres)
        counts = np.zeros(k)
        for i in range(n):
            for c in range(points.shape[1]):
                sums[labels[i], c] += points[i, c]
            counts[labels[i]] += 1.0
        out = np.empty_like(sums)
        for j in range(k):
            for c in range(points.shape[1]):
                out[j, c] = sums[j, c] / max(counts[j], 1.0)
        return out

    @numba.njit(parallel=True, fastmath=False)
    def chain_nb(a, b):
        c = a * b + np.float32(1)
        c = c * a - b
        c = c * np.float32(0.5) + a
        c = c * c - b
        return c * np.float32(0.25) + np.float32(1)

    return {"black-scholes 1e7 f64": black_scholes_nb, "k-means 1e6x8, 16": kmeans_nb,
            "10-op chain f32 4000^2": chain_nb}


def _jax_forms(jax):
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    forms = {}
    for name, (make, *_rest) in CASES.items():
        function = jax.jit(make(jnp))

        def run(*args, f=function):
            result = f(*args)
            return jax.block_until_ready(result)

        forms[name] = run
    return forms


# -- running ------------------------------------------------------------------------------

def _host(result):
    if isinstance(result, tuple):
        return tuple(_host(item) for item in result)
    return np.asarray(ap.asnumpy(result) if isinstance(result, ap.ndarray) else result)


def _close(got, want, rtol):
    """Within ``rtol``, and an absolute tolerance scaled by the result's magnitude: a
    difference of large terms (Black-Scholes' prices near 0) carries their rounding."""
    got, want = _host(got), _host(want)
    pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
    return all(np.allclose(np.asarray(g, dtype=np.float64), w, rtol=rtol,
                           atol=1e-6 * rtol * max(1.0, float(np.max(np.abs(w), initial=0))))
               for g, w in pairs)


def _check(name, got, want, rtol):
    if not _close(got, want, rtol):
        raise AssertionError(f"{name}: result differs from NumPy's")


def run_case(say, name, case, peers, device, quick, repeats):
    make, inputs, quick_inputs, rtol, fusable, target = case
    lazy_too = name.startswith(("black-scholes", "10-op"))
    host = (quick_inputs if quick else inputs)(np.random.default_rng(0))
    arrays = [ap.asarray(h, device=device) if isinstance(h, np.ndarray) else h for h in host]
    reference, eager, jitted = make(np), make(ap), ap.jit(make(ap))
    want = reference(*host)
    for _ in range(WARMUPS):
        _check(f"{name} (jit)", jitted(*arrays), want, rtol)
    _check(f"{name} (eager)", eager(*arrays), want, rtol)
    # (work on the default stream is done when the call returns)
    functions = [lambda: reference(*host), lambda: eager(*arrays), lambda: jitted(*arrays)]
    labels = ["NumPy", "eager", "jit"]
    if lazy_too:
        def under_lazy():
            with ap.lazy():
                return eager(*arrays)

        for _ in range(WARMUPS):
            _check(f"{name} (lazy)", under_lazy(), want, rtol)
        functions.append(under_lazy)
        labels.append("lazy")
    if fusable:
        fused = ap.fuse(make(ap))
        for _ in range(WARMUPS):
            _check(f"{name} (fuse)", fused(*arrays), want, rtol)
        functions.append(lambda: fused(*arrays))
        labels.append("fuse")
    times = alternating_medians(functions, repeats)
    for peer, forms in peers.items():
        form = forms.get(name)
        if form is None:
            continue
        # their own association and libm: a looser check (a mark, not a failure)
        close = _close(form(*host), want, max(rtol, 1e-6) * 10)
        # each peer timed on its own: numba's and XLA's worker threads keep spinning
        # after a call returns, which would slow whatever runs next on these cores
        times += alternating_medians([lambda form=form: form(*host)], repeats)
        labels.append(peer + ("" if close else "*"))
    say(f"{name}   (target: {target})")
    say("  " + "  ".join(f"{label} {t * 1e3:.2f} ms ({times[0] / t:.2f}x)"
                         for label, t in zip(labels, times)))
    say(f"  jit: {_runs(jitted)}")


def _runs(jitted):
    """How the jitted function's regions ran (its explain(), one line)."""
    lines = jitted.explain().splitlines()[2:]
    fused = [line for line in lines if "fused region" in line]
    kernels = sum(1 for line in fused if "op by op" not in line)
    return (f"{len(lines)} steps, {len(fused)} fused regions ({kernels} run fused, "
            f"{len(fused) - kernels} op by op as measured faster)")


def small_case(say, device, quick):
    rng = np.random.default_rng(1)
    host = [rng.random(100), rng.random(100)]
    arrays = [ap.asarray(h, device=device) for h in host]
    reference, eager = small20(np), small20(ap)
    jitted, fused = ap.jit(small20(ap)), ap.fuse(small20(ap))
    for _ in range(WARMUPS):
        _check("small (jit)", jitted(*arrays), reference(*host), 1e-12)
        _check("small (fuse)", fused(*arrays), reference(*host), 1e-12)
    calls, repeats = (2000, 5) if quick else (20000, 9)
    times = [per_call_us(lambda: reference(*host), calls, repeats),
             per_call_us(lambda: eager(*arrays), calls, repeats),
             per_call_us(lambda: jitted(*arrays), calls, repeats),
             per_call_us(lambda: fused(*arrays), calls, repeats)]
    say("20 ops on 100 f64 (per call)   (target: jit <= 0.5x NumPy's time)")
    say(f"  NumPy {times[0]:.2f} us  eager {times[1]:.2f} us ({times[1] / times[0]:.2f}x NumPy's "
        f"time)  jit {times[2]:.2f} us ({times[2] / times[0]:.2f}x NumPy's time)  "
        f"fuse {times[3]:.2f} us ({times[3] / times[0]:.2f}x NumPy's time)")
    say(f"  jit: {_runs(jitted)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--quick", action="store_true", help="small inputs (a smoke test)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", help="comma-separated substrings of case names to run")
    parser.add_argument("--save", action="store_true", help="write benchmarks/results/")
    args = parser.parse_args()
    device = ap.Device(args.device)
    say = open_transcript(device, args.quick)
    peers = {}
    for module, forms in (("numexpr", _numexpr_forms), ("numba", _numba_forms),
                          ("jax", _jax_forms)):
        found = optional(module)
        if found is not None:
            peers[f"{module} {found.__version__}"] = forms(found)
    say("peers: " + (", ".join(peers) or "none installed"))
    for name, case in CASES.items():
        if args.cases and not any(part in name for part in args.cases.split(",")):
            continue
        run_case(say, name, case, peers, device, args.quick, args.repeats)
    if not args.cases or "small" in args.cases:
        small_case(say, device, args.quick)
    say("ratio = NumPy's time / that column's (higher is faster); * = that peer's result "
        "differs from NumPy's by more than 10x the tolerance")
    if args.save and not args.quick:
        say.save(os.path.join(RESULTS, f"jit-{machine_slug(device)}.txt"))


if __name__ == "__main__":
    main()
