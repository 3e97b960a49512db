"""Transfers between the host and devices, checked against NumPy.

``asarray`` / ``array`` are compared with ``numpy.asarray`` / ``numpy.array``
on the same input (dtype, shape, strides, values); ``asnumpy``, ``get``,
``to_numpy``, ``from_numpy`` and ``to`` must round-trip every dtype and
layout exactly, on the default stream and on user streams, across devices.
"""

from __future__ import annotations

import gc
import threading
import warnings

import numpy as np
import pytest

import asnumpy as anp
from _inputs import ALL_DTYPES, DTYPE_IDS, assert_same_array, random_data

MULTIBYTE_DTYPES = [d for d in ALL_DTYPES if d.itemsize > 1]

# name -> (shape of the random base array, its memory order, NumPy view of it)
LAYOUTS = {
    "c": ((4, 5), "C", lambda x: x),
    "f": ((4, 5), "F", lambda x: x),
    "odd_3d": ((3, 5, 7), "C", lambda x: x),
    "f_3d_view": ((3, 5, 7), "F", lambda x: x[1:, ::2]),
    "strided": ((6, 9), "C", lambda x: x[::2, 1::3]),
    "negative": ((6, 9), "C", lambda x: x[::-1, ::-2]),
    "permuted": ((3, 5, 7), "C", lambda x: x.transpose(1, 2, 0)[:, ::-1]),
    "broadcast": ((7,), "C", lambda x: np.broadcast_to(x, (3, 7))),
    "zero_d": ((), "C", lambda x: x),
    "empty": ((0, 4), "C", lambda x: x),
    "empty_view": ((4, 5), "C", lambda x: x[:, 5:]),
}
LAYOUT_IDS = list(LAYOUTS)


def host_layout(rng, layout, dtype) -> np.ndarray:
    """A random NumPy array of ``dtype`` in ``layout``."""
    shape, order, view = LAYOUTS[layout]
    return view(random_data(rng, shape, dtype, order))


def assert_same_host_array(actual, expected):
    """NumPy array ``actual`` equals ``expected`` exactly (values, dtype, shape)."""
    assert type(actual) is np.ndarray
    np.testing.assert_array_equal(actual, expected, strict=True)


def blocked_stream():
    """A user stream of cpu:0 held up until the returned event is set.

    The gate is a host function the stream's worker thread waits in; cuda
    streams queue work on the calling thread, so tests using this pin cpu:0.
    """
    stream = anp.Stream("cpu:0")
    release = threading.Event()
    stream.launch(release.wait)
    return stream, release


# -- asarray / array from NumPy arrays ----------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_asarray_of_numpy_arrays_matches_numpy(rng, layout, dtype):
    x = host_layout(rng, layout, dtype)
    a = anp.asarray(x)
    expected = np.array(x, order="K")
    assert_same_array(a, expected)
    assert a.strides == expected.strides
    assert a.flags.owndata and a.flags.writeable
    assert a.device == anp.get_device()
    assert_same_host_array(anp.asnumpy(a), x)


@pytest.mark.parametrize("order", ["C", "F", "A", "K", None])
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_asarray_and_array_order_match_numpy(rng, layout, order):
    x = host_layout(rng, layout, np.float32)
    # asnumpy.asarray always copies NumPy data to the device: NumPy's copy rules apply.
    expected = np.array(x, order=order, copy=True)
    for convert in (anp.asarray, anp.array):
        result = convert(x, order=order)
        assert_same_array(result, expected)
        assert result.strides == expected.strides
        assert result.flags.c_contiguous == expected.flags.c_contiguous
        assert result.flags.f_contiguous == expected.flags.f_contiguous


@pytest.mark.parametrize("dtype", MULTIBYTE_DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["c", "f", "negative", "zero_d"])
def test_non_native_byte_order_is_stored_natively(rng, layout, dtype):
    x = host_layout(rng, layout, dtype)
    swapped = x.astype(dtype.newbyteorder())
    for result in (anp.asarray(swapped), anp.array(swapped), anp.ndarray.from_numpy(swapped),
                   anp.asarray(x, dtype=dtype.newbyteorder())):
        assert result.dtype == dtype and result.dtype.isnative
        assert_same_array(result, np.asarray(x))
    assert anp.asarray(swapped).strides == np.array(x, order="K").strides


@pytest.mark.parametrize("target", ALL_DTYPES, ids=DTYPE_IDS)
def test_asarray_with_dtype_casts_like_numpy(rng, target):
    x = random_data(rng, (3, 4), np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.asarray(x, dtype=target)
        result = anp.asarray(x, dtype=target)
    assert_same_array(result, expected)
    values = x.tolist()
    try:
        expected_list = np.array(values, dtype=target)
    except OverflowError:
        with pytest.raises(OverflowError):
            anp.array(values, dtype=target)
    else:
        assert_same_array(anp.array(values, dtype=target), expected_list)
    small = np.abs(x / 10).astype(np.int8).tolist()
    assert_same_array(anp.asarray(small, dtype=target), np.asarray(small, dtype=target))


# -- other inputs --------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -7, 2**40, 2**63, True, False, 1.5, -0.0, float("inf"),
                                   1 + 2j, np.float32(2.5), np.int8(-3), np.uint16(9),
                                   np.complex64(1j), np.bool_(True), np.float16(0.1)], ids=repr)
def test_scalars_match_numpy(value):
    for convert, reference in ((anp.asarray, np.asarray), (anp.array, np.array)):
        result = convert(value)
        assert result.ndim == 0
        assert_same_array(result, reference(value))
        assert result.item() == reference(value).item()


@pytest.mark.parametrize("value", [
    [1, 2, 3], [[1.5, 2], [3, 4]], (1, 2.5, 3j), [[True, False]], [], [[], []],
    [[[1], [2]], [[3], [4]]], [np.int8(1), np.int16(2)], [np.float32(1.5), 2],
    (np.arange(3), np.ones(3)), [np.array(1, np.float32), 2],
], ids=repr)
def test_nested_sequences_match_numpy(value):
    assert_same_array(anp.asarray(value), np.asarray(value))
    assert_same_array(anp.array(value), np.array(value))
    assert_same_array(anp.array(value, dtype=np.complex64), np.array(value, dtype=np.complex64))


def test_sequences_containing_asnumpy_arrays(rng):
    rows = [random_data(rng, (4,), dtype) for dtype in (np.int8, np.int8, np.int8)]
    device_rows = [anp.asarray(r) for r in rows]
    assert_same_array(anp.asarray(device_rows), np.asarray(rows))
    assert_same_array(anp.array(device_rows), np.array(rows))
    mixed = [device_rows[0], rows[1].tolist(), rows[2]]
    assert_same_array(anp.asarray(mixed), np.asarray([rows[0], rows[1].tolist(), rows[2]]))
    scalars = [anp.asarray(np.float32(1.5)), 2, anp.asarray(np.int64(3))]
    assert_same_array(anp.asarray(scalars),
                      np.asarray([np.array(1.5, np.float32), 2, np.array(3)]))
    nested = [[device_rows[0], device_rows[1]], [rows[2], device_rows[0].get()]]
    assert_same_array(anp.asarray(nested, dtype=np.float64),
                      np.asarray([[rows[0], rows[1]], [rows[2], rows[0]]], dtype=np.float64))
    # the mixing rule: a sequence of arrays lands on their device; two devices raise
    elsewhere = anp.asarray(rows[0], device="cpu:1")
    together = anp.asarray([elsewhere, rows[1]])
    assert together.device == anp.Device("cpu:1")
    assert_same_array(together, np.asarray(rows[:2]))
    with pytest.raises(ValueError, match="different devices"):
        anp.asarray([elsewhere, device_rows[1]])
    with pytest.raises(ValueError, match="different devices"):
        anp.asarray([elsewhere], device="cpu:2")


def test_objects_with_array_interface(rng):
    data = random_data(rng, (3, 2), np.int32)

    class ArrayLike:
        def __array__(self, dtype=None, copy=None):
            return data if dtype is None else data.astype(dtype)

    assert_same_array(anp.asarray(ArrayLike()), data)
    assert_same_array(anp.array(ArrayLike(), dtype=np.float32), data.astype(np.float32))


def test_buffers_match_numpy(rng):
    data = random_data(rng, (6,), np.int16)
    for buffer in (memoryview(data), bytearray(data.tobytes()), memoryview(b"abc\x00\xff"),
                   memoryview(random_data(rng, (2, 3), np.float32))):
        assert_same_array(anp.asarray(buffer), np.asarray(buffer))
    with pytest.raises(TypeError, match="asarray"):
        anp.asarray(b"abc")


@pytest.mark.parametrize("value", [["a", "b"], "text", [1, None], np.array(["x"]),
                                   np.array([1, "a"], dtype=object), [{}], 2**64,
                                   np.zeros(2, dtype="datetime64[s]"),
                                   np.zeros(2, dtype=[("a", "i4")])], ids=repr)
def test_non_numeric_data_is_type_error(value):
    for convert in (anp.asarray, anp.array, anp.ndarray.from_numpy):
        with pytest.raises(TypeError):
            convert(value)
    if isinstance(value, np.ndarray):
        with pytest.raises(TypeError):
            anp.asarray(value, copy=False)


@pytest.mark.parametrize("value", [np.array([1, "a"], dtype=object),
                                   np.zeros(2, dtype=[("a", "i4")])], ids=repr)
def test_non_numeric_data_is_type_error_before_the_aliasing_error(cuda, value):
    """copy=False onto a device that cannot alias host memory: the data's TypeError first."""
    with pytest.raises(TypeError, match="asarray"):
        anp.asarray(value, device=cuda, copy=False)


@pytest.mark.parametrize("dtype", ["U3", object, "S2", "M8[s]", "V4"])
def test_non_numeric_dtype_argument_is_type_error(rng, dtype):
    with pytest.raises(TypeError, match="asarray"):
        anp.asarray(random_data(rng, (2,), np.float64), dtype=dtype)


def test_argument_errors():
    data = np.arange(3.0)
    with pytest.raises(ValueError, match="order"):
        anp.asarray(data, order="Z")
    with pytest.raises(ValueError, match="order"):
        anp.asarray(data, order="Z", copy=False)
    with pytest.raises(ValueError, match="copy"):
        anp.asarray(data, copy="yes")
    with pytest.raises(ValueError):
        anp.asarray([[1], [1, 2]])
    with pytest.raises(TypeError):
        anp.asarray(data, stream="not a stream")
    with pytest.raises(ValueError):
        anp.asarray(data, device="gpu:0")


# -- ndmin ---------------------------------------------------------------------


@pytest.mark.parametrize("order", ["K", "C", "F", "A"])
@pytest.mark.parametrize("layout", ["c", "f", "negative", "strided", "zero_d", "empty"])
def test_array_ndmin_matches_numpy(on_cpu, rng, layout, order):
    x = host_layout(rng, layout, np.int32)
    # NumPy data is always copied to the device unless copy=False aliases it.
    cases = [(True, True), (None, True)]
    if order in ("K", "A") or x.flags[order]:
        cases.append((False, False))
    for copy, numpy_copy in cases:
        expected = np.array(x, ndmin=4, order=order, copy=numpy_copy)
        result = anp.array(x, ndmin=4, order=order, copy=copy)
        assert_same_array(result, expected)
        assert result.strides == expected.strides
    a = anp.asarray(x)
    assert anp.array(a, ndmin=1).shape == np.array(x, ndmin=1).shape
    assert anp.array(a, ndmin=4, copy=None).base is (a if a.base is None else a.base)


# -- asnumpy arrays as input ---------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_asarray_of_asnumpy_array_on_same_device(rng, layout):
    x = host_layout(rng, layout, np.float64)
    a = anp.asarray(x)
    assert anp.asarray(a) is a
    assert anp.asarray(a, dtype=np.float64, copy=None) is a
    assert anp.asarray(a, copy=False) is a
    assert anp.asarray(a, device=a.device) is a
    dense = np.array(x, order="K")
    for order in ("K", "C", "F", "A"):
        for copied in (anp.array(a, order=order), anp.asarray(a, order=order, copy=True)):
            assert copied is not a and copied.flags.owndata
            assert_same_array(copied, dense)
            assert copied.strides == np.array(dense, order=order).strides
    cast = anp.asarray(a, dtype=np.float32)
    assert_same_array(cast, x.astype(np.float32))
    with pytest.raises(ValueError, match="copy"):
        anp.asarray(a, dtype=np.float32, copy=False)
    if not a.flags.f_contiguous:
        with pytest.raises(ValueError, match="copy"):
            anp.asarray(a, order="F", copy=False)
    expected_c = np.array(x, order="C")
    assert anp.asarray(a, order="C").strides == expected_c.strides


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", ["c", "f", "strided", "negative", "zero_d", "empty"])
def test_asarray_to_another_device_copies(rng, layout, dtype):
    x = host_layout(rng, layout, dtype)
    a = anp.asarray(x)
    for moved in (anp.asarray(a, device="cpu:1"), anp.array(a, device="cpu:1"),
                  anp.asarray(a, device=anp.Device("cpu:1"), copy=True)):
        assert moved.device == anp.Device("cpu:1") and moved is not a
        assert_same_array(moved, np.asarray(x))
        assert moved.strides == np.array(x, order="K").strides
    with pytest.raises(ValueError, match="cpu:1"):
        anp.asarray(a, device="cpu:1", copy=False)
    assert_same_array(anp.asarray(a, device="cpu:2", dtype=np.complex128),
                      np.asarray(x).astype(np.complex128))
    assert anp.asarray(a, device="cpu:1", order="F").flags.f_contiguous
    assert anp.asarray(x, device="cpu:3").device == anp.Device("cpu:3")


def test_current_device_is_the_default_target(rng):
    x = random_data(rng, (3,), np.float64)
    with anp.Device("cpu:2"):
        assert anp.asarray(x).device == anp.Device("cpu:2")
        assert anp.array(x.tolist()).device == anp.Device("cpu:2")
        assert anp.ndarray.from_numpy(x).device == anp.Device("cpu:2")
    a = anp.asarray(x, device="cpu:1")
    with anp.Device("cpu:2"):
        assert anp.asarray(a) is a


# -- copy=False aliases NumPy memory --------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", ["c", "f", "f_3d_view", "strided", "negative", "permuted",
                                    "zero_d", "empty", "empty_view"])
def test_copy_false_aliases_numpy_memory(on_cpu, rng, layout, dtype):
    x = host_layout(rng, layout, dtype)
    alias = anp.asarray(x, copy=False)
    assert_same_array(alias, x)
    assert alias.strides == x.strides
    assert not alias.flags.owndata
    assert anp.array(x, copy=False).strides == x.strides
    if x.size == 0:
        return
    first = (0,) * x.ndim
    new_values = random_data(rng, x.shape, dtype)
    x[...] = new_values
    assert_same_array(alias, new_values)
    alias[first] = np.zeros((), dtype)
    assert x[first] == 0
    alias[...] = new_values[::-1] if x.ndim else new_values
    np.testing.assert_array_equal(x, new_values[::-1] if x.ndim else new_values, strict=True)


def test_copy_false_keeps_memory_alive_and_respects_read_only(on_cpu, rng):
    x = random_data(rng, (5, 4), np.float64)
    expected = x.copy()
    alias = anp.asarray(x[::-1], copy=False)
    del x
    gc.collect()
    assert_same_array(alias, expected[::-1])
    read_only = np.broadcast_to(random_data(rng, (4,), np.int32), (3, 4))
    frozen = anp.asarray(read_only, copy=False)
    assert frozen.strides == (0, 4)
    assert not frozen.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        frozen[0] = 1
    with pytest.raises(ValueError):
        frozen.flags.writeable = True
    assert_same_array(frozen, read_only)


def test_unaligned_numpy_data_is_copied_but_not_aliased():
    raw = np.frombuffer(bytearray(range(33)), dtype=np.int32, offset=1, count=8)
    assert not raw.flags.aligned
    assert_same_array(anp.asarray(raw), raw)
    with pytest.raises(ValueError, match="copy"):
        anp.asarray(raw, copy=False)


@pytest.mark.parametrize("case", ["dtype", "list", "byte_order", "scalar", "order", "other_device"])
def test_copy_false_raises_value_error_when_a_copy_is_needed(rng, case):
    x = random_data(rng, (3, 4), np.float64)
    calls = {
        "dtype": lambda: anp.asarray(x, dtype=np.float32, copy=False),
        "list": lambda: anp.asarray(x.tolist(), copy=False),
        "byte_order": lambda: anp.asarray(x.astype(">f8"), copy=False),
        "scalar": lambda: anp.asarray(1.5, copy=False),
        "order": lambda: anp.asarray(x, order="F", copy=False),
        "other_device": lambda: anp.asarray(anp.asarray(x), device="cpu:1", copy=False),
    }
    with pytest.raises(ValueError, match="copy"):
        calls[case]()
    with pytest.raises(ValueError, match="copy"):
        anp.array(x.tolist(), copy=False)


def test_copy_none_and_true_do_not_alias(rng):
    x = random_data(rng, (3, 4), np.int16)
    copies = (anp.asarray(x), anp.asarray(x, copy=True), anp.array(x), anp.array(x, copy=None))
    for result in copies:
        result[0, 0] = 0
        x[1, 1] = 0
        assert result.flags.owndata
        assert not np.array_equal(result.get(), x)
        x[...] = random_data(rng, (3, 4), np.int16)


# -- asnumpy -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_asnumpy_round_trips_every_layout(rng, layout, dtype):
    x = host_layout(rng, layout, dtype)
    a = anp.asarray(x)
    for back in (anp.asnumpy(a), a.get(), a.to_numpy()):
        assert_same_host_array(back, x)
        assert back.flags.writeable
    assert_same_host_array(anp.asnumpy(a[..., ::-1] if a.ndim else a),
                           x[..., ::-1] if x.ndim else x)


def test_asnumpy_keeps_fortran_order(rng):
    x = random_data(rng, (4, 6), np.float64, order="F")
    back = anp.asnumpy(anp.asarray(x))
    assert back.flags.f_contiguous and back.strides == x.strides


@pytest.mark.parametrize("order", ["C", "F"])
def test_large_arrays_round_trip_through_the_host_pool(rng, order):
    x = random_data(rng, (1100, 700), np.float64, order=order)       # about 6 MB
    a = anp.asarray(x)
    back = a.get()
    assert_same_host_array(back, x)
    assert back.strides == x.strides
    assert_same_host_array(anp.asnumpy(a[::-2, 1::3]), x[::-2, 1::3])
    del back
    assert_same_host_array(anp.asnumpy(a.to("cpu:1")), x)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint32, np.float16, np.complex128], ids=str)
def test_asnumpy_out(rng, dtype):
    x = random_data(rng, (4, 6), dtype)
    a = anp.asarray(x)
    outs = (np.empty((4, 6), dtype), np.empty((6, 4), dtype).T, np.empty((4, 12), dtype)[:, ::2])
    for out in outs:
        assert anp.asnumpy(a, out=out) is out
        assert_same_host_array(out, x)
        out[...] = 0
        assert a.get(out=out) is out
        assert_same_host_array(out, x)
    other_dtype = np.int8 if dtype != np.int8 else np.int16
    for bad in (np.empty((6, 4), dtype), np.empty((4, 6), other_dtype), np.empty((24,), dtype)):
        with pytest.raises(ValueError, match="out"):
            anp.asnumpy(a, out=bad)
        with pytest.raises(ValueError, match="out"):
            a.get(out=bad)
    read_only = np.empty((4, 6), dtype)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        anp.asnumpy(a, out=read_only)
    with pytest.raises(TypeError, match="out"):
        anp.asnumpy(a, out=[[0] * 6] * 4)


def test_asnumpy_of_host_data(rng):
    x = random_data(rng, (3, 4), np.float32)
    assert_same_host_array(anp.asnumpy(x), x)
    assert_same_host_array(anp.asnumpy(x.tolist()), np.asarray(x.tolist()))
    assert_same_host_array(anp.asnumpy(2.5), np.asarray(2.5))
    out = np.empty((3, 4), np.float64)
    assert anp.asnumpy(x, out=out) is out
    assert_same_host_array(out, x.astype(np.float64))
    with pytest.raises(ValueError, match="out"):
        anp.asnumpy(x, out=np.empty((4, 3)))
    assert_same_host_array(anp.asnumpy(x, wait=False).wait(), x)


def test_asnumpy_wait_false_returns_a_handle(rng):
    x = random_data(rng, (50, 7), np.int64)
    a = anp.asarray(x)
    handle = anp.asnumpy(a, wait=False)
    assert isinstance(handle, anp.TransferHandle)
    assert_same_host_array(handle.wait(), x)
    assert handle.done()
    out = np.empty_like(x)
    assert anp.asnumpy(a, out=out, wait=False).wait() is out


@pytest.mark.usefixtures("on_cpu")
def test_asnumpy_on_a_user_stream_is_queued(rng):
    x = random_data(rng, (30, 20), np.complex64)
    a = anp.asarray(x)
    stream, release = blocked_stream()
    handle = anp.asnumpy(a, stream=stream, wait=False)
    gotten = a.get(stream=stream)
    assert not handle.done()
    assert not stream.query()
    release.set()
    assert_same_host_array(handle.wait(), x)
    assert handle.done()
    stream.synchronize()
    assert_same_host_array(gotten, x)


@pytest.mark.usefixtures("on_cpu")
def test_asnumpy_waits_for_earlier_work_on_its_stream(rng):
    x = random_data(rng, (64, 9), np.float32)
    stream, release = blocked_stream()
    a = anp.asarray(x, stream=stream)          # queued behind the blocker
    threading.Timer(0.05, release.set).start()
    assert_same_host_array(anp.asnumpy(a, stream=stream), x)
    assert stream.query()


def test_user_stream_transfers_to_and_from_devices(rng):
    x = random_data(rng, (40, 3), np.float64)
    stream = anp.Stream()
    a = anp.asarray(x, stream=stream)
    moved = a.to("cpu:1", stream=stream)
    back = anp.ndarray.from_numpy(x[::-1], stream=stream)
    stream.synchronize()
    assert_same_array(a, x)
    assert_same_array(moved, x)
    assert moved.device == anp.Device("cpu:1")
    assert_same_array(back, x[::-1])
    with anp.Stream() as current:
        host = anp.asnumpy(a)
        current.synchronize()
    assert_same_host_array(host, x)


@pytest.mark.usefixtures("on_cpu")
@pytest.mark.parametrize("order", ["C", "F", "K"])
def test_moves_on_a_user_stream_complete_in_order(rng, order):
    x = random_data(rng, (40, 30), np.float64)[::-1, ::2]
    a = anp.asarray(x)
    stream, release = blocked_stream()
    moved = anp.asarray(a, device="cpu:1", order=order, stream=stream)
    cast = anp.asarray(a, device="cpu:2", dtype=np.float32, order=order, stream=stream)
    to = a.to("cpu:3", stream=stream)
    release.set()
    stream.synchronize()
    assert_same_array(moved, x)
    assert_same_array(cast, x.astype(np.float32))
    assert_same_array(to, x)
    assert moved.strides == np.array(x, order=order).strides


# -- from_numpy, to_numpy, get, to ---------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUT_IDS)
def test_device_round_trips(on_cpu, rng, layout, dtype):
    x = host_layout(rng, layout, dtype)
    a = anp.ndarray.from_numpy(x)
    assert a.device == anp.get_device()
    assert_same_array(a, x)
    assert a.to(a.device) is a
    assert a.to("cpu:0") is a
    on_one = a.to("cpu:1")
    assert on_one.device == anp.Device("cpu:1")
    assert on_one.to("cpu:1") is on_one
    back = on_one.to("cpu:0")
    assert back.device == anp.Device("cpu:0") and back is not a
    assert_same_array(on_one, x)
    assert_same_array(back, x)
    assert on_one.strides == a.strides == np.array(x, order="K").strides
    assert_same_host_array(back.to_numpy(), x)
    on_one[...] = np.zeros((), dtype)
    assert_same_array(a, x)


def test_from_numpy_accepts_array_likes(rng):
    x = random_data(rng, (2, 3), np.uint8)
    assert_same_array(anp.ndarray.from_numpy(x.tolist()), np.asarray(x.tolist()))
    assert_same_array(anp.ndarray.from_numpy(x, device="cpu:3"), x)
    assert anp.ndarray.from_numpy(x, device="cpu:3").device == anp.Device("cpu:3")
    assert_same_array(anp.ndarray.from_numpy(7), np.asarray(7))


def test_views_move_between_devices_by_value(rng):
    x = random_data(rng, (6, 8), np.int32)
    a = anp.asarray(x)
    view = a[1::2, ::-3]
    moved = view.to("cpu:2")
    assert_same_array(moved, x[1::2, ::-3])
    assert moved.flags.owndata
    view[...] = 0
    assert_same_array(moved, x[1::2, ::-3])


# -- memory ----------------------------------------------------------------------


def test_transfers_return_memory_to_the_pools(rng):
    pools = [anp.get_default_memory_pool(d) for d in ("cpu:0", "cpu:1")]
    gc.collect()
    baselines = [pool.used_bytes() for pool in pools]
    x = random_data(rng, (128, 65), np.complex128)
    arrays = [anp.asarray(x), anp.array(x, order="F"), anp.asarray(x.tolist()),
              anp.asarray(x, device="cpu:1")]
    arrays += [arrays[0].to("cpu:1"), arrays[3].to("cpu:0"), anp.array(arrays[0], ndmin=4)]
    arrays += [arrays[0][::2], anp.asarray(arrays[1], dtype=np.complex64)]
    handle = anp.asnumpy(arrays[0], wait=False)
    handle.wait()
    assert all(pool.used_bytes() > base for pool, base in zip(pools, baselines))
    del arrays, handle
    gc.collect()
    assert [pool.used_bytes() for pool in pools] == baselines


def test_aliases_take_no_pool_memory(on_cpu, rng):
    pool = anp.get_default_memory_pool()
    gc.collect()
    baseline = pool.used_bytes()
    x = random_data(rng, (256, 64), np.float64)
    alias = anp.asarray(x, copy=False)
    assert pool.used_bytes() == baseline
    del alias
    gc.collect()
    assert pool.used_bytes() == baseline
