"""asnumpy.jit: traced once per signature, replayed fused; results and errors as eager code."""

import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import asnumpy as ap
from asnumpy import testing
from asnumpy.backends.cpu.compiler import compiler_command
from asnumpy.extension import CompilerNotFoundError, fusion
from asnumpy.extension.fusion import FusionFallbackWarning, RecompilationWarning

try:
    compiler_command()
except CompilerNotFoundError:
    pytest.skip("no C++ compiler for fused cpu kernels", allow_module_level=True)

CALLS = 5          # trace, compile, the two measured calls, a decided replay


@pytest.fixture(params=["measured", "fused"])
def choice(request, monkeypatch):
    """Both ways a region runs: the measured choice, and always fused."""
    if request.param == "fused":
        monkeypatch.setattr(fusion, "MEASURE", [False])
    return request.param


def _random(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    return rng.standard_normal(shape).astype(dtype)


def _calls(jitted, *args, **kwargs):
    """Every result of CALLS calls (the trace's, then the replays')."""
    return [jitted(*args, **kwargs) for _ in range(CALLS)]


def _host(result):
    if isinstance(result, tuple):
        return tuple(_host(item) for item in result)
    return result.get() if isinstance(result, ap.ndarray) else result


def _check(function, *inputs, rtol=1e-12, exact=False, **kwargs):
    """``function`` on NumPy, eager asnumpy and jitted asnumpy: the same results."""
    expected = _host(function(np, *inputs, **kwargs))
    arrays = [ap.asarray(x) if isinstance(x, np.ndarray) else x for x in inputs]
    jitted = ap.jit(lambda *a, **k: function(ap, *a, **k))
    for result in _calls(jitted, *arrays, **kwargs):
        got = _host(result)
        for g, e in zip(got if isinstance(got, tuple) else (got,),
                        expected if isinstance(expected, tuple) else (expected,)):
            assert np.asarray(g).dtype == np.asarray(e).dtype
            assert np.shape(g) == np.shape(e)
            if exact:
                testing.assert_array_equal(g, e)
            else:
                testing.assert_allclose(g, e, rtol=rtol, atol=1e-12)
    return jitted


# -- what replays -------------------------------------------------------------------------


def test_elementwise_chain_is_one_fused_region(choice):
    def chain(xp, a, b):
        c = a * b + 1.5
        c = c * a - b / (b * b + 2.0)
        return c * 0.5 + a

    jitted = _check(chain, _random((64, 33)), _random((64, 33), seed=1))
    text = jitted.explain()
    assert "fused region of 9 ops" in text
    # the measured choice is made where kernels run on the host (cpu); a device
    # kernel is always the fused one
    measures = choice == "measured" and getattr(ap.get_device().backend.cxx, "host", False)
    assert ("measured" in text) if measures else ("one kernel" in text)


@pytest.mark.parametrize("name", ["sin", "log", "tanh", "exp", "arctan2"])
def test_one_transcendental_call_is_a_region_of_its_own(choice, name):
    def program(xp, a, b):
        c = xp.matmul(a, b)                     # a call on each side: a run of one step
        d = getattr(xp, name)(*((c, c) if name == "arctan2" else (c,)))
        return xp.matmul(d, b)

    a, b = np.abs(_random((30, 30))) + 0.5, np.abs(_random((30, 30), seed=1)) * 0.1
    jitted = _check(program, a, b, rtol=1e-12)
    text = jitted.explain()
    assert f"fused region of 1 op (asnumpy.{name})" in text
    single = ap.jit(lambda x: ap.add(x, 1.0))
    _calls(single, ap.asarray(a))
    assert "region" not in single.explain()     # one cheap op: its own plan, no region


@pytest.mark.cpu_default("the measured choice (op by op here) is made where kernels run on "
                         "the host")
def test_the_profiler_sees_fused_regions_and_why_a_region_runs_op_by_op(monkeypatch):
    from asnumpy import profiler

    def program(a, b):
        return ap.matmul((a * b + 1.0) * a, b).sum()

    a, b = ap.asarray(_random((40, 40))), ap.asarray(_random((40, 40), seed=1))
    fused = ap.jit(program)
    _calls(fused, a, b)
    monkeypatch.setattr(fusion._Fused, "MARGIN", 0.0)       # op by op always measures faster
    unfused = ap.jit(program)
    _calls(unfused, a, b)
    assert "op by op measured faster" in unfused.explain()
    with profiler.profile(memory=False) as prof:
        want = fused(a, b)
        got = unfused(a, b)
    testing.assert_allclose(got.get(), want.get(), rtol=1e-12)
    records = prof.records()
    regions = [r for r in records if r.kind == "fused"]
    assert [r.fused for r in regions] == [("multiply", "add", "multiply")]
    ranged = {r.name: r.range for r in records if r.range is not None}
    assert set(ranged) == {"multiply", "add"}
    assert all("op by op measured faster" in name for name in ranged.values())
    assert [r.name for r in records if r.name == "matmul"] == ["matmul", "matmul"]


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "int64", "bool"])
def test_integer_and_bool_results_are_exact(choice, dtype):
    def program(xp, a, b):
        c = (a + b) * (a - b) if a.dtype != bool else (a & b) | ~a
        return c, c.sum(axis=0), xp.maximum(c, b)

    _check(program, _random((17, 9), dtype), _random((17, 9), dtype, seed=2), exact=True)


def test_reductions_views_and_calls_between_regions(choice):
    def program(xp, x, w):
        centred = x - x.mean(axis=1, keepdims=True)
        scores = (centred @ w).T
        top = scores.argmax(axis=0)
        picked = xp.where(scores > 0, scores, 0.25 * scores)
        joined = xp.concatenate([picked, picked[:, ::-1]], axis=1)
        return joined.reshape(-1)[3:40:2] * 2.0, top, xp.clip(joined, -1.0, 1.0).sum()

    _check(program, _random((40, 8)), _random((8, 5), seed=3), rtol=1e-10)


def test_softmax_and_kmeans_step(choice):
    def softmax(xp, x):
        e = xp.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def kmeans(xp, points, centres):
        distances = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1)
        labels = distances.argmin(axis=1)
        onehot = (labels[:, None] == xp.arange(centres.shape[0])).astype(points.dtype)
        counts = onehot.sum(axis=0)
        return (onehot.T @ points) / xp.maximum(counts, 1.0)[:, None], labels

    _check(softmax, _random((30, 17), "float32"), rtol=1e-5)
    _check(kmeans, _random((500, 4)), _random((6, 4), seed=4), rtol=1e-10)


def test_inputs_mutated_inside_are_mutated_on_every_call():
    def step(xp, x, y):
        x[0] = x[0] + 1.0
        x *= 2.0
        return x + y

    x = _random((5, 3))
    y = _random((5, 3), seed=5)
    xa, ya = ap.asarray(x), ap.asarray(y)
    jitted = ap.jit(lambda a, b: step(ap, a, b))
    for _ in range(CALLS):
        expected = step(np, x, y)
        testing.assert_allclose(jitted(xa, ya).get(), expected, rtol=0)
        testing.assert_array_equal(xa.get(), x)


def test_layouts_0d_empty_and_negative_strides():
    def program(xp, a):
        return xp.sqrt(a * a + 1.0) - a

    base = _random((12, 10))
    _check(program, base[::-2, 1::3])
    _check(program, np.asarray(1.5))
    _check(program, np.zeros((0, 4)))
    _check(program, base.T)


def test_weak_float_arguments_replay_with_each_value():
    calls = []

    @ap.jit
    def scale(x, factor):
        calls.append(1)
        return x * factor + factor

    x = ap.asarray(_random(6, "float32"))
    for factor in (0.5, 2.0, -3.25, 7.0, 1e-3):
        result = scale(x, factor)
        assert result.dtype == np.float32                     # NEP 50: the float is weak
        testing.assert_allclose(result.get(), x.get() * np.float32(factor) + np.float32(factor),
                                rtol=1e-6)
    assert len(calls) == 1                                   # one trace for every value


def test_arithmetic_on_weak_floats_is_replayed_and_no_fusion_boundary(choice):
    calls = []

    @ap.jit
    def drift(s, t, r, v):
        calls.append(1)
        return ap.exp((r - 0.5 * v * v) * t) * s + (-r) * t

    s, t = ap.asarray(_random(50) + 3.0), ap.asarray(np.abs(_random(50, seed=7)))
    for r, v in ((0.01, 0.2), (0.05, 0.3), (0.02, 0.25), (-0.01, 0.5), (0.0, 0.1)):
        testing.assert_allclose(drift(s, t, r, v).get(), np.exp((r - 0.5 * v * v) * t.get())
                                * s.get() + (-r) * t.get(), rtol=1e-12)
    assert len(calls) == 1
    assert drift.explain().count("fused region") == 1


def test_int_arguments_are_static_and_cap_warns_naming_the_argument():
    @ap.jit(max_signatures=3)
    def shift(x, n):
        return x.reshape(n, -1) + n

    x = ap.arange(24.0)
    for n in (1, 2, 3):
        testing.assert_array_equal(shift(x, n).get(), np.arange(24.0).reshape(n, -1) + n)
    with pytest.warns(RecompilationWarning, match="'n' keeps changing"):
        testing.assert_array_equal(shift(x, 4).get(), np.arange(24.0).reshape(4, -1) + 4)


def test_static_argnums_makes_a_float_static():
    import math

    @ap.jit(static_argnums=1)
    def decay(x, rate):
        return x * math.exp(-rate)

    x = ap.asarray(_random(4))
    for rate in (0.1, 0.2, 0.1):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            testing.assert_allclose(decay(x, rate).get(), x.get() * math.exp(-rate), rtol=1e-15)


# -- what cannot replay: eager, with one warning, never run twice -----------------------


@pytest.mark.parametrize("body, reason", [
    (lambda x: x * 2 if bool((x > 0).all()) else x, "bool()"),
    (lambda x: x + float(x.sum()), "float()"),
    (lambda x: x * x.item(0), "item"),
    (lambda x: ap.fft.fft(x).real, "not record"),
])
def test_value_dependent_python_runs_eagerly_with_a_warning(body, reason):
    calls = []

    def function(x):
        calls.append(1)
        return body(x)

    jitted = ap.jit(function)
    x = ap.asarray(np.abs(_random(8)) + 0.5)
    with pytest.warns(FusionFallbackWarning, match=reason):
        first = jitted(x)
    assert len(calls) == 1                                    # the trace's run was the call
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # warned once
        for _ in range(3):
            testing.assert_allclose(jitted(x).get(), first.get())
    assert len(calls) == 4
    assert "eager" in jitted.explain()


def test_weak_float_used_in_python_taints_and_stays_right():
    import math

    @ap.jit
    def decay(x, rate):
        return x * math.exp(-rate)

    x = ap.asarray(_random(4))
    with pytest.warns(FusionFallbackWarning, match="static"):
        decay(x, 0.5)
    testing.assert_allclose(decay(x, 2.0).get(), x.get() * math.exp(-2.0), rtol=1e-15)


def test_returning_an_outside_array_runs_eagerly():
    table = ap.arange(5.0)

    @ap.jit
    def lookup(x):
        return table if x.ndim == 1 else x

    with pytest.warns(FusionFallbackWarning, match="not computed from the arguments"):
        assert lookup(ap.ones(3)) is table
    assert lookup(ap.ones(3)) is table


def test_errors_are_eager_errors_at_every_call(choice):
    @ap.jit
    def add(x, y):
        return x + y

    for _ in range(3):
        with pytest.raises(ValueError, match="broadcast"):
            add(ap.ones(3), ap.ones(4))
    testing.assert_array_equal(add(ap.ones(3), ap.ones(3)).get(), np.full(3, 2.0))

    @ap.jit
    def power(x, y):
        return (x + 1) ** y

    good, bad = ap.asarray([1, 2, 3]), ap.asarray([1, -1, 2])
    for _ in range(CALLS):
        testing.assert_array_equal(power(good, good).get(), [2, 9, 64])
    with pytest.raises(ValueError, match="negative"):
        power(good, bad)


def test_other_functions_arguments_and_bad_options():
    with pytest.raises(TypeError, match="not callable"):
        ap.jit(3)
    with pytest.raises(ValueError, match="max_signatures"):
        ap.jit(lambda x: x, max_signatures=0)
    with pytest.raises(TypeError, match="static_argnums"):
        ap.jit(lambda x: x, static_argnums=[1.5])

    @ap.jit
    def inner(x):
        return x * 3.0

    @ap.jit
    def outer(x):
        return inner(x) + 1.0                       # inlined into outer's trace

    x = ap.asarray(_random(7))
    for result in _calls(outer, x):
        testing.assert_allclose(result.get(), x.get() * 3.0 + 1.0)
    unhashable = ap.jit(lambda x, options: x * options["k"])
    testing.assert_allclose(unhashable(x, {"k": 2.0}).get(), x.get() * 2.0)


def test_threads_replay_the_same_program():
    @ap.jit
    def program(x, y):
        return (x * y + 1.0).sum(axis=0)

    inputs = [(_random((50, 6), seed=k), _random((50, 6), seed=k + 100)) for k in range(8)]
    arrays = [(ap.asarray(a), ap.asarray(b)) for a, b in inputs]
    program(*arrays[0])
    failures = []

    def worker(k):
        try:
            for _ in range(20):
                a, b = arrays[k]
                testing.assert_allclose(program(a, b).get(), (inputs[k][0] * inputs[k][1]
                                                             + 1.0).sum(axis=0), rtol=1e-12)
        except Exception as exc:        # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_replay_on_a_user_stream():
    @ap.jit
    def program(x):
        return ap.exp(x) * 2.0 - x

    x = ap.asarray(_random(1000))
    program(x)
    stream = ap.runtime.Stream()
    with stream:
        results = [program(x) for _ in range(CALLS)]
    stream.synchronize()
    for result in results:
        testing.assert_allclose(result.get(), np.exp(x.get()) * 2.0 - x.get())


# -- hypothesis: random programs, eager against jit ---------------------------------------

_UNARY = ["negative", "absolute", "square", "sqrt_abs", "exp_small", "sin", "astype32"]
_BINARY = ["add", "subtract", "multiply", "maximum", "scaled"]
_BOUNDARIES = ["transpose", "flip", "sum_keep", "max_keep", "slice_set"]


def _apply(xp, op, a, b):
    if op == "sqrt_abs":
        return xp.sqrt(xp.absolute(a))
    if op == "exp_small":
        return xp.exp(a * 0.01)
    if op == "astype32":
        return a.astype(np.float32).astype(np.float64)
    if op == "scaled":
        return a * 0.5 + b
    if op == "transpose":
        return a.T.T
    if op == "flip":
        return a[::-1]
    if op == "sum_keep":
        return a - a.sum(axis=1, keepdims=True) * 0.125
    if op == "max_keep":
        return a - a.max(axis=0, keepdims=True)
    if op == "slice_set":
        c = a * 1.0
        c[1:3] = b[1:3]
        return c
    function = getattr(xp, op)
    return function(a) if op in _UNARY else function(a, b)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(_UNARY + _BINARY + _BOUNDARIES), min_size=1, max_size=12),
       st.integers(0, 2**31 - 1))
def test_random_programs_replay_as_eager_code(ops, seed):
    def program(xp, a, b):
        values = [a, b]
        for k, op in enumerate(ops):
            values.append(_apply(xp, op, values[-1], values[k % len(values)]))
        return values[-1], values[len(values) // 2]

    _check(program, _random((6, 8), seed=seed), _random((6, 8), seed=seed + 1), rtol=1e-9)
