"""asnumpy.fuse: fused results against the same function run op by op (and NumPy)."""

import re
import warnings

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.cpu.compiler import compiler_command
from asnumpy.extension import CompilerNotFoundError, fusion
from asnumpy.extension.fusion import Fusion, FusionFallbackWarning, fuse

try:
    compiler_command()
except CompilerNotFoundError:
    pytest.skip("no C++ compiler for fused cpu kernels", allow_module_level=True)


def _unfused(function, *args):
    """The function op by op (the reference fusion must equal)."""
    return function.__wrapped__(*args)


def _host(value):
    return tuple(map(_host, value)) if isinstance(value, tuple) else ap.asnumpy(value)


def _check(function, *args, exact=True, rtol=1e-6, device=None):
    """Fused and unfused results agree (values, dtypes, shapes); no fallback warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", FusionFallbackWarning)
        got = function(*args)
    want = _unfused(function, *args)
    got_t, want_t = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    assert len(got_t) == len(want_t)
    for g, w in zip(got_t, want_t):
        assert isinstance(g, ap.ndarray)
        assert g.dtype == w.dtype and g.shape == w.shape
        if device is not None:
            assert g.device == device
        g, w = ap.asnumpy(g), ap.asnumpy(w)
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=0)
    return got


def _random(shape, dtype, seed=0, device=None, low=-4, high=4):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        host = rng.random(shape) > 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        host = rng.integers(max(info.min, -100), min(info.max, 100), shape, dtype=dtype)
    elif dtype.kind == "c":
        host = (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    else:
        host = rng.uniform(low, high, shape).astype(dtype)
    return ap.asarray(host, device=device)


@fuse
def _expression(a, b, c):
    return a * b + c * 2 - ap.sqrt(ap.absolute(a))


@fuse
def _sum_of_products(a, b):
    return ap.sum(a * b)


@fuse(kernel_name="softmax")
def _softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = ap.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


# -- elementwise ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_float_expression_is_bit_exact(dtype):
    a, b, c = (_random((37, 53), dtype, seed) for seed in range(3))
    _check(_expression, a, b, c)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint64"])
def test_integer_ops_are_bit_exact(dtype):
    @fuse
    def f(a, b):
        return (a * b - (b << 1)) // 3 + (a ^ b) % 7 - ap.maximum(a, b)

    _check(f, _random((41, 29), dtype, 1), _random((41, 29), dtype, 2))


def test_complex_and_bool():
    @fuse
    def f(z, w, mask):
        return (z * w + ap.conjugate(z)) * mask

    # complex products round like the cuda op table's formula (NumPy's SIMD loop uses FMA)
    z, w = _random((10, 7), "complex64", 1), _random((10, 7), "complex64", 2)
    _check(f, z, w, _random((10, 7), "bool", 3), exact=False, rtol=1e-6)

    @fuse
    def g(a, b):
        return (a & ~b) | ap.logical_xor(a, b)

    _check(g, _random(50, "bool", 4), _random(50, "bool", 5))


def test_promotion_and_weak_scalars():
    @fuse
    def f(a, b, s):
        return a * s + b / 3 - (a > 1.5)

    i8, f32 = _random((6, 5), "int8", 1), _random((6, 5), "float32", 2)
    out = _check(f, i8, f32, 2)                        # int8 * 2 stays int8 (NEP 50)
    assert out.dtype == np.float32
    _check(f, i8, f32, 2.5)                            # a Python float takes float64
    _check(f, i8, f32, np.float64(2.0))                # a NumPy scalar is strong
    assert f(i8, f32, 2.5).dtype == np.float64


def test_out_of_range_scalar_is_numpys_error():
    @fuse
    def f(a, s):
        return a + s

    a = _random(4, "int8")
    _check(f, a, 3)
    with pytest.raises(OverflowError):
        f(a, 1000)


def test_broadcasting_scalars_and_0d():
    @fuse
    def f(a, b, c):
        return ap.sin(a) * b + c

    # sin is a vector routine's in the fused kernel (docs/extension.md, fusion numerics)
    _check(f, _random((3, 1, 5), "float64", 1), _random((4, 1), "float64", 2),
           _random((), "float64", 3), exact=False, rtol=1e-14)
    zero_d = _check(f, _random((), "float32", 4), _random((), "float32", 5), 1.0,
                    exact=False, rtol=1e-6)
    assert zero_d.shape == ()


def test_non_contiguous_and_negative_strides():
    base = _random((20, 30), "float32", 1)
    other = _random((30, 20), "float32", 2)
    _check(_expression, base[::2, ::-3], other.T[::2, ::-3], base[1::2, 2::3])
    _check(_sum_of_products, base[::-1, 1::2], other.T[:, ::2], exact=False, rtol=1e-5)


def test_empty_inputs_run_op_by_op_silently():
    a = ap.zeros((0, 4), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _expression(a, a, a).shape == (0, 4)
        assert float(_sum_of_products(a, a)) == 0.0


def test_several_outputs_and_in_place_operators():
    @fuse
    def f(a, b):
        t = a * b
        t += 1
        t *= a
        return t, a - b, t

    a, b = _random((9, 8), "float64", 1), _random((9, 8), "float64", 2)
    first, _, third = _check(f, a, b)
    assert first is third


def test_returning_an_argument():
    @fuse
    def f(a, b):
        return a, a + b

    a, b = _random(5, "float32", 1), _random(5, "float32", 2)
    same, total = f(a, b)
    assert same is a
    np.testing.assert_array_equal(ap.asnumpy(total), ap.asnumpy(a) + ap.asnumpy(b))


def test_power_shortcuts_and_astype():
    @fuse
    def f(a):
        return (a ** 2 + a ** 0.5 + a ** -1 + a ** 3).astype(np.float32)

    _check(f, _random((7, 3), "float64", 1, low=0.5, high=3))


# -- reductions ----------------------------------------------------------------------------

@fuse
def _all_sums(a):
    return ap.sum(a * 3), ap.min(a, axis=(0, 1)), ap.max(a - 1)


@fuse
def _row_products(a):
    return a.prod(axis=1), a.max(axis=1, keepdims=True) + 1


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "int64", "bool"])
def test_integer_reductions_are_exact(dtype):
    a = _random((33, 5), dtype, 7)
    _check(_all_sums, a)
    _check(_row_products, a)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), (-1, False),
                                           ((0, 2), True), ((1, 2), False)])
def test_float_reductions_along_axes(axis, keepdims):
    @fuse
    def f(a, b):
        return (a * b - 1).sum(axis=axis, keepdims=keepdims)

    a, b = _random((6, 70, 9), "float32", 1), _random((6, 70, 9), "float32", 2)
    _check(f, a, b, exact=False, rtol=1e-5)


def test_long_reduction_uses_chunks_and_matches_numpy():
    a = _random(200_001, "float32", 3, low=0, high=1)
    b = _random(200_001, "float32", 4, low=0, high=1)
    got = _check(_sum_of_products, a, b, exact=False, rtol=1e-5)
    want = np.sum(ap.asnumpy(a).astype(np.float64) * ap.asnumpy(b))
    assert abs(float(got) - want) / want < 1e-5


def test_reductions_are_deterministic_across_thread_counts():
    from asnumpy.backends.cpu import parallel

    a = _random((3, 300_000), "float32", 5)
    saved = parallel.thread_count()
    try:
        parallel.set_thread_count(1)
        one = ap.asnumpy(_sum_of_products(a, a))
        parallel.set_thread_count(4)
        four = ap.asnumpy(_sum_of_products(a, a))
    finally:
        parallel.set_thread_count(saved)
    assert one.tobytes() == four.tobytes()


def test_max_min_propagate_nan():
    @fuse
    def f(a):
        return ap.max(a * 2, axis=1), ap.min(a, axis=1)

    host = np.arange(40, dtype=np.float64).reshape(4, 10)
    host[1, 3] = np.nan
    host[2, 9] = -np.inf
    _check(f, ap.asarray(host))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "float16"])
def test_mean(dtype):
    a = _random((40, 30), dtype, 8)
    rtol = 2e-3 if dtype == "float16" else 1e-5
    for f in (fuse(lambda a: a.mean(axis=0)), fuse(lambda a: ap.mean(a * 2, axis=-1,
                                                                         keepdims=True)),
              fuse(lambda a: ap.mean(a))):
        _check(f, a, exact=False, rtol=rtol)


def test_softmax_matches_numpy_within_ulps():
    x = _random((64, 300), "float32", 9, low=-30, high=30)
    got = ap.asnumpy(_check(_softmax, x, exact=False, rtol=2e-6))
    host = ap.asnumpy(x)
    e = np.exp(host - host.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=-1, keepdims=True), rtol=2e-6)


def test_exp_within_an_ulp_of_the_correctly_rounded_value():
    # float32/float16: the cpu's own form (VEXP); float64: libmvec's where the probe found it
    @fuse
    def f(a):
        return ap.exp(a)

    host = np.concatenate([np.random.default_rng(1).uniform(-104, 89, 200_000),
                           np.random.default_rng(2).uniform(-1, 1, 100_000),
                           [np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72, 88.73, -87.4, -103.9,
                            -110.0, 89.0, 1e-30]])
    for dtype in ("float32", "float64", "float16"):
        values = host.astype(dtype)
        got = ap.asnumpy(f(ap.asarray(values)))
        with np.errstate(all="ignore"):
            rounded = np.exp(values.astype(np.float64)).astype(dtype)
            if dtype != "float64":
                np.testing.assert_array_max_ulp(got, rounded, maxulp=1)
            np.testing.assert_array_max_ulp(got, np.exp(values),
                                            maxulp=5 if dtype == "float64" else 3)


def test_centering_with_a_reduction_along_leading_axes():
    @fuse
    def f(a):
        return a - a.mean(axis=0)

    _check(f, _random((50, 7), "float64", 2), exact=False, rtol=1e-12)


# -- fallbacks ---------------------------------------------------------------------------------

def test_unsupported_op_warns_once_naming_it():
    @fuse
    def f(a):
        return ap.matmul(a, a) + 1

    a = _random((3, 3), "float64", 1)
    with pytest.warns(FusionFallbackWarning, match="matmul"):
        first = f(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = f(a)                                 # no second warning
    np.testing.assert_array_equal(ap.asnumpy(first), ap.asnumpy(second))
    np.testing.assert_array_equal(ap.asnumpy(first),
                                  ap.asnumpy(a) @ ap.asnumpy(a) + 1)


def test_python_branching_on_values_falls_back():
    @fuse
    def f(a):
        if ap.sum(a) > 0:
            return a * 2
        return a * 3

    a = _random(10, "float64", 1)
    with pytest.warns(FusionFallbackWarning, match="branching"):
        got = f(a)
    host = ap.asnumpy(a)
    np.testing.assert_array_equal(ap.asnumpy(got), host * (2 if host.sum() > 0 else 3))


def test_other_functions_fall_back_naming_the_line():
    @fuse
    def f(a):
        return ap.cumsum(a) * 2

    a = _random(10, "int32", 1)
    with pytest.warns(FusionFallbackWarning, match="cumsum"):
        got = f(a)
    np.testing.assert_array_equal(ap.asnumpy(got), np.cumsum(ap.asnumpy(a)) * 2)


def test_a_fallback_stopping_in_numpys_code_names_the_users_line():
    @fuse
    def f(a):
        return ap.argmax(a, axis=-1) + a

    a = _random((3, 1), "int32", 1)
    with pytest.warns(FusionFallbackWarning, match=r"at `return ap\.argmax\(a, axis=-1\) \+ a`"):
        got = f(a)
    host = ap.asnumpy(a)
    np.testing.assert_array_equal(ap.asnumpy(got), np.argmax(host, axis=-1) + host)


def test_shape_patterns_one_kernel_cannot_run_fuse_as_a_few():
    @fuse
    def f(a, b):
        return a.sum(axis=0) + b.sum(axis=1)        # reductions along different axes

    a = _random((4, 4), "float64", 1)
    got = _check(f, a, a)                           # no fallback warning
    host = ap.asnumpy(a)
    np.testing.assert_array_equal(ap.asnumpy(got), host.sum(0) + host.sum(1))
    entry, = f._schedules.values()
    assert len(entry.schedule.stages) == 3          # each reduction, then the sum


# Reductions whose results are broadcast back to a larger shape: (function of the namespace
# xp, argument shapes).  The first ones broadcast a reduced value along another axis than the
# one it keeps (``x.sum(axis=-1) + x`` for x of shape (3, 1) is the (3, 3) outer sum
# ``x[j, 0] + x[i, 0]``): one pass over x cannot compute them, they run as a few kernels.
# Once, they ran as one anyway and stored the diagonal only (the rest was heap garbage).
_BROADCAST_BACK = [
    (lambda xp, x: xp.sum(x, axis=-1) + x, [(3, 1)]),
    (lambda xp, x: xp.max(x, axis=-1) - x, [(3, 1)]),
    (lambda xp, x: xp.mean(x, axis=1) * x, [(4, 1)]),
    (lambda xp, x: x + xp.prod(x, axis=1), [(3, 1)]),
    (lambda xp, x: xp.maximum(xp.min(x, axis=2), x), [(4, 1, 1)]),
    (lambda xp, x: xp.min(x, axis=-2) + x, [(2, 1, 3)]),
    (lambda xp, x, y: xp.sum(x, axis=-1) + y, [(3, 4), (3, 1)]),
    (lambda xp, x, y: (y * 2).sum(axis=(-1, 0)) + x, [(3, 1, 1), (3, 1, 1)]),
    (lambda xp, x: (xp.sum(x, axis=-1) + x, x.max(axis=-1)), [(3, 1)]),
    # ... and ones that do fuse: the result comes back along the axes it keeps
    (lambda xp, x: x - x.max(axis=-1, keepdims=True), [(3, 5)]),
    (lambda xp, x: x - x.mean(axis=0), [(6, 5)]),
    (lambda xp, x: x * x.sum(axis=(-1, 0), keepdims=True), [(3, 4, 5)]),
    (lambda xp, x, y: xp.sum(x, axis=0) + y, [(3, 4), (1, 4)]),
    (lambda xp, x, y: xp.sum(x + y, axis=1) * y.max(axis=1), [(3, 1), (1, 4)]),
    (lambda xp, x: xp.sum(x, axis=-1) + x, [()]),
    (lambda xp, x: xp.sum(x, axis=-1) + x, [(1,)]),
]


@pytest.mark.parametrize("dtype", ["float64", "int8", "int32", "uint8"])
@pytest.mark.parametrize("case", range(len(_BROADCAST_BACK)))
def test_reductions_broadcast_back_are_numpys(case, dtype):
    function, shapes = _BROADCAST_BACK[case]
    hosts = [np.random.default_rng(seed).integers(0, 5, shape).astype(dtype)
             for seed, shape in enumerate(shapes)]
    fused = fuse(lambda *args: function(ap, *args))
    got = _check(fused, *map(ap.asarray, hosts), exact=False, rtol=1e-12)   # and no fallback
    want = function(np, *hosts)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(ap.asnumpy(g), w, rtol=1e-12)


@fuse(kernel_name="outer")
def _outer_sum(x):
    return ap.sum(x, axis=-1) + x


def test_a_reduction_broadcast_along_another_axis_runs_as_two_kernels():
    x = ap.asarray([[1.0], [2.0], [3.0]])
    got = _check(_outer_sum, x)                     # fused (no warning), as NumPy
    assert ap.asnumpy(got).tolist() == [[2, 3, 4], [3, 4, 5], [4, 5, 6]]
    entry, = _outer_sum._schedules.values()
    assert len(entry.schedule.stages) == 2          # the sum, then the (3, 3) result


def test_cuda_staged_function_launches_a_kernel_per_stage(emulated_driver, cuda):
    x = ap.asarray([[1.0], [2.0], [3.0]], device=cuda)
    before = len(emulated_driver.launches)
    got = _outer_sum(x)
    # the reduction (its chunks, then their combination), then the (3, 3) elementwise kernel
    kernels = [name.rsplit("_", 1)[0] for name in emulated_driver.launches[before:]]
    assert kernels == ["asn_outer_task", "asn_outer_finish", "asn_outer_task"]
    assert got.device == cuda
    assert ap.asnumpy(got).tolist() == [[2, 3, 4], [3, 4, 5], [4, 5, 6]]


def test_a_staged_function_with_an_out_of_range_scalar_is_numpys_error():
    @fuse
    def f(x, s):
        return ap.sum(x, axis=-1) + x * s

    x = _random((3, 1), "int8", 1)
    _check(f, x, np.int8(3))
    with pytest.raises(OverflowError):
        f(x, 1 << 70)                              # NumPy's error for the Python int


def test_function_errors_are_numpys_and_not_warnings():
    @fuse
    def f(a, b):
        return a + b

    with warnings.catch_warnings():
        warnings.simplefilter("error", FusionFallbackWarning)
        with pytest.raises(ValueError, match="broadcast"):
            f(_random(3, "float32"), _random(4, "float32"))


# -- caching and the decorator -----------------------------------------------------------------

def test_traces_and_plans_are_cached_per_signature(monkeypatch):
    monkeypatch.setattr(fusion, "MEASURE", [False])     # (its op-by-op run calls f too)
    calls = []

    @fuse
    def f(a, b):
        calls.append(1)
        return a * b + 1

    a, b = _random((5, 4), "float32", 1), _random((5, 4), "float32", 2)
    f(a, b)
    f(a, b)
    f(_random((5, 4), "float32", 3), b)
    assert len(calls) == 1                           # traced once for (float32, float32)
    f(a.astype(np.float64), b)
    assert len(calls) == 2                           # new dtypes: traced again
    f(a[:, ::2], b[:, ::2])
    assert len(calls) == 3
    f.clear_cache()
    f(a, b)
    assert len(calls) == 4


def test_decorator_forms():
    assert isinstance(_expression, Fusion) and _expression.kernel_name == "_expression"
    assert _softmax.kernel_name == "softmax"
    assert _softmax.__name__ == "_softmax"
    assert ap.fuse is fuse
    with pytest.raises(TypeError, match="unexpected keyword"):
        fuse(name="x")


def test_two_cpu_devices():
    a = _random((8, 8), "float32", 1, device="cpu:1")
    b = _random((8, 8), "float32", 2, device="cpu:1")
    _check(_expression, a, b, a, device=ap.Device("cpu:1"))
    with pytest.raises(ValueError, match="different devices"):
        _expression(a, _random((8, 8), "float32", 2, device="cpu:0"), a)


def test_user_stream():
    a, b = _random((64, 64), "float32", 1), _random((64, 64), "float32", 2)
    stream = ap.Stream()
    with stream:
        got = _sum_of_products(a, b)
    stream.synchronize()
    np.testing.assert_allclose(float(got), float(np.sum(ap.asnumpy(a) * ap.asnumpy(b))),
                               rtol=1e-5)


# -- cuda (emulated driver unless a GPU is present) --------------------------------------------

def test_cuda_fused_kernels(cuda):
    a, b, c = (_random((23, 17), "float32", seed, device=cuda) for seed in range(3))
    _check(_expression, a, b, c, device=cuda)
    _check(_sum_of_products, a, b, exact=False, rtol=1e-5, device=cuda)
    _check(_softmax, a, exact=False, rtol=1e-6, device=cuda)
    i = _random((9, 40_000), "int32", 4, device=cuda)

    _check(_row_products, i, device=cuda)
    _check(_all_sums, i, device=cuda)


def test_cuda_one_launch_per_elementwise_fusion(emulated_driver, cuda):
    a, b, c = (_random((5, 6), "float64", seed, device=cuda) for seed in range(3))
    before = len(emulated_driver.launches)
    _expression(a, b, c)
    assert len(emulated_driver.launches) == before + 1


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "tanh", "log", "log1p", "expm1", "arctan",
                                  "sinh", "cbrt", "exp2", "log10"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transcendental_functions_within_ulps_of_numpy(name, dtype):
    ufunc = getattr(ap, name)
    function = fuse(lambda a: ufunc(a) * 1)
    host = np.random.default_rng(2).uniform(0.01, 10, 5000).astype(dtype)
    got = ap.asnumpy(function(ap.asarray(host)))
    # docs/extension.md's bound (vector routines on cpu, NumPy's own up to 4 ulp off)
    np.testing.assert_array_max_ulp(got, getattr(np, name)(host),
                                    maxulp=8 if dtype == "float32" else 5)


def _many_operands(a, b, c, d, e, g, h, k):
    u = ap.exp(a * b + c) - d * e
    w = ap.exp(g - h) * k + u
    return u * 2.0, w


@pytest.mark.parametrize("layout", ["distinct", "repeated", "overlapping views"])
def test_many_operands_and_a_long_body_keep_their_values(layout, monkeypatch):
    # eight inputs and two outputs (a loop vectorised behind 16 overlap checks), one
    # array passed several times, or views of one buffer overlapping each other
    monkeypatch.setattr(fusion, "MEASURE", [False])
    rng = np.random.default_rng(5)
    if layout == "distinct":
        args = [ap.asarray(rng.uniform(-1, 1, 3001)) for _ in range(8)]
    elif layout == "repeated":
        one, two = ap.asarray(rng.uniform(-1, 1, 3001)), ap.asarray(rng.uniform(-1, 1, 3001))
        args = [one, two, one, one, two, one, two, two]
    else:
        base = ap.asarray(rng.uniform(-1, 1, 3008))
        args = [base[k:k + 3001] for k in range(8)]
    function = fuse(_many_operands)
    hosts = [ap.asnumpy(x) for x in args]
    for _ in range(2):
        got = function(*args)
        u = np.exp(hosts[0] * hosts[1] + hosts[2]) - hosts[3] * hosts[4]
        w = np.exp(hosts[5] - hosts[6]) * hosts[7] + u
        np.testing.assert_allclose(ap.asnumpy(got[0]), u * 2.0, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(ap.asnumpy(got[1]), w, rtol=1e-14, atol=1e-15)
    for x, host in zip(args, hosts):
        np.testing.assert_array_equal(ap.asnumpy(x), host)        # inputs untouched


# -- searched: random expression trees ------------------------------------------------------

_UNARY = ("negative", "absolute", "square", "sin", "exp", "floor", "sign")
_BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "divide", "greater", "copysign")


def _expression_tree(draw, st, depth):
    """A random function body over arguments a, b (nested ufunc calls and constants)."""
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(["a", "b", "a", "b", "2", "0.5", "3"]))
    if draw(st.booleans()):
        return f"ap.{draw(st.sampled_from(_UNARY))}({_expression_tree(draw, st, depth - 1)})"
    left = _expression_tree(draw, st, depth - 1)
    right = _expression_tree(draw, st, depth - 1)
    return f"ap.{draw(st.sampled_from(_BINARY))}({left}, {right})"


def test_random_expressions_match_the_op_by_op_run():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @st.composite
    def cases(draw):
        body = _expression_tree(draw, st, 3)
        reduce = draw(st.sampled_from([None, "sum", "max", "center", "normalize", "outer"]))
        dtype = draw(st.sampled_from(["float32", "float64", "int32"]))
        shape_a = draw(st.sampled_from([(5, 6), (1, 6), (6,), (), (5, 1)]))
        return body, reduce, dtype, shape_a

    @hypothesis.settings(max_examples=25, deadline=None, derandomize=True)
    @hypothesis.given(cases())
    def check(case):
        body, reduce, dtype, shape_a = case
        full = f"(({body}) + b * 0)"
        if reduce == "center":                      # a reduction, then elementwise on it
            body = f"{full} - ap.mean({full}, axis=0)"
        elif reduce == "normalize":                 # two nested reductions along the rows
            body = (f"({full} - {full}.max(axis=-1, keepdims=True)) / "
                    f"ap.sum(ap.absolute({full}) + 1, axis=-1, keepdims=True)")
        elif reduce == "outer":                     # broadcast back along another axis
            body = f"ap.max({full}, axis=-1) - a"   # (5,) against a (5, 1): a (5, 5) result
        elif reduce is not None:
            body = f"ap.{reduce}({full}, axis=-1)"
        hypothesis.assume(re.search(r"\b[ab]\b", body) is not None)
        namespace = {"ap": ap}
        exec(f"def f(a, b):\n    return {body}\n", namespace)  # noqa: S102 (generated test code)
        function = fuse(namespace["f"])
        a = _random(shape_a, dtype, 1, low=-3, high=3)
        b = _random((5, 6), dtype, 2, low=-3, high=3)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("error", FusionFallbackWarning)
            try:
                want = ap.asnumpy(_unfused(function, a, b))
            except (TypeError, ValueError) as error:     # NumPy refuses it: so must fuse
                with pytest.raises(type(error)):
                    function(a, b)
                return
            got = ap.asnumpy(function(a, b))
        assert got.dtype == want.dtype and got.shape == want.shape, body
        inexact = "sin" in body or "exp" in body      # the C library's, within ulps of NumPy's
        if (reduce not in (None, "max") and got.dtype.kind == "f") or inexact:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True,
                                       err_msg=body)
        else:
            np.testing.assert_array_equal(got, want, err_msg=body)

    check()


@pytest.mark.parametrize("function,dtypes", [
    (_expression, ("float32",) * 3),
    (_sum_of_products, ("float16", "float16")),
    (_softmax, ("float64",)),
    (fuse(lambda a, b: (a * b + ap.conjugate(a)).sum(axis=0)), ("complex64", "complex128")),
    (fuse(lambda a, b: ((a << 2) // (b | 1)).prod(axis=0)), ("int8", "uint64")),
])
def test_cuda_sources_compile_with_nvrtc(function, dtypes):
    """The CUDA C a GPU would get is accepted by NVRTC (no GPU needed to compile)."""
    from asnumpy.backends.cuda import compiler
    from asnumpy.backends.cuda.programs import TARGET as CUDA_TARGET
    from asnumpy.extension.fusion import _render
    from asnumpy.extension.fusion._schedule import build
    from asnumpy.extension.fusion._trace import trace

    if not compiler.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    args = [ap.zeros((4, 6), dtype=dtype) for dtype in dtypes]
    graph, outputs, _ = trace(function.__wrapped__, args, args[0].device)
    source, functions, _ = _render.render(build(graph, outputs, args), CUDA_TARGET)
    cubin = compiler.compile_module(source, "sm_90")
    assert all(name.encode() in cubin for name in functions.values())


def test_kernel_name_names_the_generated_kernels(emulated_driver, cuda):
    x = _random((3, 5), "float32", 1, device=cuda)
    _softmax(x)
    assert any(name.startswith("asn_softmax_task_") for name in emulated_driver.launches)


def test_a_second_process_loads_the_fused_kernel_from_disk(tmp_path):
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np, asnumpy as ap\n"
        "from asnumpy.backends.cpu import compiler as _toolchain\n"
        "from asnumpy.extension.fusion import _render\n"
        "_render.vector_math(ap.Device('cpu').backend.cxx)\n"   # its probe: a library of its own
        "_toolchain.stats.update(compiles=0, disk_hits=0)\n"
        "f = ap.fuse(lambda a, b: ap.sum(a * b - 0.25, axis=0))\n"
        "a = ap.asarray(np.arange(12.0).reshape(3, 4))\n"
        "assert ap.asnumpy(f(a, a)).tolist() == (np.arange(12.0).reshape(3, 4) ** 2 - 0.25)"
        ".sum(axis=0).tolist()\n"
        "print(_toolchain.stats['compiles'], _toolchain.stats['disk_hits'])\n")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "src")
    # On cpu:0 whatever $ASNUMPY_DEVICE the suite runs under: the disk cache under test is
    # the cpu toolchain's (a cuda default would compile the fused kernel through NVRTC).
    env = dict(os.environ, ASNUMPY_KERNEL_CACHE_DIR=str(tmp_path), ASNUMPY_DEVICE="cpu:0",
               PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=True).stdout.split() for _ in range(2)]
    assert runs[0] == ["1", "0"]                     # compiled once (task and finish: one library)
    assert runs[1] == ["0", "1"]                     # loaded from the disk cache
