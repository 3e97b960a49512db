"""asnumpy.ndarray against NumPy: layout, protocols, conversions, indexing, printing.

Every test builds the same data and the same layout in NumPy and in asnumpy
(an asnumpy copy of a random NumPy array, then the same view operations on
both) and compares what NumPy says with what asnumpy says: values, dtypes,
shapes, strides, flags and the types (often the messages) of errors.
"""

from __future__ import annotations

import copy
import gc
import operator
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asnumpy as anp
from _inputs import ALL_DTYPES, DTYPE_IDS, assert_same_array, random_data

COMPLEX_DTYPES = [d for d in ALL_DTYPES if d.kind == "c"]
REAL_DTYPES = [d for d in ALL_DTYPES if d.kind != "c"]

# name -> (shape of the random base array, its memory order, view applied to it).
# The view functions use only operations both libraries share.
LAYOUTS = {
    "c_2d": ((4, 5), "C", lambda x: x),
    "f_2d": ((4, 5), "F", lambda x: x),
    "c_3d_odd": ((3, 5, 7), "C", lambda x: x),
    "f_3d_sliced": ((3, 5, 7), "F", lambda x: x[1:, ::2]),
    "one_d": ((11,), "C", lambda x: x),
    "strided": ((6, 9), "C", lambda x: x[::2, 1::3]),
    "negative": ((6, 9), "C", lambda x: x[::-1, ::-2]),
    "permuted": ((3, 5, 7), "C", lambda x: x.transpose(2, 0, 1)),
    "newaxis": ((5, 7), "C", lambda x: x[:, None, 2:6]),
    "size_one": ((1, 1, 1), "C", lambda x: x),
    "zero_d": ((5, 7), "C", lambda x: x[2, 3, ...]),
    "zero_d_owner": ((), "C", lambda x: x),
    "empty_slice": ((4, 5), "C", lambda x: x[:, 3:1]),
    "empty_owner": ((0, 3), "C", lambda x: x),
}
LAYOUT_IDS = list(LAYOUTS)


def make_pair(rng, layout, dtype):
    """(NumPy base, NumPy view, asnumpy base, asnumpy view) for ``layout``."""
    shape, order, view = LAYOUTS[layout]
    host = random_data(rng, shape, dtype, order)
    device = anp.asarray(host)
    return host, view(host), device, view(device)


def outcome(func, *args):
    """``("ok", result)`` or ``("error", exception type)`` of calling ``func``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", func(*args)
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return "error", type(exc)


def error_of(func, *args):
    """The exception ``func(*args)`` raises (fails if it raises none)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = func(*args)
    except Exception as exc:  # noqa: BLE001 - any exception is the answer
        return exc
    pytest.fail(f"no exception raised, got {value!r}")


def assert_same_error(numpy_call, asnumpy_call, same_message=False):
    """Both calls raise exceptions of the same type (and message, if asked)."""
    expected = error_of(numpy_call)
    actual = error_of(asnumpy_call)
    assert type(actual) is type(expected), (actual, expected)
    if same_message:
        assert str(actual) == str(expected)


# -- attributes -------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_attributes_match_numpy(rng, layout, dtype):
    _, x, _, a = make_pair(rng, layout, dtype)
    assert a.shape == x.shape
    assert a.dtype == x.dtype
    assert a.strides == x.strides
    assert a.ndim == x.ndim
    assert a.size == x.size
    assert a.itemsize == x.itemsize
    assert a.nbytes == x.nbytes
    assert a.device == anp.get_device()
    assert_same_array(a, x)


@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_flags_match_numpy(rng, layout):
    _, x, _, a = make_pair(rng, layout, np.float64)
    for name in ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "C", "F", "W"):
        assert a.flags[name] == x.flags[name], name
    assert a.flags.c_contiguous == x.flags.c_contiguous
    assert a.flags.f_contiguous == x.flags.f_contiguous
    assert a.flags.owndata == x.flags.owndata
    assert repr(a.flags) == repr(x.flags)


@pytest.mark.parametrize("writeable", [True, False])
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_derived_flags_match_numpy(rng, layout, writeable):
    # SciPy's LAPACK wrappers read flags.fortran (scipy.linalg.lu_solve)
    _, x, _, a = make_pair(rng, layout, np.float64)
    x.flags.writeable = a.flags.writeable = writeable
    for name in ("contiguous", "fortran", "fnc", "forc", "behaved", "carray", "farray", "num"):
        assert getattr(a.flags, name) == getattr(x.flags, name), name
    for key in ("B", "BEHAVED", "CA", "CARRAY", "FA", "FARRAY", "FNC", "FORC", "FORTRAN",
                "CONTIGUOUS"):
        assert a.flags[key] == x.flags[key], key


@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_base_is_the_owner(rng, layout):
    x_base, x, a_base, a = make_pair(rng, layout, np.int32)
    assert (a.base is None) == (x.base is None)
    if x.base is not None:
        assert x.base is x_base and a.base is a_base
    assert a[...].base is a_base
    assert a[...][...].T.base is a_base


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 5), (4, 1, 3), (0, 3), (3, 0, 2)], ids=str)
def test_constructor_layout_matches_numpy(shape, order):
    expected = np.ndarray(shape, np.float32, order=order)
    result = anp.ndarray(shape, np.float32, order=order)
    assert (result.shape, result.strides, result.dtype) == (expected.shape, expected.strides,
                                                            expected.dtype)
    assert repr(result.flags) == repr(expected.flags)
    assert anp.ndarray(shape).dtype == np.ndarray(shape).dtype


def test_unknown_flag_is_key_error(rng):
    a = anp.asarray(random_data(rng, (3,), np.float64))
    with pytest.raises(KeyError):
        a.flags["NOT_A_FLAG"]
    with pytest.raises(KeyError):
        a.flags["C_CONTIGUOUS"] = True


def test_device_attribute_names_the_device(rng):
    a = anp.asarray(random_data(rng, (3,), np.float64), device="cpu:1")
    assert a.device == anp.Device("cpu:1")
    assert str(a.device) == "cpu:1"
    assert a[1:].device is a.device


# -- writeable --------------------------------------------------------------


def test_writeable_false_forbids_writes(rng):
    a = anp.asarray(random_data(rng, (4, 3), np.float64))
    a.flags.writeable = False
    assert not a.flags.writeable and not a.flags["WRITEABLE"]
    for write in (lambda: a.__setitem__(0, 1.0), lambda: a.fill(2.0),
                  lambda: a.__setitem__(..., np.zeros(3)), lambda: a[1:].__setitem__(0, 5)):
        with pytest.raises(ValueError, match="read-only"):
            write()
    assert not a[1:].flags.writeable
    assert not a.T.flags.writeable


def test_writeable_cannot_be_restored_on_views_of_read_only_base(rng):
    x = random_data(rng, (4, 3), np.float64)
    a = anp.asarray(x)
    a.flags.writeable = False
    x.flags.writeable = False
    view, x_view = a[1:], x[1:]
    assert_same_error(lambda: setattr(x_view.flags, "writeable", True),
                      lambda: setattr(view.flags, "writeable", True), same_message=True)
    a.flags["W"] = True
    a[0, 0] = 7
    assert a[0, 0].item() == 7


def test_view_of_view_made_read_only_can_be_made_writeable_like_numpy(rng):
    x = random_data(rng, (5, 6), np.float64)
    a = anp.asarray(x)
    x_view, view = x[1:], a[1:]
    x_view.flags.writeable = False
    view.flags.writeable = False
    x_inner, inner = x_view[1:], view[1:]
    x_inner.flags.writeable = True
    inner.flags.writeable = True
    assert inner.flags.writeable == x_inner.flags.writeable


# -- transposes -------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_transposes_match_numpy(rng, layout):
    _, x, _, a = make_pair(rng, layout, np.int16)
    assert_same_array(a.T, x.T)
    assert a.T.strides == x.T.strides
    assert a.transpose().strides == x.transpose().strides
    if x.ndim >= 2:
        assert_same_array(a.mT, x.mT)
        assert a.mT.strides == x.mT.strides
        assert a.swapaxes(0, -1).strides == x.swapaxes(0, -1).strides
        assert_same_array(a.swapaxes(0, -1), x.swapaxes(0, -1))
    else:
        assert_same_error(lambda: x.mT, lambda: a.mT, same_message=True)
    axes = tuple(np.random.default_rng(x.ndim).permutation(x.ndim).tolist())
    for form in (lambda v: v.transpose(axes), lambda v: v.transpose(*axes)):
        assert_same_array(form(a), form(x))
        assert form(a).strides == form(x).strides


def test_transpose_errors_match_numpy(rng):
    x = random_data(rng, (2, 3, 4), np.float32)
    a = anp.asarray(x)
    for args in [(0, 0, 1), (0, 1), (0, 1, 2, 3), (0, 1, 5), (0, 1, -4)]:
        assert_same_error(lambda: x.transpose(*args), lambda: a.transpose(*args))
    assert_same_error(lambda: x.transpose(0, 0, 1), lambda: a.transpose(0, 0, 1), same_message=True)
    assert_same_error(lambda: x.swapaxes(0, 3), lambda: a.swapaxes(0, 3))
    assert a.swapaxes(-1, -3).shape == x.swapaxes(-1, -3).shape


def test_transposes_are_views(rng):
    x = random_data(rng, (3, 4), np.float64)
    a = anp.asarray(x)
    a.T[1, 2] = 99.0
    x.T[1, 2] = 99.0
    assert_same_array(a, x)


# -- real and imag ----------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["c_2d", "negative", "permuted", "zero_d", "empty_slice"])
def test_real_imag_of_complex_are_writable_views(rng, layout, dtype):
    x_base, x, a_base, a = make_pair(rng, layout, dtype)
    assert_same_array(a.real, x.real)
    assert_same_array(a.imag, x.imag)
    assert a.real.strides == x.real.strides and a.imag.strides == x.imag.strides
    values = random_data(rng, x.shape, x.real.dtype)
    x.real[...] = values
    a.real[...] = values
    x.imag = -values
    a.imag = -values
    assert_same_array(a_base, x_base)
    x.real = 3
    a.real = 3
    assert_same_array(a_base, x_base)


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
def test_real_imag_of_real_arrays(rng, dtype):
    x = random_data(rng, (3, 4), dtype)
    a = anp.asarray(x)
    assert a.real is a
    assert_same_array(a.imag, x.imag)
    assert not a.imag.flags.writeable
    assert_same_error(lambda: x.imag.__setitem__(0, 1), lambda: a.imag.__setitem__(0, 1),
                      same_message=True)
    assert_same_error(lambda: setattr(x, "imag", 1), lambda: setattr(a, "imag", 1),
                      same_message=True)
    a.real = np.ones((3, 4), dtype)
    x.real = np.ones((3, 4), dtype)
    assert_same_array(a, x)


# -- Python protocols -------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_len_and_iter_match_numpy(rng, layout):
    _, x, _, a = make_pair(rng, layout, np.float32)
    if x.ndim == 0:
        assert_same_error(lambda: len(x), lambda: len(a), same_message=True)
        assert_same_error(lambda: iter(x), lambda: iter(a), same_message=True)
        return
    assert len(a) == len(x)
    rows = list(a)
    assert len(rows) == len(x)
    for row, expected in zip(rows, x):
        assert_same_array(row, np.asarray(expected))


SCALAR_SHAPES = [(), (1,), (1, 1), (2,), (0,), (2, 3)]
CONVERSIONS = [bool, int, float, complex, operator.index]


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64, np.float16, np.float64,
                                   np.complex128], ids=str)
@pytest.mark.parametrize("shape", SCALAR_SHAPES, ids=str)
@pytest.mark.parametrize("convert", CONVERSIONS, ids=lambda f: f.__name__)
def test_scalar_conversions_follow_numpy(rng, dtype, shape, convert):
    x = random_data(rng, shape, dtype)
    a = anp.asarray(x)
    expected = outcome(convert, x)
    actual = outcome(convert, a)
    assert actual[0] == expected[0]
    if expected[0] == "ok":
        assert actual[1] == expected[1] and type(actual[1]) is type(expected[1])
    else:
        assert actual[1] is expected[1]


def test_truth_of_zero_d_values(rng):
    for value in (0, 3, -1.5, 0.0, 0j, 1j, True, False):
        assert bool(anp.asarray(value)) == bool(np.asarray(value))


# -- item and tolist --------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
def test_item_matches_numpy(rng, dtype):
    x = random_data(rng, (3, 4), dtype)
    a = anp.asarray(x)
    for args in [(5,), (-1,), (0,), (11,), ((1, 2),), (1, 2), (-1, -2), ((7,),), ((),)]:
        expected = outcome(x.item, *args)
        actual = outcome(a.item, *args)
        assert actual == expected and type(actual[1]) is type(expected[1]), args
    for shape in [(), (1,), (1, 1)]:
        y = random_data(rng, shape, dtype)
        assert anp.asarray(y).item() == y.item()
        assert type(anp.asarray(y).item()) is type(y.item())


def test_item_errors_match_numpy(rng):
    x = random_data(rng, (3, 4), np.int64)
    a = anp.asarray(x)
    for args in [(), (12,), (-13,), (3, 0), (0, 4), (0, 0, 0), (1.0,), (slice(1), 1), ((0, 0, 0),)]:
        assert_same_error(lambda: x.item(*args), lambda: a.item(*args), same_message=True)
    zero_d = np.asarray(5.5)
    assert anp.asarray(zero_d).item(0) == zero_d.item(0)
    assert_same_error(lambda: zero_d.item(0, 0), lambda: anp.asarray(zero_d).item(0, 0))
    assert_same_error(lambda: zero_d.item(1), lambda: anp.asarray(zero_d).item(1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_tolist_matches_numpy(rng, layout, dtype):
    _, x, _, a = make_pair(rng, layout, dtype)
    result = a.tolist()
    assert result == x.tolist()
    leaf = result
    while isinstance(leaf, list) and leaf:
        leaf = leaf[0]
    expected_leaf = x.tolist()
    while isinstance(expected_leaf, list) and expected_leaf:
        expected_leaf = expected_leaf[0]
    assert type(leaf) is type(expected_leaf)


# -- copies and casts -------------------------------------------------------


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_copy_matches_numpy(rng, layout, order):
    x_base, x, a_base, a = make_pair(rng, layout, np.complex64)
    expected, result = x.copy(order=order), a.copy(order=order)
    assert_same_array(result, expected)
    assert result.strides == expected.strides
    assert result.flags.owndata and result.base is None
    if result.size:
        result[(0,) * result.ndim] = 123
        assert_same_array(a_base, x_base)
    assert_same_array(copy.copy(a), x)
    assert_same_array(copy.deepcopy(a), x)
    assert_same_error(lambda: x.copy(order="Z"), lambda: a.copy(order="Z"))


@pytest.mark.parametrize("target", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("source", ALL_DTYPES, ids=DTYPE_IDS)
def test_astype_values_match_numpy(rng, source, target):
    x = random_data(rng, (5, 3), source)[::-1].T
    a = anp.asarray(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = x.astype(target)
        result = a.astype(target)
    assert_same_array(result, expected)
    assert result.strides == expected.strides
    for casting in ("no", "equiv", "safe", "same_kind"):
        expected_ok = outcome(lambda: x.astype(target, casting=casting))[0]
        actual = outcome(lambda: a.astype(target, casting=casting))
        assert actual[0] == expected_ok, casting
        if actual[0] == "error":
            assert actual[1] is TypeError


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_astype_copy_false_returns_self_as_numpy(rng, layout, order):
    _, x, _, a = make_pair(rng, layout, np.int32)
    for dtype in (np.int32, np.int64):
        expected = x.astype(dtype, order=order, copy=False)
        result = a.astype(dtype, order=order, copy=False)
        assert (result is a) == (expected is x), (dtype, order)
        assert_same_array(result, expected)
        assert result.strides == expected.strides
    assert a.astype(np.int32) is not a


def test_astype_argument_errors(rng):
    x = random_data(rng, (3,), np.float64)
    a = anp.asarray(x)
    assert_same_error(lambda: x.astype(np.int8, casting="bogus"),
                      lambda: a.astype(np.int8, casting="bogus"))
    assert_same_error(lambda: x.astype(np.float64, order="Z", copy=False),
                      lambda: a.astype(np.float64, order="Z", copy=False))
    with pytest.raises(TypeError, match="astype"):
        a.astype("U3")
    with pytest.raises(TypeError, match="astype"):
        a.astype(object)


# -- fill -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", ["c_2d", "negative", "permuted", "zero_d", "empty_slice"])
def test_fill_matches_numpy(rng, layout, dtype):
    x_base, x, a_base, a = make_pair(rng, layout, dtype)
    value = random_data(rng, (), dtype).item()
    x.fill(value)
    a.fill(value)
    assert_same_array(a_base, x_base)
    scalar = random_data(rng, (), dtype)
    x.fill(scalar)
    a.fill(anp.asarray(scalar))
    assert_same_array(a_base, x_base)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iu"], ids=str)
def test_fill_out_of_range_python_int_is_overflow_error(dtype):
    x = np.zeros(3, dtype)
    a = anp.asarray(x)
    too_big = int(np.iinfo(dtype).max) + 1
    too_small = int(np.iinfo(dtype).min) - 1
    for value in (too_big, too_small):
        assert_same_error(lambda: x.fill(value), lambda: a.fill(value), same_message=True)
    assert_same_array(a, x)


def test_fill_errors_match_numpy(rng):
    x = random_data(rng, (4,), np.float64)
    a = anp.asarray(x)
    for value in (1j, "abc", [1.0], np.array([5.0]), np.ones(2)):
        assert_same_error(lambda: x.fill(value), lambda: a.fill(value), same_message=True)
    assert_same_error(lambda: x.fill(np.array([5.0])), lambda: a.fill(anp.asarray(np.array([5.0]))))
    with pytest.raises(ValueError, match="different devices"):
        a.fill(anp.asarray(np.float64(1.0), device="cpu:1"))


# -- view -------------------------------------------------------------------

VIEW_LAYOUTS = ["c_2d", "f_2d", "c_3d_odd", "one_d", "strided", "negative", "permuted",
                "newaxis", "zero_d", "empty_slice", "empty_owner"]


@pytest.mark.parametrize("target", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", VIEW_LAYOUTS)
def test_view_dtype_matches_numpy(rng, layout, target):
    source = np.dtype(np.int16) if target.itemsize == 16 else np.dtype(np.complex128)
    x_base, x, a_base, a = make_pair(rng, layout, source)
    expected = outcome(x.view, target)
    result = outcome(a.view, target)
    assert result[0] == expected[0]
    if expected[0] == "error":
        assert result[1] is expected[1]
        return
    expected, result = expected[1], result[1]
    assert (result.shape, result.strides, result.dtype) == (expected.shape, expected.strides,
                                                            expected.dtype)
    assert result.get().tobytes() == expected.tobytes()
    assert result.base is a_base if a.base is not None else result.base is a
    if result.size and target.kind != "b":
        result[(0,) * result.ndim] = 1
        expected[(0,) * expected.ndim] = 1
        assert a_base.get().tobytes() == x_base.tobytes()


def test_view_errors_match_numpy(rng):
    x = random_data(rng, (3, 5), np.int8)
    a = anp.asarray(x)
    for make in (lambda v: v.view(np.int16), lambda v: v[:, ::2].view(np.int64),
                 lambda v: v.T.view(np.int32), lambda v: v[0, 0, ...].view(np.int16)):
        assert_same_error(lambda: make(x), lambda: make(a), same_message=True)
    wide = random_data(rng, (3, 4), np.int32)
    for source, make in ((wide, lambda v: v[:0, ::2].view(np.int64)),
                         (wide, lambda v: v[:, 1:2].view(np.int16))):
        expected, result = make(source), make(anp.asarray(source))
        assert (result.shape, result.strides) == (expected.shape, expected.strides)
        assert result.get().tobytes() == expected.tobytes()
    assert a.view().base is a and a.view(anp.ndarray).shape == a.shape
    with pytest.raises(TypeError):
        a.view(np.ndarray)
    with pytest.raises(TypeError, match="view"):
        a.view("U1")
    with pytest.raises(ValueError, match="byte order"):
        a.view(">i2")        # would silently show native values otherwise
    assert_same_array(a.view("<i1"), x.view("<i1"))


# -- reshape ----------------------------------------------------------------

RESHAPES = [
    ("c_2d", (20,), "C"), ("c_2d", (2, -1), "C"), ("c_2d", (5, 4), "F"), ("c_2d", -1, "F"),
    ("c_2d", (2, 1, 10), "C"), ("c_2d", (4, 5), "C"), ("c_2d", (1, 20, 1), "A"),
    ("f_2d", (20,), "C"), ("f_2d", (20,), "F"), ("f_2d", (5, -1), "A"), ("f_2d", (2, 2, 5), "F"),
    ("c_3d_odd", (15, 7), "C"), ("c_3d_odd", (3, 35), "F"), ("c_3d_odd", (7, 5, 3), "C"),
    ("f_3d_sliced", (2, -1), "C"), ("f_3d_sliced", (2, 3, 7), "F"), ("f_3d_sliced", (42,), "F"),
    ("strided", (9,), "C"), ("strided", (3, 1, 3), "C"), ("strided", (9, 1), "F"),
    ("negative", (30,), "C"), ("negative", (3, 2, 5), "C"), ("negative", (6, 5, 1), "F"),
    ("negative", (2, 3, 5), "F"), ("negative", (6, 1, 5), "A"),
    ("permuted", (7, 15), "C"), ("permuted", (35, 3), "F"), ("permuted", (7, 3, 5), "A"),
    ("permuted", (-1,), "C"), ("newaxis", (5, 4), "C"), ("newaxis", (20,), "F"),
    ("newaxis", (5, 1, 2, 2), "C"), ("size_one", (), "C"), ("size_one", (1,), "F"),
    ("zero_d", (1, 1), "C"), ("zero_d", (-1,), "F"), ("zero_d_owner", (1,), "C"),
    ("empty_slice", (0, 3), "C"), ("empty_slice", (2, 0, 5), "F"), ("empty_owner", (3, 0), "C"),
    ("empty_owner", (0, 5), "C"), ("one_d", (11, 1), "C"), ("one_d", (1, 11), "F"),
]


@pytest.mark.parametrize("layout, shape, order", RESHAPES)
def test_reshape_matches_numpy_including_views(rng, layout, shape, order):
    x_base, x, a_base, a = make_pair(rng, layout, np.float32)
    expected = x.reshape(shape, order=order)
    result = a.reshape(shape, order=order)
    assert_same_array(result, expected)
    assert result.strides == expected.strides
    assert result.flags.c_contiguous == expected.flags.c_contiguous
    assert result.flags.f_contiguous == expected.flags.f_contiguous
    if expected.size:
        # A view writes through to the base exactly when NumPy's does.
        expected[(0,) * expected.ndim] = -1000
        result[(0,) * result.ndim] = -1000
        assert_same_array(a_base, x_base)
    if isinstance(shape, tuple) and len(shape) > 1:
        assert_same_array(a.reshape(*shape, order=order), x.reshape(*shape, order=order))


@pytest.mark.parametrize("layout, shape, order", RESHAPES[:12])
def test_reshape_copy_argument_matches_numpy(rng, layout, shape, order):
    _, x, _, a = make_pair(rng, layout, np.int64)
    for copy_arg in (True, False, None):
        expected = outcome(lambda: x.reshape(shape, order=order, copy=copy_arg))
        result = outcome(lambda: a.reshape(shape, order=order, copy=copy_arg))
        assert result[0] == expected[0]
        if expected[0] == "ok":
            assert_same_array(result[1], expected[1])
            assert result[1].strides == expected[1].strides
        else:
            assert result[1] is expected[1]


def test_reshape_errors_match_numpy(rng):
    x = random_data(rng, (3, 4), np.float64)
    a = anp.asarray(x)
    for shape in [(5, -1), (-1, -1), (13,), (2, 2, 2), (0, -1), (1.5, 8), "ab"]:
        assert_same_error(lambda: x.reshape(shape), lambda: a.reshape(shape))
    for shape in [(5, -1), (-1, -1), (13,), (2, 2, 2), (0, -1), (1.5, 8)]:
        assert_same_error(lambda: x.reshape(shape), lambda: a.reshape(shape), same_message=True)
    assert_same_error(lambda: x.reshape(), lambda: a.reshape(), same_message=True)
    assert_same_error(lambda: x.reshape(12, order="K"), lambda: a.reshape(12, order="K"),
                      same_message=True)
    assert_same_error(lambda: x.reshape(12, order="Z"), lambda: a.reshape(12, order="Z"))
    assert_same_error(lambda: x.T.reshape(12, copy=False),
                      lambda: a.T.reshape(12, copy=False), same_message=True)
    assert a[:, ::2].reshape(6, copy=False).base is a
    empty = np.zeros((0, 3))
    assert_same_error(lambda: empty.reshape(0, -1), lambda: anp.asarray(empty).reshape(0, -1),
                      same_message=True)
    assert a.reshape(-2, 6).shape == x.reshape(-2, 6).shape


# -- basic indexing ---------------------------------------------------------

INDICES = [
    0, -1, 2, slice(None), slice(1, None), slice(None, None, -1), slice(-2, 0, -1),
    slice(None, None, 3), slice(5, 1, -2), slice(10, 20), slice(-100, 100, 4), Ellipsis, None,
    (1, 2), (-1, slice(None, None, -2)), (Ellipsis, 1), (None, Ellipsis, None),
    (slice(None), None, 0), (1, Ellipsis, slice(None, None, -1), None),
    (np.int64(1), np.uint8(0)), (np.array(2),), (slice(0, 0), Ellipsis), (2, 3, 4),
    (slice(1, 3), slice(None, None, -1), slice(2, -1)),
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
@pytest.mark.parametrize("layout", ["c_3d_odd", "f_3d_sliced", "permuted", "negative"])
def test_getitem_matches_numpy(rng, layout, index):
    x_base, x, a_base, a = make_pair(rng, layout, np.int64)
    expected = outcome(lambda: x[index])
    result = outcome(lambda: a[index])
    assert result[0] == expected[0]
    if expected[0] == "error":
        assert result[1] is expected[1]
        return
    expected, result = np.asarray(expected[1]), result[1]
    assert_same_array(result, expected)
    if expected.base is not None:
        assert result.strides == expected.strides
        assert result.flags.c_contiguous == expected.flags.c_contiguous
        assert result.flags.f_contiguous == expected.flags.f_contiguous
    assert result.base is a_base


def test_getitem_errors_match_numpy(rng):
    x = random_data(rng, (3, 4), np.float64)
    a = anp.asarray(x)
    same_message = [5, -4, (0, 4), (0, -5), (1, 2, 3), (Ellipsis, Ellipsis), (..., 1, 2, 3),
                    1.0, "a", (0, 1.5)]
    for index in same_message:
        assert_same_error(lambda: x[index], lambda: a[index], same_message=True)
    for index in [slice(None, None, 0), slice(1.5, None), (slice(None), slice("a", None))]:
        assert_same_error(lambda: x[index], lambda: a[index])
    zero_d = np.asarray(1.0)
    assert_same_error(lambda: zero_d[0], lambda: anp.asarray(zero_d)[0], same_message=True)
    assert_same_array(anp.asarray(zero_d)[...], zero_d[...])
    assert_same_array(anp.asarray(zero_d)[()], np.asarray(zero_d[()]))
    assert anp.asarray(zero_d)[None].shape == zero_d[None].shape


def basic_indices(ndim):
    """A hypothesis strategy for basic indices of an array with ``ndim`` axes."""
    bound = st.integers(-8, 8)
    item = st.one_of(
        st.integers(-7, 7),
        st.builds(slice, st.none() | bound, st.none() | bound,
                  st.none() | st.integers(-4, 4).filter(bool)),
        st.none(),
    )
    items = st.lists(item, max_size=ndim + 2)
    return st.tuples(items, st.integers(-1, ndim + 2)).map(
        lambda pair: tuple(pair[0][:pair[1]] + [Ellipsis] + pair[0][pair[1]:])
        if 0 <= pair[1] <= len(pair[0]) else tuple(pair[0]))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(0, 6), min_size=0, max_size=4).map(tuple))
def test_getitem_and_setitem_match_numpy_for_random_basic_indices(data, shape):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = random_data(rng, shape, np.int32)
    a = anp.asarray(x)
    index = data.draw(basic_indices(len(shape)))
    expected = outcome(lambda: np.asarray(x[index]))
    result = outcome(lambda: a[index])
    assert result[0] == expected[0], index
    if expected[0] == "error":
        assert result[1] is expected[1], index
        return
    assert_same_array(result[1], expected[1])
    value = random_data(rng, expected[1].shape, np.int32)
    x[index] = value
    a[index] = value
    assert_same_array(a, x)


# -- setitem ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
def test_setitem_scalars_match_numpy(rng, dtype):
    x = random_data(rng, (4, 5), dtype)
    a = anp.asarray(x)
    for index in [(1, 2), 0, (slice(None), -1), (slice(None, None, -2), slice(1, 4)), Ellipsis]:
        value = random_data(rng, (), dtype)
        x[index] = value.item()
        a[index] = value.item()
        x[index] = value
        a[index] = value
    for value in (True, 1, 2.5, np.float32(-3.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x[0] = value
            a[0] = value
    assert_same_array(a, x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
def test_setitem_arrays_and_lists_match_numpy(rng, dtype):
    x = random_data(rng, (4, 5, 3), dtype)
    a = anp.asarray(x)
    cases = [
        ((slice(None), 1), random_data(rng, (4, 3), dtype)),
        ((slice(None), slice(None, None, -2)), random_data(rng, (3,), dtype)),
        ((1,), random_data(rng, (5, 1), dtype)),
        ((Ellipsis, 2), random_data(rng, (5, 4), dtype).T),
        ((0,), random_data(rng, (1, 5, 3), dtype)),
        ((2, 3), random_data(rng, (3,), dtype).tolist()),
        ((slice(0, 2), 0), random_data(rng, (2, 3), dtype).tolist()),
        ((slice(1, 3),), random_data(rng, (3,), dtype).astype(dtype.newbyteorder())),
    ]
    for index, value in cases:
        x[index] = value
        a[index] = value
        assert_same_array(a, x)
    value = random_data(rng, (5, 3), dtype)
    x[3] = value
    a[3] = anp.asarray(value)
    x[1:3] = x[2]
    a[1:3] = a[2]
    assert_same_array(a, x)


def test_setitem_lists_containing_asnumpy_arrays(rng):
    x = random_data(rng, (3, 4), np.float64)
    a = anp.asarray(x)
    rows = [random_data(rng, (4,), np.float64) for _ in range(2)]
    x[1:] = rows
    a[1:] = [anp.asarray(rows[0]), anp.asarray(rows[1])]
    assert_same_array(a, x)
    elements = random_data(rng, (4,), np.int32)
    x[0] = list(elements)
    a[0] = [anp.asarray(v) for v in elements]
    assert_same_array(a, x)


def test_large_assignments_match_numpy(rng):
    """Rows of about 9 MB: large enough for the cpu back end to split copies across threads."""
    n = 1_100_000
    x = np.zeros((3, n))
    a = anp.asarray(x)
    value = random_data(rng, (1, n), np.float64)
    for index, source, device_source in [
        (0, value, value), (1, value[:, ::-1], anp.asarray(value[:, ::-1])),
        ((slice(None), slice(1, None)), x[:, :-1], a[:, :-1]), (2, value[0].tolist(), value[0]),
    ]:
        x[index] = source
        a[index] = device_source
        assert_same_array(a, x)


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128], ids=str)
def test_overlapping_self_assignment_matches_numpy(rng, dtype):
    x = random_data(rng, (7, 6), dtype)
    a = anp.asarray(x)
    moves = [
        (lambda v: v[1:], lambda v: v[:-1]), (lambda v: v[:-1], lambda v: v[1:]),
        (lambda v: v[:], lambda v: v[::-1]), (lambda v: v[:, 1:], lambda v: v[:, :-1]),
        (lambda v: v[:6, :6], lambda v: v[:6, :6].T), (lambda v: v[2:, ::2], lambda v: v[:5, 1::2]),
        (lambda v: v[::-1, 1:], lambda v: v[:, :-1]),
    ]
    for target, source in moves:
        target(x)[...] = source(x)
        target(a)[...] = source(a)
        assert_same_array(a, x)


def test_setitem_errors_match_numpy(rng):
    x = random_data(rng, (5, 6), np.float64)
    a = anp.asarray(x)
    same_message = [
        (slice(None), np.zeros(5)), (0, np.zeros((2, 6))), (slice(0, 0), np.zeros((2, 6))),
        (0, [1.0, 2.0, 3.0]), ((0, 0, ...), np.ones((2, 6))), (0, np.zeros(0)), (0, "abc"),
        (10, 1.0), ((1, 2, 3), 1.0), (0, 1j),
    ]
    for index, value in same_message:
        assert_same_error(lambda: x.__setitem__(index, value),
                          lambda: a.__setitem__(index, value), same_message=True)
    sequences_into_elements = [
        ((1, 2), [5.0]), ((1, 2), np.array([5.0])), ((1, -1), [[5.0]]), ((1, 2), []),
        ((np.int64(1), np.array(2)), np.ones(1)), (0, [[1.0] * 6]), (slice(0, 1), [[[1.0] * 6]]),
        (0, [np.ones(6)]), ((1, 2, ...), [5.0]),
    ]
    for index, value in sequences_into_elements:
        assert_same_error(lambda: x.__setitem__(index, value),
                          lambda: a.__setitem__(index, value), same_message=True)
    assert_same_error(lambda: x.__setitem__((1, 2), np.ones(1)),
                      lambda: a.__setitem__((1, 2), anp.asarray(np.ones(1))), same_message=True)
    zero_d = np.zeros(())
    for index in ((), ...):
        assert_same_error(lambda: zero_d.__setitem__(index, [5.0]),
                          lambda: anp.asarray(zero_d).__setitem__(index, [5.0]), same_message=True)
    x[1, 2, ...] = np.array([7.0])
    a[1, 2, ...] = np.array([7.0])
    x[1, 3] = np.array(8.0)
    a[1, 3] = anp.asarray(np.array(8.0))
    assert_same_error(lambda: x.__setitem__(0, np.zeros((1, 2, 6))),
                      lambda: a.__setitem__(0, np.zeros((1, 2, 6))), same_message=True)
    assert_same_error(lambda: x.__setitem__(slice(None), np.zeros(5)),
                      lambda: a.__setitem__(slice(None), anp.asarray(np.zeros(5))),
                      same_message=True)
    ints = np.zeros(3, np.int8)
    for index, value in ((0, 300), (slice(0, 2), [300, 1]), (slice(0, 2), (1, -129))):
        assert_same_error(lambda: ints.__setitem__(index, value),
                          lambda: anp.asarray(ints).__setitem__(index, value), same_message=True)
    ints64 = np.zeros(3, np.int64)
    assert_same_error(lambda: ints64.__setitem__(0, np.nan),
                      lambda: anp.asarray(ints64).__setitem__(0, np.nan), same_message=True)
    with pytest.raises(ValueError, match="different devices"):
        a[0] = anp.asarray(np.zeros(6), device="cpu:1")
    assert_same_array(a, x)


def test_setitem_strings_and_objects_convert_like_numpy(rng):
    x = random_data(rng, (2, 3), np.float64)
    a = anp.asarray(x)
    for index, value in [(0, "1.5"), (1, ["2", "3.25", "-4"]), ((0, slice(1, None)), [None, 7]),
                         (1, np.array(["1e3", "-2", "0.5"])), (0, [np.array(1.7), 2.5, True])]:
        x[index] = value
        a[index] = value
    assert_same_array(a, x)


def test_numpy_array_assigned_with_other_dtype_casts_unsafely_like_numpy(rng):
    x = np.zeros(4, np.int8)
    a = anp.asarray(x)
    value = np.array([300, -129, 5, 1000])
    x[...] = value
    a[...] = value
    x[0] = np.array(300)
    a[0] = np.array(300)
    assert_same_array(a, x)


# -- views share memory -----------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_writes_through_views_reach_the_base(rng, layout):
    x_base, x, a_base, a = make_pair(rng, layout, np.uint16)
    value = random_data(rng, x.shape, np.uint16)
    x[...] = value
    a[...] = value
    assert_same_array(a_base, x_base)
    if x.size:
        x_base[...] = 7
        a_base[...] = 7
        assert_same_array(a, np.asarray(x))


# -- printing ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_repr_and_str_are_numpys(rng, layout, dtype):
    _, x, _, a = make_pair(rng, layout, dtype)
    assert repr(a) == repr(x)
    assert str(a) == str(x)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64, np.float16, np.float64,
                                   np.complex64], ids=str)
@pytest.mark.parametrize("shape", [(2001,), (40, 60), (3, 30, 40)], ids=str)
def test_repr_of_large_arrays_is_summarised_like_numpy(rng, dtype, shape):
    x = random_data(rng, shape, dtype)
    a = anp.asarray(x)
    assert "..." in repr(x)
    assert repr(a) == repr(x)
    assert str(a) == str(x)
    assert repr(a[::-3]) == repr(x[::-3])


def test_repr_of_special_values_is_numpys():
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-300, 1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = (x, x.astype(np.float16), x.astype(np.complex64) * 1j, np.array([], np.int8),
                 np.zeros((2, 0, 3), np.uint32), np.array(-0.0))
    for values in cases:
        assert repr(anp.asarray(values)) == repr(values)
        assert str(anp.asarray(values)) == str(values)


@pytest.mark.parametrize("values", [np.arange(3.0) * 1.5, np.array(2.5, np.float32),
                                    np.zeros((0, 2), np.int64), np.arange(3000)], ids=repr)
def test_repr_names_a_device_other_than_the_default(values):
    a = anp.asarray(values, device="cpu:1")
    expected = repr(values)
    assert repr(a) == expected[:-1] + ", device='cpu:1')"
    assert str(a) == str(values)
    assert repr(anp.asarray(values, device=anp.get_device())) == expected   # the default


# -- pickling ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", ["c_2d", "f_2d", "negative", "zero_d", "empty_owner"])
def test_pickle_round_trip(rng, layout, dtype):
    _, x, _, a = make_pair(rng, layout, dtype)
    restored = pickle.loads(pickle.dumps(a))
    assert_same_array(restored, x)
    assert restored.device == a.device
    other = pickle.loads(pickle.dumps(anp.asarray(x, device="cpu:2")))
    assert other.device == anp.Device("cpu:2")
    assert_same_array(other, x)


# -- implicit conversion to NumPy: a view on cpu (tests/interop/test_host_conversion.py) ----


def test_numpy_converts_cpu_arrays_to_views(rng):
    x = random_data(rng, (3,), np.float64)
    a = anp.asarray(x, device="cpu:0")
    view = np.asarray(a)
    np.testing.assert_array_equal(view, x)
    view[0] = 7.0
    assert a[0].item() == 7.0
    # NumPy's functions dispatch to asnumpy's instead (tests/interop/test_numpy_dispatch.py)
    assert isinstance(np.add(a, 1), anp.ndarray)


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.sub, operator.truediv],
                         ids=lambda f: f.__name__)
def test_numpy_array_operand_does_not_produce_a_numpy_array(rng, op):
    x = random_data(rng, (3,), np.float64)
    a = anp.asarray(x)
    for left, right in ((x, a), (a, x)):
        result = op(left, right)
        assert isinstance(result, anp.ndarray)
        anp.testing.assert_allclose(result, op(x, x))


# -- memory -----------------------------------------------------------------


def test_views_keep_memory_alive_and_memory_returns_to_the_pool(rng):
    pool = anp.get_default_memory_pool()
    gc.collect()
    baseline = pool.used_bytes()
    x = random_data(rng, (64, 33), np.float64)
    a = anp.asarray(x)
    views = [a[1:], a.T, a[::-1, 3], a.reshape(-1), a.view(np.int32), a[None, ..., 5]]
    copies = [a.copy(order="F"), a.astype(np.float32), a[:, ::2].reshape(-1)]
    assert pool.used_bytes() > baseline
    del a
    gc.collect()
    assert pool.used_bytes() > baseline
    assert_same_array(views[2], x[::-1, 3])
    views[0][0, 0] = 5.0
    assert views[1][0, 1].item() == 5.0
    del views, copies
    gc.collect()
    assert pool.used_bytes() == baseline


def test_imag_of_real_and_temporary_copies_are_released(rng):
    pool = anp.get_default_memory_pool()
    gc.collect()
    baseline = pool.used_bytes()
    a = anp.asarray(random_data(rng, (100,), np.float32))
    for _ in range(3):
        a.imag
        repr(a)
        a.tolist()
        a.reshape(10, 10).T.reshape(-1)
    del a
    gc.collect()
    assert pool.used_bytes() == baseline


@pytest.mark.parametrize("key", [np.s_[::-2], np.s_[1:5:3], np.s_[::-1, :0], np.s_[2]],
                         ids=["reversed", "stepped", "empty-slice", "integer"])
def test_slicing_views_of_empty_arrays_keeps_numpys_strides(key):
    host = np.zeros((6, 4))[:, 4:]              # empty, with non-zero strides
    device = anp.asarray(np.zeros((6, 4)))[:, 4:]
    assert device[key].shape == host[key].shape
    assert device[key].strides == host[key].strides
    assert device[key].get().shape == host[key].shape
