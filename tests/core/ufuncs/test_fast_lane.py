"""The fast lane (src/asnumpy/_core/ufuncs/fast.py) against the general path and NumPy.

Small ufunc calls, operators, argument-free reductions and int/slice
indexing on the cpu device take a lane that calls NumPy directly.  Each
test runs the same call through the lane and through the general path
(forced by an open ``with stream:`` block, which turns every lane off) and
requires identical results: values bit for bit, dtype, shape and strides.
"""

from __future__ import annotations

import pickle
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asnumpy as ap
from asnumpy import testing
from asnumpy.backends.cpu import math_kernels

pytestmark = pytest.mark.cpu_default("the lane serves devices that run NumPy's loops (cpu)")

_DTYPES = ["bool", "int8", "uint8", "int32", "uint64", "int64", "float16", "float32", "float64",
           "complex64", "complex128"]
_BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "fmin", "arctan2",
           "floor_divide", "remainder", "bitwise_and", "left_shift", "equal", "less", "hypot",
           "logaddexp", "copysign", "nextafter", "logical_xor", "gcd"]
_UNARY = ["negative", "absolute", "exp", "log", "sqrt", "sin", "tanh", "expm1", "floor",
          "isnan", "signbit", "invert", "reciprocal", "square", "sign", "conjugate"]


def _random(shape, dtype):
    rng = np.random.default_rng(np.random.randint(2**31))   # the test-seeded global state
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -50), min(info.max, 50), shape, endpoint=True,
                            dtype=dtype)
    values = rng.standard_normal(shape) * 4
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    values = values.astype(dtype)
    flat = values.reshape(-1)
    if flat.size >= 4:                      # special values among the random ones
        flat[:4] = [np.nan, np.inf, -0.0, 0.0]
    return values


def _general(call):
    """``call()`` through the general path: an open stream block turns the lanes off."""
    with ap.get_current_stream():
        return call()


def _identical(lane_result, general_result):
    assert type(lane_result) is type(general_result)
    if isinstance(lane_result, ap.ndarray):
        assert lane_result.dtype == general_result.dtype
        assert lane_result.shape == general_result.shape
        assert lane_result.strides == general_result.strides
        a, b = lane_result.get(), general_result.get()
        assert a.tobytes() == b.tobytes() or np.array_equal(a, b, equal_nan=True)
    else:
        assert lane_result is general_result


def _took_lane(array) -> bool:
    """A lane result adopts NumPy's memory: it has no buffer until one is needed."""
    return array._buffer is None


def _quiet(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:            # the error itself is compared
            return None, exc


@pytest.mark.parametrize("name", _BINARY)
@pytest.mark.parametrize("dtype", _DTYPES)
def test_binary_lane_equals_general_path(name, dtype):
    ufunc = getattr(ap, name)
    x = ap.asarray(_random((3, 5), dtype))
    y = ap.asarray(_random((3, 5), dtype))
    lane, lane_error = _quiet(lambda: ufunc(x, y))
    general, general_error = _quiet(lambda: _general(lambda: ufunc(x, y)))
    assert type(lane_error) is type(general_error)
    if lane_error is not None:
        assert str(lane_error) == str(general_error)      # the general path's message
        return
    _identical(lane, general)
    expected = _quiet(lambda: getattr(np, name)(x.get(), y.get()))[0]
    np.testing.assert_array_equal(lane.get(), expected)
    assert lane.dtype == expected.dtype


@pytest.mark.parametrize("name", _UNARY)
@pytest.mark.parametrize("dtype", _DTYPES)
def test_unary_lane_equals_general_path(name, dtype):
    ufunc = getattr(ap, name)
    x = ap.asarray(_random((4, 3), dtype))
    lane, lane_error = _quiet(lambda: ufunc(x))
    general, general_error = _quiet(lambda: _general(lambda: ufunc(x)))
    assert type(lane_error) is type(general_error)
    if lane_error is None:
        _identical(lane, general)
    else:
        assert str(lane_error) == str(general_error)


_LAYOUTS = {          # (NumPy arrays and asnumpy arrays take the same views)
    "contiguous": lambda a, xp: a,
    "fortran": lambda a, xp: xp.asfortranarray(a),
    "strided": lambda a, xp: a[::2],
    "reversed": lambda a, xp: a[::-1, ::-1],
    "transposed": lambda a, xp: a.T,
    "empty": lambda a, xp: a[:0],
    "zero-d": lambda a, xp: a[0, 0],
}


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
@pytest.mark.parametrize("operator", ["+", "*", "<", "/"])
def test_operators_on_every_layout(layout, operator):
    hosts = [_random((6, 4), "float64"), _random((6, 4), "float32")]
    x, y = (_LAYOUTS[layout](ap.asarray(h), ap) for h in hosts)
    expression = f"x {operator} y"
    lane = eval(expression, {"x": x, "y": y})
    general = _general(lambda: eval(expression, {"x": x, "y": y}))
    _identical(lane, general)
    expected = eval(expression, {"x": x.get(), "y": y.get()})
    np.testing.assert_array_equal(lane.get(), expected)
    assert lane.strides == np.asarray(expected).strides
    host_views = eval(expression, dict(zip("xy", (_LAYOUTS[layout](h, np) for h in hosts))))
    np.testing.assert_array_equal(lane.get(), host_views)


@pytest.mark.parametrize("scalar", [2, -3, 2.5, 1 + 2j, True, 300, 2**70, -1])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "float32", "complex64", "bool"])
def test_python_scalars_follow_nep50(scalar, dtype):
    x = ap.asarray(_random((5,), dtype))
    for call in (lambda: x + scalar, lambda: scalar * x, lambda: x < scalar,
                 lambda: ap.subtract(scalar, x)):
        lane, lane_error = _quiet(call)
        general, general_error = _quiet(lambda: _general(call))
        assert type(lane_error) is type(general_error)
        if lane_error is None:
            _identical(lane, general)
        else:
            assert str(lane_error) == str(general_error)


def test_small_calls_take_the_lane_and_the_others_do_not(monkeypatch):
    x = ap.asarray(_random((8,), "float64"))
    y = ap.asarray(_random((8,), "float64"))
    assert _took_lane(x + y) and _took_lane(ap.exp(x)) and _took_lane(3 - x)
    assert _took_lane(x.sum()) and _took_lane(ap.maximum(x, 0.5))
    assert not _took_lane(_general(lambda: x + y))
    # broadcasting other than with 0-d, mixed devices, keywords: the general path
    assert not _took_lane(x + ap.ones((2, 1)))
    assert not _took_lane(ap.add(x, y, dtype="float32"))
    assert not _took_lane(ap.floor_divide(x, y))      # the standard's special values
    # work the general path would split across threads
    monkeypatch.setattr(math_kernels, "SPLIT_MIN_WORK", 64)
    assert not _took_lane(x + y)
    monkeypatch.setattr(math_kernels, "REDUCE_SPLIT_MIN", 4)
    assert not _took_lane(x.sum())


def test_other_devices_and_mixed_devices_take_the_general_path():
    x = ap.asarray(_random((4,), "float64"), device="cpu:1")
    y = ap.asarray(_random((4,), "float64"), device="cpu:0")
    result = x * 2
    assert result.device == ap.Device("cpu:1") and _took_lane(result)
    with pytest.raises(ValueError, match="asnumpy"):
        x + y


def test_a_stream_block_on_another_thread_turns_the_lanes_off():
    x = ap.asarray(_random((16,), "float64"))
    entered, release = threading.Event(), threading.Event()

    def other_thread():
        with ap.Stream():
            entered.set()
            release.wait(10)

    worker = threading.Thread(target=other_thread)
    worker.start()
    try:
        entered.wait(10)
        result = x + 1
        assert not _took_lane(result)
        np.testing.assert_array_equal(result.get(), x.get() + 1)
    finally:
        release.set()
        worker.join()
    assert _took_lane(x + 1)


@pytest.mark.parametrize("out_form", ["keyword", "tuple", "positional"])
def test_out_is_written_and_returned(out_form):
    x = ap.asarray(_random((3, 4), "float32"))
    y = ap.asarray(_random((3, 4), "float32"))
    out = ap.empty((3, 4), "float64")
    if out_form == "keyword":
        result = ap.multiply(x, y, out=out)
    elif out_form == "tuple":
        result = ap.multiply(x, y, out=(out,))
    else:
        result = ap.multiply(x, y, out)
    assert result is out
    np.testing.assert_array_equal(out.get(), (x.get() * y.get()).astype("float64"))


def test_in_place_operators_match_numpy():
    host = _random((5, 3), "int32")
    x = ap.asarray(host)
    view = x[1:]
    view += 7
    view *= 2
    expected = host.copy()
    expected[1:] += 7
    expected[1:] *= 2
    np.testing.assert_array_equal(x.get(), expected)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        x += 1.5                                   # same_kind casting refuses float -> int
    np.testing.assert_array_equal(x.get(), expected)   # untouched


def test_errors_leave_out_untouched():
    x = ap.asarray(_random((4,), "float64"))
    out = ap.zeros((4,), "int16")
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        ap.add(x, x, out=out)
    np.testing.assert_array_equal(out.get(), np.zeros(4, "int16"))
    read_only = ap.zeros((4,))
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ap.add(x, x, out=read_only)
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):
        ap.asarray(np.zeros(3, "int8")) + 300
    with pytest.raises(TypeError):
        x + "text"


def test_floating_point_errors_follow_errstate():
    x = ap.asarray(np.array([1.0, 0.0]))
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            x / 0.0
    with pytest.warns(RuntimeWarning):
        x / 0.0


def test_lane_results_are_ordinary_arrays():
    x = ap.asarray(np.arange(12.0).reshape(3, 4))
    result = x * 2
    assert _took_lane(result)
    # views share its memory, writes through them are seen
    view = result[1:, ::2]
    view[...] = -1
    assert view.base is result
    assert (result.get()[1:, ::2] == -1).all()
    assert ap.may_share_memory(result, view)
    assert not ap.may_share_memory(result, x)
    # layout changes in place keep the data
    result.shape = (4, 3)
    expected = np.arange(12.0).reshape(3, 4) * 2
    expected[1:, ::2] = -1
    np.testing.assert_array_equal(result.get(), expected.reshape(4, 3))
    # copies to another device, pickling, DLPack, the buffer protocol
    moved = result.to("cpu:1")
    np.testing.assert_array_equal(moved.get(), result.get())
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(result)).get(), result.get())
    np.testing.assert_array_equal(np.from_dlpack(result), result.get())
    assert ap.asnumpy(result.reshape(-1)[3:]).tolist() == result.get().ravel()[3:].tolist()


@pytest.mark.parametrize("method", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (), (0,)])
def test_reduction_lane_equals_general_path(method, dtype, shape):
    host = _random(shape, dtype)
    x = ap.asarray(host)
    lane, lane_error = _quiet(lambda: getattr(x, method)())
    general, general_error = _quiet(lambda: _general(lambda: getattr(x, method)()))
    assert type(lane_error) is type(general_error)
    if lane_error is not None:
        assert str(lane_error) == str(general_error)
        return
    _identical(lane, general)
    function, function_error = _quiet(lambda: getattr(ap, method)(x))
    _identical(function, general)
    expected = _quiet(lambda: getattr(host, method)())[0]
    assert lane.dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(lane.get(), expected)


@testing.numpy_asnumpy_array_equal(strides_check=True)
def _basic_index(xp, key, shape):
    array = xp.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    return array[key]


@pytest.mark.parametrize("shape", [(6,), (5, 3), (4, 0), (3, 2, 2)])
@pytest.mark.parametrize("key", [0, 2, -1, -3, slice(1, 4), slice(None, None, -1), slice(4, 0, -2),
                                 slice(2, 2), slice(10, 20), slice(-100, 2), slice(None)])
def test_int_and_slice_keys_match_numpy(shape, key):
    if type(key) is int and not -shape[0] <= key < shape[0]:
        pytest.skip("out of range: tested below")
    _basic_index(key=key, shape=shape)


@pytest.mark.parametrize("key", [6, -7])
def test_out_of_range_int_keys_raise_numpys_index_error(key):
    x = ap.asarray(np.arange(6.0))
    with pytest.raises(IndexError, match=f"index {key} is out of bounds for axis 0 with size 6"):
        x[key]


def test_slices_of_read_only_arrays_stay_read_only():
    x = ap.asarray(np.arange(6.0))
    x.flags.writeable = False
    assert not x[1:4].flags.writeable and not x[2].flags.writeable
    np.testing.assert_array_equal((x[1:4] + 1).get(), np.arange(6.0)[1:4] + 1)


_PYTHON_SCALARS = {"int": int, "float": float, "complex": complex}
_SHAPES = st.sampled_from([(), (1,), (5,), (2, 3), (0, 3)])


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(_BINARY), left=st.sampled_from(_DTYPES),
       right=st.sampled_from(_DTYPES + ["int", "float", "complex"]), shape=_SHAPES,
       right_shape=st.sampled_from(["same", "0-d"]))
def test_mixed_operands_match_numpy(name, left, right, shape, right_shape):
    host_x = _random(shape, left)
    if right in _PYTHON_SCALARS:
        host_y = y = _PYTHON_SCALARS[right](3)
    else:
        host_y = _random(shape if right_shape == "same" else (), right)
        y = ap.asarray(host_y)
    x = ap.asarray(host_x)
    ufunc = getattr(ap, name)
    result, error = _quiet(lambda: ufunc(x, y))
    general, general_error = _quiet(lambda: _general(lambda: ufunc(x, y)))
    assert type(error) is type(general_error)
    if error is None:
        _identical(result, general)
    expected, expected_error = _quiet(lambda: getattr(np, name)(host_x, host_y))
    assert (error is None) == (expected_error is None), (error, expected_error)
    if error is None and name not in math_kernels.STANDARD_VALUES:   # (those follow the
        expected = np.asarray(expected)                               # Array API's values)
        assert result.dtype == expected.dtype and result.shape == expected.shape
        np.testing.assert_array_equal(result.get(), expected)


# Errors raised by NumPy's loop itself, part-way or after it: a call with out=
# (or an in-place operator) leaves out exactly as NumPy's own call leaves it,
# on the lane and on the general path alike (never the operation applied twice).
_LOOP_ERRORS = {
    # an integer power stops at the first negative exponent, having written those before it
    "power, int8 exponents": ("power", "__ipow__", np.array([2, 3, -15, 4], np.int8),
                              np.array([2, 2, -1, 2], np.int8), None),
    "power, scalar -1": ("power", "__ipow__", np.array([2, 3, -15, 4], np.int64), -1, None),
    # floating-point errors are raised after the loop: out holds the whole result
    "floor_divide by zero": ("floor_divide", "__ifloordiv__", np.array([7, 8, 9, 10], np.int32),
                             np.array([2, 0, 3, 1], np.int32), "raise"),
    "remainder by zero": ("remainder", "__imod__", np.array([7, 8, 9, 10], np.int32),
                          np.array([2, 0, 3, 1], np.int32), "raise"),
    "multiply overflows": ("multiply", "__imul__", np.array([1e300, 2.0, 3.0, 4.0]),
                           np.array([1e300, 2.0, 3.0, 4.0]), "raise"),
    "divide by zero": ("divide", "__itruediv__", np.array([1.0, 2.0, 3.0, 4.0]),
                       np.array([1.0, 0.0, 3.0, 4.0]), "raise"),
}


def _loop_error_result(xp, case, form, path=lambda call: call()):
    """(what x holds, the error's type) after ``name(x, y, out=x)`` or ``x <op>= y``."""
    name, dunder, x, y, errstate = _LOOP_ERRORS[case]
    x = xp.asarray(x.copy())
    y = xp.asarray(y) if isinstance(y, np.ndarray) else y
    if form == "out=":
        call = lambda: getattr(xp, name)(x, y, out=x)
    else:
        call = lambda: getattr(x, dunder)(y)
    error = None
    try:
        with np.errstate(all=errstate or "warn"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            path(call)
    except Exception as exc:                # the error's type is compared
        error = type(exc)
    return (x.get() if xp is ap else x), error


@pytest.mark.parametrize("path", ["lane", "general"])
@pytest.mark.parametrize("form", ["out=", "in place"])
@pytest.mark.parametrize("case", sorted(_LOOP_ERRORS))
def test_an_error_from_numpys_loop_leaves_out_as_numpy_does(case, form, path):
    expected, expected_error = _loop_error_result(np, case, form)
    assert expected_error is not None
    held, error = _loop_error_result(ap, case, form, _general if path == "general" else
                                     (lambda call: call()))
    assert error is expected_error
    np.testing.assert_array_equal(held, expected)


def _last_slab_first(task, count, parts=None):
    """``parallel.run`` on one schedule threads may take: the slabs last to first,
    every one run, the first error raised at the end."""
    errors = []
    for i in reversed(range(count)):
        try:
            task(i)
        except Exception as exc:            # noqa: BLE001 (raised below, as run raises it)
            errors.append(exc)
    if errors:
        raise errors[0]
    return 0


@pytest.mark.parametrize("exponent_dtype", ["int8", "int64"])
def test_a_split_integer_power_stops_where_numpy_stops(monkeypatch, exponent_dtype):
    # work the general path would split across threads: every slab after the
    # failing one would be written too, unlike NumPy's one call
    monkeypatch.setattr(math_kernels, "SPLIT_MIN_WORK", 64)
    monkeypatch.setattr(math_kernels.parallel, "run", _last_slab_first)
    threads = ap.runtime.cpu_threads()
    ap.runtime.set_cpu_threads(4)
    try:
        base = (np.arange(4096) % 5 + 1).astype(exponent_dtype)
        exponents = np.full(4096, 2, exponent_dtype)
        exponents[1000] = -1
        x = ap.asarray(base.copy())
        with pytest.raises(ValueError, match="negative integer powers"):
            x **= ap.asarray(exponents)
        expected = base.copy()
        with pytest.raises(ValueError):
            np.power(expected, exponents, out=expected)
        np.testing.assert_array_equal(x.get(), expected)
        # without a negative exponent the call is split as before, and equal
        x = ap.asarray(base.copy())
        x **= ap.asarray(np.abs(exponents))
        np.testing.assert_array_equal(x.get(), base ** np.abs(exponents))
    finally:
        ap.runtime.set_cpu_threads(threads)


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_results_come_from_the_pool_while_it_counts_every_array(pool, layout):
    # under a limit (or set_accounting(True)) the lane writes its results into
    # pool blocks: still identical to the general path's, strides included
    hosts = [_random((6, 4), "float64"), _random((6, 4), "float32")]
    x, y = (_LAYOUTS[layout](ap.asarray(h), ap) for h in hosts)
    calls = [lambda: x + y, lambda: 3 - x, lambda: ap.exp(y), lambda: x < 0.5,
             lambda: ap.add(x, 1, dtype=None), lambda: x.sum(), lambda: ap.mean(y)]
    pool.set_accounting(True)
    try:
        for call in calls:
            result = call()
            # (an empty result has no bytes to count: the pool hands out no block)
            assert result._buffer is not None and (result._buffer._pool is pool or not result.size)
            _identical(result, _general(call))
    finally:
        pool.set_accounting(False)
    assert all(_took_lane(call()) for call in calls[:4] if layout == "contiguous")
