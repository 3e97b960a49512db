"""Where a profiler listens: one hook that the seams of asnumpy call while it is set.

``observer`` is None unless :mod:`asnumpy.profiler` is recording; every seam
reads it once and, when it is None, does exactly what it did before.  The
seams (each names this module):

* ``_core/_launch.queue``: every kernel launched by name, every copy between
  host and device and between devices, every user kernel and fused kernel
  (``observer.launched``);
* the ufunc plan's launch (``_core/ufuncs/ufunc.py``) and the lean paths that
  call NumPy at once on the caller's thread -- the fast lane, a held plan's
  lean call, ``mean``'s (``observer.called``);
* the memory pool: blocks handed out and returned, scratch reservations,
  blocks fresh from the allocator (``observer.memory``);
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

__all__ = ["observer", "install", "remove", "waited"]

# The observer recording now (asnumpy.profiler's), or None.  One at a time: a
# second profile() started while one records shares it (the profiler nests sessions).
observer = None
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
    global observer
    with _lock:
        if observer is not old:
            raise RuntimeError("asnumpy.profiler: that observer is not the one installed")
        observer = None
        _state.lean_gate_raised(-1)


def waited(what: str, device, stream, started: float) -> None:
    """Report that the host waited for device work from ``started`` (perf_counter) until now."""
    current = observer
    if current is not None:
        current.waited(what, device, stream, started, time.perf_counter())
