"""The cpu back end's own var/std, argmax/argmin and where (backends/cpu/statistics_kernels).

Differential against NumPy through :mod:`asnumpy.testing`, on fresh random
data.  The piece sizes are lowered (``small_pieces``) so that small arrays are
cut into many pieces, spread over the threads, with uneven tails: the
kept-axis pieces (``numpy.var`` of each), the reduced-axis pieces (Chan's
combination), the split searches and the blocked bit selection all run.
"""

import warnings

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asnumpy
from asnumpy import testing
from asnumpy.backends.cpu import parallel, statistics_kernels

pytestmark = pytest.mark.cpu_default("these test the cpu back end's statistics kernels")

F2, F4, F8 = numpy.float16, numpy.float32, numpy.float64
# Chan's combination rounds differently from NumPy's two passes (it is more accurate)
RTOL = {F2: 1e-2, F4: 2e-5, F8: 1e-12, "default": 0}
ATOL = {F2: 1e-2, F4: 1e-4, F8: 1e-10, "default": 0}
REAL = [numpy.bool_, numpy.int8, numpy.uint16, numpy.int32, numpy.int64, F2, F4, F8]


@pytest.fixture(autouse=True, params=[1, 2], ids=["1thread", "2threads"])
def small_pieces(request, monkeypatch):
    """Pieces of a few elements, on one thread and on two."""
    monkeypatch.setattr(statistics_kernels, "VAR_PIECE", 37)
    monkeypatch.setattr(statistics_kernels, "ARG_SPLIT_MIN_BYTES", 64)
    monkeypatch.setattr(statistics_kernels, "_ARG_PIECE_BYTES", 400)
    monkeypatch.setattr(statistics_kernels, "WHERE_BLOCK", 16)
    monkeypatch.setattr(statistics_kernels, "_WHERE_PIECE", 48)
    monkeypatch.setattr(statistics_kernels, "_WHERE_BITS_MIN", 2)
    before = parallel.thread_count()
    parallel.set_thread_count(request.param)
    yield
    parallel.set_thread_count(before)


def random_real(shape, dtype, xp, offset=3.0):
    """Random values of ``dtype`` around ``offset`` (floats), or of their range (integers)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        host = numpy.random.random_sample(shape) < 0.5
    elif dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        host = numpy.random.randint(max(info.min, -1000), min(info.max, 1000), size=shape)
    else:
        host = numpy.random.standard_normal(shape) * 10 + offset
    return xp.asarray(numpy.asarray(host).astype(dtype))


VIEWS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.transpose(2, 0, 1),
    "reversed": lambda a: a[::-1, :, ::-1],
    "strided": lambda a: a[:, ::2, 1:],
    "fortran": lambda a: a.T,
}


# ---------------------------------------------------------------------------
# var / std

@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (1, 2)])
@pytest.mark.parametrize("func", ["var", "std"])
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_std_in_pieces(xp, func, axis, view):
    a = VIEWS[view](random_real((9, 14, 11), F4, xp))
    return getattr(xp, func)(a, axis=axis)


@pytest.mark.filterwarnings("ignore:overflow encountered in reduce")  # float16: both overflow
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("axis", [None, 0, 1])
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_dtypes(xp, dtype, axis):
    return xp.var(random_real((40, 23), dtype, xp), axis=axis)


@pytest.mark.parametrize("ddof", [0, 1, 2.5, -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1])
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_ddof_keepdims(xp, axis, keepdims, ddof):
    return xp.std(random_real((30, 17), F8, xp), axis=axis, ddof=ddof, keepdims=keepdims)


@pytest.mark.parametrize("dtype", [F4, F8])
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_dtype_argument(xp, dtype):
    return xp.var(random_real((50, 20), F4, xp), axis=0, dtype=dtype)


@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_large_offset_stays_accurate(xp):
    # The mean dwarfs the spread: combined piece means must not cancel badly.
    return xp.var(random_real((4000,), F8, xp, offset=1e6))


@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_with_nan(xp):
    host = numpy.random.standard_normal((20, 30))
    host[3, 7] = host[15, 2] = numpy.nan
    return xp.var(xp.asarray(host), axis=0), xp.var(xp.asarray(host))


@pytest.mark.parametrize("axis", [None, 0, 1])
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_with_inf_warns_as_numpy(xp, axis):
    host = numpy.random.standard_normal((20, 30))
    host[3, 7] = numpy.inf
    with pytest.warns(RuntimeWarning, match="invalid value encountered in subtract"):
        return xp.var(xp.asarray(host), axis=axis)


@testing.numpy_asnumpy_array_equal(accept_error=FloatingPointError)
def test_var_overflow_raises_under_errstate(xp):
    a = xp.asarray(numpy.full((50, 4), 3e38, F4) * numpy.array([1, -1, 1, -1], F4))
    with numpy.errstate(over="raise"):
        return xp.var(a, axis=0)


@pytest.mark.parametrize("shape", [(), (1,), (0,), (0, 5), (1, 1)])
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True)
def test_var_tiny_and_empty(xp, shape):
    a = xp.asarray(numpy.arange(numpy.prod(shape), dtype=F8).reshape(shape))
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # empty: "Degrees of freedom"
        return xp.var(a)


@testing.with_seed()
def test_var_kept_axis_pieces_are_numpys_result():
    # Cut along kept axes only, each piece is numpy.var of the piece: the same bits.
    host = numpy.random.standard_normal((64, 50)).astype(F4)
    testing.assert_array_equal(asnumpy.var(asnumpy.asarray(host), axis=1),
                               numpy.var(host, axis=1))


@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
@testing.with_seed()
def test_var_on_each_device(device):
    host = numpy.random.standard_normal((40, 30))
    result = asnumpy.std(asnumpy.asarray(host, device=device), axis=0)
    assert str(result.device) == device
    testing.assert_allclose(result, numpy.std(host, axis=0), rtol=1e-12)


# ---------------------------------------------------------------------------
# argmax / argmin

@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", REAL + [numpy.complex64])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_arg_extreme_split(xp, dtype, func):
    host = numpy.asarray(random_real((997,), dtype, numpy)).astype(dtype)
    host[numpy.random.randint(0, 997, 40)] = host.max() if func == "argmax" else host.min()
    return getattr(xp, func)(xp.asarray(host))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("nans", [(), (600,), (900, 300), (0,), (996,)])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_arg_extreme_first_nan_wins(xp, func, nans):
    host = numpy.random.standard_normal(997).astype(F4)
    host[list(nans)] = numpy.nan
    return getattr(xp, func)(xp.asarray(host))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("axis", [None, 0, -1])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_arg_extreme_views_and_axes(xp, view, axis, func):
    a = VIEWS[view](random_real((9, 14, 11), F8, xp))
    return getattr(xp, func)(a, axis=axis), getattr(xp, func)(a, axis=axis, keepdims=True)


@testing.numpy_asnumpy_array_equal(device_check=True)
def test_argmax_into_out(xp):
    out = xp.zeros((), numpy.intp)
    xp.argmax(xp.asarray(numpy.arange(500.0)[::-1] % 77), out=out)
    return out


@testing.numpy_asnumpy_array_equal(accept_error=ValueError)
def test_argmax_of_empty_raises(xp):
    return xp.argmax(xp.zeros((0,), F4))


# ---------------------------------------------------------------------------
# where

@pytest.mark.parametrize("dtype", REAL + [numpy.uint64])
@pytest.mark.parametrize("other", ["zero", "scalar", "array"])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_where_selects_bits(xp, dtype, other):
    x = random_real((301,), dtype, xp)
    y = {"zero": 0, "scalar": True if numpy.dtype(dtype).kind == "b" else 7,
         "array": random_real((301,), dtype, xp)}[other]
    condition = xp.asarray(numpy.random.random_sample(301) < 0.5)
    return xp.where(condition, x, y)


@testing.with_seed()
def test_where_keeps_signed_zeros_and_nan_payloads():
    host = numpy.random.standard_normal(300).astype(F4)
    host[::7] = -0.0
    host[::11] = numpy.frombuffer(numpy.uint32(0x7FC01234).tobytes(), F4)[0]
    condition = numpy.random.random_sample(300) < 0.5
    for y in (0, -0.0, numpy.float32(numpy.nan)):
        got = asnumpy.where(asnumpy.asarray(condition), asnumpy.asarray(host), y).get()
        want = numpy.where(condition, host, y)
        assert got.dtype == want.dtype
        testing.assert_array_equal(got.view(numpy.uint32), want.view(numpy.uint32))


@pytest.mark.parametrize("case", ["broadcast", "promoted", "strided", "float_into_int",
                                  "scalar_condition", "2d"])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_where_other_shapes_and_dtypes(xp, case):
    x = random_real((20, 30), F4, xp)
    c = xp.asarray(numpy.random.random_sample((20, 30)) < 0.5)
    if case == "broadcast":
        return xp.where(c[:1], x, random_real((30,), F4, xp))
    if case == "promoted":
        return xp.where(c, x, random_real((20, 30), F8, xp))
    if case == "strided":
        return xp.where(c[:, ::2], x[:, 1::2], 0)
    if case == "float_into_int":
        return xp.where(c, random_real((20, 30), numpy.int16, xp), 2.5)
    if case == "scalar_condition":
        return xp.where(True, x, 0)
    return xp.where(c, x, -1.5)


@testing.numpy_asnumpy_array_equal(accept_error=ValueError)
def test_where_shapes_that_do_not_broadcast(xp):
    return xp.where(xp.zeros(3, bool), xp.zeros(4), 0)


@testing.numpy_asnumpy_array_equal(device_check=True)
def test_where_empty(xp):
    return xp.where(xp.zeros((0, 3), bool), xp.zeros((0, 3), F4), 0)


@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
@testing.with_seed()
def test_where_on_each_device(device):
    host = numpy.random.standard_normal(500).astype(F4)
    a = asnumpy.asarray(host, device=device)
    result = asnumpy.where(a > 0, a, 0)
    assert str(result.device) == device
    testing.assert_array_equal(result, numpy.where(host > 0, host, 0))


# ---------------------------------------------------------------------------
# which reductions are split (math_kernels' measured thresholds)

@pytest.mark.parametrize("dtype, sum_dtype, splits", [
    (F4, None, False), (F8, None, False), (numpy.int64, None, False),
    (numpy.int32, None, True), (F4, F8, True), (F2, None, True)])
def test_only_converting_reductions_split(monkeypatch, dtype, sum_dtype, splits):
    # (below REDUCE_STREAMING_SPLIT_MIN, which this test leaves as it is)
    from asnumpy.backends.cpu import math_kernels

    monkeypatch.setattr(math_kernels, "REDUCE_SPLIT_MIN", 64)
    monkeypatch.setattr(math_kernels, "REDUCE_CHUNK", 16)
    calls = []
    split = math_kernels._reduce_split
    monkeypatch.setattr(math_kernels, "_reduce_split", lambda *args: calls.append(args) or
                        split(*args))
    host = (numpy.arange(1000) % 7).astype(dtype)
    result = asnumpy.asarray(host).sum(dtype=sum_dtype)
    testing.assert_allclose(result, host.sum(dtype=sum_dtype), rtol=1e-3)
    assert bool(calls) == splits


# ---------------------------------------------------------------------------
# searched inputs

_SEARCH = settings(max_examples=40, deadline=None,
                   suppress_health_check=[HealthCheck.function_scoped_fixture])
_SHAPES = st.sampled_from([(0,), (1,), (7,), (97,), (5, 33), (3, 4, 17), (40, 3)])


@_SEARCH
@given(dtype=st.sampled_from(REAL), shape=_SHAPES, seed=st.integers(0, 2**32 - 1),
       other=st.sampled_from(["zero", "scalar", "array", "float64", "row"]))
def test_where_searched(dtype, shape, other, seed):
    rng = numpy.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    y = {"zero": 0, "scalar": True if numpy.dtype(dtype).kind == "b" else 3,
         "array": (rng.standard_normal(shape) * 50).astype(dtype),
         "float64": rng.standard_normal(shape),
         "row": (rng.standard_normal(shape[-1:]) * 50).astype(dtype)}[other]
    condition = rng.random(shape) < 0.5
    device_y = asnumpy.asarray(y) if isinstance(y, numpy.ndarray) else y
    got = asnumpy.where(asnumpy.asarray(condition), asnumpy.asarray(x), device_y).get()
    want = numpy.where(condition, x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    testing.assert_array_equal(got, want)


@_SEARCH
@given(dtype=st.sampled_from([numpy.int16, F4, F8]), shape=_SHAPES.filter(lambda s: 0 not in s),
       axis=st.sampled_from([None, 0, -1]), ddof=st.sampled_from([0, 1]),
       keepdims=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_var_searched(dtype, shape, axis, ddof, keepdims, seed):
    rng = numpy.random.default_rng(seed)
    host = (rng.standard_normal(shape) * 100 + 10).astype(dtype)
    if (host.size if axis is None else shape[axis]) <= ddof:
        return                                        # NumPy's "Degrees of freedom" case
    got = asnumpy.var(asnumpy.asarray(host), axis=axis, ddof=ddof, keepdims=keepdims).get()
    want = numpy.var(host, axis=axis, ddof=ddof, keepdims=keepdims)
    assert got.dtype == want.dtype and got.shape == want.shape
    tolerance = RTOL[F4] if host.dtype == F4 else RTOL[F8]
    testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * float(want.max()))


# ---------------------------------------------------------------------------
# mean of a whole array, computed at once (statistics._mean_now)

@pytest.mark.parametrize("dtype", REAL + [numpy.complex64])
@pytest.mark.parametrize("keepdims", [False, True])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_mean_of_everything_is_numpys(xp, dtype, keepdims):
    a = xp.asarray(numpy.asarray(random_real((30, 7), dtype, numpy)).astype(dtype))
    return a.mean(keepdims=keepdims), xp.mean(a.T[::-1]), xp.mean(a[0, 0])


@pytest.mark.parametrize("dtype", [F2, F4, F8, numpy.complex128, numpy.int32])
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True, accept_error=TypeError)
def test_mean_dtype_argument(xp, dtype):
    return xp.asarray(random_real((50,), F4, xp)).mean(dtype=dtype)


@testing.numpy_asnumpy_array_equal()
def test_mean_of_empty_warns(xp):
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), \
            numpy.errstate(invalid="ignore"):                 # 0 / 0
        return xp.mean(xp.zeros((0, 3), F4))


@testing.with_seed()
def test_mean_in_a_stream_block_runs_on_the_stream():
    host = numpy.random.standard_normal(1000)
    a = asnumpy.asarray(host)
    with asnumpy.Stream() as stream:
        result = a.mean()
    stream.synchronize()
    testing.assert_array_equal(result, host.mean())


@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
def test_mean_on_each_device(device):
    result = asnumpy.asarray(numpy.arange(10.0), device=device).mean()
    assert str(result.device) == device and float(result) == 4.5


@pytest.mark.parametrize("func", ["mean", "var", "std"])
def test_fused_statistics_still_fuse(func):
    # A value traced by asnumpy.fuse takes the composed path, not the one-kernel ones.
    host = numpy.random.default_rng(0).random((50, 4))
    fused = asnumpy.fuse(lambda a: getattr(asnumpy, func)(a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a FusionFallbackWarning fails the test
        result = fused(asnumpy.asarray(host))
    testing.assert_allclose(result, getattr(numpy, func)(host), rtol=1e-12)
