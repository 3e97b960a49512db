"""Reductions and statistics, differentially against NumPy through :mod:`asnumpy.testing`.

Each differential test runs its body with ``xp=numpy`` and ``xp=asnumpy`` on
the same random data (``numpy.random``, seeded per test by
``testing.with_seed``) and compares values, dtypes and shapes; NumPy's
scalars are compared with asnumpy's 0-d device arrays (``device_check``
makes sure asnumpy returns device arrays).  Inputs are device views too:
transposed, reversed (negative strides) and strided.  Errors NumPy raises
are expected of asnumpy with ``accept_error`` (compatible types); warnings
are checked with ``pytest.warns`` inside the body, so both runs must warn.
"""

import math
import warnings

import numpy
import pytest
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing

F2, F4, F8 = numpy.float16, numpy.float32, numpy.float64
C8, C16 = numpy.complex64, numpy.complex128
# exact for bool and integers; close for inexact results (summation order may differ)
RTOL = {F2: 1e-2, F4: 2e-5, C8: 2e-5, F8: 1e-12, C16: 1e-12, "default": 0}
ATOL = {F2: 1e-2, F4: 1e-4, C8: 1e-4, F8: 1e-10, C16: 1e-10, "default": 0}


def close_to_numpy(**kwargs):
    """This file's comparison: close values, equal dtypes and shapes, device results."""
    return testing.numpy_asnumpy_allclose(rtol=RTOL, atol=ATOL, device_check=True, **kwargs)


def random_array(shape, dtype, xp=numpy, near_one=False):
    """Random values of ``dtype`` (both runs draw the same), as an array of ``xp``.

    Integers span the whole range of their type (sums overflow); floats are
    signed, of magnitude ~10, or near +-1 with ``near_one`` (for products).
    """
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        host = numpy.random.random_sample(shape) < 0.5
    elif dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        low, high = (-3, 4) if near_one else (info.min, info.max)
        low = max(low, int(info.min))
        host = numpy.random.randint(low, high, size=shape, dtype=dtype)
    else:
        def part():
            if near_one:
                return numpy.random.uniform(0.5, 1.5, shape) * numpy.random.choice([-1, 1],
                                                                                   shape)
            return numpy.random.standard_normal(shape) * 10
        host = part() + (1j * part() if dtype.kind == "c" else 0)
    return xp.asarray(numpy.asarray(host).astype(dtype))


def with_nans(host, fraction=0.3):
    """``host`` (inexact) with about ``fraction`` of its elements NaN."""
    host = host.copy()
    host[numpy.random.random_sample(host.shape) < fraction] = numpy.nan
    return host


# views of a (3, 4, 5) device array
VIEWS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.transpose(2, 0, 1),
    "reversed": lambda a: a[::-1, :, ::-1],
    "strided": lambda a: a[:, ::2, 1:],
}
AXES = [None, 0, -1, (0, 2), ()]
REDUCTIONS = ["sum", "prod", "min", "max", "amin", "amax", "all", "any", "mean", "var", "std",
              "ptp", "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd"]
PRODUCTS = ("prod", "nanprod")


def quiet(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with RuntimeWarnings (overflow, empty slices) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(*args, **kwargs)


# -- every reduction x dtype x axis x keepdims x layout -----------------------------

@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("view", VIEWS.values(), ids=list(VIEWS))
@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy(accept_error=TypeError)   # ptp of bool: no boolean subtract
def test_reduction(xp, name, axis, keepdims, view, dtype):
    a = view(random_array((3, 4, 5), dtype, xp, near_one=name in PRODUCTS))
    return quiet(getattr(xp, name), a, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "nansum", "nanprod",
                                  "nanmean", "nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint32, numpy.int64, F2, F4, F8, C16],
                         ids=lambda d: numpy.dtype(d).name)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int16, numpy.uint8, F2, F4, C8], name="input_dtype")
@close_to_numpy(accept_error=TypeError)   # nanmean & co. refuse integer dtypes for floats
def test_dtype_argument(xp, name, dtype, input_dtype):
    a = random_array((4, 6), input_dtype, xp, near_one=name in PRODUCTS)
    on_cuda = asnumpy.get_device().kind in ("cuda", "npu")
    if on_cuda and numpy.dtype(dtype).kind == "u" and a.dtype.kind in "fc":
        # Negative or huge floats cast to an unsigned type are undefined (C leaves them so;
        # NumPy's contiguous, strided and scalar casts of 3.2e16 to uint32 give 0, 2563768320
        # and 2563768320, a GPU saturates): on a cuda device the values stay in range
        real = abs(a.real)
        a = (real + 1j * a.imag if a.dtype.kind == "c" else real).astype(input_dtype)
    results = [quiet(getattr(xp, name), a, dtype=dtype),
               quiet(getattr(xp, name), a[:, ::-2], axis=0, dtype=dtype)]
    if on_cuda and name in ("nanvar", "nanstd") and a.dtype == C8 and dtype in (F8, C16):
        # NumPy's nanvar squares complex64 values as complex64 (x * conj(x)), whatever dtype
        # says, and its SIMD loop fuses the multiply-adds; the device rounds each product:
        # double precision results agree to single precision, not to their own
        results = [r.astype(C8 if r.dtype.kind == "c" else F4) for r in results]
    return results


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "all", "any", "mean", "var",
                                  "std", "ptp", "nansum", "nanmin", "nanmean", "nanstd",
                                  "argmin", "argmax", "nanargmax"])
@pytest.mark.parametrize("axis", [None, 1], ids=repr)
@pytest.mark.parametrize("out_dtype", [numpy.int32, F4, F8, C16, numpy.bool_],
                         ids=lambda d: numpy.dtype(d).name)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int16, F4, F8, C8])
@close_to_numpy(accept_error=(TypeError, ValueError))
def test_out(xp, name, axis, out_dtype, dtype):
    """The result lands in ``out`` (cast as NumPy casts, or refused as NumPy refuses)."""
    a = random_array((3, 5), dtype, xp, near_one=name == "prod")
    out = xp.zeros(() if axis is None else (3,), dtype=out_dtype)
    result = quiet(getattr(xp, name), a, axis=axis, out=out)
    return result is out, out


@testing.with_seed()
@testing.for_dtypes([numpy.int8, numpy.uint16, F2, F4, F8, C16])
@close_to_numpy()
def test_out_view_and_keepdims(xp, dtype):
    """``out`` may be a strided view; with keepdims it keeps the reduced axis."""
    a = random_array((4, 6), dtype, xp)
    out = xp.zeros((4, 4), dtype=F8 if dtype != C16 else C16)
    xp.sum(a, axis=1, out=out[::-1, 1])
    xp.mean(a, axis=1, out=out[:, 2:3], keepdims=True)
    xp.max(a[:, ::2], axis=1, out=out[:, 0])
    return out


WHERE_MASKS = {
    "full": lambda shape: numpy.random.random_sample(shape) < 0.6,
    "broadcast row": lambda shape: numpy.random.random_sample(shape[-1:]) < 0.6,
    "broadcast column": lambda shape: numpy.random.random_sample(shape[:1] + (1,)) < 0.6,
    "scalar False": lambda shape: False,
}


@pytest.mark.parametrize("name, initial", [
    ("sum", None), ("sum", 5), ("prod", 2), ("min", 3), ("max", -4), ("all", None),
    ("any", None), ("mean", None), ("var", None), ("std", None), ("nansum", 1),
    ("nanmin", 100), ("nanmax", -100), ("nanmean", None), ("nanvar", None)])
@pytest.mark.parametrize("mask", WHERE_MASKS.values(), ids=list(WHERE_MASKS))
@pytest.mark.parametrize("axis", [None, 0, 1], ids=repr)
@pytest.mark.parametrize("source", ["host", "device"])
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int32, numpy.uint8, F2, F4, F8, C8])
@close_to_numpy(accept_error=(TypeError, ValueError, OverflowError))  # initial=-4 for uint8
def test_where_and_initial(xp, name, initial, mask, axis, source, dtype):
    a = random_array((4, 5), dtype, xp, near_one=name == "prod")
    where = mask((4, 5))
    if source == "device" and not isinstance(where, bool):
        where = xp.asarray(where)
    kwargs = {"where": where} if initial is None else {"where": where, "initial": initial}
    return quiet(getattr(xp, name), a, axis=axis, **kwargs)


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max"])
@testing.with_seed()
@testing.for_all_dtypes(no_bool=True)
@close_to_numpy(accept_error=OverflowError)     # initial=-2 for unsigned integers
def test_initial_without_where(xp, name, dtype):
    a = random_array((3, 4), dtype, xp, near_one=name == "prod")
    return [getattr(xp, name)(a, initial=3), getattr(xp, name)(a, axis=0, initial=-2),
            getattr(xp, name)(a[:, :0], axis=1, initial=7)]


# -- special inputs: empty, 0-d, host data, NaN, overflow -------------------------

EMPTY_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 4)]


@pytest.mark.parametrize("name", REDUCTIONS + ["argmin", "argmax", "count_nonzero",
                                               "nanargmin", "nanargmax", "cumsum", "average"])
@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=repr)
@pytest.mark.parametrize("axis", [None, 0, -1], ids=repr)
@testing.for_dtypes([numpy.bool_, numpy.int64, F4, C16])
@close_to_numpy(accept_error=(ValueError, TypeError, ZeroDivisionError))
def test_empty(xp, name, shape, axis, dtype):
    """Empty slices: identities, NaN means, NumPy's errors for min/argmin of nothing."""
    return quiet(getattr(xp, name), xp.zeros(shape, dtype=dtype), axis=axis)


@pytest.mark.parametrize("name, message", [
    ("mean", "Mean of empty slice"), ("nanmean", "Mean of empty slice"),
    ("var", "Degrees of freedom <= 0"), ("std", "Degrees of freedom <= 0"),
    ("nanvar", "Degrees of freedom <= 0"), ("nanstd", "Degrees of freedom <= 0")])
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@close_to_numpy()
def test_empty_slice_warns(xp, name, message):
    a = xp.zeros((0, 3), dtype=F4)
    results = []
    for axis in (None, 0):
        with pytest.warns(RuntimeWarning, match=message):
            results.append(getattr(xp, name)(a, axis=axis))
    return results


@pytest.mark.parametrize("name", REDUCTIONS + ["argmin", "argmax", "count_nonzero",
                                               "cumsum", "cumprod", "nancumsum", "average",
                                               "cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("axis", [None, 0, -1, 1, (0,), ()], ids=repr)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.uint8, numpy.int64, F2, F8, C8])
@close_to_numpy(accept_error=(AxisError, TypeError, ValueError))
def test_zero_dimensional(xp, name, axis, dtype):
    a = xp.asarray(random_array((), dtype))
    kwargs = {} if axis is None else {"axis": axis}
    return quiet(getattr(xp, name), a, **kwargs)


@pytest.mark.parametrize("name", ["sum", "max", "mean", "std", "argmax", "cumsum", "ptp",
                                  "count_nonzero", "nanmean", "average", "all"])
@close_to_numpy()
def test_host_inputs_move_to_the_device(xp, name):
    data = [[1, 5, -2], [4, 0, 3]]
    return [getattr(xp, name)(data), getattr(xp, name)(numpy.array(data, F4)),
            getattr(xp, name)(numpy.float32(2.5)), getattr(xp, name)(numpy.array(data)[::-1])]


SPECIALS = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0]


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "var", "argmin", "argmax",
                                  "ptp", "cumsum", "all", "any", "count_nonzero", "nansum",
                                  "nanprod", "nanmin", "nanmax", "nanargmin", "nanargmax",
                                  "nanmean", "nanvar", "nanstd", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1], ids=repr)
@testing.with_seed()
@testing.for_dtypes([F2, F4, F8, C8, C16])
@close_to_numpy()
def test_nan_and_inf(xp, name, axis, dtype):
    """NaN propagates (and wins argmin/argmax) except in the nan* forms; no all-NaN slice."""
    host = random_array((6, 7), dtype)
    host[numpy.random.random_sample(host.shape) < 0.25] = numpy.random.choice(SPECIALS)
    host[:, 0] = 1.5                       # every slice keeps a non-NaN value
    host[0, :] = 2.5
    result = quiet(getattr(xp, name), xp.asarray(host)[::-1], axis=axis)
    if asnumpy.get_device().kind in ("cuda", "npu") and getattr(result, "dtype", None) == dtype \
            and result.dtype.kind == "c":
        # assert_allclose compares a complex infinity exactly, its finite part included,
        # and a device sums in another order than NumPy's pairwise loop: the parts are
        # compared each with the tolerance (an infinite part still exactly)
        return result.real, result.imag
    return result


@pytest.mark.parametrize("name", ["nanmin", "nanmax"])
@testing.for_float_dtypes()
@close_to_numpy()
def test_all_nan_slice_warns_and_gives_nan(xp, name, dtype):
    a = xp.asarray(numpy.array([[1, numpy.nan], [numpy.nan, numpy.nan]], dtype))
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        by_row = getattr(xp, name)(a, axis=1)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        whole = getattr(xp, name)(a[1])
    return by_row, whole


@pytest.mark.parametrize("name", ["nanargmin", "nanargmax"])
@pytest.mark.parametrize("axis", [None, 1], ids=repr)
@testing.for_dtypes([F4, F8, C16])
@close_to_numpy(accept_error=ValueError)
def test_all_nan_slice_raises_for_nanarg(xp, name, axis, dtype):
    a = xp.asarray(numpy.array([[1, numpy.nan], [numpy.nan, numpy.nan]], dtype))
    return getattr(xp, name)(a if axis is not None else a[1], axis=axis)


def test_all_nan_messages():
    a = asnumpy.asarray(numpy.full((2, 3), numpy.nan))
    with pytest.raises(ValueError, match="asnumpy.nanargmin: All-NaN slice encountered"):
        asnumpy.nanargmin(a, axis=0)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert numpy.isnan(asnumpy.nanmean(a).item())
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice."):
        assert numpy.isnan(asnumpy.nanvar(a, axis=1).get()).all()


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd",
                                  "nancumsum", "nancumprod", "nanmin", "nanmax"])
@pytest.mark.parametrize("axis", [None, 0, 1], ids=repr)
@testing.with_seed()
@testing.for_dtypes([F2, F4, F8, C16])
@close_to_numpy()
def test_nan_functions_with_all_nan_slices(xp, name, axis, dtype):
    host = with_nans(random_array((4, 5), dtype, near_one=name in ("nanprod", "nancumprod")))
    host[2] = numpy.nan
    host[:, 3] = numpy.nan
    return quiet(getattr(xp, name), xp.asarray(host), axis=axis)


@testing.with_seed()
@testing.for_int_dtypes(no_bool=True)
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_integer_sums_are_exact_and_wrap(xp, dtype):
    """Full-range integers: the default accumulator is the platform integer; dtype= wraps."""
    a = random_array((50, 40), dtype, xp)
    return [xp.sum(a), xp.sum(a, axis=0), xp.sum(a, dtype=dtype), xp.prod(a, axis=1),
            xp.cumsum(a[::-1], axis=1), xp.cumprod(a, axis=0, dtype=dtype), xp.ptp(a, axis=0),
            xp.sum(a.T, axis=(0, 1), keepdims=True), xp.nansum(a, axis=1)]


# -- var / std ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("kwargs", [{"ddof": 1}, {"ddof": 2}, {"correction": 1},
                                    {"correction": 0.5}, {"ddof": 1.5}, {"ddof": 6},
                                    {"ddof": 1, "correction": 1}, {"ddof": 0, "correction": 2}],
                         ids=repr)
@pytest.mark.parametrize("axis", [None, 0, 1], ids=repr)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int32, F2, F4, F8, C8, C16])
@close_to_numpy(accept_error=ValueError)
def test_ddof_and_correction(xp, name, kwargs, axis, dtype):
    a = random_array((6, 5), dtype, xp)
    return quiet(getattr(xp, name), a, axis=axis, **kwargs)


@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@testing.with_seed()
@testing.for_dtypes([numpy.int16, F4, F8, C16])
@close_to_numpy()
def test_var_with_given_mean(xp, name, dtype):
    a = random_array((4, 6), dtype, xp)
    means = [xp.mean(a, axis=1, keepdims=True), xp.mean(a, axis=0, keepdims=True)]
    return [getattr(xp, name)(a, axis=1, mean=means[0]),
            getattr(xp, name)(a, axis=0, mean=means[1], ddof=1)]


@testing.with_seed()
@testing.for_complex_dtypes()
@close_to_numpy()
def test_complex_variance_is_real(xp, dtype):
    a = random_array((5, 4), dtype, xp)
    return xp.var(a), xp.std(a, axis=0), xp.var(a[::-1, ::2], axis=1, ddof=1)


# -- argmin / argmax ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["argmin", "argmax", "nanargmin", "nanargmax"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("view", VIEWS.values(), ids=list(VIEWS))
@testing.with_seed()
@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_argmin_argmax(xp, name, axis, keepdims, view, dtype):
    """Ties (small value ranges) go to the first occurrence, as in NumPy."""
    a = view(random_array((3, 4, 5), dtype, xp, near_one=True))
    return getattr(xp, name)(a, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), 2, 1.0], ids=repr)
@pytest.mark.parametrize("out_shape", [None, (), (4,), (3,), (1, 1)], ids=repr)
@pytest.mark.parametrize("out_dtype", [numpy.intp, numpy.int32, F8],
                         ids=lambda d: numpy.dtype(d).name)
@testing.numpy_asnumpy_array_equal(accept_error=(TypeError, ValueError))
def test_argmin_argmax_errors_and_out(xp, name, axis, out_shape, out_dtype):
    a = xp.asarray(numpy.array([[3, 1, 1, 5], [0, 9, 0, 2], [7, 7, 8, 8]], F4))
    out = None if out_shape is None else xp.zeros(out_shape, dtype=out_dtype)
    result = getattr(xp, name)(a, axis=axis, out=out)
    return result if out is None else (result is out, out)


# -- cumulative ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=repr)
@pytest.mark.parametrize("view", VIEWS.values(), ids=list(VIEWS))
@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy(accept_error=TypeError)
def test_cumulative(xp, name, axis, view, dtype):
    a = view(random_array((3, 4, 5), dtype, xp, near_one=True))
    return quiet(getattr(xp, name), a, axis=axis)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [None, numpy.int8, numpy.uint64, F4, C16], ids=repr)
@testing.with_seed()
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@testing.for_dtypes([numpy.bool_, numpy.int16, F2, F8], name="input_dtype")
@close_to_numpy(accept_error=(TypeError, ValueError))
def test_cumulative_dtype_and_out(xp, name, dtype, input_dtype):
    a = random_array((3, 4), input_dtype, xp, near_one=True)
    out = xp.zeros((12,), dtype=F8)
    return [getattr(xp, name)(a, axis=1, dtype=dtype), getattr(xp, name)(a, out=out),
            getattr(xp, name)(a.T, axis=0, dtype=dtype, out=xp.zeros((4, 3), dtype=C16))]


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum"])
@pytest.mark.parametrize("out_shape", [(4, 3), (12,), (3, 5)], ids=repr)
@testing.numpy_asnumpy_array_equal(accept_error=ValueError)
def test_cumulative_out_of_the_wrong_shape(xp, name, out_shape):
    return getattr(xp, name)(xp.ones((3, 4)), axis=0, out=xp.zeros(out_shape))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("shape, axis", [((5,), None), ((5,), 0), ((3, 4), 1), ((3, 4), -2),
                                         ((3, 4), None), ((), None), ((0, 3), 0),
                                         ((2, 3), 2)], ids=repr)
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("with_out", [False, True])
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int8, numpy.uint32, F4, C16])
@close_to_numpy(accept_error=(ValueError, IndexError))  # AxisError is both
def test_cumulative_array_api(xp, name, shape, axis, include_initial, with_out, dtype):
    a = random_array(shape, dtype, xp, near_one=True)
    kwargs = {"include_initial": include_initial}
    if axis is not None:
        kwargs["axis"] = axis
    if with_out:
        out_shape = list(numpy.atleast_1d(numpy.zeros(shape)).shape)
        out_shape[0 if axis is None else axis % len(out_shape)] += include_initial
        kwargs["out"] = xp.zeros(tuple(out_shape), dtype=F8 if dtype != C16 else C16)
    return getattr(xp, name)(a, **kwargs)


# -- count_nonzero, nonzero, average ------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1], ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
@testing.with_seed()
@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_count_nonzero(xp, axis, keepdims, dtype):
    host = random_array((4, 5), dtype, near_one=True)
    host[numpy.random.random_sample(host.shape) < 0.4] = 0
    if host.dtype.kind in "fc":
        host[0, 0] = numpy.nan            # NaN is non-zero
    a = xp.asarray(host)
    return [xp.count_nonzero(a, axis=axis, keepdims=keepdims),
            xp.count_nonzero(a[::-1, ::2], axis=axis, keepdims=keepdims)]


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (0,), (3, 0)], ids=repr)
@pytest.mark.parametrize("view", ["plain", "reversed", "transposed"])
@testing.with_seed()
@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_nonzero(xp, shape, view, dtype):
    host = random_array(shape, dtype, near_one=True)
    host[numpy.random.random_sample(shape) < 0.5] = 0
    a = xp.asarray(host)
    a = {"plain": a, "reversed": a[::-1], "transposed": a.T}[view]
    return xp.nonzero(a), a.nonzero(), xp.nonzero(xp.zeros(shape, dtype=dtype))


@testing.numpy_asnumpy_array_equal(accept_error=ValueError)
def test_nonzero_of_0d_is_refused(xp):
    return xp.nonzero(xp.asarray(numpy.float32(3)))


WEIGHTS = {
    "none": lambda shape, axis: None,
    "full": lambda shape, axis: numpy.random.random_sample(shape) + 0.1,
    "along axis": lambda shape, axis: numpy.random.random_sample(
        tuple(shape[a] for a in numpy.atleast_1d(axis))) + 0.1,
    "integers": lambda shape, axis: numpy.random.randint(1, 4, shape),
}


@pytest.mark.parametrize("axis", [None, 0, 1, (1, 0), -1], ids=repr)
@pytest.mark.parametrize("weights", WEIGHTS.values(), ids=list(WEIGHTS))
@pytest.mark.parametrize("returned", [False, True])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("source", ["host", "device"])
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int32, F2, F4, F8, C8])
@close_to_numpy(accept_error=(TypeError, ValueError))
def test_average(xp, axis, weights, returned, keepdims, source, dtype):
    a = random_array((3, 4), dtype, xp)
    w = weights(a.shape, 0 if axis is None else axis)
    if source == "device" and w is not None:
        w = xp.asarray(w)
    return xp.average(a, axis=axis, weights=w, returned=returned, keepdims=keepdims)


@testing.numpy_asnumpy_array_equal(accept_error=ZeroDivisionError)
def test_average_weights_summing_to_zero(xp):
    return xp.average(xp.asarray(numpy.ones((2, 2))), axis=0, weights=[1.0, -1.0])


# -- methods, errors, accuracy ---------------------------------------------------------

@testing.with_seed()
@testing.for_dtypes([numpy.int32, F4, C16])
@close_to_numpy(accept_error=TypeError)
def test_ndarray_methods(xp, dtype):
    a = random_array((3, 4), dtype, xp)
    out = xp.zeros(4, dtype=F8 if dtype != C16 else C16)
    return [a.sum(), a.sum(0), a.sum(1, None, None, True), a.prod(axis=0, initial=2),
            a.min(1), a.max(0, None, True), a.argmin(), a.argmax(1, keepdims=True),
            a.all(0), a.any(1, None, None, True), a.mean(0, None, out), a.var(1, None, None, 1),
            a.std(ddof=1, keepdims=True), a.cumsum(1), a.cumprod(), a.nonzero(),
            a.var(mean=a.mean(1, keepdims=True), axis=1), a.T.sum(where=a.T.real > 0)]


@pytest.mark.parametrize("call", [
    lambda a: a.sum(0, None, None, False, 0, True, 1),
    lambda a: a.min(0, dtype=numpy.float64), lambda a: a.argmax(0, None, True),
    lambda a: a.cumsum(keepdims=True), lambda a: a.nonzero(0), lambda a: a.var(correction=1),
    lambda a: a.mean(0, None, None, False, True)], ids=range(7))
@testing.numpy_asnumpy_array_equal(accept_error=TypeError)
def test_method_signatures_are_numpys(xp, call):
    return call(xp.ones((2, 3)))


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "all", "any", "mean", "var",
                                  "std", "ptp", "count_nonzero", "nansum", "nanmin", "nanmean",
                                  "nanvar", "nanargmin", "argmin", "argmax", "cumsum", "average"])
@pytest.mark.parametrize("axis", [2, -3, (0, 0), (0, 3), 1.5], ids=repr)
@testing.numpy_asnumpy_array_equal(accept_error=(AxisError, TypeError, ValueError))
def test_bad_axes(xp, name, axis):
    return getattr(xp, name)(xp.asarray(numpy.arange(6.0).reshape(2, 3)), axis=axis)


@pytest.mark.parametrize("name, kwargs, error, match", [
    ("sum", {"axis": 3}, AxisError, "asnumpy.sum: .*axis 3 is out of bounds"),
    ("mean", {"axis": (0, 0)}, ValueError, "asnumpy.mean: duplicate value in 'axis'"),
    ("max", {"axis": 0}, ValueError, "asnumpy.max: zero-size array"),
    ("argmin", {}, ValueError, "asnumpy.argmin: attempt to get argmin of an empty sequence"),
    ("var", {"ddof": 1, "correction": 1}, ValueError, "asnumpy.var: ddof and correction"),
    ("cumulative_sum", {}, ValueError, "asnumpy.cumulative_sum: For arrays which have more"),
    ("nanmean", {"dtype": numpy.int32}, TypeError, "asnumpy.nanmean: If a is inexact"),
])
def test_error_messages_name_the_function(name, kwargs, error, match):
    a = asnumpy.zeros((0, 3)) if name in ("max", "argmin") else asnumpy.ones((2, 3))
    with pytest.raises(error, match=match):
        getattr(asnumpy, name)(a, **kwargs)


@pytest.mark.parametrize("name", ["sum", "mean", "nansum"])
def test_float32_sums_are_accurate(rng, name):
    """~10**6 float32 values: the error against math.fsum is no worse than NumPy's."""
    host = (rng.standard_normal(1_000_003) * 100 + 3).astype(F4)
    exact = math.fsum(host.astype(F8).tolist())
    if name == "mean":
        exact /= host.size
    ours = float(getattr(asnumpy, name)(asnumpy.asarray(host)).item())
    numpys = float(getattr(numpy, name)(host))
    slack = 4 * numpy.finfo(F4).eps * abs(exact)
    if asnumpy.get_device().kind in ("cuda", "npu"):
        # a device sums runs of elements in sequence, then combines them in a tree: its
        # rounding error is bounded by eps * sum(|x|) times a small factor, not by NumPy's
        # pairwise error (a float32 running sum of 10**6 values is ~1000 times worse)
        slack = 4 * numpy.finfo(F4).eps * float(numpy.abs(host).astype(F8).sum())
    assert abs(ours - exact) <= abs(numpys - exact) + slack, (ours, numpys, exact)


def test_mean_of_float16_accumulates_in_float32():
    host = numpy.full(10_000, 0.1, F2)
    result = asnumpy.mean(asnumpy.asarray(host))
    assert result.dtype == F2 and result.item() == numpy.mean(host)
    assert asnumpy.sum(asnumpy.asarray(host)).item() == numpy.sum(host)


def test_results_are_device_arrays_on_the_operands_device():
    a = asnumpy.asarray(numpy.arange(12.0).reshape(3, 4), device="cpu:1")
    for result in (asnumpy.sum(a), asnumpy.mean(a, axis=0), asnumpy.argmax(a),
                   asnumpy.var(a), asnumpy.nanmax(a), *asnumpy.nonzero(a)):
        assert isinstance(result, asnumpy.ndarray) and result.device == "cpu:1"
    host_out = asnumpy.zeros((), device="cpu:1")
    assert asnumpy.sum([1.0, 2.0], out=host_out) is host_out and host_out.item() == 3.0
