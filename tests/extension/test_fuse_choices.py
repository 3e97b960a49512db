"""asnumpy.fuse's choices per signature: measured fused-or-op-by-op, the signature cap, explain()."""

import warnings

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.cpu.compiler import compiler_command
from asnumpy.extension import CompilerNotFoundError, fusion
from asnumpy.extension.fusion import FusionFallbackWarning, RecompilationWarning, fuse

try:
    compiler_command()
except CompilerNotFoundError:
    pytest.skip("no C++ compiler for fused cpu kernels", allow_module_level=True)


def _random(shape, dtype, seed):
    # on cpu: the measured choice is the host target's (CI's cuda step runs these too)
    return ap.asarray(np.random.default_rng(seed).standard_normal(shape).astype(dtype),
                      device="cpu")


def _force_times(monkeypatch, fused_seconds, unfused_seconds):
    """perf_counter() read twice per timed call: the second and third calls take these."""
    clock = iter([0.0, fused_seconds, 10.0, 10.0 + unfused_seconds])
    monkeypatch.setattr(fusion.time, "perf_counter", lambda: next(clock))


@pytest.mark.parametrize("unfused_faster", [True, False])
def test_the_third_call_decides_from_the_two_measured_runs(monkeypatch, unfused_faster):
    calls = []

    @fuse
    def f(x):
        calls.append(1)
        return ap.sin(x) * 2.0 + 1.0

    x = _random((64, 33), "float32", 1)
    want = np.sin(ap.asnumpy(x)) * np.float32(2.0) + np.float32(1.0)
    _force_times(monkeypatch, 1.0, 0.1 if unfused_faster else 0.9)
    for _ in range(5):
        np.testing.assert_allclose(ap.asnumpy(f(x)), want, rtol=2e-6, atol=2e-6)
    entry, = f._schedules.values()
    # traced once (call 1), the op-by-op measurement (call 3), then op by op or fused
    assert len(calls) == (1 + 3 if unfused_faster else 1 + 1)
    text = f.explain()
    assert ("op by op measured faster" in text) is unfused_faster, text
    assert ("fused 1e+03 ms measured faster" in text) is not unfused_faster, text
    assert hasattr(entry, "schedule") is not unfused_faster


def test_no_measurement_inside_a_stream_block():
    @fuse
    def f(x):
        return x * 3.0

    x = _random((8, 8), "float64", 2)
    stream = ap.Stream("cpu")
    with stream:
        for _ in range(4):
            y = f(x)
    stream.synchronize()
    np.testing.assert_array_equal(ap.asnumpy(y), ap.asnumpy(x) * 3.0)
    entry, = f._schedules.values()
    assert entry.measuring and entry.calls == 0


def test_the_cap_warns_once_naming_the_changing_argument():
    @fuse(max_signatures=3)
    def scaled(weights, x):
        return weights * x + 1.0

    w = _random((4,), "float64", 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in (1, 2, 3):
            scaled(w, _random((n, 4), "float64", n))
    with pytest.warns(RecompilationWarning, match=r"argument 'x' \(position 1\) keeps changing"
                      r".*float64\[4, 4\]"):
        got = scaled(w, _random((4, 4), "float64", 4))
    np.testing.assert_array_equal(ap.asnumpy(got),
                                  ap.asnumpy(w) * ap.asnumpy(_random((4, 4), "float64", 4)) + 1)
    assert len(scaled._schedules) == 3                # beyond the cap: op by op, not traced
    with warnings.catch_warnings():
        warnings.simplefilter("error")                # once per function
        scaled(w, _random((5, 4), "float64", 5))
    assert "3 signature(s) of at most 3" in scaled.explain()


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "8"])
def test_max_signatures_is_checked(bad):
    with pytest.raises(ValueError, match="max_signatures must be a positive int"):
        fuse(max_signatures=bad)(lambda x: x)


def test_explain_says_why_each_signature_runs_as_it_does(monkeypatch):
    monkeypatch.setattr(fusion, "MEASURE", [False])

    @fuse
    def f(a, b):
        return a.sum(axis=0) + b.sum(axis=1)

    @fuse
    def g(x):
        return x[0] + 1

    a = _random((4, 4), "float64", 6)
    f(a, a)
    f(_random((3, 2), "float32", 7), _random((2, 3), "float32", 8))
    text = f.explain()
    assert text.startswith("asnumpy.fuse f: 2 signature(s) of at most 8"), text
    assert "(float64[4, 4] strides (32, 8), float64[4, 4] strides (32, 8)): 3 kernels" in text
    assert "reductions stored in between, since one kernel cannot compute inputs that" in text
    with pytest.warns(fusion.FusionFallbackWarning):
        g(a)
    assert "op by op: cannot fuse indexing (x[...]) at `return x[0] + 1`" in g.explain()


def test_integer_power_by_a_possibly_negative_exponent_is_not_fused(monkeypatch):
    # a fused kernel raises nothing; NumPy raises for a negative integer exponent
    monkeypatch.setattr(fusion, "MEASURE", [False])
    power = fuse(lambda x, y: (x + 1) ** y)
    cube = fuse(lambda x: (x + 1) ** 3)
    x = ap.asarray([1, 2, 3], device="cpu")
    with pytest.warns(FusionFallbackWarning, match="may be negative"):
        np.testing.assert_array_equal(power(x, x).get(), [2, 9, 64])
    with pytest.raises(ValueError, match="negative"):
        power(x, ap.asarray([1, -1, 2], device="cpu"))
    np.testing.assert_array_equal(cube(x).get(), [8, 27, 64])
    assert "one kernel" in cube.explain()
