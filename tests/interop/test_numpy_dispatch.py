"""NumPy's dispatch protocols: numpy functions and ufuncs called on asnumpy arrays.

Each differential test runs one body twice: with host arrays (NumPy computes)
and with asnumpy arrays (NumPy dispatches to asnumpy), and compares.
"""

import warnings

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import testing
from asnumpy._interop import dispatch

from _inputs import random_data


def _as(xp, host):
    """``host`` as an array of ``xp`` (NumPy's own array, or a copy on the device)."""
    return host.copy() if xp is np else ap.asarray(host)


def _numpy_ufuncs():
    return sorted((name for name in np.__all__ if isinstance(getattr(np, name), np.ufunc)))


def _operand_dtype(numpy_ufunc):
    """A dtype every input of ``numpy_ufunc`` accepts: float64, else int64, else bool."""
    for dtype in (np.float64, np.int64, np.bool_):
        try:
            numpy_ufunc.resolve_dtypes((np.dtype(dtype),) * numpy_ufunc.nin
                                       + (None,) * numpy_ufunc.nout)
        except (TypeError, np._core._exceptions._UFuncNoLoopError):
            continue
        return np.dtype(dtype)
    return None


_ELEMENTWISE_UFUNCS = [name for name in _numpy_ufuncs()
                       if getattr(np, name).signature is None and name != "isnat"]


# -- the map is derived from the namespaces ---------------------------------

def test_every_numpy_ufunc_but_isnat_maps_to_the_asnumpy_ufunc_of_its_name():
    for name in _numpy_ufuncs():
        ours = dispatch.implementation_of(getattr(np, name))
        if name == "isnat":         # datetimes: asnumpy holds numbers only
            assert ours is None
            continue
        assert isinstance(ours, ap.ufunc), name
        assert ours._numpy is getattr(np, name)


@pytest.mark.parametrize("numpy_module, asnumpy_module", dispatch.NAMESPACE_PAIRS)
def test_every_dispatching_numpy_function_maps_to_the_same_name(numpy_module, asnumpy_module):
    theirs = pytest.importorskip(numpy_module)
    ours = pytest.importorskip(asnumpy_module)
    mapped = 0
    for name in dir(theirs):
        numpy_function = getattr(theirs, name)
        if name.startswith("_") or not isinstance(numpy_function, type(np.sum)):
            continue
        implementation = dispatch.implementation_of(numpy_function)
        name = numpy_function.__name__          # an alias maps as the function it names
        if hasattr(ours, name) and getattr(ours, name) is not numpy_function:
            assert implementation is getattr(ours, name), f"{numpy_module}.{name}"
            mapped += 1
        elif not hasattr(ours, name):
            assert implementation is None, f"{numpy_module}.{name}"
    assert mapped or numpy_module == "numpy.lib.stride_tricks"


def test_like_functions_are_in_the_map():
    for name in ("zeros", "ones", "empty", "full", "arange", "asarray", "array", "eye"):
        assert dispatch.implementation_of(getattr(np, name)) is getattr(ap, name), name


# -- ufuncs -----------------------------------------------------------------

@pytest.mark.parametrize("name", _ELEMENTWISE_UFUNCS)
def test_numpy_ufunc_call_runs_asnumpy(rng, name):
    numpy_ufunc = getattr(np, name)
    dtype = _operand_dtype(numpy_ufunc)
    hosts = [random_data(rng, (3, 4), dtype) for _ in range(numpy_ufunc.nin)]
    if dtype.kind in "iu" and name in ("left_shift", "right_shift", "power", "ldexp"):
        hosts[-1] = np.abs(hosts[-1]) % 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = numpy_ufunc(*hosts)
        result = numpy_ufunc(*(ap.asarray(h) for h in hosts))
    results = result if isinstance(result, tuple) else (result,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for got, want in zip(results, expected, strict=True):
        assert isinstance(got, ap.ndarray)
        assert got.dtype == want.dtype
        testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


@pytest.fixture
def hosts(rng):
    """Fresh random host data of a few dtypes, drawn once for both runs of a test."""
    return {dtype: random_data(rng, (4, 5), dtype) for dtype in
            (np.float32, np.float64, np.int32, np.int64, np.bool_)}


@testing.numpy_asnumpy_array_equal(device_check=True)
def test_numpy_ufunc_keywords_pass_through(xp, hosts):
    a = _as(xp, hosts[np.float32])
    out = xp.zeros((4, 5), np.float64)
    mask = _as(xp, hosts[np.bool_])
    np.multiply(a, 3, out=out, where=mask, casting="same_kind")
    return out, np.add(a, 1, dtype=np.float64), np.negative(a, order="F")


@testing.numpy_asnumpy_allclose(rtol=1e-5, device_check=True)
def test_numpy_ufunc_reduce_accumulate_outer(xp, hosts):
    a = _as(xp, hosts[np.float32])
    out = xp.zeros(5, np.float64)
    np.add.reduce(a, axis=0, dtype=np.float64, out=out)
    return (out, np.maximum.reduce(a, axis=None, keepdims=True), np.multiply.accumulate(a, axis=1),
            np.subtract.outer(a[0], a[:, 1]), np.add.reduce(a, axis=1, where=a > 0, initial=0))


@testing.numpy_asnumpy_array_equal(device_check=True)
def test_numpy_ufunc_reduceat_and_at(xp, hosts):
    a = _as(xp, hosts[np.int64].ravel()[:10] % 100)
    sums = np.add.reduceat(a, [0, 4, 1, 7])
    target = xp.zeros(5, np.int64)
    np.add.at(target, _as(xp, np.array([0, 0, 3, 4, 4, 4])), 2)
    np.negative.at(target, [1, 2])
    return sums, target


def test_numpy_operators_with_a_numpy_array_on_the_left(rng):
    host = random_data(rng, (3,), np.float64)
    a = ap.asarray(random_data(rng, (3,), np.float64))
    for result, expected in ((host + a, host + a.get()), (host * a, host * a.get()),
                             (host > a, host > a.get()), (np.float64(2) ** a, 2 ** a.get())):
        assert isinstance(result, ap.ndarray)
        testing.assert_allclose(result, expected)


def test_ufunc_into_a_numpy_out_is_refused_and_leaves_it_untouched(rng):
    host = np.zeros(3)
    a = ap.asarray(random_data(rng, (3,), np.float64))
    with pytest.raises(TypeError, match="asnumpy"):
        np.add(a, a, out=host)
    with pytest.raises(TypeError, match="asnumpy"):
        host += a
    assert not host.any()


# -- functions --------------------------------------------------------------

# (name, NumPy's function, arguments after the array), read off the walk of the namespaces
_FUNCTION_CASES = [
    ("sum", np.sum, {"axis": 1}), ("mean", np.mean, {}), ("std", np.std, {"ddof": 1}),
    ("sort", np.sort, {"axis": 0}), ("argsort", np.argsort, {}), ("cumsum", np.cumsum, {}),
    ("transpose", np.transpose, {}), ("ravel", np.ravel, {}), ("flip", np.flip, {"axis": 1}),
    ("roll", np.roll, {"shift": 2}), ("clip", np.clip, {"a_min": -1, "a_max": 1}),
    ("diff", np.diff, {}), ("round", np.round, {"decimals": 2}), ("median", np.median, {}),
    ("percentile", np.percentile, {"q": 30}), ("nonzero", np.nonzero, {}),
    ("unique", np.unique, {}), ("where", np.where, {}), ("argmax", np.argmax, {"axis": 0}),
    ("linalg.norm", np.linalg.norm, {}), ("linalg.svd", np.linalg.svd, {"compute_uv": False}),
    ("fft.rfft", np.fft.rfft, {}), ("tile", np.tile, {"reps": 2}), ("pad", np.pad, {"pad_width": 1}),
    ("expand_dims", np.expand_dims, {"axis": 0}), ("cov", np.cov, {}), ("trace", np.trace, {}),
    ("shape", np.shape, {}), ("ndim", np.ndim, {}), ("isclose", np.isclose, {"b": 0.5}),
]


@pytest.mark.parametrize("name, function, kwargs", _FUNCTION_CASES, ids=lambda c: str(c))
def test_numpy_function_runs_asnumpy(rng, name, function, kwargs):
    host = random_data(rng, (4, 5), np.float64)

    @testing.numpy_asnumpy_allclose(rtol=1e-10, device_check=True)
    def check(xp):
        return function(_as(xp, host), **kwargs)

    check()


@testing.numpy_asnumpy_array_equal(device_check=True)
def test_numpy_functions_of_several_arrays(xp, hosts):
    a = _as(xp, hosts[np.int32][:3, :4])
    b = _as(xp, hosts[np.int64][:3, :4])
    return (np.concatenate([a, b]), np.stack((a, b), axis=-1), np.where(a > b, a, b),
            np.dot(a[0].astype(np.float64), b[0].astype(np.float64)), np.array_equal(a, b),
            np.isin(a, b), np.searchsorted(np.sort(a[0]), b[0]), np.block([[a, b]]))


def test_numpy_function_with_numpy_and_asnumpy_operands_runs_on_the_asnumpy_device(rng):
    host = random_data(rng, (3,), np.float64)
    a = ap.asarray(random_data(rng, (3,), np.float64), device="cpu:1")
    for result in (np.concatenate([host, a]), np.add(host, a), np.stack([a, host]),
                   np.where(host > 0, a, host), np.linalg.solve(ap.eye(3, device="cpu:1"), host)):
        assert isinstance(result, ap.ndarray) and result.device == ap.Device("cpu:1")


def test_numpy_functions_refuse_two_devices(rng):
    a = ap.asarray(random_data(rng, (3,), np.float64), device="cpu:1")
    b = ap.asarray(random_data(rng, (3,), np.float64), device="cpu:2")
    for call in (lambda: np.add(a, b), lambda: np.concatenate([a, b]), lambda: np.dot(a, b),
                 lambda: np.add.outer(a, b), lambda: np.where(a > 0, a, b)):
        with pytest.raises(ValueError, match="different devices"):
            call()


def test_like_creates_on_the_reference_arrays_device():
    ref = ap.zeros(1, device="cpu:2")
    for result in (np.zeros(3, like=ref), np.arange(4, like=ref), np.asarray([1, 2], like=ref),
                   np.full((2,), 7.0, like=ref), np.eye(2, like=ref)):
        assert isinstance(result, ap.ndarray) and result.device == ap.Device("cpu:2")
    testing.assert_array_equal(np.arange(4, like=ref), np.arange(4))


def test_an_unimplemented_numpy_function_raises_type_error_naming_it():
    a = ap.ones(3)
    with pytest.raises(TypeError, match=r"numpy\.isnat"):
        np.isnat(a)
    with pytest.raises(TypeError, match=r"numpy\.datetime_as_string"):
        np.datetime_as_string(a)
    # no silent copy: NumPy's function is not run on a converted array either
    # (a cpu array converts to a view, tests/interop/test_host_conversion.py, yet isnat raised)


def test_asnumpy_calling_numpy_back_on_its_arrays_is_an_error_not_a_loop():
    with pytest.raises(TypeError, match="einsum_path"):
        np.einsum_path(ap.ones((4, 5)))


class _Foreign:
    """An array type of another library that overrides NumPy itself."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return "foreign ufunc"

    def __array_function__(self, func, types, args, kwargs):
        return "foreign function"


def test_other_libraries_overrides_are_left_to_them():
    a, other = ap.ones(3), _Foreign()
    assert np.add(a, other) == "foreign ufunc"
    assert np.concatenate([a, other]) == "foreign function"
    assert a.__array_function__(np.concatenate, (ap.ndarray, _Foreign), ([a, other],), {}) \
        is NotImplemented


# -- the mixing rule in asnumpy's own functions -------------------------------

def _two_devices(dtype=np.float64):
    values = np.array([1, 2, 3, 5], dtype=dtype)          # increasing: usable as bins
    return ap.asarray(values, device="cpu:1"), ap.asarray(values, device="cpu:2")


# functions that once combined arrays of two devices without a word
_MIXING_CALLS = {
    "array_equal": lambda a, b: ap.array_equal(a, b),
    "array_equiv": lambda a, b: ap.array_equiv(a, b),
    "isin": lambda a, b: ap.isin(a, b),
    "intersect1d": lambda a, b: ap.intersect1d(a, b),
    "union1d": lambda a, b: ap.union1d(a, b),
    "setdiff1d": lambda a, b: ap.setdiff1d(a, b),
    "setxor1d": lambda a, b: ap.setxor1d(a, b),
    "lexsort": lambda a, b: ap.lexsort((a, b)),
    "digitize": lambda a, b: ap.digitize(a, b),
    "histogram": lambda a, b: ap.histogram(a, bins=b),
    "histogram_bin_edges": lambda a, b: ap.histogram_bin_edges(a, bins=b),
    "histogram2d": lambda a, b: ap.histogram2d(a, b),
    "histogramdd": lambda a, b: ap.histogramdd((a, b)),
    "bincount": lambda a, b: ap.bincount(a.astype(np.int64), weights=b),
    "ix_": lambda a, b: ap.ix_(a.astype(np.int64), b.astype(np.int64)),
    "nan_to_num": lambda a, b: ap.nan_to_num(a, nan=b[0]),
    "searchsorted": lambda a, b: ap.searchsorted(a, b),
    "where": lambda a, b: ap.where(a > 2, a, b),
    "concatenate": lambda a, b: ap.concatenate([a, b]),
}


@pytest.mark.parametrize("name", list(_MIXING_CALLS))
def test_functions_refuse_arrays_of_two_devices(name):
    a, b = _two_devices()
    call = _MIXING_CALLS[name]
    call(a, b.to(a.device))                  # fine on one device
    with pytest.raises(ValueError, match=rf"asnumpy\.{name}: arrays are on different devices"):
        call(a, b)


def test_nan_to_num_takes_a_0d_device_array_as_the_value():
    a = ap.asarray(np.array([1.0, np.nan, np.inf]), device="cpu:1")
    result = ap.nan_to_num(a, nan=ap.asarray(5.0, device="cpu:1"), posinf=a[0])
    testing.assert_array_equal(result, np.nan_to_num(a.get(), nan=5.0, posinf=1.0))
