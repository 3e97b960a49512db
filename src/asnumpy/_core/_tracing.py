"""The seam through which ``asnumpy.jit`` records calls of module functions.

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
"""

from __future__ import annotations

import functools

__all__ = ["ACTIVE", "traceable", "traced_argument"]

ACTIVE = [0]            # traces open (all threads): non-zero lets traceable() look


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
