"""asnumpy.lazy(): ordinary array code, deferred and fused; results as eager code's."""

import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import asnumpy as ap
from asnumpy import testing
from asnumpy.backends.cpu.compiler import compiler_command
from asnumpy.extension import CompilerNotFoundError, fusion
from asnumpy.extension._jit import _lazy
from asnumpy.extension._jit._lazy import DeferredBuffer

try:
    compiler_command()
except CompilerNotFoundError:
    pytest.skip("no C++ compiler for fused cpu kernels", allow_module_level=True)


@pytest.fixture(params=["measured", "fused"])
def choice(request, monkeypatch):
    if request.param == "fused":
        monkeypatch.setattr(fusion, "MEASURE", [False])
    return request.param


def _random(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-40, 40, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _deferred(array):
    return type(array._buffer) is DeferredBuffer and array._buffer._recorder is not None


def black_scholes(xp, s, x, t, r, v):
    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * xp.absolute(d))
        poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (
            -1.821255978 + k * 1.330274429))))
        w = 1.0 - 0.3989422804014327 * xp.exp(-0.5 * d * d) * poly
        return 0.5 + xp.sign(d) * (w - 0.5)

    sqrt_t = xp.sqrt(t)
    d1 = (xp.log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    discounted = x * xp.exp(-r * t)
    return s * cnd(d1) - discounted * cnd(d2), discounted * cnd(-d2) - s * cnd(-d1)


def test_unmodified_code_is_deferred_until_the_block_ends(choice):
    host = [np.abs(_random(300, seed=k)) + 1.0 for k in range(3)]
    s, x, t = (ap.asarray(h) for h in host)
    for _ in range(4):                        # the same graph: its fusion's cache
        with ap.lazy():
            call, put = black_scholes(ap, s, x, t, 0.02, 0.3)
            assert _deferred(call) and _deferred(put)
        assert not _deferred(call)
        want_call, want_put = black_scholes(np, *host, 0.02, 0.3)
        testing.assert_allclose(call.get(), want_call, rtol=1e-12)
        testing.assert_allclose(put.get(), want_put, rtol=1e-12)


def test_a_read_runs_the_pending_graph(choice):
    x = ap.asarray(_random((20, 7)))
    with ap.lazy():
        y = ap.exp(x) * 2.0 - x
        assert _deferred(y)
        assert bool((y > -1e9).all())         # a Python value: y is computed
        assert not _deferred(y)
        z = y[3:, ::2] + 1.0                   # a view of a computed array: deferred again
        first = float(z[0, 0])                 # item: runs it
        text = repr(z)
    want = np.exp(x.get()) * 2.0 - x.get()
    testing.assert_allclose(y.get(), want, rtol=1e-13)
    testing.assert_allclose(z.get(), want[3:, ::2] + 1.0, rtol=1e-13)
    assert first == pytest.approx(want[3, 0] + 1.0) and "array" in text


def test_writes_into_operands_come_after_the_pending_work():
    a = ap.arange(6.0)
    with ap.lazy():
        b = a * 2.0
        a[0] = 100.0                          # item assignment: b is computed first
        c = b + a
        a += 1.0                              # an out= call: c is computed first
        d = ap.add.reduce(a * a)
    testing.assert_array_equal(b.get(), np.arange(6.0) * 2)
    testing.assert_array_equal(c.get(), np.arange(6.0) * 2 + [100, 1, 2, 3, 4, 5])
    after = np.array([101.0, 2, 3, 4, 5, 6])
    testing.assert_allclose(d.get(), (after * after).sum(), rtol=1e-15)


def test_views_escaping_the_block_and_dropped_intermediates():
    x = ap.asarray(_random(50))
    with ap.lazy():
        y = ap.sin(x) + 1.0
        view = y[10:20]
        del y                                  # only the view keeps it: still computed
        dropped = ap.cos(x) * 3.0              # noqa: F841 (dropped before the end)
        del dropped
    testing.assert_allclose(view.get(), np.sin(x.get()[10:20]) + 1.0, rtol=1e-15)


def test_an_array_read_by_several_calls_is_one_input_of_the_kernel(choice):
    host = [np.abs(_random(400, seed=k)) + 1.0 for k in range(3)]
    s, x, t = (ap.asarray(h) for h in host)
    with ap.lazy():
        call, put = black_scholes(ap, s, x, t, 0.02, 0.3)
    want_call, want_put = black_scholes(np, *host, 0.02, 0.3)
    testing.assert_allclose(call.get(), want_call, rtol=1e-12, atol=1e-12)
    testing.assert_allclose(put.get(), want_put, rtol=1e-12, atol=1e-12)
    fusions = _lazy._recorders.recorder.fusions.values()        # this thread's recorder
    [text] = [f.explain() for f in fusions if "float64[400]" in f.explain()]
    assert text.count("float64[400]") == 3        # s, x and t, each once


def test_a_profiled_lazy_block_runs_its_graph_fused():
    from asnumpy import profiler

    host = _random((50, 40), seed=6)
    x = ap.asarray(host)
    with profiler.profile(memory=False) as prof:
        with ap.lazy():
            y = ap.exp(x) * 2.0 - x
            m = ap.mean(y, axis=0)
            assert _deferred(y) and _deferred(m)    # the observer does not run them
    kinds = [(r.kind, r.fused) for r in prof.records()]
    assert kinds == [("fused", ("exp", "multiply", "subtract", "add.reduce", "divide"))]
    testing.assert_allclose(m.get(), np.mean(np.exp(host) * 2.0 - host, axis=0), rtol=1e-12)


REDUCTIONS = {
    "sum": lambda xp, v: xp.sum(v),
    "sum axis": lambda xp, v: xp.sum(v, axis=0),
    "method sum": lambda xp, v: v.sum(axis=1, keepdims=True),
    "prod": lambda xp, v: xp.prod(v * 0.01 + 1.0, axis=1),
    "max": lambda xp, v: xp.max(v),
    "min method": lambda xp, v: v.min(axis=0),
    "mean": lambda xp, v: xp.mean(v),
    "mean axis": lambda xp, v: xp.mean(v, axis=1),
    "mean method keepdims": lambda xp, v: v.mean(axis=0, keepdims=True),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_functions_and_methods_are_deferred(name, dtype):
    reduction = REDUCTIONS[name]
    host = _random((40, 30), dtype, seed=3)
    x = ap.asarray(host)
    with ap.lazy():
        y = x * 2 + 1
        got = reduction(ap, y)
        assert _deferred(got) and _deferred(y)   # nothing ran: the reduction joined the graph
        after = got * 2
    want = reduction(np, host * 2 + 1)
    assert got.dtype == want.dtype and got.shape == np.shape(want)
    testing.assert_allclose(got.get(), want, rtol=1e-5 if dtype == "float32" else 1e-12)
    testing.assert_allclose(after.get(), want * 2, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_a_mean_that_cannot_be_deferred_as_numpys_in_place_divide_runs_eagerly():
    host = _random((6, 5), "complex128", seed=4)
    x = ap.asarray(host)
    with ap.lazy():
        y = x * 2.0
        got = ap.mean(y, axis=0)             # complex: the in-place divide, eagerly
        assert not _deferred(y)
        masked = ap.mean(y, where=ap.asarray(np.abs(host) > 0.5))
    testing.assert_allclose(got.get(), np.mean(host * 2.0, axis=0), rtol=1e-13)
    testing.assert_allclose(masked.get(), np.mean(host * 2.0, where=np.abs(host) > 0.5),
                            rtol=1e-13)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint8", "int64", "float32", "complex128"])
def test_every_dtype_as_eager(dtype):
    a, b = _random((9, 4), dtype), _random((9, 4), dtype, seed=1)
    expected = (a * b + a) - b * 2
    reduced = np.add.reduce(a * b, axis=0)
    x, y = ap.asarray(a), ap.asarray(b)
    with ap.lazy():
        got = (x * y + x) - y * 2
        got_reduced = ap.add.reduce(x * y, axis=0)
    assert got.dtype == expected.dtype and got_reduced.dtype == reduced.dtype
    if np.dtype(dtype).kind in "iu":
        testing.assert_array_equal(got.get(), expected)
        testing.assert_array_equal(got_reduced.get(), reduced)
    else:
        testing.assert_allclose(got.get(), expected, rtol=1e-6)
        testing.assert_allclose(got_reduced.get(), reduced, rtol=1e-5)


def test_errors_are_raised_as_eagerly():
    x, y = ap.ones(3), ap.ones(4)
    with ap.lazy():
        with pytest.raises(ValueError, match="broadcast"):
            x + y                              # shapes: at the call
        with pytest.raises(TypeError):
            ap.add(x, "a")
    bad = ap.asarray([1, -1, 2])
    with ap.lazy():
        with pytest.raises(ValueError, match="negative"):
            ap.asarray([2, 2, 2]) ** bad       # a value's error: not deferred, raised here
    x = ap.asarray(_random(10))
    with ap.lazy():
        z = ap.exp(x) + 1.0
        with testing.fail_nth_allocation(1), pytest.raises(ap.OutOfMemoryError):
            z.get()                            # the graph ran, its output could not be made
        with pytest.raises(RuntimeError, match="failed"):
            z.get()                            # the array stays failed, never garbage
        w = ap.exp(x) + 1.0                    # the recorder goes on
    testing.assert_allclose(w.get(), np.exp(x.get()) + 1.0)


def test_other_devices_streams_and_empty_arrays_run_eagerly():
    x = ap.asarray(_random(8))
    stream = ap.runtime.Stream()
    with ap.lazy():
        with stream:
            y = x * 2.0                        # a user stream: eager
        empty = ap.zeros((0, 3)) + 1.0
        assert not _deferred(y) and not _deferred(empty)
    stream.synchronize()
    testing.assert_allclose(y.get(), x.get() * 2.0)
    assert empty.shape == (0, 3)


def test_threads_have_their_own_graphs():
    inputs = [ap.asarray(_random(200, seed=k)) for k in range(6)]
    failures = []

    def worker(k):
        try:
            for _ in range(10):
                with ap.lazy():
                    result = ap.exp(inputs[k]) - inputs[k] * 0.5
                testing.assert_allclose(result.get(), np.exp(inputs[k].get())
                                        - inputs[k].get() * 0.5, rtol=1e-14)
        except Exception as exc:                # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_a_deferred_array_read_by_another_thread():
    x = ap.asarray(_random(64))
    seen = []
    with ap.lazy():
        y = ap.tanh(x) * 4.0
        reader = threading.Thread(target=lambda: seen.append(y.get()))
        reader.start()
        reader.join()
    testing.assert_allclose(seen[0], np.tanh(x.get()) * 4.0, rtol=1e-14)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["add", "multiply", "subtract", "maximum", "negative",
                                 "square", "exp_small", "reduce", "view", "setitem"]),
                min_size=1, max_size=14), st.integers(0, 2**31 - 1))
def test_random_programs_under_lazy_as_eager(ops, seed):
    def program(xp, a, b):
        values = [a, b]
        for k, op in enumerate(ops):
            last, other = values[-1], values[k % len(values)]
            if op == "negative" or op == "square":
                values.append(getattr(xp, op)(last))
            elif op == "exp_small":
                values.append(xp.exp(last * 0.01))
            elif op == "reduce":
                values.append(last - xp.add.reduce(last, axis=0) * 0.1)
            elif op == "view":
                values.append(last[::-1] * 1.0)
            elif op == "setitem":
                target = last * 1.0
                target[1] = other[2]
                values.append(target)
            else:
                values.append(getattr(xp, op)(last, other))
        return values[-1], values[len(values) // 2]

    a, b = _random((5, 6), seed=seed), _random((5, 6), seed=seed + 1)
    want = program(np, a, b)
    with ap.lazy():
        got = program(ap, ap.asarray(a), ap.asarray(b))
    for g, w in zip(got, want):
        testing.assert_allclose(g.get(), w, rtol=1e-10, atol=1e-12)
