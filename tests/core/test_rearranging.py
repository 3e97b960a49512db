"""Rearranging and building arrays (flip, rot90, roll, tile, repeat, pad, insert, ...), differentially.

Each body runs with ``xp=numpy`` and ``xp=asnumpy`` from the same seeded
``numpy.random`` state and the results (values, dtypes, shapes, errors) are
compared.  Inputs are fresh random values in every dtype, as plain arrays and
as views: transposed, reversed (negative strides) and strided; empty and 0-d
arrays are covered per function.  Flips and rotations are views in both
libraries: writing through them changes the input.
"""

import numpy
import pytest
from _inputs import VIEWS, for_views_and_dtypes, random_array
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing


def same_as_numpy(**kwargs):
    """Exact comparison: values, dtypes, shapes; asnumpy arrays on asnumpy's side."""
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def values(shape, dtype):
    """Random host values of ``dtype``: signed, spanning the type, never all zeros."""
    return random_array(shape, dtype, bound=None, scale=40)


def arr(xp, shape, dtype=numpy.float64):
    return random_array(shape, dtype, xp, bound=None, scale=40)


def assert_error(body, error, match):
    """``body(xp)`` raises ``error`` with both libraries; asnumpy's message matches ``match``."""
    same_as_numpy(accept_error=error)(body)()
    with pytest.raises(error, match=match):
        body(asnumpy)


# -- flip, fliplr, flipud, rot90 ----------------------------------------------------------------

@for_views_and_dtypes()
@same_as_numpy()
def test_flip(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    b = arr(xp, (2, 3, 4), dtype)
    return [xp.flip(a), xp.flip(a, 0), xp.flip(a, -1), xp.flip(a, (0, 1)), xp.flip(b, (2, 0)),
            xp.flip(b, axis=()), xp.fliplr(a), xp.flipud(a), xp.flipud(b[0, 0]),
            xp.flip(xp.zeros((0, 3), dtype), 1), xp.flip(arr(xp, (), dtype))]


@testing.with_seed()
@testing.for_all_dtypes()
@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 7])
@same_as_numpy()
def test_rot90(xp, dtype, k):
    a = arr(xp, (3, 5), dtype)
    b = arr(xp, (2, 3, 4), dtype)[:, ::-1]
    return [xp.rot90(a, k), xp.rot90(a.T, k, axes=(1, 0)), xp.rot90(b, k, (1, 2)),
            xp.rot90(b, k, (-1, 0)), xp.rot90(xp.zeros((0, 2)), k)]


@pytest.mark.parametrize("name,kwargs", [
    ("flip", {}), ("flip", {"axis": 1}), ("flip", {"axis": (0, 2)}), ("fliplr", {}),
    ("flipud", {}), ("rot90", {}), ("rot90", {"k": 2}), ("rot90", {"k": -1}),
    ("rot90", {"k": 4}), ("rot90", {"k": 1, "axes": (2, 0)}),
], ids=repr)
@testing.with_seed()
def test_flips_and_rotations_are_views(name, kwargs):
    host = values((3, 4, 2), numpy.float64)
    base = asnumpy.asarray(host)
    view, host_view = getattr(asnumpy, name)(base, **kwargs), getattr(numpy, name)(host, **kwargs)
    assert view.base is base
    assert view.strides == host_view.strides
    view[0, 1] = 1234.5
    host_view[0, 1] = 1234.5
    testing.assert_array_equal(base, host)
    testing.assert_array_equal(view, host_view)


def test_flip_rot90_errors():
    assert_error(lambda xp: xp.flip(xp.ones((2, 3)), 2), AxisError, "asnumpy.flip")
    assert_error(lambda xp: xp.flip(xp.ones((2, 3)), (0, 0)), ValueError, "asnumpy.flip")
    assert_error(lambda xp: xp.fliplr(xp.ones(3)), ValueError, "asnumpy.fliplr")
    assert_error(lambda xp: xp.flipud(xp.ones(())), ValueError, "asnumpy.flipud")
    assert_error(lambda xp: xp.rot90(xp.ones(3)), ValueError, "asnumpy.rot90")
    assert_error(lambda xp: xp.rot90(xp.ones((2, 3)), axes=(0, 0)), ValueError, "Axes must")
    assert_error(lambda xp: xp.rot90(xp.ones((2, 3)), axes=(0, 3)), ValueError, "out of range")
    assert_error(lambda xp: xp.rot90(xp.ones((2, 3)), axes=(0, 1, 2)), ValueError, "len")


# -- roll -------------------------------------------------------------------------------------

@for_views_and_dtypes()
@same_as_numpy()
def test_roll(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    return [xp.roll(a, 3), xp.roll(a, -14), xp.roll(a, 1, 0), xp.roll(a, (1, -2), (0, 1)),
            xp.roll(a, 2, (0, 1)), xp.roll(a, (1, 1), (1, 1)), xp.roll(a, 0, 1),
            xp.roll(a, 5, axis=-1), xp.roll(a, xp.asarray(2), 0), xp.roll(xp.zeros((0, 3), dtype), 2, 0),
            xp.roll(xp.zeros((0, 3), dtype), 2), xp.roll(arr(xp, (), dtype), 3)]


def test_roll_errors():
    assert_error(lambda xp: xp.roll(xp.ones((2, 3)), 1, 2), AxisError, "asnumpy.roll")
    assert_error(lambda xp: xp.roll(xp.ones((2, 3)), (1, 2, 3), (0, 1)), ValueError,
                 "asnumpy.roll")
    assert_error(lambda xp: xp.roll(xp.ones((2, 3)), [[1, 2]], (0, 1)), ValueError,
                 "asnumpy.roll")


# -- tile, repeat -----------------------------------------------------------------------------

@for_views_and_dtypes()
@same_as_numpy()
def test_tile(xp, dtype, view):
    a = VIEWS[view](arr(xp, (3, 4), dtype))
    return [xp.tile(a, 2), xp.tile(a, (2, 1)), xp.tile(a, (2, 1, 3)), xp.tile(a, (1, 1)),
            xp.tile(a, 0), xp.tile(a, (1, 2, 1, 1)), xp.tile(a[0], (3, 2)),
            xp.tile(arr(xp, (), dtype), (2, 3)), xp.tile(arr(xp, (), dtype), ()),
            xp.tile(xp.zeros((0, 2), dtype), 3), xp.tile([1, 2], 2)]


@for_views_and_dtypes()
@same_as_numpy()
def test_repeat(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    per_row = numpy.random.randint(0, 4, a.shape[0])
    return [xp.repeat(a, 2), xp.repeat(a, 3, axis=0), xp.repeat(a, 2, -1),
            xp.repeat(a, per_row, axis=0), xp.repeat(a, xp.asarray(per_row), axis=0),
            xp.repeat(a, [2], axis=1), xp.repeat(a, 0, 1), xp.repeat(a, 1.7),
            a.repeat(2), a.repeat(per_row, 0), a.repeat(repeats=3, axis=1),
            xp.repeat(arr(xp, (), dtype), 4), xp.repeat(arr(xp, (), dtype), 2, axis=-1),
            xp.repeat(xp.zeros((0, 3), dtype), 2, 1),
            xp.repeat(a[0], numpy.arange(a.shape[1]))]


def test_tile_repeat_errors():
    assert_error(lambda xp: xp.tile(xp.ones(3), -1), ValueError, "asnumpy.tile")
    assert_error(lambda xp: xp.repeat(xp.ones(3), [1, 2]), ValueError, "asnumpy.repeat")
    assert_error(lambda xp: xp.repeat(xp.ones(3), -1), ValueError, "negative")
    assert_error(lambda xp: xp.repeat(xp.ones(3), [1, -1, 1]), ValueError, "negative")
    assert_error(lambda xp: xp.repeat(xp.ones((2, 3)), 2, axis=2), AxisError, "asnumpy.repeat")
    assert_error(lambda xp: xp.repeat(xp.ones(()), 2, axis=1), AxisError, "asnumpy.repeat")
    with pytest.raises(TypeError):
        asnumpy.ones(3).repeat()
    with pytest.raises(TypeError):
        asnumpy.ones(3).repeat(2, axis=0, bogus=1)


# -- pad --------------------------------------------------------------------------------------

MODES = [
    ("constant", {}), ("constant", {"constant_values": 7}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}), ("edge", {}),
    ("linear_ramp", {}), ("linear_ramp", {"end_values": (5, -3)}), ("maximum", {}),
    ("maximum", {"stat_length": 2}), ("mean", {}), ("mean", {"stat_length": ((1, 2), (3, 1))}),
    ("median", {}), ("minimum", {"stat_length": 1}), ("reflect", {}),
    ("reflect", {"reflect_type": "odd"}), ("symmetric", {}),
    ("symmetric", {"reflect_type": "odd"}), ("wrap", {}),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("mode,kwargs", MODES, ids=lambda v: repr(v))
@pytest.mark.parametrize("view", VIEWS)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int8, numpy.uint16, numpy.int64, numpy.float16,
                     numpy.float32, numpy.float64, numpy.complex64, numpy.complex128])
@testing.numpy_asnumpy_allclose(rtol=1e-3, atol=1e-3, device_check=True,
                                accept_error=(TypeError, ValueError))
def test_pad_modes(xp, dtype, view, mode, kwargs):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    return [xp.pad(a, 2, mode, **kwargs), xp.pad(a, (1, 3), mode, **kwargs),
            xp.pad(a, ((0, 2), (5, 1)), mode, **kwargs), xp.pad(a[0], 4, mode, **kwargs)]


@testing.with_seed()
@same_as_numpy()
def test_pad_shapes_and_scalars(xp):
    ints = arr(xp, (3, 2), numpy.int16)
    return [xp.pad(arr(xp, (), numpy.float64), 2), xp.pad(xp.zeros((0, 3)), 1),
            xp.pad(xp.zeros((0, 3)), ((0, 0), (1, 1)), "edge"), xp.pad(ints, 1,
                                                                       constant_values=2.9),
            xp.pad(ints, 0, "wrap"), xp.pad([1, 2, 3], 2, "reflect"),
            xp.pad(ints.T, (1, 2), "wrap"), xp.pad(ints, 5, "reflect"),
            xp.pad(ints, 5, "symmetric"), xp.pad(ints, 7, "wrap")]


def test_pad_empty_mode():
    a = asnumpy.asarray(values((3, 4), numpy.float32))
    padded = asnumpy.pad(a, ((1, 2), (3, 0)), "empty")
    assert padded.shape == (6, 7) and padded.dtype == numpy.float32
    testing.assert_array_equal(padded[1:4, 3:], a)


def _padder(vector, width, axis, kwargs):
    value = kwargs.get("padder", 10)
    vector[:width[0]] = value
    if width[1]:
        vector[-width[1]:] = value + axis


@testing.with_seed()
@same_as_numpy()
def test_pad_callable(xp):
    a = arr(xp, (3, 4), numpy.int32)
    return [xp.pad(a, 2, _padder), xp.pad(a, ((1, 0), (0, 3)), _padder, padder=-5),
            xp.pad(a[::-1, ::2], 1, _padder)]


@pytest.mark.parametrize("case", ["mode", "kwarg", "negative", "width shape", "empty axis",
                                  "stat 0", "wrap empty"])
def test_pad_errors(case):
    def body(xp):
        a = xp.ones((2, 3))
        if case == "mode":
            return xp.pad(a, 1, "nope")
        if case == "kwarg":
            return xp.pad(a, 1, "edge", stat_length=2)
        if case == "negative":
            return xp.pad(a, -1)
        if case == "width shape":
            return xp.pad(a, ((1, 2, 3),))
        if case == "empty axis":
            return xp.pad(xp.ones((0, 2)), 1, "maximum")
        if case == "stat 0":
            return xp.pad(a, 1, "maximum", stat_length=0)
        return xp.pad(xp.ones((2, 0)), 1, "wrap")
    assert_error(body, ValueError, "asnumpy.pad")


# -- append, insert, delete -------------------------------------------------------------------

@for_views_and_dtypes()
@same_as_numpy()
def test_append(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    row = arr(xp, (1, a.shape[1]), dtype)
    col = arr(xp, (a.shape[0], 2), dtype)
    return [xp.append(a, row), xp.append(a, row, axis=0), xp.append(a, col, axis=1),
            xp.append(a, [1.5, 2]), xp.append(a[0], 7), xp.append(arr(xp, (), dtype), [1, 2]),
            xp.append(xp.zeros((0, a.shape[1]), dtype), row, 0), xp.append(a, a, -1)]


def test_append_errors():
    assert_error(lambda xp: xp.append(xp.ones((2, 3)), xp.ones(3), 0), ValueError,
                 "asnumpy.append")
    assert_error(lambda xp: xp.append(xp.ones((2, 3)), xp.ones((2, 2)), 0), ValueError,
                 "asnumpy.append")
    assert_error(lambda xp: xp.append(xp.ones((2, 3)), xp.ones((2, 2)), 2), AxisError,
                 "asnumpy.append")
    assert_error(lambda xp: xp.append(xp.ones(()), xp.ones(()), 0), ValueError,
                 "asnumpy.append")


@for_views_and_dtypes()
@same_as_numpy()
def test_insert(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    n0, n1 = a.shape
    many = numpy.random.randint(-n1, n1 + 1, 40)
    return [xp.insert(a, 1, values((), dtype)), xp.insert(a, -1, values((n1,), dtype), 0),
            xp.insert(a, 0, values((n0,), dtype), axis=1),
            xp.insert(a, [0], values((n0, 1), dtype), axis=1),
            xp.insert(a, [1, 1, n1], values((3,), dtype), axis=1),
            xp.insert(a, [3, -1, 0, 3], values((n0, 4), dtype), axis=1),
            xp.insert(a, slice(0, n0, 2), values((), dtype), axis=0),
            xp.insert(a, [], values((), dtype), axis=0),
            xp.insert(a, n1, values((2, n0, 1), dtype)[0], axis=1),
            xp.insert(a, many, values((), dtype), axis=1),
            xp.insert(a[0], numpy.arange(n1) % 3 == 0, values(((n1 + 2) // 3,), dtype)),
            xp.insert(a, 3, xp.asarray(values((), dtype))),
            xp.insert(arr(xp, (), dtype), 0, values((2,), dtype))]


@testing.with_seed()
@same_as_numpy(accept_error=OverflowError)
def test_insert_converts_values(xp):
    ints = arr(xp, (5,), numpy.int8)
    return [xp.insert(ints, 2, 7.9), xp.insert(ints, [1, 2], [2.5, -3.5]),
            xp.insert(ints, 0, 300)]


def test_insert_errors():
    assert_error(lambda xp: xp.insert(xp.ones(3), 5, 1), IndexError, "asnumpy.insert")
    assert_error(lambda xp: xp.insert(xp.ones(3), -5, 1), IndexError, "asnumpy.insert")
    assert_error(lambda xp: xp.insert(xp.ones(3), [[1]], 1), ValueError, "asnumpy.insert")
    assert_error(lambda xp: xp.insert(xp.ones((2, 3)), 1, 1, axis=2), AxisError,
                 "asnumpy.insert")
    assert_error(lambda xp: xp.insert(xp.ones((2, 3)), 1, xp.ones(2), axis=0), ValueError,
                 "asnumpy.insert")
    assert_error(lambda xp: xp.insert(xp.ones((2, 3)), [0, 1], xp.ones((3, 2)), axis=0),
                 ValueError, "asnumpy.insert")
    assert_error(lambda xp: xp.insert(xp.ones(3), 1.0, 1), TypeError, "asnumpy.insert")


@for_views_and_dtypes()
@same_as_numpy()
def test_delete(xp, dtype, view):
    a = VIEWS[view](arr(xp, (4, 6), dtype))
    n0, n1 = a.shape
    mask = numpy.random.random_sample(n1) < 0.5
    return [xp.delete(a, 1), xp.delete(a, -1, 0), xp.delete(a, [0, 2, 2], axis=1),
            xp.delete(a, slice(None, None, 2), 0), xp.delete(a, slice(None, None, -3)),
            xp.delete(a, slice(3, 1), 1), xp.delete(a, mask, axis=1),
            xp.delete(a, xp.asarray(mask), axis=1), xp.delete(a, [], 0),
            xp.delete(a, numpy.array([1], numpy.uint8), 1),
            xp.delete(a, numpy.arange(0, n0 * n1, 2)),
            xp.delete(a, numpy.random.random_sample(n0 * n1) < 0.5),
            xp.delete(a, list(range(n0)), 0), xp.delete(arr(xp, (), dtype), 0),
            xp.delete(arr(xp, (3, 200), dtype)[:, ::-1], numpy.arange(0, 200, 3), axis=1)]


def test_delete_errors():
    assert_error(lambda xp: xp.delete(xp.ones(3), 3), IndexError, "asnumpy.delete")
    assert_error(lambda xp: xp.delete(xp.ones(3), [0, 4]), IndexError, "asnumpy.delete")
    assert_error(lambda xp: xp.delete(xp.ones(3), numpy.array([True, False])), ValueError,
                 "asnumpy.delete")
    assert_error(lambda xp: xp.delete(xp.ones((2, 3)), 0, axis=-3), AxisError, "asnumpy.delete")
    assert_error(lambda xp: xp.delete(xp.ones(3), [0.5]), IndexError, "asnumpy.delete")


# -- trim_zeros -------------------------------------------------------------------------------

@testing.with_seed()
@testing.for_all_dtypes()
@pytest.mark.parametrize("trim", ["f", "b", "fb", "BF"])
@same_as_numpy()
def test_trim_zeros(xp, dtype, trim):
    host = numpy.zeros((6, 7), dtype)
    host[1:4, 2:5] = values((3, 3), dtype)
    host[2, 2] = 1
    a = xp.asarray(host)
    line = xp.asarray(host[2])
    return [xp.trim_zeros(a, trim), xp.trim_zeros(a, trim, axis=0),
            xp.trim_zeros(a, trim, axis=-1), xp.trim_zeros(a.T[::-1], trim, axis=(0, 1)),
            xp.trim_zeros(line, trim), xp.trim_zeros(xp.zeros((3, 4), dtype), trim),
            xp.trim_zeros(xp.zeros((3, 4), dtype), trim, 1), xp.trim_zeros(a, trim, ()),
            xp.trim_zeros(xp.zeros(0, dtype), trim), xp.trim_zeros(xp.asarray(host[0, 0]))]


def test_trim_zeros_nan_and_errors():
    testing.assert_array_equal(
        asnumpy.trim_zeros(asnumpy.asarray([0.0, numpy.nan, 1.0, 0.0])),
        numpy.trim_zeros(numpy.array([0.0, numpy.nan, 1.0, 0.0])))
    assert_error(lambda xp: xp.trim_zeros(xp.ones(3), "x"), ValueError, "asnumpy.trim_zeros")
    assert_error(lambda xp: xp.trim_zeros(xp.ones(3), axis=1), AxisError, "asnumpy.trim_zeros")
    a = asnumpy.asarray([0, 1, 2, 0])
    trimmed = asnumpy.trim_zeros(a)
    assert trimmed.base is a


# -- apply_along_axis, apply_over_axes, piecewise ---------------------------------------------

@testing.with_seed()
@testing.for_all_dtypes(no_bool=True)
@pytest.mark.parametrize("axis", [0, 1, -1])
@testing.numpy_asnumpy_allclose(rtol=1e-3, atol=1e-3, device_check=True)
def test_apply_along_axis(xp, dtype, axis):
    a = arr(xp, (3, 4, 5), dtype)[:, ::-1]
    return [xp.apply_along_axis(lambda v: v * 2, axis, a),
            xp.apply_along_axis(lambda v: v[0], axis, a),
            xp.apply_along_axis(lambda v, k: v[::k], axis, a, 2),
            xp.apply_along_axis(lambda v: xp.sum(v), axis, a),
            xp.apply_along_axis(lambda v: numpy.ones((2, 3)), axis, a),
            xp.apply_along_axis(lambda v, scale=1: v[1:] * scale, axis, a, scale=3)]


def test_apply_along_axis_passes_views_and_errors():
    seen = []
    a = asnumpy.asarray(values((2, 3), numpy.float64))
    asnumpy.apply_along_axis(lambda v: seen.append(type(v)) or 0.0, 1, a)
    assert seen == [asnumpy.ndarray, asnumpy.ndarray]
    assert_error(lambda xp: xp.apply_along_axis(lambda v: v, 2, xp.ones((2, 3))), AxisError,
                 "asnumpy.apply_along_axis")
    assert_error(lambda xp: xp.apply_along_axis(lambda v: v, 1, xp.ones((0, 3))), ValueError,
                 "asnumpy.apply_along_axis")


@testing.with_seed()
@testing.for_dtypes([numpy.int32, numpy.float32, numpy.float64, numpy.complex128])
@testing.numpy_asnumpy_allclose(rtol=1e-4, atol=1e-4, device_check=True)
def test_apply_over_axes(xp, dtype):
    a = arr(xp, (2, 3, 4), dtype)
    return [xp.apply_over_axes(xp.sum, a, [0, 2]), xp.apply_over_axes(xp.sum, a, 1),
            xp.apply_over_axes(xp.max if dtype != numpy.complex128 else xp.sum, a, (-1, 0)),
            xp.apply_over_axes(lambda x, axis: xp.mean(x, axis=axis, keepdims=True), a, [1]),
            xp.apply_over_axes(xp.sum, a, [])]


def test_apply_over_axes_errors():
    assert_error(lambda xp: xp.apply_over_axes(lambda x, axis: x.sum(), xp.ones((2, 3)), [0]),
                 ValueError, "asnumpy.apply_over_axes")


@testing.with_seed()
@testing.for_all_dtypes(no_bool=True)
@same_as_numpy()
def test_piecewise(xp, dtype):
    x = arr(xp, (4, 5), dtype)[::-1]
    real = x.real if xp.dtype(dtype).kind == "c" else x
    low, high = real < 0, real > 10
    return [xp.piecewise(x, [low, high], [lambda v: v * 2, lambda v: -v]),
            xp.piecewise(x, [low, high], [1, 2, lambda v: v + 1]),
            xp.piecewise(x[0], low[0], [3, 4]), xp.piecewise(x, [low], [lambda v: v[0]]),
            xp.piecewise(x, [low, low], [5, 6]),
            xp.piecewise(x, [xp.zeros(x.shape, bool)], [lambda v: v * 0, 9]),
            xp.piecewise(x, [low, high], [2.7, 1.2]),
            xp.piecewise(x, [low], [lambda v, k: v * k], 3),
            xp.piecewise(x[0, 0], [True], [lambda v: v + 1]),
            xp.piecewise(x[0, 0], [False, True], [1, 2])]


def test_piecewise_errors():
    assert_error(lambda xp: xp.piecewise(xp.ones(3), [xp.ones(3, bool)], [1, 2, 3]),
                 ValueError, "asnumpy.piecewise")
    assert_error(lambda xp: xp.piecewise(xp.arange(3.0), [xp.arange(3.0) > 0],
                                         [lambda v: xp.ones(5)]),
                 ValueError, "asnumpy.piecewise")
    assert_error(lambda xp: xp.piecewise(xp.ones((2, 3)), xp.ones((2, 3)) > 0, [1, 2]),
                 IndexError, "asnumpy.piecewise")


def test_public_namespace():
    for name in ("flip", "fliplr", "flipud", "roll", "rot90", "repeat", "tile", "pad",
                 "append", "delete", "insert", "trim_zeros", "apply_along_axis",
                 "apply_over_axes", "piecewise"):
        assert callable(getattr(asnumpy, name))
