"""AscendCL streams and events behind asnumpy's :class:`~asnumpy.Stream` and :class:`~asnumpy.Event`.

Launching npu work *enqueues* it: a back-end kernel runs on the calling
thread and queues operators and copies on the ACL stream :func:`acl_stream`
names.  Each device's default stream is an ACL stream of its own, so its work
is asynchronous to the host too; the host meets it where it reads results
(a device-to-host copy synchronizes the stream it was queued on).  Work on a
user stream is ordered after what the default stream had queued before it
(one event, only when the default stream queued something since), as on the
cpu device, whose default stream runs on the host.

Memory reuse across streams is ordered by events (:class:`EventOrderedReuse`,
the pool's hooks); ``aclrtFree`` is not stream-ordered, so a block goes back
to AscendCL only after the host has waited for every stream that used it.
"""

from __future__ import annotations

import itertools
import threading
import time
import traceback
import weakref

from ...runtime import observer as _observer
from ...runtime.device import Device
from ...runtime.observer import queue_work
from ...runtime.stream import DefaultStream, Stream

__all__ = ["EventOrderedReuse", "NpuDefaultStream", "NpuStream", "acl_stream", "current_stream"]

_local = threading.local()
_clock = itertools.count(1)      # stamps queued work and handed-out blocks (see the reuse)


def current_stream(device):
    """The asnumpy stream that npu work launched now on ``device`` is queued on."""
    stream = getattr(_local, "stream", None)
    return stream if stream is not None and stream.device is device else device.default_stream


def acl_stream(device) -> int:
    """The ACL stream work queued now on ``device`` goes to; the device made current."""
    lane = current_stream(device)._lane
    lane.runtime.use(lane.index)
    default = device.default_stream._lane
    if lane is not default and default.last_work > lane.seen_default:
        lane.seen_default = default.last_work
        lane.runtime.wait(lane.index, lane.native, default.record())
    lane.last_work = next(_clock)
    return lane.native


class Lane:
    """An ACL stream, its kept errors and its end: what the pool files blocks under.

    Holds no reference to the :class:`NpuStream`, so a dropped stream is
    collected (its ACL stream destroyed, its errors handed to the device).
    """

    __slots__ = ("runtime", "index", "device", "native", "errors", "orphaned", "final_event",
                 "last_work", "seen_default", "__weakref__")

    def __init__(self, device):
        self.runtime, self.index, self.device = device.backend.runtime, device.index, device
        self.native = self.runtime.create_stream(device.index)
        self.errors: list = []
        self.orphaned = False
        self.final_event = None
        self.last_work = self.seen_default = 0

    def record(self) -> int:
        """An ACL event recorded at the lane's current point (its last one once closed)."""
        if self.native is None:
            return self.final_event
        event = self.runtime.create_event(self.index)
        self.runtime.record(self.index, event, self.native)
        return event

    def report(self, exc) -> None:
        (self.device._orphaned_errors if self.orphaned else self.errors).append(exc)

    def drain(self) -> None:
        """Wait (on the host) until everything queued on the lane has run."""
        if self.native is not None:
            self.runtime.sync_stream(self.index, self.native)
        elif self.final_event is not None:
            self.runtime.event_sync(self.index, self.final_event)

    def orphan(self) -> None:
        """Its stream was collected (a finalizer, any thread): kept errors and later ones go
        to the device (``asnumpy.synchronize``), and the ACL stream is destroyed."""
        self.orphaned = True
        kept, self.errors = self.errors, []
        for exc in kept:
            self.report(exc)
        try:
            self.close()
        except Exception as exc:       # never raised in a finalizer
            self.report(exc)

    def close(self) -> None:
        """Destroy the ACL stream after recording its end.  Idempotent."""
        native = self.native
        if native is not None:
            self.final_event = self.record()
            self.device.memory_pool._ordering.closed(self)
            self.native = None
            self.runtime.destroy_stream(self.index, native)


class _AclSignal:
    """An :class:`~asnumpy.Event`'s completion, as an ACL event."""

    __slots__ = ("runtime", "index", "native")

    def __init__(self, runtime, index, native):
        self.runtime, self.index, self.native = runtime, index, native

    def wait(self):
        self.runtime.event_sync(self.index, self.native)

    def is_set(self) -> bool:
        return self.runtime.event_done(self.index, self.native)

    def elapsed_ms(self, end) -> float:
        return self.runtime.elapsed_ms(self.index, self.native, end.native)


class _AclStreamMixin:
    """Launches, events and waits of default and user npu streams."""

    def launch(self, fn, *args) -> None:
        previous = getattr(_local, "stream", None)
        _local.stream = self
        try:
            fn(*args)
        finally:
            _local.stream = previous

    def launch_host_func(self, fn, *args) -> None:
        """Run ``fn(*args)`` after the stream's work so far (the host waits for it first).

        The bindings have no ``aclrtLaunchCallback`` (it needs a report thread
        per stream): the stream is drained instead, which keeps the order.
        """
        try:
            self._lane.drain()
            fn(*args)
        except Exception as exc:
            if self.is_default:
                raise
            self._lane.report(exc)

    def synchronize(self) -> None:
        lane = self._lane
        started = time.perf_counter()
        lane.drain()
        _observer.waited("Stream.synchronize", self.device, self, started)
        errors, lane.errors = lane.errors, []
        if errors:
            if len(errors) > 1:
                errors[0].add_note(f"({len(errors) - 1} more error(s) on the same stream)")
            raise errors[0]

    def query(self) -> bool:
        lane = self._lane
        if lane.native is None:
            return lane.final_event is None or lane.runtime.event_done(lane.index,
                                                                       lane.final_event)
        event = lane.record()
        try:
            return lane.runtime.event_done(lane.index, event)
        finally:
            lane.runtime.destroy_event(lane.index, event)

    def _record_native(self, event) -> None:
        lane = self._lane
        if lane.native is None:
            raise RuntimeError("asnumpy.Event.record: the stream is closed")
        event._signal = _AclSignal(lane.runtime, lane.index, lane.record())
        event._time = None

    def wait_event(self, event) -> None:
        signal, lane = event._signal, self._lane
        if isinstance(signal, _AclSignal):
            queue_work(self, "wait_event", "wait",
                       lambda: lane.runtime.wait(lane.index, lane.native, signal.native))
        elif signal is not None and not signal.is_set():
            signal.wait()          # another back end's event: the host waits for it


class NpuStream(_AclStreamMixin, Stream):
    """A user stream of an npu device: an ACL stream of its own."""

    def __init__(self, device=None):
        self.device = Device(device)
        self._lane = Lane(self.device)
        self._reuse_key = self._lane
        self.device.memory_pool._ordering.track(self._lane)
        weakref.finalize(self, Lane.orphan, self._lane)
        self.device._streams.add(self)

    def launch(self, fn, *args) -> None:
        lane = self._lane
        if lane.native is None:
            raise RuntimeError("asnumpy.Stream.launch: the stream is closed")
        previous = getattr(_local, "stream", None)
        _local.stream = self
        del self             # a kept error's traceback must not hold the stream
        try:
            fn(*args)
        except Exception as exc:
            traceback.clear_frames(exc.__traceback__)
            lane.report(exc)
        finally:
            _local.stream = previous
            lane.last_work = next(_clock)

    def close(self) -> None:
        """Wait for the pending work, destroy the ACL stream, raise its first error."""
        try:
            self.synchronize()
        finally:
            self._lane.close()
            self._lane.drain()

    def __repr__(self):
        return f"<asnumpy.Stream device={self.device}>"


class NpuDefaultStream(_AclStreamMixin, DefaultStream):
    """An npu device's default stream: an ACL stream, asynchronous to the host."""

    def __init__(self, device):
        DefaultStream.__init__(self, device)
        self._lane = Lane(device)


class EventOrderedReuse:
    """The pool's stream-ordering hooks for one npu device (``MemoryPool._ordering``).

    A block's users are the lanes that queued work since it was handed out
    (stamps from one clock).  When it comes back, each user other than the
    lane it is filed under gets an event recorded (that lane's, only when
    another lane takes it); the taker's ACL stream waits for them.  Before a
    block goes back to AscendCL the host waits for all of them: ``aclrtFree``
    is immediate.
    """

    def __init__(self, device):
        self.device = device
        self.runtime, self.index = device.backend.runtime, device.index
        self._marks: dict = {}      # id(handle) -> [(lane, event or None)]
        self._born: dict = {}       # id(handle) -> clock when handed out
        # user lanes blocks may be used on: open ones, and closed ones until their last
        # work has run; a tuple replaced whole, so iterating it needs no lock
        self._lanes: tuple = ()
        self._lock = threading.Lock()

    def _finished(self, lane) -> bool:
        return lane.native is None and (lane.final_event is None or self.runtime.event_done(
            self.index, lane.final_event))

    def track(self, lane) -> None:
        with self._lock:
            self._lanes = (*(o for o in self._lanes if not self._finished(o)), lane)

    def closed(self, lane) -> None:
        """(Closed lanes stay in the tuple until ``track`` sees their work done.)"""

    def _home(self, key) -> Lane:
        return self.device.default_stream._lane if key is None else key

    def _users(self, handle) -> list:
        born = self._born.pop(id(handle), 0)
        lanes = (self.device.default_stream._lane, *self._lanes)
        return [lane for lane in lanes if lane.last_work > born]

    def allocated(self, handle, key) -> None:
        self._born[id(handle)] = next(_clock)

    def freed(self, handle, key) -> None:
        home = self._home(key)
        marks = [(lane, None if lane is home and lane.native is not None else lane.record())
                 for lane in self._users(handle)]
        if marks:
            self._marks[id(handle)] = marks

    def reused(self, handle, key) -> None:
        self._born[id(handle)] = next(_clock)
        taker = self._home(key)
        for lane, event in self._marks.pop(id(handle), ()):
            if lane is not taker and taker.native is not None:
                self.runtime.wait(self.index, taker.native,
                                  lane.record() if event is None else event)

    def release(self, handle, key) -> None:
        if id(handle) in self._born:          # handed back while the pool is disabled
            self.freed(handle, key)
        for lane, event in self._marks.pop(id(handle), ()):
            if event is None:
                lane.drain()
            else:
                self.runtime.event_sync(self.index, event)
        self.runtime.free(self.index, handle.pointer)
