"""Elementwise helpers (clip, round, diff, gradient, isclose, dot, softmax, ...), differentially.

Each body runs with ``xp=numpy`` and ``xp=asnumpy`` from the same seeded
``numpy.random`` state and the results (values, dtypes, shapes, errors)
are compared.  Inputs are fresh random values (signed, with NaN and
infinities mixed in where the test says so) in every relevant dtype, as
plain arrays and as views: transposed, reversed (negative strides) and
strided.  The activations (relu, gelu, softmax), which NumPy lacks, are
compared with reference formulas written here in NumPy.
"""

import math
import warnings

import numpy
import pytest
from _inputs import VIEWS, for_views_and_dtypes, random_array
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing


def same_as_numpy(**kwargs):
    """Exact comparison: values, dtypes, shapes; asnumpy arrays on asnumpy's side."""
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def close_to_numpy(rtol=1e-6, atol=1e-12, **kwargs):
    """Comparison within ``rtol``/``atol`` (looser for the narrow float types, where
    reordered sums and NumPy's layout-dependent SIMD loops differ by an ulp or so)."""
    rtols = {numpy.float16: 2e-3, numpy.float32: 2e-5, numpy.complex64: 2e-5, "default": rtol}
    atols = {numpy.float16: 0.1, numpy.float32: 1e-4, numpy.complex64: 1e-4, "default": atol}
    return testing.numpy_asnumpy_allclose(rtol=rtols, atol=atols, device_check=True, **kwargs)


def values(shape, dtype, special=False, small=False):
    """Random host values of ``dtype``: signed, never all zeros; NaN/inf mixed in if ``special``."""
    host = random_array(shape, dtype, bound=20 if small else None, scale=3 if small else 40)
    if special and host.dtype.kind in "fc" and host.size >= 4:
        flat = host.reshape(-1)
        flat[numpy.random.choice(flat.size, 4, replace=False)] = [numpy.nan, numpy.inf,
                                                                  -numpy.inf, 0]
    return host


def arr(xp, shape, dtype, **kwargs):
    return xp.asarray(values(shape, dtype, **kwargs))


# -- clip ---------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@for_views_and_dtypes(no_complex=True)
@same_as_numpy()
def test_clip_array_bounds(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype, special=True))
    low = arr(xp, a.shape[-1:], dtype, special=True)
    high = arr(xp, (a.shape[0], 1), dtype)
    return [xp.clip(a, low, high), xp.clip(a, None, high), xp.clip(a, low, None),
            xp.clip(a, min=low), a.clip(low, high), a.clip(max=high)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("bounds", [(0, 5), (-3, 3), (2.5, 7.5), (-300, 300), (0, 10**30),
                                    (5, -5), (numpy.nan, 1.0), (1.0, numpy.nan),
                                    (numpy.int8(-2), numpy.int16(400)), (True, None)],
                         ids=repr)
@testing.with_seed()
@testing.for_all_dtypes(no_complex=True)
@same_as_numpy(accept_error=(TypeError, OverflowError))
def test_clip_scalar_bounds(xp, dtype, bounds):
    a = arr(xp, (3, 5), dtype, special=True)
    return xp.clip(a, *bounds)


@testing.with_seed()
@testing.for_complex_dtypes()
@same_as_numpy()
def test_clip_complex_and_0d(xp, dtype):
    a = arr(xp, (7,), dtype)
    return [xp.clip(a, 1 + 1j, 2.5), xp.clip(a[0], -1, 1), xp.clip(xp.asarray(3.5), 0, 1)]


@testing.with_seed()
@same_as_numpy()
def test_clip_out_where_dtype_and_empty(xp):
    a = arr(xp, (3, 4), numpy.float64)
    out = xp.zeros((3, 4), dtype=numpy.float32)
    xp.clip(a, -1.0, 1.0, out=out, casting="same_kind")
    masked = xp.ones((3, 4))
    xp.clip(a, -1.0, 1.0, out=masked, where=xp.asarray(values((4,), bool)))
    ints = arr(xp, (5,), numpy.int16)
    return [out, masked, xp.clip(ints, -3, 3.5), xp.clip(ints, 0, 2, dtype=numpy.float32),
            xp.clip(xp.zeros((0, 3)), 0, 1), xp.clip([1, 5, 9], 2, 6), xp.clip(a, out=a.copy())]


@pytest.mark.parametrize("case", ["missing a_max", "missing a_min", "both min forms",
                                  "bad casting", "no broadcast", "bool positive"])
@same_as_numpy(accept_error=(TypeError, ValueError))
def test_clip_errors(xp, case):
    a = xp.asarray([1.0, 2.0, 3.0])
    if case == "missing a_max":       # clip(a, 1) too: NumPy's TypeError
        return xp.clip(a, a_min=1)
    if case == "missing a_min":
        return xp.clip(a, a_max=1)
    if case == "both min forms":      # positional bounds are asnumpy's min and max
        return xp.clip(a, a_min=0, a_max=1, min=0)
    if case == "bad casting":
        return xp.clip(a, 0, 1, out=xp.zeros(3, dtype=numpy.int64))
    if case == "no broadcast":
        return xp.clip(a, xp.zeros(2), 1)
    return xp.clip(xp.asarray([True, False]), None, None)


# -- round, fix --------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("decimals", [0, 1, 2, 5, -1, -2, -25])
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy(accept_error=TypeError)  # bools: float results do not cast back
def test_round(xp, dtype, decimals):
    a = arr(xp, (4, 5), dtype, special=True)
    halves = xp.asarray(numpy.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 1.05]).astype(dtype)
                        if numpy.dtype(dtype).kind in "fc" else values((3,), dtype))
    return [xp.round(a, decimals), xp.around(a.T[::-1], decimals), a[1:, ::2].round(decimals),
            xp.round(halves, decimals), xp.round(a[0, 0], decimals)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@testing.with_seed()
@same_as_numpy(accept_error=(TypeError, ValueError))
def test_round_out_and_errors(xp):
    a = arr(xp, (6,), numpy.float64)
    out = xp.zeros(6, dtype=numpy.float32)
    xp.round(a, 2, out=out)
    c = arr(xp, (6,), numpy.complex128)
    cout = xp.zeros(6, dtype=numpy.complex128)
    xp.round(c, 1, out=cout)
    i = xp.asarray(numpy.array([2**62 + 1, 125, -135, 15], numpy.int64))
    iout = xp.zeros(4, dtype=numpy.float64)
    xp.round(i, 0, out=iout)
    results = [out, cout, iout, xp.round(i, -1), xp.round([1.25, 2.5], 1)]
    for bad in ({"decimals": 1.5}, {"out": xp.zeros(5)}):
        try:
            xp.round(a, **bad)
        except (TypeError, ValueError) as error:
            results.append(type(error).__name__)
    return results


@for_views_and_dtypes(no_complex=True)
@same_as_numpy()
def test_fix(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype, special=True))
    out = xp.zeros(a.shape, dtype=numpy.float64)
    xp.fix(a, out=out)
    return [xp.fix(a), out]


# -- nan_to_num, real, imag, angle, real_if_close -------------------------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("kwargs", [{}, {"nan": -1.5, "posinf": 99, "neginf": -99.0},
                                    {"posinf": 1e300}, {"nan": 1j}], ids=repr)
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy(accept_error=TypeError)
def test_nan_to_num(xp, dtype, kwargs):
    a = arr(xp, (4, 5), dtype, special=True)
    if numpy.dtype(dtype).kind == "c":
        a = a + xp.asarray(numpy.array([numpy.nan, numpy.inf, -numpy.inf, 1, 0]) * 1j)
    in_place = a[::-1].copy()
    result = xp.nan_to_num(in_place, copy=False, **kwargs)
    return [xp.nan_to_num(a, **kwargs), result, in_place, xp.nan_to_num(a[0, 0], **kwargs)]


@for_views_and_dtypes()
@same_as_numpy()
def test_real_imag(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    imag = xp.imag(a)
    return [xp.real(a), imag, imag.flags.writeable, xp.real([1 + 2j, 3]), xp.imag([1 + 2j])]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("deg", [False, True])
@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy()
def test_angle(xp, dtype, deg):
    a = arr(xp, (3, 5), dtype, special=True)
    return [xp.angle(a, deg=deg), xp.angle(a[::-1, 1], deg), xp.angle(1j, deg)]


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_real_if_close(xp, dtype):
    a = arr(xp, (5,), dtype)
    near = a.real + 1e-20j if numpy.dtype(dtype).kind in "fc" else a
    return [xp.real_if_close(a), xp.real_if_close(near), xp.real_if_close(near, tol=1e-30),
            xp.real_if_close(xp.asarray([1 + 0.5j]), tol=1.0)]


# -- sinc, i0 ------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@for_views_and_dtypes()
@close_to_numpy(rtol=1e-12, atol=1e-15)
def test_sinc(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype, special=True, small=True))
    return [xp.sinc(a), xp.sinc(xp.asarray(0.0)), xp.sinc([0, 1, 0.5])]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # float16 overflows (both sides)
@for_views_and_dtypes()
@close_to_numpy(rtol=1e-12, accept_error=TypeError)
def test_i0(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype, small=True))
    return [xp.i0(a), xp.i0(a[0, 0]), xp.i0(xp.zeros((0, 2), dtype=dtype))]


# -- diff, ediff1d -------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf - inf, inf * 0
@pytest.mark.parametrize("n, axis", [(1, -1), (2, 0), (3, 1), (0, 0), (7, 1)])
@for_views_and_dtypes()
@same_as_numpy(accept_error=TypeError)
def test_diff(xp, dtype, view, n, axis):
    a = VIEWS[view](arr(xp, (5, 6), dtype, special=True))
    return xp.diff(a, n=n, axis=axis)


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_diff_prepend_append(xp, dtype):
    a = arr(xp, (3, 4), dtype)
    return [xp.diff(a, prepend=0), xp.diff(a, append=arr(xp, (3, 2), dtype), axis=1),
            xp.diff(a, n=2, axis=0, prepend=arr(xp, (1, 4), dtype), append=1.5),
            xp.diff(a[::-1], prepend=arr(xp, (3, 1), numpy.int8), append=True),
            xp.diff(xp.zeros((0, 3), dtype=dtype)), xp.diff([1, 4, 9, 16])]


@pytest.mark.parametrize("case", ["negative n", "0-d", "axis", "prepend ndim", "prepend shape"])
@same_as_numpy(accept_error=(ValueError, AxisError))
def test_diff_errors(xp, case):
    a = xp.asarray([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
    kwargs = {"negative n": {"n": -1}, "axis": {"axis": 2}, "prepend ndim": {"prepend": [1.0]},
              "prepend shape": {"prepend": xp.zeros((3, 1))}}.get(case, {})
    return xp.diff(xp.asarray(1.0) if case == "0-d" else a, **kwargs)


def test_diff_axis_error_names_function():
    with pytest.raises(AxisError, match="asnumpy.diff"):
        asnumpy.diff(asnumpy.zeros((2, 2)), axis=-3)
    with pytest.raises(ValueError, match="asnumpy.diff: order must be non-negative"):
        asnumpy.diff(asnumpy.zeros(3), n=-2)


@testing.with_seed()
@testing.for_all_dtypes(no_bool=True)
@same_as_numpy(accept_error=TypeError)
def test_ediff1d(xp, dtype):
    a = arr(xp, (3, 4), dtype)
    return [xp.ediff1d(a), xp.ediff1d(a[::-1, ::2], to_begin=arr(xp, (2,), dtype)),
            xp.ediff1d(a, to_end=[1, 2], to_begin=0), xp.ediff1d(a[0, :1], to_end=5),
            xp.ediff1d(xp.zeros(0, dtype=dtype), to_begin=1)]


@pytest.mark.parametrize("extra", [{"to_begin": 1.5}, {"to_end": [1 + 1j]}, {}], ids=repr)
@same_as_numpy(accept_error=TypeError)
def test_ediff1d_casting_errors(xp, extra):
    return xp.ediff1d(xp.asarray([3, 1, 4, 1, 5]), **extra)


@same_as_numpy(accept_error=TypeError)
def test_ediff1d_bool_raises(xp):
    return xp.ediff1d(xp.asarray([True, False, True]))


# -- gradient ------------------------------------------------------------------------------------

@pytest.mark.parametrize("edge_order", [1, 2])
@for_views_and_dtypes(no_bool=True)
@close_to_numpy(rtol=1e-9, atol=1e-9)
def test_gradient(xp, dtype, view, edge_order):
    f = VIEWS[view](arr(xp, (5, 6), dtype, small=True))
    coordinates = numpy.cumsum(numpy.random.random_sample(f.shape[0]) + 0.1)
    return [xp.gradient(f, edge_order=edge_order),
            xp.gradient(f, 0.5, edge_order=edge_order),
            xp.gradient(f, 2.0, xp.asarray(numpy.arange(f.shape[1]) * 3), edge_order=edge_order),
            xp.gradient(f, xp.asarray(coordinates), axis=0, edge_order=edge_order),
            xp.gradient(f, xp.asarray(coordinates), 1.5, edge_order=edge_order),
            xp.gradient(f[0], edge_order=edge_order),
            xp.gradient(f, axis=(-1,), edge_order=edge_order)]


@pytest.mark.parametrize("case", ["too small", "edge order", "distances 2-D", "distances length",
                                  "too many", "axis", "repeated axis", "bool"])
@same_as_numpy(accept_error=(ValueError, TypeError, AxisError))
def test_gradient_errors(xp, case):
    f = xp.asarray(numpy.arange(12.0).reshape(3, 4) ** 2)
    if case == "too small":
        return xp.gradient(f[:2], edge_order=2)
    if case == "edge order":
        return xp.gradient(f, edge_order=3)
    if case == "distances 2-D":
        return xp.gradient(f, xp.ones((3, 1)), 1.0)
    if case == "distances length":
        return xp.gradient(f, xp.ones(4), 1.0)
    if case == "too many":
        return xp.gradient(f, 1.0, 1.0, 1.0)
    if case == "axis":
        return xp.gradient(f, axis=2)
    if case == "repeated axis":
        return xp.gradient(f, axis=(0, -2))
    return xp.gradient(xp.asarray([True, False, True]))


# -- trapezoid, unwrap ---------------------------------------------------------------------------

@for_views_and_dtypes()
@close_to_numpy(rtol=1e-9, atol=1e-9)
def test_trapezoid(xp, dtype, view):
    y = VIEWS[view](arr(xp, (4, 6), dtype, small=True))
    x1 = xp.asarray(numpy.sort(numpy.random.random_sample(y.shape[-1])))
    x0 = xp.asarray(numpy.sort(numpy.random.random_sample(y.shape[0])))
    return [xp.trapezoid(y), xp.trapezoid(y, dx=0.25, axis=0), xp.trapezoid(y, x1),
            xp.trapezoid(y, x0, axis=0), xp.trapezoid(y, xp.asarray(values(y.shape, float))),
            xp.trapezoid(y[0, :1]), xp.trapezoid(xp.zeros((3, 0), dtype=dtype))]


@same_as_numpy(accept_error=IndexError)
def test_trapezoid_bad_axis_is_index_error(xp):
    return xp.trapezoid(xp.ones((2, 3)), axis=2)


@pytest.mark.parametrize("kwargs", [{}, {"discont": 4.0}, {"axis": 0}, {"period": 360},
                                    {"period": 7}, {"period": 1.0, "discont": 0.2}], ids=repr)
@testing.with_seed()
@testing.for_all_dtypes(no_bool=True, no_complex=True, no_float16=True)
@close_to_numpy(rtol=1e-9, atol=1e-9, accept_error=OverflowError)  # small ints, large periods
def test_unwrap(xp, dtype, kwargs):
    p = arr(xp, (4, 7), dtype, small=True)
    if numpy.dtype(dtype).kind == "f":
        p = p * 3
    return [xp.unwrap(p, **kwargs), xp.unwrap(p[::-1].T, **kwargs)]


# -- cross, dot ----------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("na, nb", [(3, 3), (2, 3), (3, 2), (2, 2)])
@testing.with_seed()
@testing.for_all_dtypes(no_bool=True)
@close_to_numpy(rtol=1e-13)   # complex64: NumPy's SIMD loops may differ by an ulp per layout
def test_cross(xp, dtype, na, nb):
    a = arr(xp, (4, na), dtype, small=True)
    b = arr(xp, (na, 4), dtype, small=True)[:nb].T
    return [xp.cross(a, b), xp.cross(a[::-1], b[:1]), xp.cross(a.T, b.T, axis=0),
            xp.cross(a.T, b, axisa=0), xp.cross(a[0], b[1])]


@testing.with_seed()
@same_as_numpy()
def test_cross_axisc_and_mixed_dtypes(xp):
    a = arr(xp, (2, 3, 5), numpy.int16, small=True)
    b = arr(xp, (3,), numpy.float32)
    return [xp.cross(a, b, axisa=1, axisc=0), xp.cross(a, b, axisa=1, axisc=-1),
            xp.cross([1, 2, 3], [4, 5, 6])]


def test_cross_2_vectors_warn():
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
        asnumpy.cross(asnumpy.asarray([1.0, 2.0]), asnumpy.asarray([3.0, 4.0]))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("case", ["length 4", "0-d", "axisa", "axisc", "broadcast", "bool"])
@same_as_numpy(accept_error=(ValueError, AxisError, TypeError))
def test_cross_errors(xp, case):
    a, b = xp.ones((2, 3)), xp.ones((2, 3))
    if case == "length 4":
        return xp.cross(xp.ones((2, 4)), b)
    if case == "0-d":
        return xp.cross(xp.asarray(1.0), b)
    if case == "axisa":
        return xp.cross(a, b, axisa=2)
    if case == "axisc":
        return xp.cross(a, b, axisc=-3)
    if case == "broadcast":
        return xp.cross(xp.ones((4, 3)), b)
    return xp.cross(xp.ones(3, dtype=bool), xp.ones(3, dtype=bool))


@pytest.mark.parametrize("shapes", [((), ()), ((), (3,)), ((4,), ()), ((5,), (5,)),
                                    ((3, 4), (4, 2)), ((3, 4), (4,)), ((4,), (4, 3)),
                                    ((2, 3, 4), (4,)), ((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)),
                                    ((2, 3, 4), (2, 4, 5)), ((3, 4), (3, 2, 4, 2)),
                                    ((0, 3), (3, 2)), ((2, 0), (0, 3))], ids=repr)
@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy(rtol=1e-9, atol=1e-9)
def test_dot(xp, dtype, shapes):
    a = arr(xp, shapes[0], dtype, small=True)
    b = arr(xp, shapes[1], dtype, small=True)
    return [xp.dot(a, b), a.dot(b)]


@testing.with_seed()
@close_to_numpy(rtol=1e-9, accept_error=ValueError)
def test_dot_mixed_views_scalars_and_out(xp):
    a = arr(xp, (4, 6), numpy.float32)[::-1, ::2]
    b = arr(xp, (3, 5), numpy.int8, small=True)
    out = xp.zeros((4, 5), dtype=numpy.float32)
    xp.dot(a, b, out=out)
    big = arr(xp, (2, 3, 4), numpy.int64, small=True)
    nd_out = xp.zeros((2, 3, 5, 2), dtype=numpy.int64)
    xp.dot(big, arr(xp, (5, 4, 2), numpy.int64, small=True), out=nd_out)
    return [out, nd_out, xp.dot(b, 2), xp.dot(2.5, a), xp.dot([1, 2], [3, 4]),
            xp.dot(a.T, a)]


@pytest.mark.parametrize("case", ["not aligned", "not aligned N-D", "out dtype", "out shape",
                                  "out not contiguous"])
@same_as_numpy(accept_error=ValueError)
def test_dot_errors(xp, case):
    a = xp.ones((3, 4))
    if case == "not aligned":
        return xp.dot(a, xp.ones(3))
    if case == "not aligned N-D":
        return xp.dot(xp.ones((2, 3, 4)), xp.ones((2, 3, 4)))
    if case == "out dtype":
        return xp.dot(a, xp.ones(4), out=xp.zeros(3, dtype=numpy.float32))
    if case == "out shape":
        return xp.dot(a, xp.ones(4), out=xp.zeros(4))
    return xp.dot(a, xp.ones((4, 2)), out=xp.zeros((2, 3)).T)


# -- interp -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"left": -1.0, "right": 9.0}, {"period": 2.5}],
                         ids=repr)
@testing.with_seed()
@testing.for_all_dtypes(no_complex=True)
@close_to_numpy(rtol=1e-12)
def test_interp(xp, dtype, kwargs):
    xp_ = numpy.sort(numpy.random.random_sample(8) * 6 - 3)
    fp = values((8,), dtype, small=True)
    x = arr(xp, (3, 5), dtype, small=True)
    return [xp.interp(x, xp.asarray(xp_), xp.asarray(fp), **kwargs),
            xp.interp(x[::-1, ::2], xp_.tolist(), xp.asarray(fp), **kwargs),
            xp.interp(xp.asarray(0.5), xp.asarray(xp_), xp.asarray(fp), **kwargs)]


@testing.with_seed()
@close_to_numpy(rtol=1e-12)
def test_interp_complex_and_nan(xp):
    xs = xp.asarray([-5.0, 0.25, numpy.nan, 1.5, numpy.inf, 3.0])
    fp = xp.asarray(values((4,), numpy.complex128))
    return [xp.interp(xs, xp.asarray([0.0, 1.0, 2.0, 3.0]), fp),
            xp.interp(xs, [0.0, 1.0, 2.0, 3.0], fp, left=1j, right=2 + 0j)]


@pytest.mark.parametrize("case", ["lengths", "empty", "2-D xp", "period 0", "complex x"])
@same_as_numpy(accept_error=(ValueError, TypeError))
def test_interp_errors(xp, case):
    x, xp_, fp = xp.asarray([0.5]), xp.asarray([0.0, 1.0]), xp.asarray([1.0, 2.0])
    if case == "lengths":
        return xp.interp(x, xp_, xp.asarray([1.0, 2.0, 3.0]))
    if case == "empty":
        return xp.interp(x, xp.zeros(0), xp.zeros(0))
    if case == "2-D xp":
        return xp.interp(x, xp.zeros((2, 2)), xp.zeros((2, 2)))
    if case == "period 0":
        return xp.interp(x, xp_, fp, period=0)
    return xp.interp(xp.asarray([1j]), xp_, fp)


# -- isclose, allclose, array_equal, array_equiv ---------------------------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("equal_nan", [False, True])
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_isclose(xp, dtype, equal_nan):
    a = arr(xp, (4, 6), dtype, special=True)
    noise = values((4, 6), numpy.float64) * 1e-7
    b = a + xp.asarray(noise.astype(a.dtype)) if a.dtype.kind in "fc" else a + 1
    c = a[::-1, ::2]
    return [xp.isclose(a, b, equal_nan=equal_nan), xp.isclose(a, a, equal_nan=equal_nan),
            xp.isclose(c, c[:1], rtol=1e-3, atol=0.5, equal_nan=equal_nan),
            xp.isclose(a, 1, equal_nan=equal_nan), xp.isclose(a[0, 0], b[0, 0]),
            xp.allclose(a, b, equal_nan=equal_nan), xp.allclose(a, a, equal_nan=equal_nan),
            xp.allclose(a, a + 1e-3, rtol=0, atol=1e-2)]


@same_as_numpy()
def test_isclose_edge_values(xp):
    big = numpy.iinfo(numpy.int64).min
    f32 = xp.asarray(numpy.array([1.0, 1.0 + 2**-20], numpy.float32))
    return [xp.isclose(xp.asarray([big, 0]), xp.asarray([big, big])),
            xp.isclose(xp.asarray([numpy.inf, -numpy.inf, numpy.inf, numpy.nan]),
                       xp.asarray([numpy.inf, numpy.inf, 1.0, numpy.nan])),
            xp.isclose(f32, 1.0, rtol=0, atol=1e-7), xp.isclose(1.0, 1.0 + 1e-9),
            xp.isclose(xp.asarray([1.0, 2.0]), xp.asarray([1.0, 2.1]), rtol=xp.asarray([0, 0.1])),
            xp.isclose(xp.zeros((0, 2)), 0), xp.allclose(xp.zeros((0, 2)), 1)]


def test_isclose_invalid_tolerance_warns_as_numpy():
    with pytest.warns(RuntimeWarning, match="One of rtol or atol is not valid"):
        asnumpy.isclose(asnumpy.ones(2), 1.0, atol=numpy.nan)
    with asnumpy.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        asnumpy.isclose(asnumpy.ones(2), 1.0, rtol=numpy.inf)


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_array_equal_equiv(xp, dtype):
    a = arr(xp, (3, 4), dtype, special=True)
    b = a.copy()
    other = arr(xp, (3, 4), dtype)
    row = a[:1]
    results = []
    for equal_nan in (False, True):
        results += [xp.array_equal(a, b, equal_nan=equal_nan),
                    xp.array_equal(a, a, equal_nan=equal_nan),
                    xp.array_equal(a, other, equal_nan=equal_nan),
                    xp.array_equal(a, a[:2], equal_nan=equal_nan)]
    results += [xp.array_equiv(a, b), xp.array_equiv(row, xp.asarray(numpy.tile(values(
        (1, 4), dtype), (2, 1)))), xp.array_equiv(a, a[:, :2]), xp.array_equiv(a, row),
        xp.array_equal([1, 2], [1, 2]), xp.array_equal([[1], [1, 2]], [1]),
        xp.array_equiv([1, 2], [[1, 2], [1, 2]]), xp.array_equal(xp.zeros(0), xp.zeros(0))]
    return results


@same_as_numpy()
def test_array_equal_nan_positions(xp):
    nan = numpy.nan
    a = xp.asarray([1.0, nan, 3.0])
    c = xp.asarray([complex(1, nan), 2 + 0j])
    return [xp.array_equal(a, xp.asarray([1.0, nan, 3.0]), equal_nan=True),
            xp.array_equal(a, xp.asarray([nan, 1.0, 3.0]), equal_nan=True),
            xp.array_equal(a, xp.asarray([1.0, nan, 3.0])),
            xp.array_equal(c, xp.asarray([complex(nan, 5), 2 + 0j]), equal_nan=True),
            xp.array_equal(xp.asarray([1, 2]), xp.asarray([1.0, 2.0]), equal_nan=True)]


# -- isreal, iscomplex, isrealobj, iscomplexobj, isneginf, isposinf ---------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf - inf, inf * 0
@for_views_and_dtypes()
@same_as_numpy()
def test_type_tests(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype, special=True))
    if a.dtype.kind == "c":
        a = a * xp.asarray(numpy.array([1, 1j, 1, 1, 1j, 1])[: a.shape[-1]])
    return [xp.isreal(a), xp.iscomplex(a), xp.isrealobj(a), xp.iscomplexobj(a),
            xp.iscomplexobj([1, 2j]), xp.isrealobj([1.0]), xp.iscomplex(xp.asarray(1.0))]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@for_views_and_dtypes()
@same_as_numpy(accept_error=TypeError)
def test_isneginf_isposinf(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype, special=True))
    out = xp.ones(a.shape, dtype=bool)
    xp.isposinf(a, out=out)
    return [xp.isneginf(a), xp.isposinf(a), out, xp.isneginf(xp.asarray([-numpy.inf, -0.0]))]


def test_isneginf_complex_message():
    with pytest.raises(TypeError, match="asnumpy.isneginf: This operation is not supported"):
        asnumpy.isneginf(asnumpy.asarray([1j]))


@pytest.mark.parametrize("func", ["allclose", "array_equal", "array_equiv", "isrealobj",
                                  "iscomplexobj"])
def test_python_bools(func):
    a = asnumpy.asarray([1.0, 2.0])
    args = (a,) if func.endswith("obj") else (a, a)
    assert type(getattr(asnumpy, func)(*args)) is bool


# -- relu, gelu, softmax (against NumPy reference formulas) -----------------------------------------

_erf = numpy.vectorize(math.erf, otypes=[numpy.float64])


def reference_gelu(x, approximate):
    x = numpy.asarray(x, dtype=numpy.float64)
    if approximate:
        return 0.5 * x * (1 + numpy.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x * math.sqrt(0.5)))


def reference_softmax(x, axis):
    x = numpy.asarray(x, dtype=numpy.float64)
    e = numpy.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


TOLERANCE = {numpy.dtype(numpy.float16): 2e-3, numpy.dtype(numpy.float32): 3e-6,
             numpy.dtype(numpy.float64): 4e-15}


def assert_close_to_reference(got, expected, dtype):
    """``got`` has the float result dtype for ``dtype`` and is within its tolerance of ``expected``."""
    assert got.dtype == numpy.result_type(dtype, 1.0)
    tolerance = TOLERANCE[got.dtype]
    testing.assert_allclose(got, expected.astype(got.dtype), rtol=tolerance, atol=tolerance)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@for_views_and_dtypes()
def test_relu(dtype, view):
    host = VIEWS[view](values((4, 6), dtype, special=True))
    got = asnumpy.relu(asnumpy.asarray(host))
    assert got.dtype == host.dtype
    testing.assert_array_equal(got, numpy.maximum(host, numpy.zeros((), dtype)))
    reversed_host = values((5,), dtype, special=True)
    testing.assert_array_equal(asnumpy.relu(asnumpy.asarray(reversed_host)[::-1]),
                               numpy.maximum(reversed_host[::-1], numpy.zeros((), dtype)))


@pytest.mark.parametrize("approximate", [False, True, "tanh", "none"])
@for_views_and_dtypes(no_complex=True)
def test_gelu(dtype, view, approximate):
    host = VIEWS[view](values((4, 6), dtype, small=True))
    got = asnumpy.gelu(asnumpy.asarray(host), approximate=approximate)
    expected = reference_gelu(host, approximate in (True, "tanh"))
    assert_close_to_reference(got, expected, dtype)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # -inf * 0 in the formula
def test_gelu_erf_accuracy_and_specials():
    """erf to about math.erf's accuracy over the whole line; NaN and infinities behave."""
    x = numpy.concatenate([numpy.linspace(-12, 12, 20001),
                           numpy.random.default_rng(5).standard_normal(4000) * 4,
                           numpy.geomspace(1e-300, 1e-3, 50)])
    got = asnumpy.gelu(asnumpy.asarray(x)).get()
    expected = reference_gelu(x, False)
    error = numpy.abs(got - expected)
    assert numpy.all(error <= 4e-16 * numpy.abs(expected) + 1e-300 + 2e-16 * numpy.abs(x)), \
        error.max()
    specials = asnumpy.gelu(asnumpy.asarray([numpy.nan, numpy.inf, -numpy.inf, -0.0])).get()
    # the formula's own answers: NaN stays NaN, gelu(inf) = inf, gelu(-inf) = -inf * 0 = NaN
    assert numpy.isnan(specials[0]) and specials[1] == numpy.inf and numpy.isnan(specials[2])
    assert specials[3] == 0 and numpy.signbit(specials[3])
    f32 = asnumpy.gelu(asnumpy.asarray(x.astype(numpy.float32))).get()
    testing.assert_allclose(f32, expected.astype(numpy.float32), rtol=3e-6, atol=1e-6)


def test_gelu_rejects_complex_and_bad_mode():
    with pytest.raises(TypeError, match="asnumpy.gelu"):
        asnumpy.gelu(asnumpy.asarray([1j]))
    with pytest.raises(ValueError, match="asnumpy.gelu"):
        asnumpy.gelu(asnumpy.asarray([1.0]), approximate="sigmoid")


@pytest.mark.parametrize("axis", [-1, 0, 1, None, (0, 1)], ids=repr)
@for_views_and_dtypes(no_complex=True)
def test_softmax(dtype, view, axis):
    host = VIEWS[view](values((4, 6), dtype, small=False))
    got = asnumpy.softmax(asnumpy.asarray(host), axis=axis)
    expected = reference_softmax(host, axis)
    assert_close_to_reference(got, expected, dtype)


def test_softmax_is_stable_and_errors():
    x = numpy.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, numpy.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = asnumpy.softmax(asnumpy.asarray(x)).get()
        expected = reference_softmax(x, -1)
    testing.assert_allclose(got, expected, rtol=1e-15, equal_nan=True)
    assert numpy.isfinite(got[0]).all()
    with pytest.raises(AxisError):
        asnumpy.softmax(asnumpy.ones((2, 3)), axis=2)
    with pytest.raises(ValueError):
        asnumpy.softmax(asnumpy.ones((2, 0)), axis=1)


def test_methods_are_attached():
    a = asnumpy.asarray([[1.26, -2.5], [3.5, 0.25]])
    assert a.clip(0, 1).tolist() == [[1.0, 0.0], [1.0, 0.25]]
    assert a.round(1).tolist() == numpy.round(a.get(), 1).tolist()
    assert a.dot(a).tolist() == numpy.dot(a.get(), a.get()).tolist()
    assert asnumpy.ndarray.clip.__qualname__ == "ndarray.clip"
