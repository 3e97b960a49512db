"""The Array API standard's special cases that asnumpy follows where NumPy 2.4 does not.

* ``floor_divide`` (``//``, ``//=``) with exactly one infinite operand is the
  quotient ``x1 / x2``: ``inf // 2 == inf``, ``-1 // inf == -0.0`` (NumPy:
  nan and -1.0), on float16/32/64, also in reductions and accumulations;
* complex ``expm1`` at zero and non-finite arguments is ``cexp(z) - 1``
  (``expm1(inf+0j) == inf+0j``; NumPy: ``inf+nanj``);
* complex ``tanh(+-inf + yj)`` for finite ``y`` is ``+-1 + 0j`` with the sign
  of ``y`` on the zero (NumPy: the sign of ``sin(2y)``).

Every row of the standard's tables below is written out by hand, checked with
the signs of zeros, on cpu:0, cpu:1 and the emulated cuda:0 (generated CUDA C),
through the function, the operators and in-place forms, contiguous, strided,
broadcast, with scalars on either side, ``where=`` and split across threads.
Everything else stays NumPy's (checked differentially).  Also the standard's
``finfo`` (Python floats, NumPy's limits) and ``clip(x, /, min, max)`` signature
with NumPy's spellings.
"""

from __future__ import annotations

import inspect
import pickle
from inspect import Parameter

import numpy as np
import pytest
from _cuda_host import requires_compiler

import asnumpy as ap
from asnumpy.backends.cpu import math_kernels as mk
from asnumpy.backends.cpu import parallel

INF, NAN = np.inf, np.nan
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
POSITIONAL_OR_KEYWORD = Parameter.POSITIONAL_OR_KEYWORD

# (x1, x2, the standard's x1 // x2); the first 16 rows are where NumPy differs
FLOOR_DIVIDE = [
    (INF, 2.0, INF), (INF, -2.0, -INF), (-INF, 2.0, -INF), (-INF, -2.0, INF),
    (INF, 0.5, INF), (-INF, 3.0, -INF), (INF, -7.0, -INF), (-INF, -0.25, INF),
    (2.0, -INF, -0.0), (-2.0, INF, -0.0), (0.5, -INF, -0.0), (-3.0, INF, -0.0),
    (-1.0, INF, -0.0), (1.0, -INF, -0.0), (-7.0, INF, -0.0), (7.0, -INF, -0.0),
    # NumPy agrees with the standard on these
    (2.0, INF, 0.0), (-2.0, -INF, 0.0), (0.0, INF, 0.0), (-0.0, INF, -0.0),
    (0.0, -INF, -0.0), (-0.0, -INF, 0.0), (INF, 0.0, INF), (INF, -0.0, -INF),
    (-INF, 0.0, -INF), (-INF, -0.0, INF), (INF, INF, NAN), (INF, -INF, NAN),
    (-INF, INF, NAN), (NAN, INF, NAN), (INF, NAN, NAN), (NAN, 2.0, NAN), (0.0, 0.0, NAN),
    (-0.0, 0.0, NAN), (1.0, 0.0, INF), (-1.0, 0.0, -INF), (1.0, -0.0, -INF),
    (7.0, 2.0, 3.0), (-7.0, 2.0, -4.0), (7.0, -2.0, -4.0), (0.0, 3.0, 0.0), (-0.0, 3.0, -0.0),
    (0.0, -3.0, -0.0),
]
NUMPY_DIFFERS = 16

U = None  # a zero whose sign the standard leaves unspecified
# (z, the standard's expm1(z)); U: that part is 0 of either sign (or inf of either sign)
EXPM1 = [
    (complex(0.0, 0.0), (0.0, 0.0)), (complex(-0.0, 0.0), (0.0, 0.0)),
    (complex(INF, 0.0), (INF, 0.0)), (complex(INF, -0.0), (INF, -0.0)),
    (complex(-INF, 2.0), (-1.0, 0.0)), (complex(-INF, -2.0), (-1.0, -0.0)),
    (complex(-INF, 4.0), (-1.0, -0.0)), (complex(-INF, 0.0), (-1.0, 0.0)),
    (complex(INF, 2.0), (-INF, INF)), (complex(INF, -2.0), (-INF, -INF)),
    (complex(INF, 1.0), (INF, INF)), (complex(INF, 4.0), (-INF, -INF)),
    (complex(-INF, INF), (-1.0, U)), (complex(-INF, NAN), (-1.0, U)),
    (complex(INF, INF), (U, NAN)), (complex(INF, NAN), (U, NAN)),
    (complex(NAN, 0.0), (NAN, 0.0)), (complex(NAN, -0.0), (NAN, -0.0)),
    (complex(NAN, 2.0), (NAN, NAN)), (complex(NAN, NAN), (NAN, NAN)),
    (complex(2.0, INF), (NAN, NAN)), (complex(-2.0, NAN), (NAN, NAN)),
    (complex(0.0, INF), (NAN, NAN)), (complex(NAN, INF), (NAN, NAN)),
]
# (z, the standard's tanh(z))
TANH = [
    (complex(0.0, 0.0), (0.0, 0.0)), (complex(-0.0, 0.0), (-0.0, 0.0)),
    (complex(INF, 2.0), (1.0, 0.0)), (complex(INF, -2.0), (1.0, -0.0)),
    (complex(-INF, 2.0), (-1.0, 0.0)), (complex(-INF, -2.0), (-1.0, -0.0)),
    (complex(INF, 3.0), (1.0, 0.0)), (complex(INF, 1.0), (1.0, 0.0)),
    (complex(INF, 0.0), (1.0, 0.0)), (complex(-INF, -0.0), (-1.0, -0.0)),
    (complex(INF, INF), (1.0, U)), (complex(INF, NAN), (1.0, U)),
    (complex(-INF, INF), (-1.0, U)), (complex(NAN, 0.0), (NAN, 0.0)),
    (complex(NAN, -0.0), (NAN, -0.0)), (complex(NAN, 2.0), (NAN, NAN)),
    (complex(NAN, NAN), (NAN, NAN)), (complex(2.0, INF), (NAN, NAN)),
    (complex(-2.0, NAN), (NAN, NAN)),
]


@pytest.fixture(params=["cpu:0", "cpu:1", pytest.param("cuda:0", marks=requires_compiler)])
def device(request):
    """cpu:0, cpu:1 and the emulated cuda:0 (its generated kernels)."""
    if request.param == "cuda:0":
        return request.getfixturevalue("cuda")
    return ap.Device(request.param)


# -- comparing ----------------------------------------------------------------------------

def assert_standard(got, expected):
    """``got`` (asnumpy or NumPy) equals the host ``expected``: same dtype and shape,
    NaN where ``expected`` has NaN, and zeros of the same sign."""
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    parts = [(got.real, expected.real), (got.imag, expected.imag)] if got.dtype.kind == "c" \
        else [(got, expected)]
    for g, e in parts:
        np.testing.assert_array_equal(g, e)
        zeros = e == 0
        np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(e[zeros]),
                                      err_msg="the sign of a zero")


def _floor_divide_columns(dtype):
    x1, x2, expected = (np.array(col, dtype=dtype) for col in zip(*FLOOR_DIVIDE))
    return x1, x2, expected


def _complex_expected(rows, dtype, got):
    """The rows' expected values, unspecified parts (U) taken from ``got`` after checking
    that they are zeros (or, for the real part of expm1(inf + inf/nan j), infinities)."""
    got = got.get() if hasattr(got, "get") else got
    z = np.array([r[0] for r in rows], dtype=dtype)
    expected = np.empty_like(z)
    for k, (_, (re, im)) in enumerate(rows):
        if re is U:
            assert np.isinf(got[k].real) or got[k].real == 0, (z[k], got[k])
            re = got[k].real
        if im is U:
            assert got[k].imag == 0, (z[k], got[k])
            im = got[k].imag
        expected[k] = complex(re, im)                 # keeps the signs of zeros
    return z, expected


# -- floor_divide ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_numpy_differs_from_the_standard_on_the_first_rows(dtype):
    x1, x2, expected = _floor_divide_columns(dtype)
    with np.errstate(all="ignore"):
        numpy_result = np.floor_divide(x1, x2)
    differs = ~((numpy_result == expected) & (np.signbit(numpy_result) == np.signbit(expected))
                | np.isnan(numpy_result) & np.isnan(expected))
    assert differs[:NUMPY_DIFFERS].all() and not differs[NUMPY_DIFFERS:].any()


@pytest.mark.parametrize("dtype", FLOATS)
def test_floor_divide_function_operators_in_place(device, dtype):
    x1, x2, expected = _floor_divide_columns(dtype)
    a, b = ap.asarray(x1, device=device), ap.asarray(x2, device=device)
    with np.errstate(all="ignore"):
        in_place = a.copy()
        in_place //= b
        out = ap.empty_like(a)
        returned = ap.floor_divide(a, b, out=out)
        for got in (ap.floor_divide(a, b), a // b, b.__rfloordiv__(a), in_place, out, returned):
            assert_standard(got, expected)
        # the output is an input: the standard's values are found before the loop writes
        aliased = b.copy()
        ap.floor_divide(a, aliased, out=aliased)
        assert_standard(aliased, expected)


@pytest.mark.parametrize("dtype", FLOATS)
def test_floor_divide_strided_broadcast_and_zero_d(device, dtype):
    x1, x2, expected = _floor_divide_columns(dtype)
    n = len(x1)
    wide = np.zeros((2, 2 * n), dtype)
    wide[1, ::2] = x1[::-1]
    a = ap.asarray(wide, device=device)[1, -2::-2]         # negative stride, every other element
    b = ap.asarray(np.stack([x2, x2]), device=device)[:, ::-1][:, ::-1]
    with np.errstate(all="ignore"):
        assert_standard(a // b, np.stack([expected, expected]))
        target = ap.asarray(np.stack([x1, x1]), device=device)
        target[1] //= b[0]
        assert_standard(target[1], expected)
        for k in (0, 8, 9, 13):
            got = ap.asarray(x1[k], device=device) // ap.asarray(x2[k], device=device)
            assert got.ndim == 0
            assert_standard(got, expected[k])


@pytest.mark.parametrize("dtype", FLOATS)
def test_floor_divide_scalars_on_either_side(device, dtype):
    x1, x2, expected = _floor_divide_columns(dtype)
    a, b = ap.asarray(x1, device=device), ap.asarray(x2, device=device)
    with np.errstate(all="ignore"):
        for k in range(len(x1)):
            left, right = float(x1[k]), float(x2[k])
            assert_standard(left // b[k:k + 1], expected[k:k + 1])
            assert_standard(a[k:k + 1] // right, expected[k:k + 1])
            assert_standard(ap.floor_divide(left, b[k:k + 1]), expected[k:k + 1])
            c = a[k:k + 1].copy()
            c //= right
            assert_standard(c, expected[k:k + 1])


@pytest.mark.parametrize("dtype", FLOATS)
def test_floor_divide_where_leaves_the_rest(device, dtype):
    x1, x2, expected = _floor_divide_columns(dtype)
    mask = np.arange(len(x1)) % 3 != 1
    out = ap.full(len(x1), 5.0, dtype=dtype, device=device)
    with np.errstate(all="ignore"):
        ap.floor_divide(ap.asarray(x1, device=device), ap.asarray(x2, device=device), out=out,
                        where=ap.asarray(mask, device=device))
    assert_standard(out, np.where(mask, expected, np.array(5.0, dtype)))


def test_floor_divide_elsewhere_is_numpys(device):
    rng = np.random.default_rng(7)
    x1 = rng.standard_normal(300) * 10
    x2 = rng.standard_normal(300)
    x2[::17] = 0.0
    x1[::23] = NAN
    with np.errstate(all="ignore"):
        for dtype in FLOATS + [np.int32, np.int64, np.uint8]:
            a, b = x1.astype(dtype), x2.astype(dtype)
            if np.dtype(dtype).kind in "iu":
                b[b == 0] = 1
            assert_standard(ap.asarray(a, device=device) // ap.asarray(b, device=device),
                            np.floor_divide(a, b))


@pytest.fixture
def split(monkeypatch):
    """Split every cpu elementwise call across 4 threads."""
    monkeypatch.setattr(mk, "SPLIT_MIN_WORK", 64)
    before = parallel.thread_count()
    parallel.set_thread_count(4)
    yield
    parallel.set_thread_count(before)


@pytest.mark.parametrize("dtype", FLOATS)
def test_floor_divide_split_across_threads(split, dtype):
    x1, x2, expected = _floor_divide_columns(dtype)
    reps = 50
    a = ap.asarray(np.tile(x1, reps))
    b = ap.asarray(np.tile(x2, reps))
    with np.errstate(all="ignore"):
        assert_standard(a // b, np.tile(expected, reps))
        a //= b                                        # in place, split
        assert_standard(a, np.tile(expected, reps))
        wide = ap.asarray(np.tile(x1, (reps, 1)))
        assert_standard(wide // ap.asarray(x2), np.tile(expected, (reps, 1)))


def _standard_floor_divide(a, b):
    with np.errstate(all="ignore"):
        return np.where(np.isinf(a) != np.isinf(b), np.divide(a, b), np.floor_divide(a, b))


@pytest.mark.parametrize("dtype", FLOATS)
def test_floor_divide_reduce_and_accumulate_are_left_folds(device, dtype):
    rows = np.array([[INF, 2.0, -3.0, 0.5], [-1.0, INF, 2.0, 4.0], [7.0, -2.0, INF, -INF],
                     [6.0, 4.0, 2.0, 0.5], [1e4, 1e-4, 1e-4, 2.0]], dtype)
    accumulated = [rows[:, 0]]
    for k in range(1, rows.shape[1]):
        accumulated.append(_standard_floor_divide(accumulated[-1], rows[:, k]))
    accumulated = np.stack(accumulated, axis=1).astype(dtype)
    a = ap.asarray(rows, device=device)
    with np.errstate(all="ignore"):
        assert_standard(ap.floor_divide.reduce(a, axis=1), accumulated[:, -1])
        assert_standard(ap.floor_divide.reduce(a.T, axis=0, keepdims=True),
                        accumulated[:, -1:].T)
        assert_standard(ap.floor_divide.accumulate(a, axis=1), accumulated)
        with_initial = ap.floor_divide.reduce(a, axis=1, initial=dtype(-5.0),
                                              where=ap.asarray([True, False, True, True],
                                                               device=device))
    expected = np.full(len(rows), -5.0, dtype)
    for k in (0, 2, 3):
        expected = _standard_floor_divide(expected, rows[:, k]).astype(dtype)
    assert_standard(with_initial, expected)


# -- complex expm1 and tanh -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name, rows", [("expm1", EXPM1), ("tanh", TANH)])
def test_complex_special_values(device, name, rows, dtype):
    z = np.array([r[0] for r in rows], dtype=dtype)
    function = getattr(ap, name)
    data = ap.asarray(np.stack([z, z[::-1]], axis=1), device=device)
    with np.errstate(all="ignore"):
        got = function(ap.asarray(z, device=device))
        _, expected = _complex_expected(rows, dtype, got)
        assert_standard(got, expected)
        assert_standard(function(data[::-1, 0][::-1]), expected)          # strided view
        in_place = ap.asarray(z, device=device)
        function(in_place, out=in_place)
        assert_standard(in_place, expected)
        for k in (2, 5, len(z) - 1):
            assert_standard(function(ap.asarray(z[k], device=device)), expected[k])


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["expm1", "tanh"])
def test_complex_finite_values_are_numpys(device, name, dtype):
    rng = np.random.default_rng(3)
    z = (rng.standard_normal(200) + 1j * rng.standard_normal(200)).astype(dtype)
    z[:4] = [1e-12 + 1e-12j, -1e-9j, 3.0, -0.0 + 2j]
    got = getattr(ap, name)(ap.asarray(z, device=device)).get()
    want = getattr(np, name)(z)
    if device.name.startswith("cuda"):       # generated formulas: a few ulp
        np.testing.assert_allclose(got, want, rtol=3e-6 if dtype == np.complex64 else 1e-14)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["expm1", "tanh"])
def test_numpy_differs_on_some_complex_rows(name):
    rows = EXPM1 if name == "expm1" else TANH
    z = np.array([r[0] for r in rows], dtype=np.complex128)
    with np.errstate(all="ignore"):
        numpy_result = getattr(np, name)(z)
        ours = getattr(ap, name)(ap.asarray(z)).get()
    same = (np.isnan(numpy_result) == np.isnan(ours)) & (
        (numpy_result == ours) & (np.signbit(numpy_result.imag) == np.signbit(ours.imag))
        | np.isnan(ours))
    assert not same.all()


# -- finfo: NumPy's limits as Python numbers ---------------------------------------------------

FINFO_FLOATS = ("eps", "epsneg", "max", "min", "resolution", "smallest_normal",
                "smallest_subnormal", "tiny")
FINFO_INTS = ("bits", "iexp", "machep", "maxexp", "minexp", "negep", "nexp", "nmant",
              "precision")


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
def test_finfo_gives_numpys_limits_as_python_numbers(dtype):
    theirs = np.finfo(dtype)
    host = np.ones(2, dtype)
    arguments = [dtype, np.dtype(dtype), np.dtype(dtype).char, host[0],
                 ap.asarray(host), ap.asarray(host).dtype, ap.asarray(host, device="cpu:1")]
    infos = [ap.finfo(x) for x in arguments]
    assert all(info is infos[0] for info in infos)
    info = infos[0]
    assert info.dtype == theirs.dtype and type(info.dtype) is type(theirs.dtype)
    for name in FINFO_FLOATS:
        value = getattr(info, name)
        assert type(value) is float and value == getattr(theirs, name), name
    for name in FINFO_INTS:
        value = getattr(info, name)
        assert type(value) is int and value == getattr(theirs, name), name
    assert repr(info) == repr(theirs) and str(info) == str(theirs)
    assert pickle.loads(pickle.dumps(info)) is info
    # NumPy code keeps working: limits combine with arrays of the type as NumPy's do (NEP 50)
    assert (np.float32(1) + info.eps).dtype == np.float32
    assert (host.real * info.max).dtype == host.real.dtype


@pytest.mark.parametrize("argument", [np.int8, np.bool_, "i4", int])
def test_finfo_refuses_non_inexact_types_as_numpy(argument):
    with pytest.raises(ValueError) as theirs:
        np.finfo(argument)
    with pytest.raises(ValueError) as ours:
        ap.finfo(argument)
    assert str(ours.value) == str(theirs.value)


# -- clip: NumPy's signature, the standard's keywords (issue 24 item 20) ------------------------

def test_clip_signature_is_numpys():
    def kinds(function):
        return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]

    assert kinds(ap.clip) == kinds(np.clip)
    assert kinds(ap.clip)[1] == ("a_min", POSITIONAL_OR_KEYWORD)


@pytest.mark.parametrize("call", [
    ({"args": (1.0, 3.0)}, (1.0, 3.0)),
    ({"kwargs": {"a_min": 1.0, "a_max": 3.0}}, (1.0, 3.0)),
    ({"kwargs": {"min": 1.0}}, (1.0, None)),
    ({"kwargs": {"max": 2.5}}, (None, 2.5)),
    ({"kwargs": {"min": 1.0, "max": 3.0}}, (1.0, 3.0)),
    ({"args": (1.0,), "kwargs": {"a_max": 3.0}}, (1.0, 3.0)),
    ({"kwargs": {"a_min": None, "a_max": 3.0}}, (None, 3.0)),
    ({"args": (None, None)}, (None, None)),
    ({}, (None, None)),
    ({"kwargs": {"min": 2.0}}, (2.0, None)),  # the standard's min= (clip(x, 2.0): TypeError)
], ids=lambda c: repr(c)[:40])
def test_clip_spellings_against_numpy(device, call):
    spelling, (low, high) = call
    host = np.array([[-1.0, 0.5, 2.0, 4.0, NAN]]).repeat(2, axis=0)
    want = np.clip(host, low, high)
    a = ap.asarray(host, device=device)
    got = ap.clip(a, *spelling.get("args", ()), **spelling.get("kwargs", {}))
    assert_standard(got, want)
    assert_standard(a.clip(low, high), want)
    out = ap.empty_like(a)
    ap.clip(a[:, ::-1], *spelling.get("args", ()), out=out[:, ::-1],
            **spelling.get("kwargs", {}))
    assert_standard(out, want)


@pytest.mark.parametrize("kwargs, error", [
    ({"a_min": 1.0}, TypeError),                        # NumPy: the other bound is missing
    ({"a_max": 1.0}, TypeError),
    ({"a_min": 0.0, "a_max": 1.0, "min": 0.0}, ValueError),
    ({"a_min": 0.0, "a_max": 1.0, "max": 1.0}, ValueError),
])
def test_clip_errors_are_numpys(kwargs, error):
    host = np.array([1.0, 2.0, 3.0])
    with pytest.raises(error):
        np.clip(host, **kwargs)
    with pytest.raises(error, match="clip"):
        ap.clip(ap.asarray(host), **kwargs)
