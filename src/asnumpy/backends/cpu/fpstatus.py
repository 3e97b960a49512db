"""Floating-point error reporting for work split across threads.

NumPy's error state (``numpy.errstate``) lives in a context variable, so a
worker thread does not see the settings of the thread that split the work.
Every piece of split work therefore runs under :func:`recording`, which turns
each floating-point error into a call that notes its flags; the caller then
:func:`replay`\\ s them once, under its own settings, exactly as one NumPy
call would have reported them.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from ..._errors import user_stacklevel

__all__ = ["DIVIDE", "INVALID", "OVERFLOW", "UNDERFLOW", "Recorder", "recording", "replay"]

# NumPy's status bits (numpy._core.umath.FPE_*); the 'call' handler receives
# the OR of every bit the operation raised, even those set to 'ignore'.
DIVIDE, OVERFLOW, UNDERFLOW, INVALID = 1, 2, 4, 8

# NumPy reports the kinds in this order, each at most once per operation.
_KINDS = (
    (DIVIDE, "divide", "divide by zero"),
    (OVERFLOW, "over", "overflow"),
    (UNDERFLOW, "under", "underflow"),
    (INVALID, "invalid", "invalid value"),
)


class Recorder:
    """An ``errcall`` handler that ORs the status flags it is called with.

    One recorder per thread: ``flags |= status`` is not atomic.
    """

    __slots__ = ("flags",)

    def __init__(self):
        self.flags = 0

    def __call__(self, errtype, status):
        self.flags |= status


def recording(recorder: Recorder):
    """A ``numpy.errstate`` that hands every floating-point error to ``recorder``."""
    return np.errstate(all="call", call=recorder)


def replay(flags: int, name: str) -> None:
    """Report ``flags`` raised by operation ``name`` as one NumPy call would.

    Follows the calling thread's ``numpy.geterr()`` / ``numpy.geterrcall()``:
    'ignore', 'warn' (RuntimeWarning), 'raise' (FloatingPointError), 'call'
    (``handler(errtype, flags)``), 'print' (to the C-level stderr) and 'log'
    (``handler.write``), kind by kind in NumPy's order.
    """
    if not flags:
        return
    settings = np.geterr()
    for bit, key, errtype in _KINDS:
        if not flags & bit:
            continue
        mode = settings[key]
        if mode == "ignore":
            continue
        if mode == "warn":
            warnings.warn(f"{errtype} encountered in {name}", RuntimeWarning,
                          stacklevel=user_stacklevel())
        elif mode == "raise":
            raise FloatingPointError(f"{errtype} encountered in {name}")
        elif mode == "call":
            handler = np.geterrcall()
            if handler is None:
                raise NameError(
                    f"python callback specified for {errtype} (in  {name}) but no function found."
                )
            handler(errtype, flags)
        elif mode == "print":
            os.write(2, f"Warning: {errtype} encountered in {name}\n".encode())
        else:  # 'log'
            handler = np.geterrcall()
            if handler is None or not hasattr(handler, "write"):
                raise NameError(
                    f"log specified for {errtype} (in {name}) but no object with write method found."
                )
            handler.write(f"Warning: {errtype} encountered in {name}\n")
