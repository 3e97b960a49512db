"""Graph capture and replay: CUDA's stream capture, with its rules, on every device.

``stream.begin_capture()`` starts recording: work launched on the stream
from then on is *recorded*, not run, until ``stream.end_capture()`` returns
it as a :class:`Graph`, which ``graph.launch()`` replays as often as wanted.
The graph keeps every array its work touches alive, so their addresses are
fixed across replays: inputs are rebound by writing new values into the same
arrays between launches, as with CUDA graphs.

What is shared by every device lives here: the open captures, the rules
(CUDA's) that they enforce, and the :class:`Graph` object.  What differs is
the stream class's (the back end's; ``ops.backend.StreamCapture``):

* ``_capture_began(capture)`` / ``_capture_ended(capture)`` -> the back end's
  graph (the cpu records the launches themselves and has none; cuda begins
  a driver capture and instantiates the graph it ends with),
* ``_replay(graph)``: queue the graph's work on this stream,
* ``_release_graph(native)``: free a back end's graph.

The rules, as the CUDA driver enforces them (``CUstreamCaptureMode``):

* only a user stream captures (the default stream raises), one capture at a
  time per stream;
* no synchronisation inside a capture: synchronizing or querying the
  capturing stream or an event recorded in the capture, and -- in
  ``"global"`` mode while any thread captures, in ``"thread_local"`` mode on
  the capturing thread -- any synchronisation (``Stream.synchronize``,
  ``Event.synchronize``, ``asnumpy.synchronize``), as well as a host read of
  an array the captured work writes (``asnumpy.asnumpy``, ``get``, ``item``,
  ``bool``, ``print``) or a copy of host memory on the capturing stream
  (``asarray`` of host data), raise :class:`StreamCaptureError` and *invalidate*
  the capture: later launches on the stream raise too, and ``end_capture``
  raises (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) and ends it;
* closing a capturing stream raises (and invalidates the capture).

While any capture is open the lean gate (``_state.lean_gate``) is raised, so
the fast lanes and the compiled call path step aside and every op reaches
``_core/_launch`` and the stream.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

from . import _state

__all__ = ["CAPTURE_MODES", "Graph", "StreamCaptureError", "begin_capture", "capture",
           "check_host_copy", "check_host_read", "check_sync", "end_capture", "open_captures"]

CAPTURE_MODES = ("global", "thread_local", "relaxed")


class StreamCaptureError(RuntimeError):
    """A call that stream capture forbids (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED /
    _INVALIDATED), or a capture used wrongly (begun twice, ended without a begin)."""


class _Capture:
    """One open capture: its stream, mode and thread, what it recorded, why it is invalid."""

    __slots__ = ("stream", "mode", "thread", "work", "written", "invalid")

    def __init__(self, stream, mode):
        self.stream, self.mode = stream, mode
        self.thread = threading.get_ident()
        self.work = []              # (fn, args) in launch order; keeps the arrays alive
        self.written = set()        # id() of the buffers the recorded work writes
        self.invalid = None         # the call that invalidated it, once one has

    def record(self, fn, args) -> None:
        """Keep a launch ``fn(*args)`` (the back end's stream calls this for each)."""
        if self.invalid is not None:
            raise StreamCaptureError(
                f"asnumpy.Stream.launch: the capture on {self.stream!r} was invalidated by "
                f"{self.invalid}; call end_capture() to end it")
        self.work.append((fn, args))
        written = args[0] if args else None    # kernels write their first argument
        for array in written if type(written) is tuple else (written,):
            realize = getattr(array, "_realize", None)
            if realize is not None:
                self.written.add(id(realize()))

    def prohibits_sync(self, thread) -> bool:
        return self.mode == "global" or (self.mode == "thread_local" and self.thread == thread)


# The captures open now, on every thread (a list replaced whole under the lock, so
# the checks read it without one; usually empty, which is all they look at).
open_captures: list = []
_lock = threading.Lock()


def _invalidate(captures, call: str) -> None:
    for capture in captures:
        if capture.invalid is None:
            capture.invalid = call


def _refuse(captures, call: str, why: str):
    _invalidate(captures, call)
    named = ", ".join(repr(c.stream) for c in captures)
    return StreamCaptureError(
        f"asnumpy.{call}: {why} while {named} captures (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED); "
        "the capture is invalidated: end_capture() will raise")


def check_sync(call: str, stream=None, captured=None, waits=True) -> None:
    """Raise StreamCaptureError if a synchronisation named ``call`` is forbidden now.

    ``stream`` is the stream waited for (None: no single one), ``captured``
    the capture an awaited event was recorded in (None: outside any);
    ``waits`` False for a query, which only the stream's or event's own
    capture forbids.  The captures that forbid it are invalidated.
    """
    captures = open_captures
    if not captures:
        return
    if captured is not None and captured in captures:
        raise _refuse([captured], call, "an event recorded in the capture is awaited")
    mine = [c for c in captures if c.stream is stream]
    if mine:
        raise _refuse(mine, call, "the capturing stream is synchronized")
    if not waits:
        return
    thread = threading.get_ident()
    forbidding = [c for c in captures if c.prohibits_sync(thread)]
    if forbidding:
        raise _refuse(forbidding, call, "the host synchronizes")


def check_host_read(call: str, array, stream=None) -> None:
    """Raise StreamCaptureError if ``array``'s data is written by work a capture recorded
    (it has not run: the host would read stale data), or the copy would be queued on
    ``stream`` while it captures, invalidating that capture."""
    captures = open_captures
    if not captures:
        return
    check_host_copy(call, stream)
    buffer = id(array._realize())
    writers = [c for c in captures if buffer in c.written]
    if writers:
        raise _refuse(writers, call, f"the host reads an array of shape {array.shape} that "
                                     "captured work writes")
    check_sync(call)


def check_host_copy(call: str, stream) -> None:
    """Raise StreamCaptureError if ``stream`` captures: a copy between host memory and the
    device is no graph's work (a GPU refuses pageable memory in a capture), invalidating it."""
    capture = getattr(stream, "_capture", None)
    if capture is not None:
        raise _refuse([capture], call, "host memory is copied on the capturing stream (copy "
                                       "host data into an array before the capture and "
                                       "rebind it by writing into that array)")


def begin_capture(stream, mode: str = "global") -> None:
    """Start capturing on ``stream`` (Stream.begin_capture's body)."""
    if mode not in CAPTURE_MODES:
        raise ValueError(f"asnumpy.Stream.begin_capture: mode must be one of "
                         f"{', '.join(map(repr, CAPTURE_MODES))}, got {mode!r}")
    if stream.is_default:
        raise StreamCaptureError(
            f"asnumpy.Stream.begin_capture: {stream!r} is a default stream, which cannot "
            "capture (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED); capture on a "
            "asnumpy.Stream(device) of its own")
    if stream._capture is not None:
        raise StreamCaptureError(f"asnumpy.Stream.begin_capture: {stream!r} is already "
                                 "capturing; end_capture() first")
    if stream._closed():
        raise RuntimeError(f"asnumpy.Stream.begin_capture: {stream!r} is closed")
    capture = _Capture(stream, mode)
    stream._capture_began(capture)          # the back end's part (may raise: nothing opened)
    global open_captures
    with _lock:
        open_captures = [*open_captures, capture]
    stream._capture = capture
    _state.lean_gate_raised(1)              # every op now goes through the stream


def end_capture(stream) -> "Graph":
    """End ``stream``'s capture and return its graph (Stream.end_capture's body)."""
    capture = stream._capture
    if capture is None:
        raise StreamCaptureError(f"asnumpy.Stream.end_capture: {stream!r} is not capturing "
                                 "(begin_capture() was not called)")
    global open_captures
    stream._capture = None
    with _lock:
        open_captures = [c for c in open_captures if c is not capture]
    _state.lean_gate_raised(-1)
    try:
        native = stream._capture_ended(capture)
    except StreamCaptureError:
        raise
    except Exception as exc:      # the driver's refusal: invalidated behind our back
        if capture.invalid is None and "STREAM_CAPTURE" in str(exc):
            capture.invalid = f"the driver ({exc})"
        if capture.invalid is None:
            raise
        native = None
    if capture.invalid is not None:
        if native is not None:
            stream._release_graph(native)
        raise StreamCaptureError(
            f"asnumpy.Stream.end_capture: the capture on {stream!r} was invalidated by "
            f"{capture.invalid} (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED); it has ended, and "
            "the stream may capture again")
    return Graph(stream, capture.work, native)


@contextlib.contextmanager
def capture(stream, mode: str = "global"):
    """``with stream.capture() as captured:``; ``captured.graph`` is set on exit.

    An exception inside ends the capture (its graph is dropped) and propagates.
    """
    holder = _Captured()
    begin_capture(stream, mode)
    try:
        yield holder
    except BaseException:
        if stream._capture is not None:
            with contextlib.suppress(StreamCaptureError):
                end_capture(stream)
        raise
    holder.graph = end_capture(stream)


class _Captured:
    """What ``with stream.capture() as captured:`` binds: ``graph`` once the block ends."""

    __slots__ = ("graph",)

    def __init__(self):
        self.graph = None

    def __repr__(self):
        return f"<captured graph={self.graph!r}>"


class Graph:
    """Work captured on a stream, to replay (``cupy.cuda.Graph``).

    Made by :meth:`asnumpy.runtime.Stream.end_capture`.  It keeps the arrays
    its work reads and writes alive, at fixed addresses: write new inputs
    into the same arrays (``x[...] = new``) and launch again.
    """

    def __init__(self, stream, work, native):
        self.stream = stream            # where it was captured: launch()'s default
        self.device = stream.device
        self._work = tuple(work)        # the launches, in order (cpu replays them)
        self._native = native           # the back end's graph, or None
        self._replayed_on = None        # the lane of the last rebound replay (cuda)
        if native is not None:
            weakref.finalize(self, stream._release_graph, native)

    def launch(self, stream=None) -> None:
        """Queue the captured work on ``stream`` (the stream it was captured on).

        Returns at once; synchronize the stream to wait for it.
        """
        stream = self.stream if stream is None else stream
        kind = type(stream)
        if not hasattr(kind, "_replay"):
            raise TypeError(f"asnumpy.Graph.launch: stream must be an asnumpy.Stream, got "
                            f"{stream!r}")
        if stream.device is not self.device:
            raise ValueError(f"asnumpy.Graph.launch: the graph was captured on {self.device} "
                             f"and cannot run on {stream!r} of {stream.device}")
        if stream._closed():
            raise RuntimeError(f"asnumpy.Graph.launch: {stream!r} is closed; launch the graph "
                               "on an open stream: graph.launch(stream=...)")
        stream._replay(self)

    @property
    def size(self) -> int:
        """How many launches the graph holds."""
        return len(self._work)

    def __repr__(self):
        return f"<asnumpy.Graph of {len(self._work)} launches on {self.device}>"
