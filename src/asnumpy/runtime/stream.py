"""Streams and events, with CUDA's semantics on every device.

Each device has a default stream whose work runs at once, in order with the
host.  A user :class:`Stream` owns a worker thread: work launched on it
returns immediately and runs in order on that thread, so a program that
forgets to synchronize fails its tests on any machine, not only on a GPU.

An exception raised by asynchronous work is kept and raised by the next
``synchronize()`` (or ``close()``) of that stream.

Lifetime: the worker thread holds only its :class:`_Worker` (queue and
counters), never the stream, and the memory pool files blocks freed on a
stream under that worker too; so a stream nobody references is collected.
Closing or collecting a stream queues a stop *after* its pending work, so
that work still runs (events recorded on it complete) before the thread
ends.  At interpreter exit the workers still alive are stopped the same way
and waited for, within a bound, so the process exits cleanly.

Fork: a child made by ``os.fork`` inherits the streams but none of their
threads.  Each inherited stream starts over empty: the work still queued in
the parent at the fork belonged to the parent and is not run again (nor are
its kept errors raised), ``synchronize()`` returns at once, and the next
launch starts a fresh worker thread.  An event whose recorded point had not
been reached at the fork never completes in the child: waiting for it
raises RuntimeError instead of hanging (``query()`` stays False).
"""

from __future__ import annotations

import atexit
import queue
import threading
import time
import weakref

from . import _fork, graph as _graph, observer as _observer
from .graph import Graph
from ._state import stream_block_entered, stream_block_left, thread_state
from .device import Device as _Device

__all__ = ["Stream", "DefaultStream", "Event", "get_current_stream"]


class _Worker:
    """The thread behind a user stream and its bookkeeping.

    Kept apart from :class:`Stream` so the thread holds no reference to the
    stream: a stream nobody references is collected and its thread ends.
    """

    def __init__(self, name, pool):
        self.queue = queue.SimpleQueue()
        self.cond = threading.Condition(threading.RLock())  # re-entrant: see stop()
        self.pending = 0
        self.errors = []
        self.stopped = False
        self.orphaned = False       # its stream was collected: errors go to the device
        self.pool = pool
        self.name = name
        self.thread = None          # None: not started in this process (yet)
        _live_workers.add(self)
        self._start()

    def _start(self):
        self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self.thread.start()

    def reset_in_child(self):
        """Start over after a fork: the parent's thread, queue and kept errors stay
        the parent's, and its locks may have been held by threads that are gone."""
        self.queue = queue.SimpleQueue()
        self.cond = threading.Condition(threading.RLock())
        self.pending = 0
        self.errors = []
        self.thread = None          # started again by the next submit

    def submit(self, fn, args):
        # Queued under the lock so that no work can land behind a stop (close()
        # on another thread would then wait for it forever).
        with self.cond:
            if self.stopped:
                raise RuntimeError("asnumpy.Stream.launch: the stream is closed")
            if self.thread is None:     # an inherited stream's first launch in a child
                self._start()
            self.pending += 1
            self.queue.put((fn, args))

    def query(self) -> bool:
        """True when no work is pending (the pool's test for reusing blocks)."""
        return self.pending == 0

    def _run(self):
        get = self.queue.get
        while True:
            item = get()
            if item is None:
                # All work queued before the stop has run: blocks freed on this
                # stream may now serve any stream.
                self.pool._retire_stream(self)
                with self.cond:
                    if self.orphaned and self.errors:   # nobody can synchronize it now
                        self.pool.device._orphaned_errors.extend(self.errors)
                        self.errors = []
                return
            try:
                item[0](*item[1])
            except BaseException as exc:  # kept for the next synchronize()
                with self.cond:
                    self.errors.append(exc)
            finally:
                # Drop the task before signalling, so that buffers it held
                # are returned to their pool by the time synchronize() returns.
                item = None
                with self.cond:
                    self.pending -= 1
                    if self.pending == 0:
                        self.cond.notify_all()

    def wait(self):
        with self.cond:
            while self.pending:
                self.cond.wait()
            errors, self.errors = self.errors, []
        if errors:
            first = errors[0]
            if len(errors) > 1:
                first.add_note(f"({len(errors) - 1} more error(s) were raised on the same stream)")
            raise first

    def stop(self):
        """Queue the end of the thread after the pending work; idempotent.

        Safe in a finalizer: ``cond`` is re-entrant and held only briefly, never
        while waiting for anything but itself.
        """
        with self.cond:
            if not self.stopped:
                self.stopped = True
                self.queue.put(None)


def _stop_orphan(worker):
    """A collected stream's finalizer: end its worker after the pending work, and hand
    errors nobody can now synchronize to its device (``asnumpy.synchronize``)."""
    worker.orphaned = True
    worker.stop()


# Workers whose thread may still be running, for the stop at interpreter exit.
_live_workers: "weakref.WeakSet[_Worker]" = weakref.WeakSet()
_EXIT_WAIT_S = 30.0


@atexit.register
def _stop_workers_at_exit():
    # Worker threads are daemons, so a stuck one cannot hang the exit; but work
    # already queued is run first, waited for within one overall bound.
    workers = list(_live_workers)
    for worker in workers:
        worker.stop()
    deadline = time.monotonic() + _EXIT_WAIT_S
    for worker in workers:
        if worker.thread is not None:
            worker.thread.join(max(0.0, deadline - time.monotonic()))


def _reset_workers_in_child():
    for worker in list(_live_workers):
        worker.reset_in_child()


_fork.register(after_in_child=_reset_workers_in_child)


class Stream:
    """An ordered queue of device work that runs asynchronously to the host.

    Parameters
    ----------
    device : str, Device or None
        The device whose work this stream orders; the current device if None.

    Notes
    -----
    ``with stream:`` makes the stream current for its device on this thread:
    functions that take ``stream=None`` then launch on it.
    """

    is_default = False
    _worker = None          # the thread behind a cpu stream; back ends' streams have none
    _capture = None         # the open capture (runtime/graph.py), while one records

    def __new__(cls, device=None):
        # A back end with streams of its own (cuda) supplies a subclass; ``Stream()``
        # on such a device builds one of those.
        if cls is Stream:
            cls = getattr(_Device(device).backend, "stream_class", None) or Stream
        stream = object.__new__(cls)
        # What the memory pool files this stream's freed blocks under: an object
        # with query() that should not keep the stream alive (Stream: its worker).
        stream._reuse_key = stream
        return stream

    def __init__(self, device=None):
        self.device = _Device(device)
        self._worker = _Worker(f"asnumpy-stream-{self.device}", self.device.memory_pool)
        self._reuse_key = self._worker
        weakref.finalize(self, _stop_orphan, self._worker)
        self.device._streams.add(self)

    def launch(self, fn, *args) -> None:
        """Queue ``fn(*args)`` after all work already on this stream (recorded instead,
        while the stream captures)."""
        capture = self._capture
        if capture is not None:
            capture.record(fn, args)
            return
        self._worker.submit(fn, args)

    def launch_host_func(self, fn, *args) -> None:
        """Queue the host function ``fn(*args)`` after all work already on this stream.

        Later work on the stream waits for it.  On cuda it runs on a driver
        thread (``cuLaunchHostFunc``) and must not queue device work; an error
        it raises is kept for ``synchronize()`` on every device.
        """
        self.launch(fn, *args)

    def synchronize(self) -> None:
        """Wait for all work on this stream; raise the first error it raised."""
        _graph.check_sync("Stream.synchronize", self)
        worker = self._worker
        if _observer.observer is None or not worker.pending:
            worker.wait()
            return
        started = time.perf_counter()
        try:
            worker.wait()
        finally:
            _observer.waited("Stream.synchronize", self.device, self, started)

    def query(self) -> bool:
        """True when all work launched on this stream has finished."""
        _graph.check_sync("Stream.query", self, waits=False)
        return self._worker.pending == 0

    def close(self) -> None:
        """Run the pending work, end the worker thread and release the stream.

        Idempotent.  Raises the first error kept from asynchronous work, as
        ``synchronize()`` would; launching on a closed stream raises
        RuntimeError.  A stream that is collected is closed the same way,
        without waiting.
        """
        if self._capture is not None:
            raise _graph._refuse([self._capture], "Stream.close",
                                 "the stream is closed")
        worker = self._worker
        if worker is None:      # default streams and back ends' own (cuda): nothing to end
            self.synchronize()
            return
        worker.stop()
        thread = worker.thread      # None: never started in this (forked) process
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        worker.wait()

    @property
    def done(self) -> bool:
        """True when all work launched on this stream has finished."""
        return self.query()

    # -- graph capture (runtime/graph.py) ----------------------------------------------

    def begin_capture(self, mode: str = "global") -> None:
        """Start recording the work launched on this stream into a graph.

        Parameters
        ----------
        mode : {'global', 'thread_local', 'relaxed'}
            CUDA's ``CUstreamCaptureMode``: which synchronisation elsewhere the
            capture forbids (any thread's, this thread's, none but its own).

        Until :meth:`end_capture`, work launched on the stream is recorded, not
        run.  Raises StreamCaptureError on a default stream or when already
        capturing.
        """
        _graph.begin_capture(self, mode)

    def end_capture(self) -> Graph:
        """End the capture and return its :class:`Graph`.

        Raises StreamCaptureError when the stream is not capturing, or when
        the capture was invalidated (it ends all the same).
        """
        return _graph.end_capture(self)

    def is_capturing(self) -> bool:
        """True between :meth:`begin_capture` and :meth:`end_capture`."""
        return self._capture is not None

    def capture(self, mode: str = "global"):
        """A context manager capturing the work inside: ``with s.capture() as c:``,
        then ``c.graph``; an exception inside ends the capture and propagates."""
        return _graph.capture(self, mode)

    def _closed(self) -> bool:
        worker = self._worker
        return worker is not None and worker.stopped

    # The back end's part of capturing (ops.backend.StreamCapture): a cpu stream
    # records the launches themselves (launch() above) and replays them in order.
    def _capture_began(self, capture) -> None:
        return None

    def _capture_ended(self, capture):
        return None

    def _replay(self, graph) -> None:
        for fn, args in graph._work:
            self.launch(fn, *args)

    def _release_graph(self, native) -> None:
        return None

    def record(self, event: "Event | None" = None) -> "Event":
        """Record ``event`` (a new one if None) at this point of the stream."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event: "Event") -> None:
        """Make later work on this stream wait until ``event`` has completed."""
        signal = event._signal
        if signal is not None and not signal.is_set():
            event._check_not_inherited("Stream.wait_event")
            _observer.queue_work(self, "wait_event", "wait", signal.wait)

    def __enter__(self):
        thread_state().streams.setdefault(self.device.name, []).append(self)
        stream_block_entered()
        return self

    def __exit__(self, *exc_info):
        thread_state().streams[self.device.name].pop()
        stream_block_left()

    def __repr__(self):
        capturing = " capturing" if self._capture is not None else ""
        return f"<asnumpy.Stream device={self.device} pending={self._worker.pending}{capturing}>"


class DefaultStream(Stream):
    """A device's default stream: work runs at once, in order with the host."""

    is_default = True

    def __init__(self, device):
        self.device = device

    def launch(self, fn, *args) -> None:
        fn(*args)

    def synchronize(self) -> None:
        _graph.check_sync("Stream.synchronize", self)

    def query(self) -> bool:
        return True

    def wait_event(self, event: "Event") -> None:
        # Work on the default stream runs on the calling thread, so waiting
        # for the event here is what orders it.
        event.synchronize()

    def __repr__(self):
        return f"<asnumpy.Stream default device={self.device}>"


class Event:
    """A marker in a stream: completion can be queried, awaited and timed.

    Methods
    -------
    record(stream=None)
        Mark the current point of ``stream`` (the current stream if None).
    synchronize()
        Wait until the recorded point has been reached.
    query()
        True once the recorded point has been reached (or never recorded).
    elapsed_time(end)
        Milliseconds between this event and a later event ``end``.
    """

    def __init__(self):
        self._signal = None
        self._time = None
        self._generation = 0        # _fork.generation() when recorded
        self._capture = None        # the capture it was recorded in (runtime/graph.py)

    def record(self, stream: Stream | None = None) -> None:
        stream = get_current_stream() if stream is None else stream
        self._generation = _fork.generation()
        self._capture = stream._capture
        native_record = getattr(stream, "_record_native", None)
        if native_record is not None:     # a back end with events of its own (cuda)
            native_record(self)
            return
        signal = threading.Event()
        self._signal, self._time = signal, None

        def mark():
            self._time = time.perf_counter()
            signal.set()

        stream.launch(mark)

    def synchronize(self) -> None:
        _graph.check_sync("Event.synchronize", captured=self._capture)
        signal = self._signal
        if signal is not None and not signal.is_set():
            self._check_not_inherited("Event.synchronize")
            if _observer.observer is None:
                signal.wait()
                return
            started = time.perf_counter()
            try:
                signal.wait()
            finally:
                _observer.waited("Event.synchronize", None, None, started)

    def _check_not_inherited(self, caller: str) -> None:
        """Raise if this pending event was recorded before a fork: it never completes here.

        (The work before its point was queued in the parent; a forked child
        does not run it.)  Only cpu events: a back end's own are its driver's.
        """
        if self._generation != _fork.generation() and isinstance(self._signal, threading.Event):
            raise RuntimeError(
                f"asnumpy.{caller}: the event was recorded in the parent process before "
                "os.fork() and had not completed; the parent's pending stream work does not "
                "run in a forked child, so the event never completes here")

    def query(self) -> bool:
        _graph.check_sync("Event.query", captured=self._capture, waits=False)
        return self._signal is None or self._signal.is_set()

    @property
    def done(self) -> bool:
        return self.query()

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds from this event to ``end``; both must have completed."""
        for name, event in (("start", self), ("end", end)):
            if event._signal is None:
                raise RuntimeError(f"Event.elapsed_time: the {name} event was never recorded")
            if event._time is None and not event._signal.is_set():
                raise RuntimeError(f"Event.elapsed_time: the {name} event has not completed")
        elapsed = getattr(self._signal, "elapsed_ms", None)
        if elapsed is not None:           # both recorded on a back end's own stream
            return elapsed(end._signal)
        return (end._time - self._time) * 1000.0

    def __repr__(self):
        state = "unrecorded" if self._signal is None else ("done" if self.query() else "pending")
        return f"<asnumpy.Event {state}>"


def get_current_stream(device=None) -> Stream:
    """The stream that work on ``device`` (the current device) launches on."""
    if device is None or type(device) is not _Device:
        device = _Device(device)
    stack = thread_state().streams.get(device.name)
    return stack[-1] if stack else device.default_stream

