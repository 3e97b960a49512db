"""The Array API standard's protocols and keywords, differentially against NumPy 2.

``__array_namespace__`` and ``__array_namespace_info__`` answer as NumPy's do
(same versions, kinds, dtypes, capabilities), with asnumpy's devices, and the
standard's 2025.12 where it is newer than NumPy 2.4 (that version accepted, a
tuple of devices; tests/interop/test_array_api_namespace.py holds the namespace itself);
``to_device`` and ``astype(..., device=)`` move arrays between cpu:0 and
cpu:1; the standard's keywords NumPy lacks (``descending`` of sort/argsort,
``dtype`` of fftfreq/rfftfreq) are checked against results computed on the
host; signatures are checked with ``inspect``.  Where the standard's special
cases and NumPy disagree (floor division by infinity, complex expm1 and tanh)
asnumpy gives the standard's answer (tests/core/ufuncs/test_array_api_special_cases.py
checks every case).
"""

import inspect

import numpy
import pytest
from hypothesis import given, settings, strategies as st

import asnumpy
from asnumpy import testing

ALL = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
       numpy.uint16, numpy.uint32, numpy.uint64, numpy.float16, numpy.float32, numpy.float64,
       numpy.complex64, numpy.complex128]
REAL = [d for d in ALL if numpy.dtype(d).kind != "c"]
KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "complex floating"),
         ("signed integer", "integral"), ()]


# -- __array_namespace__ -------------------------------------------------------------------

@pytest.mark.parametrize("version", [None, "2021.12", "2022.12", "2023.12", "2024.12",
                                     "2025.12", "2026.12", "2020.10", "2024", "", 2024.12])
def test_array_namespace_accepts_numpys_versions_and_2025_12(version):
    expected = _outcome(lambda: numpy.zeros(2).__array_namespace__(api_version=version))
    if version == "2025.12":            # newer than NumPy 2.4 (which raises ValueError)
        expected = "numpy"
    actual = _outcome(lambda: asnumpy.zeros(2).__array_namespace__(api_version=version))
    assert actual == ("asnumpy.array_api" if expected == "numpy" else expected)


def _outcome(call):
    try:
        return call().__name__
    except Exception as exc:            # the type is what must agree
        return type(exc)


def test_array_namespace_is_asnumpy_array_api_and_declares_2025_12():
    a = asnumpy.arange(3, device="cpu:1")
    assert a.__array_namespace__() is asnumpy.array_api
    assert a.__array_namespace__(api_version="2023.12") is asnumpy.array_api
    assert asnumpy.array_api.__array_api_version__ == "2025.12"
    assert asnumpy.__array_api_version__ == "2025.12"
    with pytest.raises(ValueError, match="__array_namespace__.*'1999.12'"):
        a.__array_namespace__(api_version="1999.12")
    with pytest.raises(TypeError):
        a.__array_namespace__("2024.12")          # api_version is keyword-only


# -- __array_namespace_info__ --------------------------------------------------------------

def test_capabilities_and_default_dtypes_are_numpys():
    info, numpy_info = asnumpy.__array_namespace_info__(), numpy.__array_namespace_info__()
    assert info.capabilities() == numpy_info.capabilities()
    for device in info.devices():
        assert info.default_dtypes(device=device) == numpy_info.default_dtypes()
    assert info.default_dtypes() == numpy_info.default_dtypes()


@pytest.mark.parametrize("kind", KINDS, ids=str)
@pytest.mark.parametrize("device", [None, "cpu:0", "cpu:1"])
def test_dtypes_by_kind_are_numpys(kind, device):
    actual = asnumpy.__array_namespace_info__().dtypes(kind=kind, device=device)
    expected = numpy.__array_namespace_info__().dtypes(kind=kind)
    assert list(actual) == list(expected)
    assert all(numpy.dtype(actual[name]) == numpy.dtype(expected[name]) for name in expected)
    for dtype in actual.values():               # each one makes arrays on that device
        asnumpy.zeros(1, dtype=dtype, device=device)


@pytest.mark.parametrize("kind", ["integer", "float", ("bool", "strings")])
def test_dtypes_unknown_kind_is_a_value_error_as_in_numpy(kind):
    with pytest.raises(ValueError):
        numpy.__array_namespace_info__().dtypes(kind=kind)
    with pytest.raises(ValueError, match="kind"):
        asnumpy.__array_namespace_info__().dtypes(kind=kind)


def test_info_devices_and_default_device():
    info = asnumpy.__array_namespace_info__()
    # the standard's 2025.12 tuple (NumPy 2.4's is a list)
    assert type(info.devices()) is tuple and info.devices() == tuple(asnumpy.devices())
    assert {"cpu:0", "cpu:1"} <= {d.name for d in info.devices()}
    assert info.default_device() == asnumpy.get_device()
    assert info.default_device() in info.devices()
    with asnumpy.Device("cpu:1"):
        assert info.default_device() == asnumpy.Device("cpu:1")
    with pytest.raises(ValueError):
        info.dtypes(device="tpu:0")
    with pytest.raises(ValueError):
        info.default_dtypes(device=object())


# -- to_device -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4)])
@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int16, numpy.float32, numpy.complex128])
def test_to_device_copies_between_devices(shape, dtype):
    host = testing.shaped_arange(shape, numpy, dtype)
    a = asnumpy.asarray(host, device="cpu:0")
    moved = a.to_device("cpu:1")
    assert moved.device == asnumpy.Device("cpu:1") and moved is not a
    assert moved.dtype == a.dtype
    numpy.testing.assert_array_equal(asnumpy.asnumpy(moved), host)
    back = moved.to_device(asnumpy.Device("cpu:0"), stream=None)
    assert back.device == asnumpy.Device("cpu:0")
    numpy.testing.assert_array_equal(asnumpy.asnumpy(back), host)


def test_to_device_of_a_view_and_on_its_own_device():
    host = testing.shaped_arange((4, 6), numpy, numpy.float64)
    a = asnumpy.asarray(host, device="cpu:1")
    assert a.to_device("cpu:1") is a
    view = a[::-1, ::2]
    moved = view.to_device("cpu:0")
    numpy.testing.assert_array_equal(asnumpy.asnumpy(moved), host[::-1, ::2])
    moved[0, 0] = -1                                     # a copy: the source is untouched
    assert asnumpy.asnumpy(a)[-1, 0] == host[-1, 0]
    with pytest.raises(ValueError):
        a.to_device("cpu:99")


def test_to_device_on_a_user_stream():
    host = testing.shaped_arange((40, 3), numpy, numpy.float64)
    stream = asnumpy.Stream()
    a = asnumpy.asarray(host, stream=stream)
    moved = a.to_device("cpu:1", stream=stream)
    stream.synchronize()
    assert moved.device == asnumpy.Device("cpu:1")
    numpy.testing.assert_array_equal(asnumpy.asnumpy(moved), host)
    with pytest.raises(TypeError, match="stream"):
        a.to_device("cpu:1", stream="not a stream")


# -- astype (the function) -----------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@testing.for_all_dtypes(name="source")
@testing.for_all_dtypes(name="target")
@testing.numpy_asnumpy_array_equal()
def test_astype_function_is_numpys(xp, source, target):
    with numpy.errstate(invalid="ignore", over="ignore"):
        return xp.astype(testing.shaped_arange((2, 3), xp, source)[:, ::-1], target)


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("same_dtype", [True, False])
def test_astype_function_copy_is_numpys(copy, same_dtype):
    host = numpy.arange(6, dtype=numpy.int32)
    a = asnumpy.asarray(host)
    dtype = numpy.int32 if same_dtype else numpy.float64
    assert (numpy.astype(host, dtype, copy=copy) is host) == (
        asnumpy.astype(a, dtype, copy=copy) is a)


@pytest.mark.parametrize("copy", [True, False])
def test_astype_function_moves_to_device(copy):
    host = numpy.arange(6, dtype=numpy.int64).reshape(2, 3)
    a = asnumpy.asarray(host, device="cpu:0")
    for dtype in (numpy.int64, numpy.float32):
        moved = asnumpy.astype(a, dtype, copy=copy, device="cpu:1")
        assert moved.device == asnumpy.Device("cpu:1") and moved.dtype == dtype
        numpy.testing.assert_array_equal(asnumpy.asnumpy(moved), host.astype(dtype))
    assert asnumpy.astype(a, numpy.int64, copy=False, device="cpu:0") is a


def test_astype_function_rejects_what_numpy_rejects():
    with pytest.raises(TypeError):
        numpy.astype([1, 2], numpy.int8)
    with pytest.raises(TypeError, match="asnumpy.astype.*list"):
        asnumpy.astype([1, 2], numpy.int8)
    with pytest.raises(TypeError):
        asnumpy.astype(asnumpy.arange(3), numpy.int8, False)     # copy is keyword-only
    with pytest.raises(ValueError):
        asnumpy.astype(asnumpy.arange(3), numpy.int8, device="tpu:0")


# -- sort / argsort descending -------------------------------------------------------------

def _descending_argsort(host, axis):
    """Stable descending argsort on the host: Python's sorted (reverse keeps ties in order)."""
    moved = numpy.moveaxis(host, axis, -1)
    out = numpy.empty(moved.shape, numpy.intp)
    for index in numpy.ndindex(moved.shape[:-1]):
        line = moved[index].tolist()
        out[index] = sorted(range(len(line)), key=line.__getitem__, reverse=True)
    return numpy.moveaxis(out, -1, axis)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-3, 3), min_size=1, max_size=40),
       dtype=st.sampled_from(REAL), columns=st.sampled_from([1, 2, 4]),
       axis=st.sampled_from([0, -1]), reverse=st.booleans())
def test_stable_descending_argsort_and_sort(values, dtype, columns, axis, reverse):
    rows = -(-len(values) // columns)
    host = numpy.resize(numpy.array(values), (rows, columns)).astype(dtype)
    if reverse:
        host = host[::-1]
    a = asnumpy.asarray(host, device="cpu:1")
    expected = _descending_argsort(host, axis)
    out = asnumpy.argsort(a, axis=axis, descending=True, stable=True)
    assert out.device == a.device and out.dtype == numpy.intp
    numpy.testing.assert_array_equal(asnumpy.asnumpy(out), expected)
    values_sorted = asnumpy.sort(a, axis=axis, descending=True)
    numpy.testing.assert_array_equal(asnumpy.asnumpy(values_sorted),
                                     numpy.take_along_axis(host, expected, axis))


def test_descending_axis_none_zero_d_empty_and_nan():
    host = numpy.array([[2.0, numpy.nan, -0.5], [2.0, 7.0, numpy.nan]])
    a = asnumpy.asarray(host)
    numpy.testing.assert_array_equal(asnumpy.asnumpy(asnumpy.sort(a, axis=None, descending=True)),
                                     numpy.sort(host, axis=None)[::-1])
    # NaNs first, then largest first; equal values (NaNs too) keep their order
    numpy.testing.assert_array_equal(
        asnumpy.asnumpy(asnumpy.argsort(a, axis=None, descending=True, stable=True)),
        [1, 5, 4, 0, 3, 2])
    zero_d = asnumpy.asarray(numpy.float32(3))
    assert asnumpy.asnumpy(asnumpy.argsort(zero_d, axis=None, descending=True)).tolist() == [0]
    empty = asnumpy.zeros((0, 3))
    assert asnumpy.sort(empty, axis=0, descending=True).shape == (0, 3)
    assert asnumpy.argsort(empty, descending=True).shape == (0, 3)


@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal()
def test_ascending_is_numpys_default(xp, dtype):
    a = testing.shaped_random((4, 9), xp, dtype, seed=3)
    kwargs = {} if xp is numpy else {"descending": False}
    return xp.argsort(a, stable=True, **kwargs), xp.sort(a, axis=0, **kwargs)


def test_descending_errors_are_numpys():
    a = asnumpy.arange(4)
    with pytest.raises(numpy.exceptions.AxisError):
        asnumpy.sort(a, axis=1, descending=True)
    with pytest.raises(ValueError):
        asnumpy.argsort(a, kind="bogus", descending=True)


# -- fftfreq / rfftfreq dtype --------------------------------------------------------------

@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 7, 8])
@pytest.mark.parametrize("dtype", [None, numpy.float32, "float64", numpy.float16])
def test_frequencies_dtype(name, n, dtype):
    out = getattr(asnumpy.fft, name)(n, 0.25, device="cpu:1", dtype=dtype)
    expected = getattr(numpy.fft, name)(n, 0.25)
    if dtype is not None:
        expected = expected.astype(dtype)
    assert out.device == asnumpy.Device("cpu:1") and out.dtype == expected.dtype
    numpy.testing.assert_array_equal(asnumpy.asnumpy(out), expected)


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.complex64, bool])
def test_frequencies_reject_non_real_floating_dtype(dtype):
    with pytest.raises(ValueError, match="real floating"):
        asnumpy.fft.fftfreq(4, dtype=dtype)
    with pytest.raises(TypeError):
        asnumpy.fft.rfftfreq(4, 1.0, None, numpy.float32)      # dtype is keyword-only


# -- signatures ----------------------------------------------------------------------------

def _parameters(function):
    return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]


P, K, PK = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.KEYWORD_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD)


def test_signatures_of_the_standards_additions():
    info = asnumpy.__array_namespace_info__()
    assert _parameters(asnumpy.astype) == [("x", P), ("dtype", P), ("copy", K), ("device", K)]
    assert _parameters(asnumpy.zeros(1).to_device) == [("device", P), ("stream", K)]
    assert _parameters(asnumpy.zeros(1).__array_namespace__) == [("api_version", K)]
    assert _parameters(asnumpy.__array_namespace_info__) == []
    for name in ("capabilities", "default_device", "devices"):
        assert _parameters(getattr(info, name)) == []
    assert _parameters(info.default_dtypes) == [("device", K)]
    assert _parameters(info.dtypes) == [("device", K), ("kind", K)]
    for function in (asnumpy.sort, asnumpy.argsort):
        assert ("descending", K) in _parameters(function)
    for function in (asnumpy.fft.fftfreq, asnumpy.fft.rfftfreq):
        assert _parameters(function)[-1] == ("dtype", K)


@pytest.mark.parametrize("name", ["add", "vecdot", "matmul", "sqrt", "divmod", "acos"])
def test_ufunc_signatures_are_numpys(name):
    assert inspect.signature(getattr(asnumpy, name)) == inspect.signature(getattr(numpy, name))


# -- where the standard and NumPy disagree, the standard's answer ----------------------------

def _values_and_zero_signs(values):
    """``values`` (on the host) and the sign bits of the zeros among their real and
    imaginary parts (a NaN's sign is unspecified)."""
    values = [asnumpy.asnumpy(v) for v in values]
    parts = [part for v in values for part in ((v.real, v.imag) if v.dtype.kind == "c" else (v,))]
    return values + [numpy.signbit(p) & (p == 0) for p in parts]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_floor_divide_by_and_of_infinity_is_the_standards(dtype):
    """The standard asks ``inf // 2 == inf`` and ``-1 // inf == -0``; NumPy gives nan and -1."""
    inf = numpy.inf
    x1 = asnumpy.asarray([inf, inf, -inf, -inf, 1.0, -1.0, 1.0, -1.0], dtype=dtype)
    x2 = asnumpy.asarray([2.0, -2.0, 2.0, -2.0, -inf, inf, inf, -inf], dtype=dtype)
    in_place = x1.copy()
    in_place //= x2
    expected = numpy.array([inf, -inf, -inf, inf, -0.0, -0.0, 0.0, 0.0], dtype=dtype)
    with numpy.errstate(invalid="ignore"):
        assert numpy.isnan(numpy.floor_divide(asnumpy.asnumpy(x1)[:4], 2)).all()   # NumPy's
    for got in (asnumpy.floor_divide(x1, x2), x1 // x2, in_place):
        assert got.dtype == dtype
        testing.assert_array_equal(got, expected)
        assert (asnumpy.asnumpy(asnumpy.signbit(got)) == numpy.signbit(expected)).all()


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128])
def test_expm1_and_tanh_of_complex_specials_are_the_standards(dtype):
    """The standard asks ``expm1(inf+0j) == inf+0j`` and ``tanh(inf+3j) == 1+0j``;
    NumPy gives ``inf+nanj`` and ``1-0j`` (C99's sign of the zero)."""
    inf, nan = numpy.inf, numpy.nan
    z = asnumpy.asarray([complex(inf, 0), complex(-inf, inf), complex(inf, inf),
                         complex(-inf, nan), complex(nan, 0), complex(-0.0, 0.0),
                         complex(inf, 3.0), complex(inf, 1.0)], dtype=dtype)
    expm1 = [complex(inf, 0), complex(-1, 0), complex(inf, nan), complex(-1, 0),
             complex(nan, 0), complex(0, 0), complex(inf * numpy.cos(3), inf),
             complex(inf, inf)]
    tanh = [complex(1, 0), complex(-1, 0), complex(1, 0), complex(-1, 0), complex(nan, 0),
            complex(-0.0, 0), complex(1, 0), complex(1, 0)]
    expected = [numpy.array(v, dtype=dtype) for v in (expm1, tanh)]
    with numpy.errstate(invalid="ignore"):
        got = asnumpy.expm1(z), asnumpy.tanh(z)
        assert numpy.isnan(numpy.expm1(asnumpy.asnumpy(z)[0]).imag)     # NumPy's inf+nanj
    assert numpy.signbit(numpy.tanh(asnumpy.asnumpy(z)[6]).imag)         # NumPy's 1-0j
    for g, e in zip(_values_and_zero_signs(got), _values_and_zero_signs(expected)):
        numpy.testing.assert_array_equal(g, e)
