"""The seams through which ``asnumpy.jit`` and ``asnumpy.lazy`` record calls.

A jit trace runs the user's function on wrapped values (types defining
``__asnumpy_function__(function, args, kwargs)``).  ufunc calls and
reductions reach them through ``__asnumpy_ufunc__`` (see ``ufunc.py``);
the module functions decorated with :func:`traceable` (``where``, ``clip``,
``concatenate``, ...) hand a call with such a value to its
``__asnumpy_function__``, which records the call and computes it.

Outside a trace the decorated function costs one global read: ``ACTIVE[0]``
counts the traces open on all threads.  Functions that are not decorated
meet a wrapped value through ``asarray``'s ``__asnumpy_array__`` (the value
itself, and the trace learns it cannot replay that call).

``with asnumpy.lazy():`` gives its thread a *lazy recorder* (:func:`lazy_recorder`):
the ufunc calls it can defer (``ufunc.__call__`` and ``ufunc.reduce`` hand
them to it first) return arrays whose memory is filled when first read; every
other launch on that thread -- a kernel by name, a plan, an item assignment --
first runs what is pending (:func:`flush_lazy`), so eager work sees the
deferred work done, in program order.  ``LAZY_OPEN[0]`` counts the open lazy
blocks of all threads: while it is 0 those seams pay one global read.
"""

from __future__ import annotations

import functools
import threading

__all__ = ["ACTIVE", "LAZY_OPEN", "flush_lazy", "lazy_recorder", "lazy_recording",
           "set_lazy_recorder", "traceable", "traced_argument"]

ACTIVE = [0]            # traces open (all threads): non-zero lets traceable() look
LAZY_OPEN = [0]         # threads with a lazy block open
_lazy = threading.local()


def lazy_recorder():
    """This thread's lazy recorder (an open ``asnumpy.lazy()`` block's), or None."""
    return getattr(_lazy, "recorder", None)


def lazy_recording() -> bool:
    """Whether this thread's calls are being recorded by an open lazy block (then a path
    that computes at once -- a lane's observed form, mean's -- steps aside for the
    general path, which defers)."""
    return bool(LAZY_OPEN[0]) and getattr(_lazy, "recorder", None) is not None


def set_lazy_recorder(recorder) -> None:
    """Give this thread ``recorder`` (None: take it away)."""
    _lazy.recorder = recorder


def flush_lazy() -> None:
    """Run this thread's pending lazy work now (before eager work that may read or write
    its operands)."""
    recorder = getattr(_lazy, "recorder", None)
    if recorder is not None:
        recorder.flush()


def traced_argument(args, kwargs):
    """The first wrapped value among ``args``, ``kwargs`` and the sequences in them, or None."""
    for value in (*args, *kwargs.values()):
        if hasattr(type(value), "__asnumpy_function__"):
            return value
        if type(value) in (list, tuple):
            for item in value:
                if hasattr(type(item), "__asnumpy_function__"):
                    return item
    return None


def traceable(function):
    """``function``, handing calls with a traced argument to that value's
    ``__asnumpy_function__`` while a jit trace is open (``function`` itself otherwise)."""

    @functools.wraps(function)
    def traced_or_called(*args, **kwargs):
        if ACTIVE[0]:
            traced = traced_argument(args, kwargs)
            if traced is not None:
                return traced.__asnumpy_function__(traced_or_called, args, kwargs)
        return function(*args, **kwargs)

    return traced_or_called
