"""Edge semantics NumPy defines and asnumpy must follow (issue 14, defect 6).

Differential tests: each body runs with ``xp=numpy`` and ``xp=asnumpy`` and
the results (values, dtypes, shapes; errors where NumPy raises) must agree.
Signed zeros are compared through ``signbit`` (equality alone cannot see
them).  Hypothesis searches the inputs where a rule has many cases (clip's
bounds and zeros, dtype pairs of the products).
"""

import numpy
import pytest
from hypothesis import given, settings, strategies as st
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing
from _signed_zeros import with_signs

ZEROS_AND_FRIENDS = [-0.0, 0.0, 1.0, -1.0, numpy.nan, 0.5, -2.0, numpy.inf]
FLOATS = [numpy.float16, numpy.float32, numpy.float64]
ALL = [numpy.bool_, numpy.int8, numpy.uint8, numpy.int16, numpy.int64, numpy.uint64,
       numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]


def same_as_numpy(**kwargs):
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


# -- clip ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bounds", [(0.0, 0.0), (-0.0, -0.0), (-0.0, 0.0), (0.0, -0.0),
                                    (1.0, -0.0), (numpy.nan, 1.0), (0.0, numpy.nan),
                                    (None, -0.0), (0.0, None)])
@same_as_numpy()
def test_clip_signed_zeros_with_scalar_bounds(xp, dtype, bounds):
    a = xp.asarray(ZEROS_AND_FRIENDS, dtype=dtype)
    return with_signs(xp, xp.clip(a, *bounds))


@pytest.mark.parametrize("dtype", FLOATS)               # float16: the scalar loop always
@pytest.mark.parametrize("make_bounds", [
    lambda xp, dtype: (xp.zeros(8, dtype), xp.zeros(8, dtype)),   # maximum/minimum
    lambda xp, dtype: (xp.asarray([0.0]), xp.asarray(-0.0)),      # one element: scalar loop
    lambda xp, dtype: (0.0, xp.zeros(8, dtype)),
    lambda xp, dtype: (xp.asarray([0.0, -0.0] * 4, dtype), xp.asarray([-0.0] * 8, dtype)),
], ids=["arrays", "one element", "scalar and array", "crossed"])
@same_as_numpy()
def test_clip_signed_zeros_with_array_bounds(xp, dtype, make_bounds):
    a = xp.asarray(ZEROS_AND_FRIENDS, dtype=dtype)
    return with_signs(xp, xp.clip(a, *make_bounds(xp, dtype)))


@same_as_numpy()
def test_clip_signed_zeros_views_out_and_where(xp):
    a = xp.asarray([[-0.0, 0.0, 1.0], [-1.0, -0.0, 0.0]])
    out = xp.full((2, 3), 7.0)
    xp.clip(a[:, ::-1], 0.0, 0.0, out=out, where=xp.asarray([True, False, True]))
    method = a.T.clip(-0.0, 0.0)
    from_ints = xp.clip(xp.asarray([0, 3, -2]), -0.0, 0.0)
    return with_signs(xp, out) + with_signs(xp, method) + with_signs(xp, from_ints)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64, numpy.complex128])
def test_clip_fixups_stay_on_the_operands_device(dtype):
    host = numpy.asarray([-0.0, 0.0, 1.0, -1.0], dtype=dtype)
    a = asnumpy.asarray(host, device="cpu:1")
    zeros = asnumpy.zeros(4, dtype, device="cpu:1")
    for bounds, host_bounds in [((0.0, -0.0), (0.0, -0.0)),
                                ((zeros, zeros), (numpy.zeros(4, dtype),) * 2)]:
        result = asnumpy.clip(a, *bounds)
        assert result.device == a.device
        expected = numpy.clip(host, *host_bounds)
        numpy.testing.assert_array_equal(numpy.signbit(asnumpy.asnumpy(result).real),
                                         numpy.signbit(expected.real))


COMPLEX_VALUES = [complex(numpy.nan, 1), complex(1, numpy.nan), complex(numpy.nan, numpy.nan),
                  1 + 1j, 5 + 0j, -1 - 1j, 2 - 3j, complex(-0.0, 0.0)]


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128])
@pytest.mark.parametrize("bounds", [(0, 2), (1j, 2 + 2j), (complex(numpy.nan, 0), 2),
                                    (0, complex(0, numpy.nan)), (None, 1 + 1j), (1, None)])
@same_as_numpy()
def test_clip_complex_nan(xp, dtype, bounds):
    return with_signs(xp, xp.clip(xp.asarray(COMPLEX_VALUES, dtype=dtype), *bounds))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.sampled_from(ZEROS_AND_FRIENDS), min_size=0, max_size=9),
       low=st.one_of(st.none(), st.sampled_from(ZEROS_AND_FRIENDS)),
       high=st.one_of(st.none(), st.sampled_from(ZEROS_AND_FRIENDS)),
       dtype=st.sampled_from(FLOATS), reverse=st.booleans())
def test_clip_searched(values, low, high, dtype, reverse):
    if low is None and high is None:
        return
    host = numpy.asarray(values, dtype=dtype)
    host = host[::-1] if reverse else host
    device = asnumpy.asarray(host)
    expected = numpy.clip(host, low, high)
    got = asnumpy.asnumpy(asnumpy.clip(device, low, high))
    assert got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got, expected)
    numpy.testing.assert_array_equal(numpy.signbit(got), numpy.signbit(expected))


# -- convolve, squeeze ----------------------------------------------------------

@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("a, v", [(1.0, [1.0, 2]), ([1, 2], 3), (2.0, 3j), ([], 1.0),
                                  (1.0, []), ([[1.0]], 1.0)])
@same_as_numpy(accept_error=ValueError)
def test_convolve_reads_scalars_as_length_one(xp, a, v, mode):
    return xp.convolve(xp.asarray(a), xp.asarray(v), mode)


@pytest.mark.parametrize("a, v", [(1.0, [1.0, 2]), (2.0, 3.0)])
@same_as_numpy(accept_error=ValueError)
def test_correlate_of_scalars(xp, a, v):
    return xp.correlate(xp.asarray(a), xp.asarray(v))


@pytest.mark.parametrize("axis", [0, -1, numpy.int64(0), (), None])
@same_as_numpy()
def test_squeeze_0d_accepts_axis_0(xp, axis):
    a = xp.asarray(3.5)
    return xp.squeeze(a, axis=axis), a.squeeze(axis=axis)


@pytest.mark.parametrize("axis", [(0,), 1, 5, (0, 0), -2])
@same_as_numpy(accept_error=AxisError)
def test_squeeze_0d_other_axes_are_out_of_bounds(xp, axis):
    return xp.squeeze(xp.asarray(3.5), axis=axis)


@pytest.mark.parametrize("axis", [False, True, 0.0])
def test_squeeze_0d_non_integer_axis(axis):
    with pytest.raises(TypeError):
        numpy.squeeze(numpy.asarray(3.5), axis=axis)
    with pytest.raises((TypeError, AxisError)):
        asnumpy.squeeze(asnumpy.asarray(3.5), axis=axis)


# -- nanquantile / nanpercentile of empty input ------------------------------------

@pytest.mark.parametrize("func, scale", [("nanquantile", 1), ("nanpercentile", 100),
                                         ("quantile", 1), ("percentile", 100)])
@pytest.mark.parametrize("q", [0.5, [0.5], [0.1, 0.5], [[0.1, 0.5]]])
@pytest.mark.parametrize("shape, axis", [((0,), None), ((0,), 0), ((0, 3), None), ((0, 3), 0),
                                         ((0, 3), -1), ((3, 0), 0), ((3, 0), 1)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@same_as_numpy(accept_error=IndexError)            # quantile/percentile of an empty axis
def test_order_statistics_of_empty_input(xp, func, scale, q, shape, axis, keepdims):
    q = numpy.asarray(q) * scale
    return getattr(xp, func)(xp.zeros(shape), q, axis=axis, keepdims=keepdims)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@same_as_numpy()
def test_nanquantile_of_empty_input_into_out(xp):
    out = xp.full((), 7.0)
    xp.nanquantile(xp.zeros((0,)), [0.1, 0.5], out=out)
    return out


# -- dot, inner, vdot: every dtype pair, 0-d and empty ------------------------------

def _operand(xp, dtype, values):
    return xp.asarray(numpy.asarray(values).astype(dtype))


@pytest.mark.parametrize("func", ["dot", "inner", "vdot"])
@pytest.mark.parametrize("shape_a, shape_b", [((4,), (4,)), ((0,), (0,)), ((), (4,)),
                                              ((2, 2), (2, 2))])
@testing.for_dtypes_combination(ALL, names=("dtype_a", "dtype_b"), full=True)
@same_as_numpy(accept_error=(ValueError, TypeError))
def test_products_of_every_dtype_pair(xp, func, shape_a, shape_b, dtype_a, dtype_b):
    base_a = numpy.array([100, -3, 2, 127, 1, 0][:max(1, int(numpy.prod(shape_a)))])
    base_b = numpy.array([2, 5, -1, 3, 1, 1][:max(1, int(numpy.prod(shape_b)))])
    a = _operand(xp, dtype_a, base_a[:int(numpy.prod(shape_a))].reshape(shape_a)
                 if shape_a else base_a[0])
    b = _operand(xp, dtype_b, base_b[:int(numpy.prod(shape_b))].reshape(shape_b))
    with numpy.errstate(over="ignore"):
        return getattr(xp, func)(a, b)


@pytest.mark.parametrize("func", ["dot", "inner"])
@pytest.mark.parametrize("scalar_first", [True, False])
@testing.for_dtypes_combination([numpy.bool_, numpy.int8, numpy.uint64, numpy.float16,
                                 numpy.float32, numpy.float64, numpy.complex64,
                                 numpy.complex128], names=("dtype_a", "dtype_b"), full=True)
@same_as_numpy()
def test_products_with_a_0d_operand_keep_numpys_zeros(xp, func, scalar_first, dtype_a,
                                                       dtype_b):
    scalar = xp.asarray(numpy.asarray(-3).astype(dtype_a))
    array = xp.asarray(numpy.asarray([[0, 1, 0], [2, 0, 0]]).astype(dtype_b))[:, ::-1]
    pair = (scalar, array) if scalar_first else (array, scalar)
    both_0d = getattr(xp, func)(scalar, xp.asarray(numpy.asarray(0).astype(dtype_b)))
    return with_signs(xp, getattr(xp, func)(*pair)) + with_signs(xp, both_0d)


PRODUCT_SHAPES = [((), ()), ((), (3,)), ((3,), ()), ((3,), (3,)), ((2, 3), (3,)),
                  ((2, 3), (3, 2)), ((0,), (0,)), ((2, 0), (0, 3)), ((2, 2, 3), (3, 2))]


@settings(max_examples=80, deadline=None)
@given(data=st.data(), func=st.sampled_from(["dot", "inner", "vdot"]),
       dtypes=st.tuples(st.sampled_from(ALL), st.sampled_from(ALL)),
       shapes=st.sampled_from(PRODUCT_SHAPES), reverse=st.booleans())
def test_products_searched(data, func, dtypes, shapes, reverse):
    """dot/inner/vdot on random small values (zeros of both signs), dtypes and views."""
    shape_a, shape_b = shapes
    if func == "inner" and len(shape_b) == 2:
        shape_b = shape_b[::-1]                  # inner contracts the last axes
    if func == "vdot" and numpy.prod(shape_a) != numpy.prod(shape_b):
        return
    values = st.sampled_from([-0.0, 0.0, 1.0, -1.0, 2.0, -3.0, 127.0])
    hosts = []
    for shape, dtype in zip((shape_a, shape_b), dtypes):
        flat = data.draw(st.lists(values, min_size=int(numpy.prod(shape)),
                                  max_size=int(numpy.prod(shape))))
        with numpy.errstate(invalid="ignore"):
            host = numpy.asarray(flat).astype(dtype).reshape(shape)
        hosts.append(host[::-1] if reverse and host.ndim else host)
    with numpy.errstate(all="ignore"):
        expected = numpy.asarray(getattr(numpy, func)(*hosts))
        got = asnumpy.asnumpy(getattr(asnumpy, func)(*map(asnumpy.asarray, hosts)))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    numpy.testing.assert_array_equal(got, expected)
    if expected.dtype.kind in "fc" and min(len(shape_a), len(shape_b)) == 0:
        # a 0-d operand scales (the zeros' signs are NumPy's rule); the signs of zero
        # sums of many products are BLAS's and not compared
        numpy.testing.assert_array_equal(numpy.signbit(got.real), numpy.signbit(expected.real))
        numpy.testing.assert_array_equal(numpy.signbit(got.imag), numpy.signbit(expected.imag))


@pytest.mark.parametrize("func", ["dot", "inner"])
@pytest.mark.parametrize("scalar", [0.0, -0.0, numpy.nan, -2.0])
@pytest.mark.parametrize("values", [[numpy.inf, 1.0], [[numpy.nan, -0.0], [1.0, 2.0]], [-0.0],
                                    [[1.0]], [numpy.inf]])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64,
                                   numpy.complex128])
@same_as_numpy()
def test_scaling_by_a_0d_operand_as_blas_axpy(xp, func, scalar, values, dtype):
    """NumPy scales with axpy: a zero scalar gives zeros even for inf/NaN (one element or
    float16: a plain multiply)."""
    with numpy.errstate(invalid="ignore"):
        a, b = xp.asarray(numpy.asarray(scalar, dtype)), xp.asarray(numpy.asarray(values, dtype))
        return with_signs(xp, getattr(xp, func)(a, b)) + with_signs(xp, getattr(xp, func)(b, a))


@pytest.mark.parametrize("func", ["dot", "inner", "vdot"])
@same_as_numpy()
def test_int8_products_wrap(xp, func):
    a = xp.asarray([100, 100, -128], dtype=numpy.int8)
    b = xp.asarray([2, 2, 1], dtype=numpy.int8)
    return getattr(xp, func)(a, b), getattr(xp, func)(a[::-1], b[::-1])


# -- integer power with negative exponents ------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint8, numpy.int32, numpy.int64,
                                   numpy.uint64])
@pytest.mark.parametrize("make", [
    lambda xp, a: xp.power(a, -1),
    lambda xp, a: a ** -2,
    lambda xp, a: xp.power(a, xp.asarray([1, -1], dtype=numpy.int64)),
    lambda xp, a: xp.power(a[:0], xp.asarray([-1], dtype=numpy.int64)),
    lambda xp, a: xp.power(a[0], xp.asarray(-1)),
    lambda xp, a: xp.power(a, 0),
], ids=["scalar", "operator", "array", "empty", "0-d", "zero"])
@same_as_numpy(accept_error=(ValueError, OverflowError))   # -1 as uint8: OverflowError
def test_integer_power_negative_exponent(xp, dtype, make):
    return make(xp, xp.asarray([2, 3], dtype=dtype))


def test_integer_power_negative_exponent_message():
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        asnumpy.power(asnumpy.asarray([2, 3]), -1)


# -- reductions with initial= and where= on empty axes -----------------------------

REDUCTIONS = ["sum", "prod", "max", "min", "nansum", "nanprod", "nanmax", "nanmin", "all",
              "any", "amax", "amin", "mean", "nanmean"]
KEYWORDS = [dict(initial=5), dict(where=False), dict(initial=5, where=False),
            dict(initial=-1, where=True), dict(where=[True, False, True]),
            dict(initial=2, where=[True, False, True])]


@pytest.mark.parametrize("func", REDUCTIONS)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32, numpy.bool_, numpy.complex128,
                                   numpy.uint8])
@pytest.mark.parametrize("shape, axis", [((0, 3), 0), ((0, 3), 1), ((0,), None), ((2, 0), 1),
                                         ((2, 3), 1), ((0, 3), None)])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_reductions_initial_where_empty(func, dtype, shape, axis):
    for keywords in KEYWORDS:
        @same_as_numpy(accept_error=(ValueError, TypeError, OverflowError))
        def body(xp):
            kw = {k: xp.asarray(v) if isinstance(v, list) else v for k, v in keywords.items()}
            return getattr(xp, func)(xp.ones(shape, dtype=dtype), axis=axis, **kw)
        body()
