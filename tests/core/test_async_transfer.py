"""asarray(x, stream="async"): returns before the copy has run; every later use of the
array, on any stream or on the host, sees the finished copy.

A gate holds the copy back (no timing): the call must return while the copy is
blocked, and consumers launched right after must still see the copied data."""

import threading

import numpy
import pytest

import asnumpy
from asnumpy._core._pending import PendingBuffer, transfer_stream


@pytest.fixture
def gated_copy(monkeypatch, on_cpu):
    """Hold host-to-device copies of cpu devices until ``gate.set()``; count started copies.

    cpu:0 is made current, whatever ``$ASNUMPY_DEVICE`` says: the gate is in its back end."""
    backend = asnumpy.Device("cpu:0").backend
    original = backend.copy_from_host
    gate, started = threading.Event(), []

    def copy_from_host(out, host):
        started.append(threading.current_thread().name)
        assert gate.wait(30), "the gate was never opened"
        original(out, host)

    monkeypatch.setattr(backend, "copy_from_host", copy_from_host)
    yield gate, started
    gate.set()


def release_soon(gate):
    # The consumer below blocks until the copy is done, so the gate must be
    # opened from another thread; when it opens does not matter.
    threading.Thread(target=gate.set, daemon=True).start()


def test_returns_before_the_copy_runs(gated_copy):
    gate, started = gated_copy
    host = numpy.arange(10.0)
    a = asnumpy.asarray(host, stream="async")       # would hang here if it waited
    assert isinstance(a._buffer, PendingBuffer)
    assert not gate.is_set()
    gate.set()
    numpy.testing.assert_array_equal(a.get(), host)
    assert started and started[0].startswith("asnumpy-stream")


# (what a consumer does with the array, what it must give for the host data)
CONSUMERS = [
    (lambda a: (a + 1).get(), lambda h: h + 1),
    (lambda a: a.get(), lambda h: h),
    (lambda a: asnumpy.asnumpy(a[::2]), lambda h: h[::2]),
    (lambda a: numpy.array(a.tolist()), lambda h: h),
    (lambda a: asnumpy.sum(a, axis=0).get(), lambda h: h.sum(axis=0)),
    (lambda a: a.copy().get(), lambda h: h),
    (lambda a: a.to("cpu:1").get(), lambda h: h),
    (lambda a: float(a[1, 2]), lambda h: h[1, 2]),
]


@pytest.mark.parametrize("consumer, expected", CONSUMERS)
def test_consumer_right_after_sees_the_copy(gated_copy, consumer, expected):
    gate, _ = gated_copy
    host = numpy.arange(24.0).reshape(4, 6)
    a = asnumpy.asarray(host, stream="async")
    release_soon(gate)
    numpy.testing.assert_array_equal(consumer(a), expected(host))


def test_consumer_on_a_user_stream_waits(gated_copy):
    gate, _ = gated_copy
    host = numpy.arange(1000, dtype=numpy.int64)
    a = asnumpy.asarray(host, stream="async")
    stream = asnumpy.Stream()
    with stream:
        doubled = a * 2            # queued on the user stream: its kernel waits for the copy
    release_soon(gate)
    stream.synchronize()
    numpy.testing.assert_array_equal(doubled.get(), host * 2)


def test_writes_after_an_async_copy_land_after_it(gated_copy):
    gate, _ = gated_copy
    a = asnumpy.asarray(numpy.zeros(5), stream="async")
    release_soon(gate)
    a[2] = 7.0
    assert a.get().tolist() == [0, 0, 7, 0, 0]


def test_dtype_order_and_device(gated_copy):
    gate, _ = gated_copy
    gate.set()
    host = numpy.arange(12).reshape(3, 4)
    a = asnumpy.asarray(host, dtype=numpy.float32, order="F", device="cpu:2", stream="async")
    assert a.dtype == numpy.float32 and a.flags.f_contiguous and a.device.name == "cpu:2"
    numpy.testing.assert_array_equal(a.get(), host.astype(numpy.float32))
    b = asnumpy.asarray([[1, 2], [3, 4]], stream="async")      # a list: converted first
    assert b.get().tolist() == [[1, 2], [3, 4]]


def test_from_numpy_async():
    a = asnumpy.from_numpy(numpy.arange(5), device="cpu:1", stream="async")
    assert a.device.name == "cpu:1" and a.get().tolist() == [0, 1, 2, 3, 4]


def test_one_transfer_stream_per_device():
    assert transfer_stream(asnumpy.Device("cpu:1")) is transfer_stream(asnumpy.Device("cpu:1"))
    assert transfer_stream(asnumpy.Device("cpu:1")) is not transfer_stream(
        asnumpy.Device("cpu:2"))


def test_asnumpy_array_input_is_copied_as_with_none():
    a = asnumpy.arange(4)
    assert asnumpy.asarray(a, stream="async") is a
    moved = asnumpy.asarray(a, device="cpu:1", stream="async")
    assert moved.device.name == "cpu:1" and moved.get().tolist() == [0, 1, 2, 3]


def test_a_failed_copy_raises_on_use(monkeypatch, on_cpu):
    backend = asnumpy.Device("cpu:0").backend

    def broken(out, host):
        raise OSError("copy engine failed")

    monkeypatch.setattr(backend, "copy_from_host", broken)
    a = asnumpy.asarray(numpy.arange(3.0), stream="async")
    with pytest.raises(RuntimeError, match="asynchronous copy to cpu:0 failed") as info:
        a.get()
    assert isinstance(info.value.__cause__, OSError)
    with pytest.raises(OSError):                 # and the device's synchronize reports it
        asnumpy.synchronize("cpu:0")


def test_ordinary_arrays_keep_plain_buffers():
    assert type(asnumpy.asarray(numpy.arange(3))._buffer) is not PendingBuffer
    assert type(asnumpy.asarray(numpy.arange(3), stream=None)._buffer) is not PendingBuffer


def test_bad_stream_value():
    with pytest.raises(TypeError, match="asnumpy.asarray: stream must be"):
        asnumpy.asarray([1], stream="later")


def test_async_copies_go_on_after_reset_device_force():
    # reset_device_force closes every user stream of the device, its transfer stream too:
    # the next asynchronous copy gets a new one instead of "the stream is closed"
    device = asnumpy.Device("cpu:1")
    host = numpy.arange(12.0)
    first = asnumpy.asarray(host, device=device, stream="async")
    asnumpy.runtime.reset_device_force(device)
    numpy.testing.assert_array_equal(asnumpy.asnumpy(first), host)
    again = asnumpy.asarray(host[::-1], device=device, stream="async")
    numpy.testing.assert_array_equal(asnumpy.asnumpy(again), host[::-1])
