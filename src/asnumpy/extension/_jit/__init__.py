"""``asnumpy.jit``: a function of arrays traced once per input signature, then replayed.

The first call of a signature runs the function eagerly on traced values
that record each operation (:mod:`._values`); later calls with that
signature replay the recording as a program (:mod:`._program`): runs of
elementwise work and reductions become fused kernels, everything else is
called as recorded, and the function's Python code is not run again.

A signature is the arrays' dtypes, shapes, strides and devices, the values
of the static arguments (``int``, ``bool``, ``None``, strings, tuples ...
and those named by ``static_argnums`` / ``static_argnames``) and the types
of the weak ones (Python ``float`` and ``complex``: NEP 50 weak scalars
whose values each call passes).  At most ``max_signatures`` signatures are
traced; later new ones run eagerly, with one :class:`RecompilationWarning`
naming the argument that keeps changing.

A trace that meets something the program cannot replay (a Python value
taken from an array, a function jit does not record, ...) makes its
signature run eagerly, with one :class:`FusionFallbackWarning` naming the
use and the line; :meth:`JitFunction.explain` says how each signature
runs and why each fusion boundary exists.
"""

from __future__ import annotations

import functools
import threading
import warnings

import numpy as np

from ..._core import _tracing
from ..._core.ndarray import ndarray
from ..._errors import user_stacklevel
from ..fusion import (MAX_SIGNATURES, FusionFallbackWarning, RecompilationWarning,
                      _changing_argument, _describe_value, _parameter_names)
from ._lazy import lazy
from ._program import Program
from ._values import Recording, Traced, WeakScalar, unwrap

__all__ = ["JitFunction", "jit", "lazy"]

_WEAK = (float, complex)
_TRACE_COUNT = threading.Lock()


def jit(function=None, *, static_argnums=(), static_argnames=(), donate_argnums=(),
        max_signatures=MAX_SIGNATURES):
    """Trace a function of arrays once per input signature and replay it fused.

    Usable as ``@jit`` or ``@jit(static_argnums=..., ...)``.

    Parameters
    ----------
    function : callable
        A function of asnumpy arrays (positional or keyword), Python and
        NumPy scalars and other (hashable) values.
    static_argnums, static_argnames : int or str, or sequences of them
        Arguments whose *values* are part of the signature (a new value
        traces anew).  Python ``int``, ``bool``, strings, ``None``, tuples
        and NumPy scalars are static anyway; name Python ``float`` arguments
        here when the function uses their value in Python (``math.exp(r)``,
        ``if r > 0``).
    donate_argnums : int or sequence of int
        Array arguments the caller gives up: after the call their contents
        are unspecified and they must not be read.  Where a signature replays
        as one graph (cuda), a result of as many bytes is copied into a donated
        array's memory instead of a fresh block from the pool (the result then
        shares it); elsewhere donation changes nothing, as with JAX on cpu.
    max_signatures : int, optional
        How many signatures are traced (default 8).

    Returns
    -------
    JitFunction
        A callable taking the function's arguments and returning what it
        returns.

    Examples
    --------
    >>> @asnumpy.jit
    ... def scaled_softplus(x, scale):
    ...     return scale * asnumpy.log1p(asnumpy.exp(x))
    """
    options = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                   donate_argnums=donate_argnums, max_signatures=max_signatures)
    if function is None:
        return functools.partial(JitFunction, **options)
    return JitFunction(function, **options)


def _indices(value, what):
    values = (value,) if isinstance(value, (int, str)) else tuple(value)
    for item in values:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise TypeError(f"asnumpy.jit: {what} must be ints or strings, got {item!r}")
    return frozenset(values)


class _Eager:
    """A signature that runs eagerly, and why."""

    def __init__(self, reason, line=None):
        self.reason, self.line = reason, line

    def explain(self):
        where = f" at `{self.line}`" if self.line else ""
        return f"eager: {self.reason}{where}"


class JitFunction:
    """A function compiled by :func:`jit`; call it like the function."""

    def __init__(self, function, static_argnums=(), static_argnames=(), donate_argnums=(),
                 max_signatures=MAX_SIGNATURES):
        if not callable(function):
            raise TypeError(f"asnumpy.jit: {function!r} is not callable")
        if (not isinstance(max_signatures, int) or isinstance(max_signatures, bool)
                or max_signatures < 1):
            raise ValueError(f"asnumpy.jit: max_signatures must be a positive int, got "
                             f"{max_signatures!r}")
        functools.update_wrapper(self, function)
        self._function = function
        self._name = getattr(function, "__name__", "jitted")
        self.max_signatures = max_signatures
        self._static = _indices(static_argnums, "static_argnums") | _indices(
            static_argnames, "static_argnames")
        self._donated = _indices(donate_argnums, "donate_argnums")
        self._entries = {}             # signature -> Program or _Eager
        self._warned = set()
        # the last program called with arrays only, and their (dtype, shape, strides,
        # device): a call matching it skips building and looking up the signature
        self._last = None

    def __repr__(self):
        return f"<asnumpy.jit {self._name}>"

    def clear_cache(self):
        """Forget every signature's program (they are traced again)."""
        self._entries.clear()
        self._last = None

    # -- signatures --------------------------------------------------------------------

    def _signature(self, args, kwargs):
        """The call's signature, or None when it cannot be keyed (run eagerly)."""
        parts = []
        for key, value in (*enumerate(args), *sorted(kwargs.items())):
            kind = type(value)
            if kind is ndarray:
                parts.append((key, value._dtype, value._shape, value._strides, value._device))
            elif kind in _WEAK and key not in self._static:
                parts.append((key, kind))
            elif kind is Traced or kind is WeakScalar:
                return None                 # called while another jit traces: inlined
            else:
                try:
                    hash(value)
                except TypeError:
                    return None
                parts.append((key, kind, value))
        return tuple(parts)

    # -- calls ---------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        last = self._last
        if last is not None and not kwargs and len(args) == len(last[1]):
            for value, (dtype, shape, strides, device) in zip(args, last[1]):
                if (type(value) is not ndarray or value._dtype is not dtype
                        or value._shape != shape or value._strides != strides
                        or value._device is not device):
                    break
            else:
                return last[0].run(args, kwargs)
        signature = self._signature(args, kwargs)
        if signature is None:
            return self._function(*args, **kwargs)
        entry = self._entries.get(signature)
        if type(entry) is Program:
            if not kwargs and all(len(part) == 5 for part in signature):
                self._last = (entry, tuple(part[1:] for part in signature))
            return entry.run(args, kwargs)
        if entry is not None:
            return self._function(*args, **kwargs)
        if len(self._entries) >= self.max_signatures:
            return self._over_cap(signature, args, kwargs)
        return self._trace(signature, args, kwargs)

    def _trace(self, signature, args, kwargs):
        """The first call of ``signature``: eager, recorded; its program is kept."""
        recording = Recording(self._name)
        arguments = []

        def traced(key, value):
            kind = type(value)
            if kind is ndarray:
                slot = recording.name_value(value)
                arguments.append((key, slot))
                return Traced(recording, slot, value)
            if kind in _WEAK and key not in self._static:
                slot = recording.name_value(value)
                arguments.append((key, slot))
                return WeakScalar(recording, slot, value)
            return value

        traced_args = [traced(k, v) for k, v in enumerate(args)]
        traced_kwargs = {k: traced(k, v) for k, v in kwargs.items()}
        with _TRACE_COUNT:
            _tracing.ACTIVE[0] += 1
        try:
            result = self._function(*traced_args, **traced_kwargs)
        except Exception as exc:            # noqa: BLE001
            failure = exc
        else:
            failure = None
        finally:
            with _TRACE_COUNT:
                _tracing.ACTIVE[0] -= 1
        if failure is not None:
            return self._after_failed_trace(signature, failure, args, kwargs)
        template = recording.template(result, "the returned value")
        _check_result(recording, template, {slot for _, slot in arguments})
        if recording.taint is not None:
            reason, line = recording.taint
            self._remember(signature, _Eager(reason, line))
            self._warn(reason, line)
            return unwrap(result)
        self._remember(signature, Program(recording, tuple(arguments), template, self._name,
                                          self._donated))
        return unwrap(result)

    def _after_failed_trace(self, signature, failure, args, kwargs):
        """The trace raised: the eager call says whether the error is the function's own
        (then it is raised, nothing kept) or the trace's (the signature runs eagerly)."""
        result = self._function(*args, **kwargs)
        reason = f"tracing raised {type(failure).__name__}: {failure}"
        self._remember(signature, _Eager(reason))
        self._warn(reason, None)
        return result

    def _remember(self, signature, entry):
        self._entries[signature] = entry

    def _warn(self, reason, line):
        if reason in self._warned:
            return
        self._warned.add(reason)
        where = f" at `{line}`" if line else ""
        warnings.warn(f"asnumpy.jit: {self._name}: cannot replay {reason}{where}; calls with "
                      "this signature run eagerly", FusionFallbackWarning,
                      stacklevel=user_stacklevel())

    def _over_cap(self, signature, args, kwargs):
        if "cap" not in self._warned:
            self._warned.add("cap")
            known = [key for key in self._entries if len(key) == len(signature)]
            position = _changing_argument(known, signature) if known else 0
            names = _parameter_names(self._function, len(signature))
            key = signature[position][0]
            name = key if isinstance(key, str) else names[key]
            values = sorted({_describe_part(entry[position]) for entry in known
                             + [signature]})
            warnings.warn(
                f"asnumpy.jit: {self._name}: more than {self.max_signatures} input signatures; "
                f"argument {name!r} keeps changing ({', '.join(values[:4])}"
                f"{', ...' if len(values) > 4 else ''}); calls with new signatures run "
                "eagerly (raise max_signatures, or keep that argument's shape, dtype, layout "
                "and value fixed)", RecompilationWarning, stacklevel=user_stacklevel())
        return self._function(*args, **kwargs)

    # -- explain -------------------------------------------------------------------------

    def explain(self) -> str:
        """How each signature met so far runs: eagerly and why, or its program step by step
        (fused regions with their ops and how they run, calls with why they are boundaries)."""
        lines = [f"asnumpy.jit {self._name}: {len(self._entries)} signature(s) of at most "
                 f"{self.max_signatures}"]
        for signature, entry in list(self._entries.items()):
            lines.append("  (" + ", ".join(_describe_part(part) for part in signature) + "):")
            lines.extend("    " + line for line in entry.explain().splitlines())
        return "\n".join(lines)


def _describe_part(part):
    key, *rest = part
    if len(rest) == 4:
        dtype, shape, strides, _ = rest
        return _describe_value((dtype, shape, strides))
    if len(rest) == 1:
        return rest[0].__name__
    return repr(rest[1])


def _check_result(recording, template, arguments):
    """Taint a trace returning an array from outside the arguments' computation (replay
    would return that very array each call)."""
    found = []
    from ._values import _collect

    _collect(template, found)
    for slot in found:
        if slot in recording.constants:
            recording.tainted("returning an array that is not computed from the arguments")
