"""Polynomials (poly*, roots, poly1d) and window functions, differentially against NumPy.

Each differential test runs its body with ``xp=numpy`` and ``xp=asnumpy`` on
the same random data (seeded per test by the harness) and compares values
(float tolerance: eigenvalues and least squares go through LAPACK), dtypes
and shapes; asnumpy must return device arrays.  Edge cases: empty and 0-d
coefficients, leading/trailing zeros, degree 0, windows with ``M <= 1``,
reversed views; errors NumPy raises are expected of asnumpy.
"""

import numpy
import pytest
from _inputs import random_data

import asnumpy
from asnumpy import testing

DTYPES = [numpy.int8, numpy.int32, numpy.int64, numpy.uint8, numpy.float32, numpy.float64,
          numpy.complex64, numpy.complex128]
WINDOWS = ["bartlett", "blackman", "hamming", "hanning"]


def close_to_numpy(**kwargs):
    """Float tolerance; dtypes and shapes as NumPy's; device results."""
    return testing.numpy_asnumpy_allclose(rtol=1e-5, atol=1e-6, device_check=True, **kwargs)


def coefficients(n, dtype, xp=numpy, scale=5):
    """``n`` small random coefficients of ``dtype`` (both runs draw the same), as ``xp``."""
    rng = numpy.random.default_rng(numpy.random.randint(2**31))
    host = random_data(rng, (n,), numpy.float64) / 100 * scale
    if numpy.dtype(dtype).kind == "c":
        host = host + 1j * random_data(rng, (n,), numpy.float64) / 100 * scale
    if numpy.dtype(dtype).kind == "u":
        host = numpy.abs(host)
    host = host.astype(dtype)
    if n and host[0] == 0:
        host[0] = 1
    return xp.asarray(host)


def coeffs_of(value):
    """A poly1d's coefficients (the harness compares arrays)."""
    return value.coeffs if isinstance(value, (numpy.poly1d, asnumpy.poly1d)) else value


# -- polyval ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@close_to_numpy()
def test_polyval(xp, dtype):
    p = coefficients(5, dtype, xp)
    x = coefficients(7, dtype, xp, scale=2)
    return xp.polyval(p, x), xp.polyval(p[::-1], x[::-2]), xp.polyval(p, x.reshape(1, 7))


@close_to_numpy()
def test_polyval_edges(xp):
    x = coefficients(4, numpy.float64, xp)
    p = coefficients(3, numpy.float32, xp)
    return (xp.polyval(xp.asarray([]), x), xp.polyval(p, 2.5), xp.polyval([1, 2, 3], 3),
            xp.polyval(xp.asarray([2.0]), x), xp.polyval(p, x.astype(numpy.int16)))


# -- polyadd, polysub, polymul ---------------------------------------------------------

@pytest.mark.parametrize("name", ["polyadd", "polysub", "polymul"])
@pytest.mark.parametrize("dtype", DTYPES)
@close_to_numpy()
def test_arithmetic(xp, name, dtype):
    f = getattr(xp, name)
    a, b = coefficients(5, dtype, xp), coefficients(3, dtype, xp)
    return f(a, b), f(b, a), f(a, a[::-1]), f(a, 2), f(a, xp.asarray([1.5, -2.0], numpy.float32))


@pytest.mark.parametrize("name", ["polyadd", "polysub", "polymul"])
@close_to_numpy()
def test_arithmetic_edges(xp, name):
    f = getattr(xp, name)
    a = coefficients(4, numpy.float64, xp)
    zeros_first = xp.asarray([0.0, 0.0, 1.5, 2.0])
    return f(xp.asarray([]), a), f(zeros_first, a), f(xp.asarray([]), xp.asarray([])), f(3, 4)


@pytest.mark.parametrize("name", ["polyadd", "polysub", "polymul"])
@close_to_numpy()
def test_arithmetic_poly1d(xp, name):
    a = xp.poly1d(coefficients(4, numpy.float64, xp))
    b = coefficients(2, numpy.float64, xp)
    result = getattr(xp, name)(a, b)
    assert isinstance(result, (numpy.poly1d, asnumpy.poly1d))
    return result.coeffs


def test_polymul_2d_error():
    testing.numpy_asnumpy_array_equal(accept_error=ValueError)(
        lambda xp: xp.polymul(xp.ones((2, 2)), xp.ones(2)))()


# -- polyder, polyint ------------------------------------------------------------------

@pytest.mark.parametrize("m", [0, 1, 2, 4, 7])
@pytest.mark.parametrize("dtype", DTYPES)
@close_to_numpy()
def test_polyder(xp, m, dtype):
    return xp.polyder(coefficients(6, dtype, xp), m)


@pytest.mark.parametrize("m", [0, 1, 3])
@pytest.mark.parametrize("dtype", DTYPES)
@close_to_numpy()
def test_polyint(xp, m, dtype):
    p = coefficients(4, dtype, xp)
    k = coefficients(max(m, 1), numpy.float64, xp)
    return xp.polyint(p, m), xp.polyint(p, m, k=2.5), xp.polyint(p, m, k=k)


@close_to_numpy()
def test_calculus_edges(xp):
    return (xp.polyder(xp.asarray([])), xp.polyint(xp.asarray([])), xp.polyder([3.0]),
            xp.polyint([3.0], 2, k=[1, 2]), xp.polyder(xp.asarray([1, 2, 3])[::-1], 1))


@pytest.mark.parametrize("call", [
    lambda xp: xp.polyder([1, 2], -1),
    lambda xp: xp.polyint([1, 2], -1),
    lambda xp: xp.polyint([1, 2], 3, k=[1, 2]),
])
def test_calculus_errors(call):
    testing.numpy_asnumpy_array_equal(accept_error=ValueError)(call)()


# -- polydiv ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [d for d in DTYPES if d not in (numpy.float32,
                                                                 numpy.complex64)])
@close_to_numpy()
def test_polydiv(xp, dtype):
    # single precision is left out: NumPy computes the scale and the quotient with
    # scalar math (its own rounding), and the trimming of the remainder's leading
    # near-zeros (|r| <= 1e-8) then depends on the last bit
    u, v = coefficients(6, dtype, xp), coefficients(3, dtype, xp)
    return xp.polydiv(u, v), xp.polydiv(v, u), xp.polydiv(u, 2)


@close_to_numpy()
def test_polydiv_exact(xp):
    u = xp.polymul(xp.asarray([1.0, -2.0, 3.0]), xp.asarray([2.0, 1.0]))
    q, r = xp.polydiv(u, xp.asarray([2.0, 1.0]))      # remainder trimmed to one zero
    single = xp.polydiv(xp.asarray([4.0, 2.0, 1.0], numpy.float32), xp.asarray([2.0], numpy.float32))
    return q, r, xp.polydiv(xp.asarray([5.0]), xp.asarray([2.0])), single


def test_polydiv_empty_error():
    testing.numpy_asnumpy_array_equal(accept_error=IndexError)(
        lambda xp: xp.polydiv(xp.asarray([]), xp.asarray([1.0])))()


# -- roots, poly -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@close_to_numpy()
def test_roots(xp, dtype):
    p = coefficients(5, dtype, xp)
    r = xp.roots(p)
    return xp.sort_complex(r) if r.dtype.kind == "c" else xp.sort(r)


@close_to_numpy()
def test_roots_edges(xp):
    real = xp.roots(xp.asarray([1.0, -6.0, 11.0, -6.0]))          # 1, 2, 3: real result
    zeros = xp.roots(xp.asarray([0.0, 0.0, 2.0, -4.0, 0.0, 0.0]))  # leading/trailing zeros
    return (xp.sort(real), xp.sort(zeros), xp.roots(xp.asarray([])), xp.roots([0, 0]),
            xp.roots([3.0]), xp.roots(xp.asarray([2, 0], numpy.int16)))


def test_roots_2d_error():
    testing.numpy_asnumpy_array_equal(accept_error=ValueError)(
        lambda xp: xp.roots(xp.ones((2, 2))))()


@pytest.mark.parametrize("dtype", DTYPES)
@close_to_numpy()
def test_poly(xp, dtype):
    return xp.poly(coefficients(4, dtype, xp))


@close_to_numpy()
def test_poly_edges(xp):
    pairs = xp.asarray([1 + 2j, 1 - 2j, 3.0])       # conjugate pairs: real result
    matrix = coefficients(9, numpy.float64, xp).reshape(3, 3)
    return (xp.poly(pairs), xp.poly(matrix), xp.poly(matrix.T), xp.poly([2]),
            float(xp.poly(xp.asarray([], numpy.float32))))   # NumPy: the float 1.0


def test_poly_no_roots_is_device_scalar():
    one = asnumpy.poly(asnumpy.asarray([], numpy.float32))
    assert isinstance(one, asnumpy.ndarray) and one.shape == () and one.dtype == numpy.float64


@pytest.mark.parametrize("shape", [(2, 3), (0, 0), (2, 2, 2)])
def test_poly_errors(shape):
    testing.numpy_asnumpy_array_equal(accept_error=ValueError)(
        lambda xp: xp.poly(xp.ones(shape)))()


# -- polyfit ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float32, numpy.float64, numpy.complex128])
@pytest.mark.parametrize("deg", [0, 1, 3])
@close_to_numpy()
def test_polyfit(xp, dtype, deg):
    x = xp.asarray(numpy.linspace(-2, 2, 12))
    y = coefficients(12, dtype, xp)
    return xp.polyfit(x, y, deg), xp.polyfit(x[::-1], y, deg, w=xp.abs(x) + 1)


@close_to_numpy()
def test_polyfit_options(xp):
    x = xp.asarray(numpy.linspace(0, 3, 10))
    y2 = coefficients(20, numpy.float64, xp).reshape(10, 2)
    y = y2[:, 0]
    c, v = xp.polyfit(x, y, 2, cov=True)
    c2, v2 = xp.polyfit(x, y2, 2, cov="unscaled")
    full = xp.polyfit(x, y, 2, full=True, rcond=1e-10)
    return c, v, c2, v2, xp.polyfit(x, y2, 1), full[0], full[1], full[3]


@pytest.mark.parametrize("call, error", [
    (lambda xp: xp.polyfit(xp.ones(3), xp.ones(3), -1), ValueError),
    (lambda xp: xp.polyfit(xp.ones((3, 1)), xp.ones(3), 1), TypeError),
    (lambda xp: xp.polyfit(xp.ones(0), xp.ones(0), 1), TypeError),
    (lambda xp: xp.polyfit(xp.ones(3), xp.ones((3, 1, 1)), 1), TypeError),
    (lambda xp: xp.polyfit(xp.ones(3), xp.ones(4), 1), TypeError),
    (lambda xp: xp.polyfit(xp.ones(3), xp.ones(3), 1, w=xp.ones(2)), TypeError),
    (lambda xp: xp.polyfit(xp.ones(3), xp.ones(3), 1, w=xp.ones((3, 1))), TypeError),
    (lambda xp: xp.polyfit(xp.arange(2.0), xp.ones(2), 1, cov=True), ValueError),
])
def test_polyfit_errors(call, error):
    testing.numpy_asnumpy_array_equal(accept_error=error)(call)()


def test_polyfit_rank_warning():
    with pytest.warns(numpy.exceptions.RankWarning):
        asnumpy.polyfit(asnumpy.ones(4), asnumpy.arange(4.0), 2)


# -- poly1d ----------------------------------------------------------------------------

@close_to_numpy()
def test_poly1d_arithmetic(xp):
    p = xp.poly1d(coefficients(4, numpy.float64, xp))
    q = xp.poly1d(coefficients(2, numpy.float64, xp))
    quotient, remainder = p / q
    results = [p * q, p + q, p - q, q - p, p * 2, 2 * p, p ** 3, -p, +p, p / 2, p + 1, 1 - p,
               p(q), p.deriv(), p.deriv(2), p.integ(), p.integ(2, k=1), quotient, remainder,
               p * coefficients(2, numpy.float64, xp), 3 / q]
    return [coeffs_of(r) for r in results] + [p(2.5), p(coefficients(3, numpy.float64, xp))]


@close_to_numpy()
def test_poly1d_attributes(xp):
    p = xp.poly1d(xp.asarray([0, 0, 1.0, -3.0, 2.0]))       # leading zeros dropped
    zero = xp.poly1d(xp.asarray([0, 0]))
    roots_given = xp.poly1d([1.0, 3.0], r=True)
    assert p.order == 2 and len(p) == 2 and p.variable == "x"
    assert p == xp.poly1d([1.0, -3.0, 2.0]) and p != roots_given
    assert bool(p == roots_given) is False
    return (p.coeffs, p.c, p.coef, p.coefficients, xp.sort(p.roots), xp.sort(p.r), zero.coeffs,
            roots_given.coeffs, p[0], p[2], p[7], p[-1], xp.poly1d(p).coeffs)


@close_to_numpy()
def test_poly1d_setitem(xp):
    p = xp.poly1d([1.0, 2.0, 3.0])
    p[1] = 7.5
    p[4] = -2.0
    return p.coeffs


def test_poly1d_printing():
    for coeffs, variable in [([1.0, -2.5, 0.0, 3.0], None), ([2, 0, 1], "z"), ([0], None),
                             ([1 + 2j, -1j], None)]:
        ours = asnumpy.poly1d(asnumpy.asarray(coeffs), variable=variable)
        theirs = numpy.poly1d(coeffs, variable=variable)
        assert repr(ours) == repr(theirs)
        assert str(ours) == str(theirs)
        assert ours.variable == theirs.variable
        assert isinstance(ours.coeffs, asnumpy.ndarray)


@pytest.mark.parametrize("call, error", [
    (lambda xp: xp.poly1d(xp.ones((2, 2))), ValueError),
    (lambda xp: xp.poly1d([1, 2]) ** -1, ValueError),
    (lambda xp: xp.poly1d([1, 2]) ** 1.5, ValueError),
])
def test_poly1d_errors(call, error):
    testing.numpy_asnumpy_array_equal(accept_error=error)(call)()


def test_poly1d_setitem_negative():
    p = asnumpy.poly1d([1.0, 2.0])
    with pytest.raises(ValueError):
        p[-1] = 3.0


# -- windows ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [-3, 0, 1, 2, 5, 16, 7.0, numpy.int8(9)])
@close_to_numpy()
def test_windows(xp, name, M):
    return getattr(xp, name)(M)


@pytest.mark.parametrize("M", [-2, 0, 1, 2, 5, 12])
@pytest.mark.parametrize("beta", [0, 2.5, 8.6, 14])
@close_to_numpy()
def test_kaiser(xp, M, beta):
    return xp.kaiser(M, beta)


def test_windows_device():
    device = asnumpy.get_device()
    for name in WINDOWS:
        window = getattr(asnumpy, name)(6, device=device)
        assert isinstance(window, asnumpy.ndarray) and window.device == device
    assert asnumpy.kaiser(6, 3.0, device=device).device == device
