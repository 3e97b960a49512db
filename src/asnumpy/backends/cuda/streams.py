"""CUDA streams and events behind asnumpy's :class:`~asnumpy.Stream` and :class:`~asnumpy.Event`.

On cuda, launching work means *enqueuing* it: a back-end kernel function
runs on the calling thread and queues GPU work on the stream that
:func:`current_native` names.  The semantics are the cpu device's: work is
ordered per stream, and an error raised while queueing work on a user
stream is kept and raised by that stream's next ``synchronize()`` (errors of
the GPU work itself surface there too, from the driver).

Contexts.  The driver's calls act on the context current on the calling
thread, and a thread starts with none: every entry point here (a launch, a
synchronize, an event, :func:`current_native`) first makes the owning
device's primary context current (``driver.make_current``).

Lifetime.  A user stream's driver stream and its kept errors live in a
:class:`NativeLane`, which the memory pool files the stream's freed blocks
under and which holds no reference to the stream; so a stream nobody
references is collected like a cpu one: its driver stream is destroyed
after its pending work (``cuStreamDestroy`` returns at once and the GPU
finishes the work), and errors nobody can now synchronize go to the
device's ``_orphaned_errors`` for :func:`asnumpy.synchronize`.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
import traceback
import weakref

from ...runtime import graph as _graph, observer as _observer
from ...runtime.device import Device
from ...runtime.observer import queue_work
from ...runtime.stream import DefaultStream, Stream

__all__ = ["CudaDefaultStream", "CudaStream", "NativeLane", "StreamOrderedReuse", "across_devices",
           "current_native", "current_stream"]

_local = threading.local()
# Stamps device work queued on user streams and blocks handed out, so a free
# orders reuse only after the streams that queued work since the block was
# handed out (the others cannot have used it).
_work_clock = itertools.count(1)


def current_stream(device):
    """The asnumpy stream that kernels launched now on ``device`` are queued on."""
    stream = getattr(_local, "stream", None)
    return stream if stream is not None and stream.device is device else device.default_stream


def current_native(device):
    """The driver stream that work queued now on ``device`` goes to, with the device's
    context made current on this thread (the driver call that follows needs it)."""
    lane = current_stream(device)._lane
    lane.driver.make_current(lane.index)
    _follow_default_stream(lane, device.default_stream._lane)
    lane.last_work = next(_work_clock)   # device work comes: blocks handed out so far count
    return lane.native


def _follow_default_stream(lane, default) -> None:
    """Order a user stream's next work after what the default stream queued before it.

    The cpu device's default stream runs on the host, so work queued on a user
    stream always sees it; cuda keeps that meaning (user streams are
    non-blocking) with one event, and only when the default stream queued
    something since this stream last looked.
    """
    if lane is not default and default.last_work > lane.seen_default:
        lane.seen_default = default.last_work
        lane.wait(default.record())


@contextlib.contextmanager
def _on(stream):
    previous = getattr(_local, "stream", None)
    _local.stream = stream
    try:
        yield
    finally:
        _local.stream = previous


class NativeLane:
    """A cuda stream's driver stream, kept errors and end, apart from the stream object.

    The memory pool files blocks allocated on a user stream under its lane
    (:class:`StreamOrderedReuse` orders their reuse), and host functions
    report errors to it, so neither keeps the :class:`CudaStream` alive.
    """

    __slots__ = ("driver", "index", "device", "native", "errors", "orphaned", "final_event",
                 "last_work", "seen_default", "capturing", "capture_mark", "__weakref__")

    def __init__(self, device, native):
        self.driver, self.index, self.device = device.backend.driver, device.index, device
        self.native = native
        self.errors = []
        self.orphaned = False       # its stream was collected: errors go to the device
        self.final_event = None     # recorded at close: the end of the stream's work
        self.last_work = 0          # _work_clock when device work was last queued here
        self.seen_default = 0       # the default stream's last_work this stream waited for
        # While the stream captures (runtime/graph.py), events "recorded on it" are
        # capture_mark, recorded just before the capture began: the work it really ran
        # (recording into the capture would make other streams join it).
        self.capturing = False
        self.capture_mark = None

    def report(self, exc) -> None:
        """Keep ``exc`` for the stream's next synchronize (the device's, once orphaned)."""
        (self.device._orphaned_errors if self.orphaned else self.errors).append(exc)

    def query(self) -> bool:
        self.driver.make_current(self.index)
        if self.native is None:
            return self.driver.event_query(self.final_event)
        return self.driver.query(self.native)

    def record(self):
        """A driver event recorded at the lane's current point (its end once closed, its
        point before the capture while it captures)."""
        if self.native is None:
            return self.final_event
        if self.capturing:
            return self.capture_mark
        self.driver.make_current(self.index)
        event = self.driver.create_event(self.index)
        self.driver.record(event, self.native)
        return event

    def wait(self, event, captured=False) -> None:
        """Later work on the lane waits for the driver event ``event`` (recorded in the
        lane's capture when ``captured``; else an external wait while it captures)."""
        self.driver.make_current(self.index)
        self.driver.wait(self.native, event, external=self.capturing and not captured)

    def close(self) -> None:
        """Destroy the driver stream; its pending work still runs.  Idempotent."""
        native = self.native
        if native is not None:
            self.final_event = self.record()
            # counted among closed lanes before it stops counting as an open one
            self.device.memory_pool._ordering.closed(self)
            self.native = None
            self.driver.destroy_stream(native)


def _release_collected(lane) -> None:
    """A collected stream's finalizer (any thread): errors nobody can synchronize go to
    the device, and the driver stream is destroyed after its pending work."""
    lane.orphaned = True
    errors, lane.errors = lane.errors, []
    lane.device._orphaned_errors.extend(errors)
    try:
        lane.close()
    except Exception as exc:         # the driver refused: report it, never raise in a finalizer
        lane.device._orphaned_errors.append(exc)


class _NativeSignal:
    """An Event's completion signal backed by a driver event."""

    __slots__ = ("driver", "index", "native")

    def __init__(self, driver, index, native):
        self.driver, self.index, self.native = driver, index, native

    def wait(self):
        # (a wait a profiler should see is reported by its caller: Event.synchronize,
        # the stream's synchronize)
        self.driver.make_current(self.index)
        self.driver.event_sync(self.native)

    def is_set(self) -> bool:
        self.driver.make_current(self.index)
        return self.driver.event_query(self.native)

    def elapsed_ms(self, end: "_NativeSignal") -> float:
        self.driver.make_current(self.index)
        return self.driver.elapsed_ms(self.native, end.native)


class _NativeStreamMixin:
    """What user and default cuda streams share: launches, events, waits."""

    def _driver(self):
        driver = self._lane.driver
        driver.make_current(self._lane.index)
        return driver

    @property
    def _native(self):
        return self._lane.native

    def launch(self, fn, *args) -> None:
        self._driver()
        with _on(self):
            fn(*args)

    def _closed(self) -> bool:
        return self._lane.native is None

    # The back end's part of graph capture (runtime/graph.py; ops.backend.StreamCapture):
    # the driver records the work the launches queue; the graph is the driver's.
    def _capture_began(self, capture) -> None:
        lane = self._lane
        driver = self._driver()
        _follow_default_stream(lane, self.device.default_stream._lane)   # before, not inside
        if lane.capture_mark is None:
            lane.capture_mark = driver.create_event(lane.index)
        # Under the pool's lock: another thread's free may mark this lane (an event
        # recorded on it, its capture_mark while it captures), and a real event recorded
        # between the driver's capture and ``capturing`` would be a node of the capture.
        with self.device.memory_pool._lock:
            driver.record(lane.capture_mark, lane.native)
            driver.begin_capture(lane.native, capture.mode)
            lane.capturing = True

    def _capture_ended(self, capture):
        lane = self._lane
        with self.device.memory_pool._lock:
            try:
                return self._driver().end_capture(lane.native)
            finally:
                lane.capturing = False

    def _replay(self, graph) -> None:
        lane = self._lane
        driver = self._driver()
        _follow_default_stream(lane, self.device.default_stream._lane)
        driver.graph_launch(graph._native, lane.native)
        lane.last_work = next(_work_clock)   # the blocks the graph holds are used here

    def _replay_rebound(self, graph, copies_in, copies_out) -> None:
        """Queue ``graph`` with its inputs and outputs rebound by device copies (jit's replay).

        ``copies_in`` are (graph input address, array, bytes): each array is
        copied into the graph's input first; ``copies_out`` are (pool buffer,
        graph output address, bytes), copied after it.  The graph's own memory is
        one set of buffers, so a replay on another stream than the last one
        waits for that one's work first (one event, on the GPU).  The caller
        serialises calls for one graph (a lock around this call).
        """
        lane = self._lane
        native = lane.native
        if native is None:
            raise RuntimeError("asnumpy.Stream.launch: the stream is closed")
        driver = lane.driver
        driver.make_current(lane.index)
        default = self.device.default_stream._lane
        if lane is not default and default.last_work > lane.seen_default:
            _follow_default_stream(lane, default)
        last = graph._replayed_on
        if last is not None and last is not lane:
            lane.wait(last.final_event if last.native is None else last.record())
        graph._replayed_on = lane
        lane.last_work = next(_work_clock)   # the copied arrays are used on this stream
        address_of = driver.pointer          # (no empty buffer here: no copy of 0 bytes)
        for address, array, nbytes in copies_in:
            buffer = array._buffer
            if buffer is None:
                buffer = array._realize()
            driver.copy_dtod(address, address_of(buffer.handle) + array._offset, nbytes, native)
        driver.graph_launch(graph._native, native)
        for buffer, address, nbytes in copies_out:
            if nbytes:
                driver.copy_dtod(address_of(buffer.handle), address, nbytes, native)

    def _release_graph(self, native) -> None:
        lane = self._lane
        try:
            lane.driver.make_current(lane.index)
            lane.driver.graph_destroy(native)
        except Exception as exc:       # (a finalizer's call) reported, never raised
            self.device._orphaned_errors.append(exc)

    def launch_host_func(self, fn, *args) -> None:
        """Queue the host function ``fn(*args)`` in stream order (``cuLaunchHostFunc``).

        It runs on a driver thread once the work before it has finished, and
        the work after it waits for it.  It must not queue device work (CUDA
        forbids driver calls there); an error it raises is kept for
        ``synchronize()``.
        """
        lane = self._lane

        def host_function():
            try:
                fn(*args)
            except Exception as exc:
                lane.report(exc)

        native = self._native_or_closed()
        driver = self._driver()          # the context made current
        _follow_default_stream(lane, self.device.default_stream._lane)
        driver.launch_host_func(native, host_function)

    def _native_or_closed(self):
        native = self._lane.native
        if native is None:
            raise RuntimeError("asnumpy.Stream.launch: the stream is closed")
        return native

    def synchronize(self) -> None:
        _graph.check_sync("Stream.synchronize", self)
        lane = self._lane
        started = time.perf_counter()
        idle = _observer.observer is not None and lane.query()     # (nothing to wait for)
        if lane.native is not None:
            self._driver().sync(lane.native)
        else:
            _NativeSignal(lane.driver, lane.index, lane.final_event).wait()
        if not idle:
            _observer.waited("Stream.synchronize", self.device, self, started)
        errors, lane.errors = lane.errors, []
        if errors:
            if len(errors) > 1:
                errors[0].add_note(f"({len(errors) - 1} more error(s) were raised on the "
                                   "same stream)")
            raise errors[0]

    def query(self) -> bool:
        _graph.check_sync("Stream.query", self, waits=False)
        return self._lane.query()

    def _record_native(self, event) -> None:
        driver = self._driver()
        native = driver.create_event(self.device.index)
        driver.record(native, self._native_or_closed())
        event._signal, event._time = _NativeSignal(driver, self.device.index, native), None

    def wait_event(self, event) -> None:
        signal = event._signal
        if isinstance(signal, _NativeSignal):
            captured = event._capture is not None and event._capture is self._capture
            queue_work(self, "wait_event", "wait", lambda: (
                self._native_or_closed(), self._lane.wait(signal.native, captured)))
        elif signal is not None and not signal.is_set():
            # an event of another back end (a cpu stream's): the GPU stream waits for it
            # in a host function, the host does not
            self._driver().launch_host_func(self._native_or_closed(), signal.wait)


class CudaStream(_NativeStreamMixin, Stream):
    """A user stream of a cuda device: a CUDA stream of its own."""

    def __init__(self, device=None):
        # no worker thread (Stream.__init__'s): work is enqueued on the calling thread
        self.device = Device(device)
        driver = self.device.backend.driver
        driver.make_current(self.device.index)
        self._lane = NativeLane(self.device, driver.create_stream(self.device.index))
        self._reuse_key = self._lane         # the pool's key: does not keep the stream alive
        self.device.memory_pool._ordering.track(self._lane)
        weakref.finalize(self, _release_collected, self._lane)
        self.device._streams.add(self)

    def launch(self, fn, *args) -> None:
        lane = self._lane
        if lane.native is None:
            raise RuntimeError("asnumpy.Stream.launch: the stream is closed")
        lane.driver.make_current(lane.index)
        capture = self._capture
        if capture is not None:          # the driver records; the graph keeps the arrays
            capture.record(fn, args)
        previous = getattr(_local, "stream", None)
        _local.stream = self
        # An error is kept with its traceback, which reaches this frame and the
        # frames below: none may hold the stream, which must stay collectable.
        del self
        try:
            fn(*args)
        except Exception as exc:         # kept for synchronize(), as on the cpu device
            if capture is not None:      # (while capturing the caller hears it at once)
                if "STREAM_CAPTURE" not in str(exc):
                    raise
                if capture.invalid is None:
                    capture.invalid = f"the driver ({exc})"
                raise _graph.StreamCaptureError(
                    f"asnumpy.Stream.launch: work launched on {capture.stream!r} cannot be "
                    f"captured: {exc} (kernels that cuda runs through the host fallback "
                    "copy through host memory, which no graph can hold)") from exc
            traceback.clear_frames(exc.__traceback__)   # locals go, the lines stay
            lane.report(exc)
        finally:
            _local.stream = previous
            lane.last_work = next(_work_clock)   # after: blocks allocated inside count

    def close(self) -> None:
        """Wait for the pending work, destroy the CUDA stream and raise its first error.

        Idempotent; launching on a closed stream raises RuntimeError.
        """
        if self._capture is not None:
            raise _graph._refuse([self._capture], "Stream.close", "the stream is closed")
        try:
            self.synchronize()
        finally:
            lane = self._lane
            self._driver()
            lane.close()
            _NativeSignal(lane.driver, lane.index, lane.final_event).wait()   # done: query()

    def __repr__(self):
        return f"<asnumpy.Stream device={self.device}>"


class CudaDefaultStream(_NativeStreamMixin, DefaultStream):
    """A cuda device's default stream: ordered with other work, asynchronous to the host."""

    def __init__(self, device):
        DefaultStream.__init__(self, device)
        self._lane = NativeLane(device, device.backend.driver.default_stream(device.index))


class StreamOrderedReuse:
    """The memory pool's stream-ordering hooks for one cuda device (see ``MemoryPool``).

    A block's *users* are the streams that queued device work since it was
    handed out (each stream's ``last_work`` stamp against the block's).  Any
    work that used the block was queued before its last reference went, so
    when the block comes back, the free is marked on each user: an event
    recorded there (a closed stream's last event), except on the stream the
    block is filed under, whose mark is recorded only if another stream takes
    the block.  A stream that takes it waits for the marks of the other users
    (``cuStreamWaitEvent``: the GPU waits, not the host) -- also when the block
    was allocated on one stream and read on another.  Releasing a block to the
    driver frees it on its stream (``cuMemFreeAsync``) after the same waits.
    A block used by one stream only costs no driver call.  Called under the
    pool's lock, never from a finalizer.
    """

    def __init__(self, device):
        self.device = device
        self.driver, self.index = device.backend.driver, device.index
        self._marks: dict = {}       # id(handle) -> [(user lane, event or None: not yet)]
        self._born: dict = {}        # id(handle) -> _work_clock when it was handed out
        self._spare: list = []       # driver events to record again
        # Lanes of user streams: a tuple replaced whole under the lock (never by a
        # finalizer), so iterating it needs no lock; closed ones leave it at the next
        # track() and are counted from _closed meanwhile.
        self._open: tuple = ()
        self._closed: list = []      # closed lanes whose last work may not have run
        self._tracking = threading.Lock()

    def track(self, lane) -> None:
        """Count ``lane`` (a new user stream's) among the streams blocks may be used on."""
        with self._tracking:
            self._open = (*(other for other in self._open if other.native is not None), lane)

    def closed(self, lane) -> None:
        """``lane`` was closed (maybe in a finalizer: only appends)."""
        self._closed.append(lane)

    def _lane(self, key) -> NativeLane:
        return self.device.default_stream._lane if key is None else key

    def _users(self, handle) -> list:
        born = self._born.pop(id(handle), 0)
        default = self.device.default_stream._lane
        users = [default] if default.last_work > born else []
        closed = self._closed
        if len(closed) > 8:          # now and then, forget closed lanes whose work has run
            closed = self._closed = [lane for lane in closed
                                     if not self.driver.event_query(lane.final_event)]
        for lane in self._open:
            if lane.last_work > born and lane.native is not None:
                users.append(lane)
        for lane in closed:
            if lane.last_work > born:
                users.append(lane)
        return users

    def _record(self, lane):
        if lane.capturing:               # its work before the capture (never spare)
            return lane.capture_mark
        self.driver.make_current(self.index)
        event = self._spare.pop() if self._spare else self.driver.create_event(self.index)
        self.driver.record(event, lane.native)
        return event

    def allocated(self, handle, key) -> None:
        """A fresh block is ordered on the default stream (the driver allocates there):
        a user stream that takes it waits for that point."""
        self._born[id(handle)] = next(_work_clock)
        if key is not None and key.native is not None:
            _wait_for(key, self._lane(None))

    def freed(self, handle, key) -> None:
        home = self._lane(key)
        marks = []
        for user in self._users(handle):
            if user.native is None:          # closed: its last event
                marks.append((user, user.final_event))
            elif user is home:               # recorded only if another stream takes it
                marks.append((user, None))
            else:
                marks.append((user, self._record(user)))
        if marks:
            self._marks[id(handle)] = marks

    def _wait(self, taker, marks) -> None:
        """``taker``'s later work waits for the other users' work before the free."""
        for user, event in marks:
            if user is taker:
                continue
            if event is None:                # recorded now (or its end, once closed)
                event = user.final_event if user.native is None else self._record(user)
            taker.wait(event)
            if event is not user.final_event and event is not user.capture_mark:
                self._spare.append(event)

    def reused(self, handle, key) -> None:
        block = id(handle)
        self._born[block] = next(_work_clock)
        marks = self._marks.pop(block, None)
        if marks is not None:
            taker = self._lane(key)
            if taker.native is not None:     # a closed stream queues nothing: no order
                self._wait(taker, marks)

    def release(self, handle, key) -> None:
        lane = self._lane(key)
        if lane.native is None or lane.capturing:    # closed: free on the default stream,
            lane = self._lane(None)                  # after it (capturing: not in the graph)
        if id(handle) in self._born:     # returned while the pool is disabled
            self.freed(handle, key)
        self._wait(lane, self._marks.pop(id(handle), ()))
        self.driver.make_current(self.index)
        self.driver.free(self.index, handle, lane.native)


def _wait_for(waiter: NativeLane, producer: NativeLane) -> None:
    """``waiter``'s later work waits for ``producer``'s work so far (an event, not the host)."""
    waiter.wait(producer.record())


@contextlib.contextmanager
def across_devices(worker, other):
    """Order work queued inside on ``worker``'s current stream with ``other``'s.

    For work on one GPU that touches another's memory (a peer copy): it waits
    for the other device's current stream's work so far, and that stream's
    later work waits for it.  The worker's context is current inside.
    """
    if worker is other:
        yield
        return
    mine, theirs = current_stream(worker)._lane, current_stream(other)._lane
    _wait_for(mine, theirs)
    yield
    _wait_for(theirs, mine)
    mine.driver.make_current(mine.index)
