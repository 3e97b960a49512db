"""Order statistics, covariance and convolution, differentially against NumPy.

Each differential test runs its body with ``xp=numpy`` and ``xp=asnumpy`` on
the same random data (seeded per test by the harness) and compares values,
dtypes and shapes; asnumpy must return device arrays (0-d where NumPy
returns scalars).  asnumpy runs NumPy's own algorithms on device memory, so
results are compared exactly (NaNs in the same places).  Inputs include
views (transposed, reversed, strided), empty and 0-d arrays and NaNs; errors
NumPy raises are expected of asnumpy (compatible types, messages naming the
asnumpy function); warnings are checked with ``pytest.warns`` in the body.
"""

import numpy
import pytest
from _inputs import random_data
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing

METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest"]
QUANTILES = ["quantile", "percentile", "nanquantile", "nanpercentile"]
MEDIANS = ["median", "nanmedian"]
VIEWS = {
    "a": lambda a: a, "a.T": lambda a: a.T, "a[::-1]": lambda a: a[::-1],
    "a[:, ::-2]": lambda a: a[:, ::-2], "a[1:, ::2].T": lambda a: a[1:, ::2].T,
}


def same_as_numpy(**kwargs):
    """This file's comparison: equal values (NaN-aware), dtypes and shapes; device results."""
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def close_to_numpy(**kwargs):
    """For results computed through BLAS (cov, corrcoef): float tolerance."""
    return testing.numpy_asnumpy_allclose(rtol=1e-5, atol=1e-6, device_check=True, **kwargs)


def random_array(shape, dtype, xp=numpy, nans=0.0):
    """Random values of ``dtype`` (both runs draw the same, from the seeded global
    state), maybe with NaNs."""
    host = random_data(numpy.random.default_rng(numpy.random.randint(2**31)), shape, dtype)
    if nans and host.dtype.kind in "fc":
        host[numpy.random.random_sample(host.shape) < nans] = numpy.nan
    return xp.asarray(host)


def q_for(name, q):
    """Quantiles ``q`` (a number or a list) in the scale of function ``name``."""
    scale = 100 if "percentile" in name else 1
    return [v * scale for v in q] if isinstance(q, list) else q * scale


# -- median -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", MEDIANS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
@testing.for_all_dtypes(no_complex=True)
@same_as_numpy()
def test_median_axes(xp, name, axis, keepdims, dtype):
    a = random_array((4, 5, 3), dtype, xp)
    return getattr(xp, name)(a, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("name", MEDIANS)
@pytest.mark.parametrize("view", list(VIEWS))
@same_as_numpy()
def test_median_views(xp, name, view):
    a = VIEWS[view](random_array((6, 7), numpy.float32, xp, nans=0.2 * (name == "nanmedian")))
    return getattr(xp, name)(a, axis=0), getattr(xp, name)(a)


@testing.for_complex_dtypes()
@same_as_numpy()
def test_median_complex(xp, dtype):
    return xp.median(random_array((5, 4), dtype, xp), axis=1)


@pytest.mark.parametrize("name", MEDIANS)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (0, 3)])
@same_as_numpy()
def test_median_shapes(xp, name, shape):
    a = random_array(shape, numpy.float64, xp)
    axis = -1 if shape else None
    return getattr(xp, name)(a, axis=axis)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("name", MEDIANS)
@same_as_numpy()
def test_median_empty_slice_warns(xp, name):
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        return getattr(xp, name)(xp.zeros((0, 3)), axis=0)


@pytest.mark.filterwarnings("ignore:All-NaN slice encountered:RuntimeWarning")
@pytest.mark.parametrize("name", MEDIANS)
@same_as_numpy()
def test_median_nan_input(xp, name):
    a = random_array((5, 6), numpy.float64, xp, nans=0.3)
    a[0] = numpy.nan
    return getattr(xp, name)(a, axis=1)


@pytest.mark.parametrize("name", MEDIANS)
@same_as_numpy()
def test_median_out_and_overwrite(xp, name):
    a = random_array((5, 6), numpy.float64, xp)
    out = xp.zeros((1, 6))
    result = getattr(xp, name)(a, axis=0, out=out, keepdims=True)
    assert result is out
    return out, getattr(xp, name)(a.copy(), axis=1, overwrite_input=True)


# -- quantiles --------------------------------------------------------------------------

@pytest.mark.parametrize("name", QUANTILES)
@pytest.mark.parametrize("method", METHODS)
@testing.for_all_dtypes(no_complex=True, no_bool=True)
@same_as_numpy()
def test_quantile_methods(xp, name, method, dtype):
    a = random_array((5, 6), dtype, xp, nans=0.2 * name.startswith("nan"))
    q = q_for(name, [0.0, 0.13, 0.5, 0.87, 1.0])
    return getattr(xp, name)(a, q, axis=1, method=method)


@pytest.mark.parametrize("name", QUANTILES)
@pytest.mark.parametrize("method", METHODS)
@same_as_numpy()
def test_quantile_methods_scalar_q(xp, name, method):
    a = random_array((4, 3, 5), numpy.float32, xp)
    q = q_for(name, 0.3)
    return (getattr(xp, name)(a, q, method=method),
            getattr(xp, name)(a, numpy.float64(q), axis=(0, 2), method=method))


@pytest.mark.parametrize("name", QUANTILES)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("qshape", [(), (3,), (2, 2)])
@same_as_numpy()
def test_quantile_shapes(xp, name, axis, keepdims, qshape):
    a = random_array((4, 3, 5), numpy.float64, xp)
    q = numpy.random.random_sample(qshape) * (100 if "percentile" in name else 1)
    return getattr(xp, name)(a, q, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("name", QUANTILES)
@pytest.mark.parametrize("view", list(VIEWS))
@same_as_numpy()
def test_quantile_views(xp, name, view):
    a = VIEWS[view](random_array((6, 7), numpy.float64, xp))
    return getattr(xp, name)(a, q_for(name, [0.25, 0.75]), axis=-1, method="weibull")


@pytest.mark.parametrize("name", QUANTILES)
@same_as_numpy()
def test_quantile_q_on_device(xp, name):
    a = random_array((6, 7), numpy.float64, xp)
    q = xp.asarray(numpy.array(q_for(name, [0.1, 0.9])))
    return getattr(xp, name)(a, q, axis=0)


@pytest.mark.parametrize("name", ["nanquantile", "nanpercentile"])
@same_as_numpy()
def test_nanquantile_integer_out(xp, name):
    a = random_array((4, 2), numpy.float64, xp, nans=0.2)
    out = xp.zeros((2,), dtype=numpy.int64)
    getattr(xp, name)(a, q_for(name, 0.5), axis=0, out=out)
    return out


@pytest.mark.parametrize("name", QUANTILES)
@same_as_numpy()
def test_quantile_out(xp, name):
    a = random_array((6, 7), numpy.float32, xp)
    out = xp.zeros((2, 7), dtype=numpy.float64)
    result = getattr(xp, name)(a, q_for(name, [0.1, 0.9]), axis=0, out=out)
    assert result is out
    return out


@pytest.mark.parametrize("name", QUANTILES)
@pytest.mark.parametrize("axis", [None, 0, 1])
@same_as_numpy()
def test_quantile_weights(xp, name, axis):
    a = random_array((5, 6), numpy.float64, xp)
    w = xp.asarray(numpy.random.randint(0, 4, size=(5, 6)).astype(numpy.float64))
    q = q_for(name, [0.2, 0.5, 0.8])
    results = [getattr(xp, name)(a, q, axis=axis, method="inverted_cdf", weights=w)]
    if axis is not None and not name.startswith("nan"):   # NumPy's nan* forms fail there
        w1 = w[:, 0] if axis == 0 else w[0]
        results.append(getattr(xp, name)(a, q, axis=axis, method="inverted_cdf", weights=w1))
    return results


@pytest.mark.parametrize("name", QUANTILES + MEDIANS)
@same_as_numpy()
def test_all_nan_slice(xp, name):
    a = random_array((3, 4), numpy.float64, xp)
    a[1] = numpy.nan
    args = () if "median" in name else (q_for(name, 0.5),)
    if name.startswith("nan"):
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            return getattr(xp, name)(a, *args, axis=1)
    return getattr(xp, name)(a, *args, axis=1)


@pytest.mark.parametrize("name", QUANTILES)
@same_as_numpy()
def test_quantile_0d_and_host_input(xp, name):
    q = q_for(name, 0.5)
    return (getattr(xp, name)(random_array((), numpy.float32, xp), q),
            getattr(xp, name)(random_array((), numpy.float32, xp), [q, q]),
            getattr(xp, name)([[3, 1, 2], [7, 5, 9]], q, axis=1))


@pytest.mark.parametrize("name", QUANTILES)
def test_quantile_bool_raises(name):
    def body(xp):
        return getattr(xp, name)(xp.asarray(numpy.array([True, False, True])), 0.5)

    assert_numpy_error(body, TypeError, rf"asnumpy\.{name}: numpy boolean subtract")


@pytest.mark.parametrize("name", ["quantile", "percentile"])
def test_quantile_out_cast_error(name):
    def body(xp):
        out = xp.zeros((), dtype=numpy.int64)
        return getattr(xp, name)(xp.asarray(numpy.ones(4)), 0.5, out=out)

    assert_numpy_error(body, TypeError, rf"asnumpy\.{name}: Cannot cast")


# -- errors -----------------------------------------------------------------------------

def assert_numpy_error(body, error, match):
    """``body(xp)`` raises ``error`` with NumPy and asnumpy; asnumpy's message matches."""
    testing.numpy_asnumpy_array_equal(accept_error=error)(body)()
    with pytest.raises(error, match=match):
        body(asnumpy)


@pytest.mark.parametrize("name", QUANTILES)
@pytest.mark.parametrize("q", [-0.1, 1.5, [0.5, 2.0]])
def test_quantile_q_out_of_range(name, q):
    q = q_for(name, q)

    def body(xp):
        return getattr(xp, name)(xp.asarray(numpy.arange(5.0)), q)

    assert_numpy_error(body, ValueError, rf"asnumpy\.{name}: .*must be in the range")


@pytest.mark.parametrize("name", QUANTILES)
def test_quantile_bad_method(name):
    def body(xp):
        return getattr(xp, name)(xp.asarray(numpy.arange(5.0)), 0.5, method="bogus")

    assert_numpy_error(body, ValueError, rf"asnumpy\.{name}: ")


@pytest.mark.parametrize("name", QUANTILES + MEDIANS)
@pytest.mark.parametrize("axis", [2, -3, (0, 0)])
def test_bad_axis(name, axis):
    args = () if "median" in name else (0.5,)

    def body(xp):
        return getattr(xp, name)(xp.asarray(numpy.ones((2, 3))), *args, axis=axis)

    error = ValueError if axis == (0, 0) else AxisError
    assert_numpy_error(body, error, rf"asnumpy\.{name}: ")


@pytest.mark.parametrize("name", QUANTILES)
def test_quantile_complex_and_empty_errors(name):
    def complex_body(xp):
        return getattr(xp, name)(xp.asarray(numpy.ones(3, numpy.complex64)), 0.5)

    assert_numpy_error(complex_body, TypeError, rf"asnumpy\.{name}: a must be an array of real")
    if not name.startswith("nan"):
        assert_numpy_error(lambda xp: getattr(xp, name)(xp.zeros(0), 0.5), IndexError,
                           rf"asnumpy\.{name}: ")


@pytest.mark.parametrize("name", QUANTILES)
def test_weight_errors(name):
    a = numpy.ones((3, 4))

    def body(method="linear", w=None, axis=None):
        w = numpy.ones((3, 4)) if w is None else w
        return lambda xp: getattr(xp, name)(xp.asarray(a), 0.5, axis=axis, method=method,
                                            weights=xp.asarray(w))

    assert_numpy_error(body(), ValueError, "Only method 'inverted_cdf' supports weights")
    assert_numpy_error(body("inverted_cdf", numpy.ones(4)), TypeError, "Axis must be specified")
    assert_numpy_error(body("inverted_cdf", numpy.ones(3), 1), ValueError, "Shape of weights")
    assert_numpy_error(body("inverted_cdf", -numpy.ones(4), 1), ValueError, "non-negative")


def test_median_bad_out():
    with pytest.raises(ValueError, match=r"asnumpy\.median: "):
        asnumpy.median(asnumpy.ones((3, 4)), axis=0, out=asnumpy.empty((3,)))


# -- cov and corrcoef -------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Degrees of freedom <= 0:RuntimeWarning")
@pytest.mark.parametrize("name", ["cov", "corrcoef"])
@pytest.mark.parametrize("shape", [(5,), (3, 6), (1, 6), (6, 1), ()])
@pytest.mark.parametrize("rowvar", [True, False])
@testing.for_all_dtypes(no_float16=False)
@close_to_numpy()
def test_cov_corrcoef(xp, name, shape, rowvar, dtype):
    m = random_array(shape, dtype, xp)
    with numpy.errstate(invalid="ignore", divide="ignore"):
        return getattr(xp, name)(m, rowvar=rowvar)


@pytest.mark.parametrize("name", ["cov", "corrcoef"])
@pytest.mark.parametrize("view", list(VIEWS))
@close_to_numpy()
def test_cov_views_and_y(xp, name, view):
    m = VIEWS[view](random_array((6, 7), numpy.float64, xp))
    y = random_array(m.shape[::-1], numpy.float32, xp)
    return getattr(xp, name)(m), getattr(xp, name)(m, y.T), getattr(xp, name)(m, y.T, rowvar=False)


@pytest.mark.parametrize("dtype", [None, numpy.float32, numpy.complex128])
@close_to_numpy()
def test_cov_options(xp, dtype):
    m = random_array((3, 8), numpy.float32, xp)
    fw = xp.asarray(numpy.random.randint(0, 4, size=8))
    aw = xp.asarray(numpy.random.random_sample(8))
    return (xp.cov(m, bias=True, dtype=dtype), xp.cov(m, ddof=3, dtype=dtype),
            xp.cov(m, fweights=fw, dtype=dtype), xp.cov(m, aweights=aw, dtype=dtype),
            xp.cov(m, fweights=fw, aweights=aw, ddof=2, dtype=dtype),
            xp.corrcoef(m, dtype=dtype))


@same_as_numpy()
def test_cov_no_variables(xp):
    return xp.cov(xp.zeros((0, 4), numpy.float32)), xp.corrcoef(xp.zeros((0, 3)))


@close_to_numpy()
def test_cov_nan_input(xp):
    m = random_array((3, 6), numpy.float64, xp, nans=0.2)
    return xp.cov(m), xp.corrcoef(m)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_cov_too_few_observations_warns():
    for xp in (numpy, asnumpy):
        with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
            xp.cov(xp.asarray(numpy.ones((2, 1))))


def test_cov_errors():
    m = numpy.random.random_sample((2, 4))
    cases = [
        (lambda xp: xp.cov(xp.asarray(numpy.ones((2, 2, 2)))), ValueError, "more than 2"),
        (lambda xp: xp.cov(xp.asarray(m), xp.asarray(numpy.ones((2, 2, 2)))), ValueError,
         "more than 2"),
        (lambda xp: xp.cov(xp.asarray(m), ddof=1.5), ValueError, "ddof must be integer"),
        (lambda xp: xp.cov(xp.asarray(m), xp.asarray(numpy.ones((2, 5)))), ValueError,
         "concatenation axis"),
        (lambda xp: xp.cov(xp.asarray(m), fweights=xp.asarray([1.5, 1, 1, 1])), TypeError,
         "fweights must be integer"),
        (lambda xp: xp.cov(xp.asarray(m), fweights=xp.asarray([1, 1, 1])), RuntimeError,
         "incompatible numbers of samples and fweights"),
        (lambda xp: xp.cov(xp.asarray(m), aweights=xp.asarray(numpy.ones((4, 1)))),
         RuntimeError, "multidimensional aweights"),
        (lambda xp: xp.cov(xp.asarray(m), aweights=xp.asarray([1, -1, 1, 1])), ValueError,
         "aweights cannot be negative"),
        (lambda xp: xp.cov(xp.asarray(m), fweights=xp.asarray([1, -1, 1, 1])), ValueError,
         "fweights cannot be negative"),
    ]
    for body, error, match in cases:
        assert_numpy_error(body, error, rf"asnumpy\.cov: .*{match}")


# -- correlate and convolve -------------------------------------------------------------

@pytest.mark.parametrize("name", ["correlate", "convolve"])
@pytest.mark.parametrize("mode", ["valid", "same", "full", 0, 1, 2])
@pytest.mark.parametrize("sizes", [(7, 3), (3, 7), (1, 1), (5, 5), (6, 1)])
@testing.for_all_dtypes()
@same_as_numpy()
def test_correlate_convolve(xp, name, mode, sizes, dtype):
    a = random_array(sizes[0], dtype, xp)
    v = random_array(sizes[1], dtype, xp)
    return getattr(xp, name)(a, v, mode=mode)


@pytest.mark.parametrize("name", ["correlate", "convolve"])
@testing.for_all_dtypes_combination(names=("dtype1", "dtype2"), full=False)
@same_as_numpy()
def test_correlate_convolve_mixed(xp, name, dtype1, dtype2):
    a = random_array(6, dtype1, xp)
    v = random_array(4, dtype2, xp)
    return getattr(xp, name)(a, v, "full"), getattr(xp, name)(a[::-2], v[::-1], "same")


@pytest.mark.parametrize("name", ["correlate", "convolve"])
@same_as_numpy()
def test_correlate_convolve_host_operand(xp, name):
    a = random_array(8, numpy.float64, xp, nans=0.1)
    return getattr(xp, name)(a, [1.0, -2.0, 0.5]), getattr(xp, name)(a[::3], numpy.ones(2))


@pytest.mark.parametrize("name", ["correlate", "convolve"])
def test_correlate_convolve_errors(name):
    cases = [
        (lambda xp: getattr(xp, name)(xp.zeros(0), xp.ones(3)), ValueError, "cannot be empty"),
        (lambda xp: getattr(xp, name)(xp.ones(3), xp.zeros(0)), ValueError, "cannot be empty"),
        (lambda xp: getattr(xp, name)(xp.ones((2, 2)), xp.ones(3)), ValueError, "too deep"),
        (lambda xp: getattr(xp, name)(xp.ones(3), xp.ones(2), mode="x"), ValueError, "mode"),
        (lambda xp: getattr(xp, name)(xp.ones(3), xp.ones(2), mode=5), ValueError, "mode"),
        (lambda xp: getattr(xp, name)(xp.ones(3), xp.ones(2), mode=None), TypeError, "mode"),
    ]
    for body, error, match in cases:
        assert_numpy_error(body, error, rf"asnumpy\.{name}: .*{match}")
