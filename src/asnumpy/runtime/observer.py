"""Where a profiler listens: one hook that the seams of asnumpy call while it is set.

``observer`` is None unless :mod:`asnumpy.profiler` is recording; every seam
reads it once and, when it is None, does exactly what it did before.  The
seams (each names this module):

* :func:`queue_work` (here): every kernel launched by name, every copy
  between host and device and between devices, every user kernel and fused
  kernel (``observer.launched``);
* the ufunc plan's launch (``_core/ufuncs/ufunc.py``) and the lean paths that
  call NumPy at once on the caller's thread -- the fast lane, a held plan's
  lean call, ``mean``'s (``observer.called``);
* the memory pool, while ``memory_observer`` is set too: blocks handed out
  and returned, scratch reservations, blocks fresh from the allocator
  (``observer.memory``);
* waits of the host for device work (``observer.waited``) and the host
  fallback of a kernel a device lacks (``observer.fell_back``).

The lean paths are where a check would cost: they already step aside while
``lean_gate[0]`` is non-zero (a ``with stream:`` block open on some thread),
and :func:`install` raises that same number, so they pay nothing more when
no observer is set and, while one is, go to their observed form.
"""

from __future__ import annotations

import threading
import time

from . import _state

__all__ = ["ObservedRange", "observer", "memory_observer", "install", "remove", "queue_work",
           "waited", "watch_memory"]

# The observer recording now (asnumpy.profiler's), or None.  One at a time: a
# second profile() started while one records shares it (the profiler nests sessions).
observer = None
# The same observer while it also records memory (the pool's blocks), else None.
memory_observer = None
_lock = threading.Lock()


def install(new) -> None:
    """Make ``new`` the observer every seam reports to (none may be installed)."""
    global observer
    with _lock:
        if observer is not None:
            raise RuntimeError("asnumpy.profiler: another observer is already installed")
        observer = new
        _state.lean_gate_raised(1)


def remove(old) -> None:
    """Stop reporting to ``old`` (the installed observer)."""
    global observer, memory_observer
    with _lock:
        if observer is not old:
            raise RuntimeError("asnumpy.profiler: that observer is not the one installed")
        observer = memory_observer = None
        _state.lean_gate_raised(-1)


def watch_memory(enabled: bool) -> None:
    """Report the memory pools' blocks to the installed observer too (or stop)."""
    global memory_observer
    with _lock:
        memory_observer = observer if enabled else None


class ObservedRange:
    """A named range of the program, reported to the observer (``observer.ranged``) when
    it ends while one records: ``with ObservedRange("step"):``.  Reusable and nestable on
    every thread (each thread keeps its own starts).  asnumpy.profiler's ``time_range``
    is one (with NVTX ranges too); asnumpy.jit names the ranges of regions it runs op by
    op with one."""

    def __init__(self, name=None):
        self.name = name
        self._local = threading.local()

    def __enter__(self):
        self._local.__dict__.setdefault("starts", []).append(time.perf_counter())
        return self

    def __exit__(self, *exc_info):
        started = self._local.starts.pop()
        recorder = observer
        if recorder is not None and hasattr(recorder, "ranged"):
            recorder.ranged(self.name or "range", started, time.perf_counter())


def waited(what: str, device, stream, started: float) -> None:
    """Report that the host waited for device work from ``started`` (perf_counter) until now."""
    current = observer
    if current is not None:
        current.waited(what, device, stream, started, time.perf_counter())


def queue_work(stream, name, kind, work, *args, detail=None, reads=None, writes=None):
    """Queue ``work(*args)`` on ``stream``: the seam where a profiler sees work queued.

    ``name`` and ``kind`` ("kernel", "user kernel", "fused", "htod", "dtoh",
    "dtod") describe it to the observer (runtime/observer.py); the arrays it
    writes are those in ``args[0]`` and it reads those in the rest, unless
    ``writes``/``reads`` say otherwise.  Without an observer this is
    ``stream.launch(work, *args)``.
    """
    current = observer
    if current is None:
        stream.launch(work, *args)
    else:
        current.launched(name, kind, stream, work, args, detail=detail, reads=reads,
                          writes=writes)
