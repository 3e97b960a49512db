"""The laid-out launch of a small fused cpu kernel (fusion/_run.py, SmallLaunch).

A launch one thread runs is laid out once and then run by one C call
(``compiled.LaidOutKernel``, behind ``compiled.CheckedCall``'s check of the
signature) while the lean gate is down; every result must be the general
path's (an open stream block, a profiler or an accounting pool sends a call
there), bit for bit, and every call the laid-out launch cannot serve must go
the general way.  A laid-out result is NumPy's fresh array adopted (no pool
block until something needs one), a general one a block of the pool: that
says which way a call went.
"""

import threading

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import profiler
from asnumpy._core import compiled
from asnumpy._core.ufuncs.fast import POOL_MIN_BYTES
from asnumpy.backends.cpu.compiler import compiler_command
from asnumpy.extension import CompilerNotFoundError, fusion
from asnumpy.extension.fusion import _run

try:
    compiler_command()
except CompilerNotFoundError:
    pytest.skip("no C++ compiler for fused cpu kernels", allow_module_level=True)

pytestmark = [pytest.mark.cpu_default("the laid-out launch serves cpu kernels only"),
              pytest.mark.usefixtures("on_cpu")]

if compiled.LaidOutKernel is None:
    pytestmark.append(pytest.mark.skip(reason="the compiled call path is not built "
                                              "(every fused launch takes the general path)"))


@pytest.fixture(autouse=True)
def always_fused(monkeypatch):
    """Every signature runs fused (no measured choice of the op-by-op run)."""
    monkeypatch.setattr(fusion, "MEASURE", [False])


def _laid_out(result):
    """Whether each array of ``result`` came from the laid-out launch (adopted)."""
    return all(r._buffer is None and r._native is not None for r in _as_tuple(result))


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(-100 if dtype.kind == "i" else 0, 100, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dtype)
    return rng.uniform(-3, 3, shape).astype(dtype)


def _general(function, *args):
    """``function`` run through the general launch (an open stream block)."""
    with ap.get_current_stream():
        return function(*args)


def _as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _same(got, want):
    for g, w in zip(_as_tuple(got), _as_tuple(want), strict=True):
        assert isinstance(g, ap.ndarray) and g.dtype == w.dtype and g.shape == w.shape
        assert g.device == w.device
        np.testing.assert_array_equal(ap.asnumpy(g), ap.asnumpy(w), strict=True)


# name: (function, input shapes and dtypes, extra arguments)
CASES = {
    "float64 chain": (lambda a, b: (a * b + 1.5) * a - b / (b * b + 2.0),
                      [((10, 10), "float64"), ((10, 10), "float64")], ()),
    "float32 with a scalar argument": (lambda a, s: a * s - 2.0 * a,
                                       [((37,), "float32")], (0.25,)),
    "float16": (lambda a, b: a * b + a, [((5, 7), "float16"), ((5, 7), "float16")], ()),
    "int8 wraps around": (lambda a, b: a * b + a * 3, [((64,), "int8"), ((64,), "int8")], ()),
    "uint16 with an integer argument": (lambda a, k: a * k + 7,
                                        [((3, 4), "uint16")], (3,)),
    "bool logic": (lambda a, b: (a & ~b) | (a ^ b), [((50,), "bool"), ((50,), "bool")], ()),
    "complex128": (lambda a, b: a * b - a / (b + 1j), [((6, 6), "complex128"),
                                                       ((6, 6), "complex128")], ()),
    "comparison to bool": (lambda a, b: (a * 2 > b) & (b < 1.0),
                           [((40,), "float64"), ((40,), "float64")], ()),
    "broadcasting a row and a 0-d": (lambda a, b, c: a * b + c,
                                     [((8, 5), "float64"), ((5,), "float64"), ((), "float64")],
                                     ()),
    "sum of products (chunked, partials)": (lambda a, b: ap.sum(a * b),
                                            [((40_000,), "float32"), ((40_000,), "float32")],
                                            ()),
    "integer sum": (lambda a: ap.sum(a * a), [((1000,), "int16")], ()),
    "mean along an axis (rows)": (lambda a: ap.mean(a * 2.0, axis=1), [((30, 20), "float64")],
                                  ()),
    "softmax (broadcast back)": (lambda a: ap.exp(a - ap.max(a, axis=1, keepdims=True))
                                 / ap.sum(ap.exp(a - ap.max(a, axis=1, keepdims=True)),
                                          axis=1, keepdims=True),
                                 [((16, 10), "float32")], ()),
    "several outputs and an argument": (lambda a, b: (a + b, a, a * b),
                                        [((9, 3), "float64"), ((9, 3), "float64")], ()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_laid_out_launch_equals_the_general_path(name):
    function, inputs, extra = CASES[name]
    arrays = [ap.asarray(_random(shape, dtype, seed)) for seed, (shape, dtype)
              in enumerate(inputs)]
    fused = ap.fuse(function)
    want = _general(fused, *arrays, *extra)
    assert not _laid_out([w for w in _as_tuple(want) if w is not arrays[0]])
    for _ in range(3):                          # the first call, and the direct calls
        got = fused(*arrays, *extra)
        _same(got, want)
        assert _laid_out([g for g in _as_tuple(got) if g is not arrays[0]])
    assert fused._direct is not None


def test_several_returns_of_one_value_are_one_array():
    def twice(a, b):
        t = a * b + 1
        return t, a - b, t

    fused = ap.fuse(twice)
    a, b = (ap.asarray(_random((9, 8), "float64", seed)) for seed in (1, 2))
    for _ in range(2):
        first, second, third = fused(a, b)
        assert first is third and first is not second


def test_non_contiguous_negative_strides_and_read_only_inputs():
    host = _random((20, 30), "float64", 3)
    base = ap.asarray(host)
    fused = ap.fuse(lambda a, b: a * 2.0 - b)
    for view in [base[::2, ::3], base[::-1, 5:], base.T, base[3]]:
        other = ap.asarray(_random(view.shape, "float64", 4))
        other.flags.writeable = False
        want = _general(fused, view, other)
        for _ in range(2):
            got = fused(view, other)
            _same(got, want)
            assert _laid_out(got)
    np.testing.assert_array_equal(ap.asnumpy(base), host)    # inputs untouched


def test_results_are_fresh_writeable_arrays_the_next_call_leaves_alone():
    fused = ap.fuse(lambda a: a * 3.0 + 1.0)
    a = ap.asarray(_random((50,), "float64", 5))
    first = fused(a)
    kept = ap.asnumpy(first).copy()
    second = fused(a)
    second += 1.0                                  # a result is the caller's to write
    first[:] = 0.0
    np.testing.assert_array_equal(ap.asnumpy(fused(a)), kept)
    np.testing.assert_array_equal(ap.asnumpy(second), kept + 1.0)


def test_scalar_arguments_convert_as_numpy_does():
    fused = ap.fuse(lambda a, k: a + k)
    a = ap.asarray(np.arange(10, dtype=np.int8))
    for _ in range(3):
        _same(fused(a, 5), a + 5)
    _same(fused(a, -7), a + -7)                    # another value: the same kernel
    with pytest.raises(OverflowError):
        fused(a, 300)                              # NEP 50: a Python int out of int8's range
    _same(fused(a, np.int8(3)), a + np.int8(3))     # another kind of scalar: another signature
    np.testing.assert_array_equal(ap.asnumpy(a), np.arange(10, dtype=np.int8))


def test_the_general_path_serves_streams_profilers_and_accounting_pools():
    fused = ap.fuse(lambda u, v: u * v + u)
    a, b = (ap.asarray(_random((100,), "float64", seed)) for seed in (5, 6))
    want = fused(a, b)
    assert _laid_out(fused(a, b))
    stream = ap.Stream()
    with stream:
        on_stream = fused(a, b)
    stream.synchronize()
    _same(on_stream, want)
    with profiler.profile(memory=False) as prof:
        profiled = fused(a, b)
    _same(profiled, want)
    assert [r.fused for r in prof.records() if r.kind == "fused"] == [("multiply", "add")]
    pool = a.device.memory_pool
    pool.set_accounting(True)
    try:
        counted = fused(a, b)
        used = pool.used_bytes()
    finally:
        pool.set_accounting(False)
    _same(counted, want)
    assert used >= counted.nbytes                  # the accounting pool holds the result
    assert not any(map(_laid_out, (on_stream, profiled, counted)))
    assert _laid_out(fused(a, b))


def test_large_results_take_the_general_path():
    fused = ap.fuse(lambda u, v: u * v + u)
    n = POOL_MIN_BYTES // 8                         # a result as large as the pool serves
    a, b = (ap.asarray(_random((n,), "float64", seed)) for seed in (7, 8))
    for _ in range(2):
        got = fused(a, b)
        assert not _laid_out(got)
    _same(got, _general(fused, a, b))
    schedule = next(iter(fused._schedules.values())).schedule
    assert _run._program(schedule, a.device)[3] is None
    assert fused.direct(a, b) is None and fused._direct is None


def test_without_the_compiled_call_path_no_launch_is_laid_out(monkeypatch):
    monkeypatch.setattr(compiled, "LaidOutKernel", None)
    fused = ap.fuse(lambda u, v: u - v * 3.0)
    a, b = (ap.asarray(_random((50,), "float64", seed)) for seed in (9, 10))
    for _ in range(2):
        got = fused(a, b)
        _same(got, _general(fused, a, b))
        assert not _laid_out(got)
    schedule = next(iter(fused._schedules.values())).schedule
    assert _run._program(schedule, a.device)[3] is None


def test_threads_calling_one_fused_function():
    fused = ap.fuse(lambda u, v: ap.sum(u * v + 1.0))
    inputs = [tuple(ap.asarray(_random((300,), "float64", 2 * k + j)) for j in (0, 1))
              for k in range(8)]
    wants = [float(_general(fused, a, b)) for a, b in inputs]
    errors = []
    start = threading.Barrier(len(inputs))

    def worker(k):
        a, b = inputs[k]
        try:
            start.wait()
            for _ in range(200):
                got = fused(a, b)
                assert float(got) == wants[k] and _laid_out(got)
        except BaseException as error:              # reported below, with its thread
            errors.append((k, error))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(inputs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_two_signatures_in_turn():
    fused = ap.fuse(lambda u, v: u * v - u)
    small = [ap.asarray(_random((4, 6), "float64", seed)) for seed in (15, 16)]
    other = [ap.asarray(_random((7,), "float32", seed)) for seed in (17, 18)]
    wants = [_general(fused, *small), _general(fused, *other)]
    for _ in range(3):
        for arrays, want in zip((small, other), wants):
            got = fused(*arrays)
            _same(got, want)
            assert _laid_out(got)


def test_a_direct_call_checks_its_signature():
    fused = ap.fuse(lambda u, v: u * v - u)
    a, b = (ap.asarray(_random((4, 6), "float64", seed)) for seed in (11, 12))
    fused(a, b)
    direct = fused.direct(a, b)
    assert direct is not None and direct is fused.direct(a, b)
    _same(direct(a, b), fused.__wrapped__(a, b))
    others = [
        (ap.asarray(_random((4, 6), "float32", 1)), b),          # another dtype
        (ap.asarray(_random((3, 6), "float64", 1)), b[:3]),      # another shape
        (a.T, b.T),                                              # other strides
        (a, 2.5),                                                # a scalar in an array's place
        (np.ones((4, 6)), b),                                    # a NumPy array
        (ap.asarray(ap.asnumpy(a), device="cpu:1"),
         ap.asarray(ap.asnumpy(b), device="cpu:1")),             # another device
    ]
    for x, y in others:
        want = fused.__wrapped__(x, y)
        got = direct(x, y)
        _same(got, want) if isinstance(want, ap.ndarray) else np.testing.assert_array_equal(
            got, want)
    with pytest.raises(TypeError):
        direct(a)                                                # the function's own error
    with pytest.raises(TypeError):
        direct(a, b, c=1)
    with pytest.raises(ValueError, match="different devices"):
        direct(a, others[-1][1])


def test_no_direct_call_before_a_fused_choice_or_while_measuring(monkeypatch):
    fused = ap.fuse(lambda u, v: u + v)
    a = ap.asarray(_random((10,), "float64", 13))
    assert fused.direct(a, a) is None                # the signature never ran
    monkeypatch.setattr(fusion, "MEASURE", [True])
    measured = ap.fuse(lambda u, v: u * v + v)
    measured(a, a)
    assert measured.direct(a, a) is None             # still measuring fused against op by op
    for _ in range(3):
        measured(a, a)
    choice = measured.explain()
    assert (measured.direct(a, a) is None) == ("op by op" in choice)
