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

Choices per signature (:class:`_Fused`): on cpu the second and third calls
of a signature time the fused kernels and the op-by-op run, and the faster is
kept (where a fused loop cannot vectorise what NumPy's SIMD loops do, fusing
can lose); at most ``max_signatures`` signatures are traced, new ones then
run op by op with one :class:`RecompilationWarning`; ``Fusion.explain()``
says how each signature runs and why.

Numerics: elementwise results are the unfused computation's bit for bit
for integers, bools and real ``+ - * /`` (same loops, same dtypes, no
contraction to FMA); transcendental functions on cpu are vectorised: the
real loops call glibc's libmvec vector routines where the toolchain's probe
finds them (:mod:`asnumpy.ops.cxx.vecmath`; libmvec documents 4 ulp, measured
at most 4 ulp from the correctly rounded float32 value and 2.8 from the
float64 one), kept within 8 ulp of NumPy's float32 results, 5 of its
float64 and 1 of its float16 results (measured 6, 4, 1), with NumPy's
NaN/inf/signed-zero results; elsewhere the C library's scalar calls (within
2-3 ulp of NumPy's); float32/float16 ``exp`` on cpu is a vectorised form of
asnumpy's own within 1 ulp of the correctly rounded value (see
docs/extension.md, "Numbers");
reductions accumulate in a fixed association (16 lanes per chunk, chunks
combined pairwise), so integer results are exact and float results differ
from NumPy's pairwise sums by rounding only; the association depends on the
shape, never on threads.  Floating-point warnings (overflow, invalid) are
not raised by fused kernels.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import os
import time
import warnings

import numpy as np

from ..._core.ndarray import ndarray
from ..._errors import user_stacklevel
from ...runtime.stream import get_current_stream
from ._run import _program, launch, scalar_values
from ._stages import Plan

__all__ = ["Fusion", "FusionFallbackWarning", "RecompilationWarning", "fuse"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NUMPY = os.path.dirname(os.path.abspath(np.__file__))
_WEAK = (bool, int, float, complex)
_CACHE_SIZE = 256
MAX_SIGNATURES = 8          # traced input signatures per function before new ones run op by op


class FusionFallbackWarning(UserWarning):
    """A fused function runs op by op; the message names the operation that did not fuse."""


class RecompilationWarning(UserWarning):
    """A fused function met more input signatures than its cap; the message names the
    argument whose shape, dtype or layout keeps changing."""


def fuse(*args, **kwargs):
    """Compile a function of arrays into one kernel (CuPy's ``cupy.fuse``).

    Usable as ``@fuse``, ``@fuse()`` or ``@fuse(kernel_name="name")``.

    Parameters
    ----------
    kernel_name : str, optional
        Name of the generated kernel (the function's name by default).
    max_signatures : int, optional
        How many input signatures (dtypes, shapes, layouts, scalar kinds) are
        traced and compiled (default 8).  A call with a new signature beyond
        them runs op by op, with one :class:`RecompilationWarning` naming the
        argument that keeps changing.

    Returns
    -------
    Fusion
        A callable taking the function's arguments (asnumpy arrays, Python
        and NumPy scalars, positionally); it returns what the function
        returns, computed by one kernel on the arrays' device (op by op on a
        device with no C++ target: npu).

    Examples
    --------
    >>> @asnumpy.fuse
    ... def squared_distance(x, y):
    ...     return asnumpy.sum((x - y) ** 2, axis=-1)
    """
    unknown = set(kwargs) - {"kernel_name", "max_signatures"}
    if unknown:
        raise TypeError(f"asnumpy.fuse() got an unexpected keyword argument {min(unknown)!r}")
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return Fusion(args[0])
    if args:
        raise TypeError("asnumpy.fuse: use @fuse or @fuse(kernel_name=...), got positional "
                        f"arguments {args!r}")
    return functools.partial(Fusion, **kwargs)


class Fusion:
    """A function compiled by :func:`fuse`; call it like the function."""

    def __init__(self, func, kernel_name=None, max_signatures=MAX_SIGNATURES, quiet=False):
        if not callable(func):
            raise TypeError(f"asnumpy.fuse: {func!r} is not callable")
        if (not isinstance(max_signatures, int) or isinstance(max_signatures, bool)
                or max_signatures < 1):
            raise ValueError(f"asnumpy.fuse: max_signatures must be a positive int, got "
                             f"{max_signatures!r}")
        functools.update_wrapper(self, func)
        self._func = func
        self.kernel_name = kernel_name or getattr(func, "__name__", "fused")
        self.max_signatures = max_signatures
        self._traces = {}          # trace key -> (graph, outputs, is_tuple) or a fallback reason
        self._schedules = {}       # call key -> _Fused, or _Unfused (why it runs op by op)
        self._warned = set()
        self._quiet = quiet            # no FusionFallbackWarning (asnumpy.jit's regions)
        self._direct = None            # the last fused signature's direct call (see direct)

    def __repr__(self):
        return f"<asnumpy.fuse {self.kernel_name}>"

    def clear_cache(self):
        """Forget the traces and schedules (the compiled code stays in the toolchain's cache)."""
        self._traces.clear()
        self._schedules.clear()
        self._direct = None

    def explain(self) -> str:
        """How each input signature met so far runs, and why.

        One line per signature (the call key: dtypes, shapes and strides of
        the arrays, kinds of the scalars): ``one kernel``, ``N kernels`` with
        the reason the reductions are stored in between, ``op by op`` with
        what could not be fused, or the measured choice of running op by op
        because that was faster (see docs/extension.md, "Fusion").
        """
        lines = [f"asnumpy.fuse {self.kernel_name}: {len(self._schedules)} signature(s) "
                 f"of at most {self.max_signatures}"]
        for (_, key), entry in list(self._schedules.items()):
            lines.append(f"  {_describe_key(key)}: {entry.explain()}")
        return "\n".join(lines)

    def __call__(self, *args, **kwargs):
        direct = self._direct
        if direct is not None and not kwargs:
            # the last fused signature's laid-out kernel; its check sends any other call
            # to _call
            return direct(*args)
        return self._call(*args, **kwargs)

    def _call(self, *args, **kwargs):
        signature = None if kwargs else _call_signature(args)
        if signature is None:
            return self._func(*args, **kwargs)
        device, trace_key, call_key = signature
        entry = self._schedules.get(call_key)
        if entry is None:
            if len(self._schedules) >= self.max_signatures:
                return self._over_cap(args, call_key)
            entry = self._plan(args, device, trace_key, call_key)
        if isinstance(entry, _Unfused):
            return entry.run(self, args)
        if entry.measuring:
            return entry.measure(self, args, device, call_key)
        return self._launch(entry, args, device)

    def _launch(self, entry, args, device):
        """The fused kernel(s) of ``entry`` on ``args``."""
        schedule, is_tuple = entry.schedule, entry.is_tuple
        staged = type(schedule) is Plan
        try:
            scalars = schedule.scalar_values(args) if staged else scalar_values(schedule, args)
        except (OverflowError, ValueError, TypeError):
            return self._func(*args)       # NumPy's answer (or error) for such a scalar
        results = (schedule.launch(args, device, scalars) if staged
                   else launch(schedule, args, device, scalars))
        if not entry.measuring:
            direct = self._checked(entry, args, device)
            if direct is not None:
                self._direct = direct
        return results if is_tuple else results[0]

    def _checked(self, entry, args, device):
        """``entry``'s direct call (see :meth:`direct`), made once, or None."""
        direct = entry.direct
        if direct is None:
            if entry.measuring:
                return None
            small = None if type(entry.schedule) is Plan else _program(entry.schedule, device)[3]
            direct = entry.direct = (small.checked(self._call, args, entry.is_tuple) if small
                                     else False)
        return direct or None

    def direct(self, *args):
        """A callable running this fusion's kernel for calls with the signature of
        ``args`` without looking the signature up: a small kernel laid out once
        (``_run.SmallLaunch``) behind a check of the argument types and the arrays'
        dtype objects, shapes, strides and device, any other call going through the
        fusion as usual.  None unless that signature's choice is made and is one fused
        kernel with such a launch (asnumpy.jit's replay calls it for a region that
        chose fusion; the fusion's own calls take it for the last such signature)."""
        signature = _call_signature(args)
        if signature is None:
            return None
        device, _, call_key = signature
        entry = self._schedules.get(call_key)
        if type(entry) is not _Fused:
            return None
        return self._checked(entry, args, device)

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
            self._remember(self._schedules, call_key, traced)
            return traced
        graph, outputs, is_tuple = traced
        boundary = None
        try:
            schedule = build(graph, outputs, args, self.kernel_name)
        except Unfusable as exc:
            boundary = str(exc)
            # not one kernel: a few, reductions materialized in between (see _stages)
            from ._stages import plan

            try:
                schedule = plan(graph, outputs, args, self.kernel_name)
            except Unfusable:
                unfused = _Unfused(str(exc), None)
                self._remember(self._schedules, call_key, unfused)
                return unfused
        entry = _Fused(schedule, is_tuple, device, boundary)
        self._remember(self._schedules, call_key, entry)
        return entry

    def _over_cap(self, args, call_key):
        """A call with a signature beyond the cap: op by op, with one warning naming the
        argument whose signature keeps changing."""
        if "cap" not in self._warned:
            self._warned.add("cap")
            known = [key for _, key in self._schedules]
            position = _changing_argument(known, call_key[1])
            names = _parameter_names(self._func, len(call_key[1]))
            values = sorted({_describe_value(key[position]) for key in known
                             + [call_key[1]]})
            warnings.warn(
                f"asnumpy.fuse: {self.kernel_name}: more than {self.max_signatures} input "
                f"signatures; argument {names[position]!r} (position {position}) keeps "
                f"changing ({', '.join(values[:4])}{', ...' if len(values) > 4 else ''}); "
                "calls with new signatures run op by op (raise max_signatures, or keep that "
                "argument's shape, dtype and layout fixed)", RecompilationWarning,
                stacklevel=user_stacklevel())
        return self._func(*args)

    @staticmethod
    def _remember(cache, key, value):
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cache[key] = value


class _Fused:
    """A signature that fuses: its schedule, and the measurement deciding whether it runs.

    On cpu a fused kernel's loop may stay scalar where NumPy's is SIMD (no
    libmvec on the host, a strided layout, complex functions): fusing such a
    function can then be slower than running it op by op.
    So the second call of a signature on cpu times the fused kernels and the
    third the op-by-op run (both give the call's result); if op by op was
    faster, later calls run op by op -- decided on the CPU at hand, for that
    signature, and said by :meth:`Fusion.explain`.
    """

    # the fused run must be this much slower than op by op to be left (noise margin)
    MARGIN = 1.25

    def __init__(self, schedule, is_tuple, device, boundary=None):
        self.schedule, self.is_tuple = schedule, is_tuple
        self.boundary = boundary            # why one kernel could not compute it all
        self.calls = 0
        self.direct = None                  # Fusion._checked's call, once made
        self.fused_seconds = None
        self.measuring = bool(getattr(device.backend.cxx, "host", False)) and MEASURE[0]

    def explain(self):
        from ._stages import Plan

        kernels = (f"{len(self.schedule.stages)} kernels (reductions stored in between, since "
                   f"one kernel cannot compute {self.boundary})" if type(self.schedule) is Plan
                   else "one kernel")
        if self.measuring:
            return f"{kernels}; measuring fused against op by op"
        if self.fused_seconds is not None:
            return f"{kernels}; fused {self.fused_seconds * 1e3:.3g} ms measured faster"
        return kernels

    def measure(self, fusion, args, device, call_key):
        """This call, timed when it is the second (fused) or third (op by op) one."""
        if not get_current_stream(device).is_default:    # asynchronous: nothing to time
            return fusion._launch(self, args, device)
        self.calls += 1
        if self.calls == 1:                  # compiles: not timed
            return fusion._launch(self, args, device)
        started = time.perf_counter()
        if self.calls == 2:
            result = fusion._launch(self, args, device)
            device.default_stream.synchronize()
            self.fused_seconds = time.perf_counter() - started
            return result
        result = fusion._func(*args)
        unfused_seconds = time.perf_counter() - started
        self.measuring = False
        fused_seconds = self.fused_seconds
        if fused_seconds is None:       # another thread's fused call is still being timed
            self.measuring = True
            return result
        if unfused_seconds * self.MARGIN < fused_seconds:
            fusion._schedules[call_key] = _Unfused(
                f"op by op measured faster ({unfused_seconds * 1e3:.3g} ms against "
                f"{fused_seconds * 1e3:.3g} ms fused)", None, quiet=True)
        return result


# MEASURE[0] false: signatures always run fused (the tests' switch for the fused path)
MEASURE = [True]


class _Unfused:
    """Why a signature runs op by op, and where in the function that was decided."""

    def __init__(self, reason, traceback, error=None, quiet=False):
        self.reason = reason
        self.error = error
        self.where = _user_line(traceback)
        self.quiet = quiet              # a measured choice, not a failure: no warning

    def explain(self):
        if self.quiet:
            return self.reason
        if self.reason is None:
            return (f"op by op: tracing raised {type(self.error).__name__}: {self.error}")
        where = f" at `{self.where}`" if self.where else ""
        return f"op by op: cannot fuse {self.reason}{where}"

    def run(self, fusion, args):
        """The function op by op, with the warning (after it, if tracing raised an error:
        when the real run raises it too, it was the function's own error)."""
        if self.quiet:
            return fusion._func(*args)
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
        if reason in fusion._warned or fusion._quiet:
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


def _describe_value(key) -> str:
    """One argument's part of a call key, as a user reads it."""
    if isinstance(key, tuple):
        dtype, shape, *strides = key
        text = f"{dtype}{list(shape)}"
        return text + (f" strides {strides[0]}" if strides else "")
    return key.__name__ if isinstance(key, type) else str(key)


def _describe_key(key) -> str:
    return "(" + ", ".join(_describe_value(value) for value in key) + ")"


def _changing_argument(known, key) -> int:
    """The position whose part differs from the known signatures' most often."""
    counts = [sum(1 for other in known if other[k] != key[k]) for k in range(len(key))]
    return max(range(len(key)), key=lambda k: counts[k])


def _parameter_names(func, count) -> list:
    """The names of ``func``'s first ``count`` positional parameters (``arg<k>`` where
    it has none, as for ``*args``)."""
    try:
        parameters = [p.name for p in inspect.signature(func).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        parameters = []
    return [parameters[k] if k < len(parameters) else f"arg{k}" for k in range(count)]
