"""``asnumpy.fuse``: a Python function of arrays compiled into one kernel.

The decorated function is traced once per input signature (dtypes, shapes
and which arguments are Python or NumPy scalars) into an op graph
(:mod:`._trace`), scheduled on the call's arrays (:mod:`._schedule`),
rendered to C++ / CUDA C from the same per-loop C functions every cuda
kernel uses (:mod:`._render`) and launched as one kernel (:mod:`._run`):
on ``cpu`` a compiled, blocked loop run across threads, on ``cuda`` one
kernel (two launches for a reduction cut into chunks).  No full-size
temporary is made: each element is loaded once per pass, computed in
registers and stored once.

What fuses: the elementwise ufuncs (operators included) with a C form in
the cuda op table, ``astype``, and reductions ``sum``/``prod``/``max``/``min``
/``mean`` (functions, methods or ``ufunc.reduce``) along one set of axes,
followed by elementwise work on their results (``x - x.max(axis=-1,
keepdims=True)`` ...).  A function one kernel cannot compute (reductions
along different axes, a reduced value broadcast back along other axes than
its own, results of different shapes) runs as a few kernels, each reduction's
result stored in between (:mod:`._stages`).  Anything else -- another
function, ``where=``, indexing, Python branching on array values -- makes the
function run op by op, with one :class:`FusionFallbackWarning` naming what
could not be fused.

Numerics: elementwise results are the unfused computation's bit for bit
for integers, bools and real ``+ - * /`` (same loops, same dtypes, no
contraction to FMA); transcendental functions are the C library's (within
2-3 ulp of NumPy's) and float32/float16 ``exp`` on cpu is a vectorised form
within 1 ulp of the correctly rounded value (see docs/extension.md);
reductions accumulate in a fixed association (16 lanes per chunk, chunks
combined pairwise), so integer results are exact and float results differ
from NumPy's pairwise sums by rounding only; the association depends on the
shape, never on threads.  Floating-point warnings (overflow, invalid) are
not raised by fused kernels.
"""

from __future__ import annotations

import functools
import linecache
import os
import warnings

import numpy as np

from ..._core.ndarray import ndarray
from ..._errors import user_stacklevel

__all__ = ["Fusion", "FusionFallbackWarning", "fuse"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NUMPY = os.path.dirname(os.path.abspath(np.__file__))
_WEAK = (bool, int, float, complex)
_CACHE_SIZE = 256


class FusionFallbackWarning(UserWarning):
    """A fused function runs op by op; the message names the operation that did not fuse."""


def fuse(*args, **kwargs):
    """Compile a function of arrays into one kernel (CuPy's ``cupy.fuse``).

    Usable as ``@fuse``, ``@fuse()`` or ``@fuse(kernel_name="name")``.

    Parameters
    ----------
    kernel_name : str, optional
        Name of the generated kernel (the function's name by default).

    Returns
    -------
    Fusion
        A callable taking the function's arguments (asnumpy arrays, Python
        and NumPy scalars, positionally); it returns what the function
        returns, computed by one kernel on the arrays' device.

    Examples
    --------
    >>> @asnumpy.fuse
    ... def squared_distance(x, y):
    ...     return asnumpy.sum((x - y) ** 2, axis=-1)
    """
    unknown = set(kwargs) - {"kernel_name"}
    if unknown:
        raise TypeError(f"asnumpy.fuse() got an unexpected keyword argument {min(unknown)!r}")
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return Fusion(args[0])
    if args:
        raise TypeError("asnumpy.fuse: use @fuse or @fuse(kernel_name=...), got positional "
                        f"arguments {args!r}")
    return functools.partial(Fusion, kernel_name=kwargs.get("kernel_name"))


class Fusion:
    """A function compiled by :func:`fuse`; call it like the function."""

    def __init__(self, func, kernel_name=None):
        if not callable(func):
            raise TypeError(f"asnumpy.fuse: {func!r} is not callable")
        functools.update_wrapper(self, func)
        self._func = func
        self.kernel_name = kernel_name or getattr(func, "__name__", "fused")
        self._traces = {}          # trace key -> (graph, outputs, is_tuple) or a fallback reason
        self._schedules = {}       # call key -> schedule
        self._warned = set()

    def __repr__(self):
        return f"<asnumpy.fuse {self.kernel_name}>"

    def clear_cache(self):
        """Forget the traces and schedules (the compiled code stays in the toolchain's cache)."""
        self._traces.clear()
        self._schedules.clear()

    def __call__(self, *args, **kwargs):
        signature = None if kwargs else _call_signature(args)
        if signature is None:
            return self._func(*args, **kwargs)
        device, trace_key, call_key = signature
        entry = self._schedules.get(call_key)
        if entry is None:
            entry = self._plan(args, device, trace_key, call_key)
        if isinstance(entry, _Unfused):
            return entry.run(self, args)
        schedule, is_tuple = entry
        from ._run import launch, scalar_values
        from ._stages import Plan

        staged = type(schedule) is Plan
        try:
            scalars = schedule.scalar_values(args) if staged else scalar_values(schedule, args)
        except (OverflowError, ValueError, TypeError):
            return self._func(*args)       # NumPy's answer (or error) for such a scalar
        results = (schedule.launch(args, device, scalars) if staged
                   else launch(schedule, args, device, scalars))
        return results if is_tuple else results[0]

    def _plan(self, args, device, trace_key, call_key):
        from ._schedule import Unfusable, build
        from ._trace import Untraceable, trace

        traced = self._traces.get(trace_key)
        if traced is None:
            try:
                traced = trace(self._func, args, device)
            except Untraceable as exc:
                traced = _Unfused(str(exc), exc.__traceback__)
            except Exception as exc:    # noqa: BLE001 (an asnumpy function given a traced value)
                traced = _Unfused(None, exc.__traceback__, exc)
            self._remember(self._traces, trace_key, traced)
        if isinstance(traced, _Unfused):
            return traced
        graph, outputs, is_tuple = traced
        try:
            schedule = build(graph, outputs, args, self.kernel_name)
        except Unfusable as exc:
            # not one kernel: a few, reductions materialized in between (see _stages)
            from ._stages import plan

            try:
                schedule = plan(graph, outputs, args, self.kernel_name)
            except Unfusable:
                unfused = _Unfused(str(exc), None)
                self._remember(self._schedules, call_key, unfused)
                return unfused
        entry = (schedule, is_tuple)
        self._remember(self._schedules, call_key, entry)
        return entry

    @staticmethod
    def _remember(cache, key, value):
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cache[key] = value


class _Unfused:
    """Why a signature runs op by op, and where in the function that was decided."""

    def __init__(self, reason, traceback, error=None):
        self.reason = reason
        self.error = error
        self.where = _user_line(traceback)

    def run(self, fusion, args):
        """The function op by op, with the warning (after it, if tracing raised an error:
        when the real run raises it too, it was the function's own error)."""
        if self.error is None:
            self.warn_once(fusion)
            return fusion._func(*args)
        result = fusion._func(*args)
        self.warn_once(fusion)
        return result

    def warn_once(self, fusion):
        """Warn, once per function and reason, that the function runs op by op."""
        if self.reason is None:
            self.reason = (f"an operation on a traced value "
                           f"({type(self.error).__name__}: {self.error})")
        reason = self.reason
        if reason in fusion._warned:
            return
        fusion._warned.add(reason)
        where = f" at `{self.where}`" if self.where else ""
        warnings.warn(f"asnumpy.fuse: {fusion.kernel_name}: cannot fuse {reason}{where}; "
                      "the function runs op by op", FusionFallbackWarning,
                      stacklevel=user_stacklevel())


def _user_line(traceback):
    """The source line, outside asnumpy and NumPy, where tracing stopped (None if unknown).

    NumPy's own frames are skipped: ``ap.argmax(x)`` on a traced value stops
    in NumPy's code, called from the user's line.
    """
    found = None
    while traceback is not None:
        code = traceback.tb_frame.f_code
        filename = os.path.abspath(code.co_filename)
        if not filename.startswith((_PACKAGE + os.sep, _NUMPY + os.sep)):
            line = linecache.getline(code.co_filename, traceback.tb_lineno).strip()
            found = line or found
        traceback = traceback.tb_next
    return found


def _call_signature(args):
    """(device, trace key, call key), or None for calls that run op by op as they are."""
    device = None
    trace_key, call_key = [], []
    for value in args:
        kind = type(value)
        if kind is ndarray:
            if device is None:
                device = value._device
            elif value._device is not device:
                return None                 # the op-by-op run raises the mixing rule's error
            if 0 in value._shape or value._dtype.char not in _STORABLE:
                return None
            trace_key.append((value._dtype, value._shape))
            call_key.append((value._dtype, value._shape, value._strides))
        elif kind in _WEAK:
            trace_key.append(kind)
            call_key.append(kind)
        elif isinstance(value, np.generic) and value.dtype.char in _STORABLE:
            trace_key.append(value.dtype)
            call_key.append(value.dtype)
        else:
            return None
    if device is None or getattr(device.backend, "cxx", None) is None:   # no C++ target
        return None
    return device, tuple(trace_key), (device, tuple(call_key))


_STORABLE = frozenset("?bBhHiIlLqQefdFD")
