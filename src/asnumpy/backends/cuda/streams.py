"""CUDA streams and events behind asnumpy's :class:`~asnumpy.Stream` and :class:`~asnumpy.Event`.

On cuda, launching work means *enqueuing* it: a back-end kernel function
runs on the calling thread and queues GPU work on the stream that
:func:`current_native` names.  The semantics are the cpu device's: work is
ordered per stream, and an error raised while queueing work on a user
stream is kept and raised by that stream's next ``synchronize()`` (errors of
the GPU work itself surface there too, from the driver).
"""

from __future__ import annotations

import contextlib
import threading

from ...runtime.device import Device
from ...runtime.stream import DefaultStream, Stream

__all__ = ["CudaDefaultStream", "CudaStream", "current_native", "current_stream"]

_local = threading.local()


def current_stream(device):
    """The asnumpy stream that kernels launched now on ``device`` are queued on."""
    stream = getattr(_local, "stream", None)
    return stream if stream is not None else device.default_stream


def current_native(device):
    """The driver stream that kernels launched now on ``device`` go to."""
    return current_stream(device)._native


@contextlib.contextmanager
def _on(stream):
    previous = getattr(_local, "stream", None)
    _local.stream = stream
    try:
        yield
    finally:
        _local.stream = previous


class _NativeSignal:
    """An Event's completion signal backed by a driver event."""

    def __init__(self, driver, native):
        self.driver, self.native = driver, native

    def wait(self):
        self.driver.event_sync(self.native)

    def is_set(self) -> bool:
        return self.driver.event_query(self.native)

    def elapsed_ms(self, end: "_NativeSignal") -> float:
        return self.driver.elapsed_ms(self.native, end.native)


class _NativeStreamMixin:
    """What user and default cuda streams share: launches, events, waits."""

    def _driver(self):
        return self.device.backend.driver

    def launch(self, fn, *args) -> None:
        with _on(self):
            fn(*args)

    def synchronize(self) -> None:
        self._driver().sync(self._native)

    def query(self) -> bool:
        return self._driver().query(self._native)

    def _record_native(self, event) -> None:
        driver = self._driver()
        native = driver.create_event(self.device.index)
        driver.record(native, self._native)
        event._signal, event._time = _NativeSignal(driver, native), None

    def wait_event(self, event) -> None:
        signal = event._signal
        if isinstance(signal, _NativeSignal):
            self._driver().wait(self._native, signal.native)
        elif signal is not None:         # an event of another back end: wait on the host
            signal.wait()


class CudaStream(_NativeStreamMixin, Stream):
    """A user stream of a cuda device: a CUDA stream of its own."""

    def __init__(self, device=None):
        # no worker thread (Stream.__init__'s): work is enqueued on the calling thread
        self.device = Device(device)
        self.device._streams.add(self)
        self._native = self._driver().create_stream(self.device.index)
        self._errors = []

    def launch(self, fn, *args) -> None:
        try:
            _NativeStreamMixin.launch(self, fn, *args)
        except Exception as exc:         # kept for synchronize(), as on the cpu device
            self._errors.append(exc)

    def synchronize(self) -> None:
        _NativeStreamMixin.synchronize(self)
        errors, self._errors = self._errors, []
        if errors:
            if len(errors) > 1:
                errors[0].add_note(f"({len(errors) - 1} more error(s) were raised on the "
                                   "same stream)")
            raise errors[0]

    def __repr__(self):
        return f"<asnumpy.Stream device={self.device}>"


class CudaDefaultStream(_NativeStreamMixin, DefaultStream):
    """A cuda device's default stream: ordered with other work, asynchronous to the host."""

    def __init__(self, device):
        DefaultStream.__init__(self, device)
        self._native = device.backend.driver.default_stream(device.index)
