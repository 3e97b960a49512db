"""NumPy's dispatch protocols (NEP 13 and NEP 18) on asnumpy arrays.

``numpy.sum(a)``, ``numpy.add(a, b)``, ``numpy.add.reduce(a)`` or
``numpy.linalg.solve(a, b)`` with an asnumpy array among the operands run
asnumpy's function of the same name and return asnumpy arrays.

The map from NumPy's objects to ours is derived, not listed: for each pair of
namespaces in :data:`NAMESPACE_PAIRS`, every NumPy function that dispatches
(``numpy._ArrayFunctionDispatcher``) maps to the asnumpy attribute of the same
name, and every NumPy ufunc maps to the :class:`asnumpy.ufunc` that wraps it.
It is built on the first dispatch, so names added later are found.

A NumPy ufunc from outside NumPy's namespace -- SciPy's ``scipy.special.gamma``,
``erf``, ``expit``, a Numba ufunc -- is wrapped in an :class:`asnumpy.ufunc` on
first dispatch (:func:`foreign_ufunc`): it runs through asnumpy's ufunc
machinery like NumPy's own (its loops on the arrays' memory on cpu, the host
fallback on cuda), with ``out=``, ``where=``, ``dtype=`` and the methods it
defines.  One computing on Python objects (``numpy.frompyfunc``'s) raises
``TypeError``: asnumpy arrays hold numbers.

A NumPy function asnumpy does not implement raises ``TypeError`` naming it:
dispatch never copies an array to the host behind the user's back.  NumPy
operands and scalars mixed in follow the one mixing rule of the library (see
``docs/interop.md``): they are copied to the device of the asnumpy operands,
and operands on two different asnumpy devices raise ``ValueError``; the
functions themselves apply it, so dispatch only forwards.
"""

from __future__ import annotations

import importlib
import inspect
import threading

import numpy as np

from .._core.ndarray import ndarray
from .._core.ndarray_members import attach
from .._core.ufuncs import ufunc as asnumpy_ufunc
from ..ops.ufuncs import kernel_key

__all__ = ["NAMESPACE_PAIRS", "array_function", "array_ufunc", "foreign_ufunc",
           "implementation_of"]

# (NumPy module, asnumpy module): the namespaces whose same-named members correspond
NAMESPACE_PAIRS = (
    ("numpy", "asnumpy"),
    ("numpy.linalg", "asnumpy.linalg"),
    ("numpy.fft", "asnumpy.fft"),
    ("numpy.lib.scimath", "asnumpy.emath"),
    ("numpy.lib.stride_tricks", "asnumpy.lib.stride_tricks"),
)

_ARRAY_FUNCTION = type(np.sum)          # numpy._ArrayFunctionDispatcher
_TABLE: dict = {}                       # NumPy function or ufunc -> asnumpy's
_LIKE: set = set()                      # NumPy creation functions with like= (NEP 35)
_ACTIVE = threading.local()             # the NumPy functions being dispatched, per thread
_FOREIGN: dict = {}                     # foreign NumPy ufunc -> its asnumpy.ufunc wrapper
_FOREIGN_CACHE_SIZE = 1024              # (ufuncs take no weak references: bounded instead)


def _import(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _takes_like(numpy_object) -> bool:
    """Whether a NumPy function has NEP 35's ``like=`` (``zeros``, ``asarray``, ...)."""
    try:
        return "like" in inspect.signature(numpy_object).parameters
    except (TypeError, ValueError):
        return False


def _dispatches(numpy_object) -> bool:
    return isinstance(numpy_object, (_ARRAY_FUNCTION, np.ufunc)) or (
        callable(numpy_object) and not isinstance(numpy_object, type)
        and _takes_like(numpy_object))


def _build_table() -> dict:
    table = {}
    for numpy_name, asnumpy_name in NAMESPACE_PAIRS:
        theirs, ours = _import(numpy_name), _import(asnumpy_name)
        if theirs is None or ours is None:
            continue
        # the module's own dictionary: dir() + getattr() would import every lazily
        # loaded NumPy submodule (f2py, ma, testing, ...), 160 ms on first dispatch
        for name, numpy_object in list(vars(theirs).items()):
            if name.startswith("_"):
                continue
            if not _dispatches(numpy_object):
                continue
            # one NumPy object under several names (concat is concatenate): its own name wins
            mine = getattr(ours, getattr(numpy_object, "__name__", name), None)
            mine = getattr(ours, name, None) if mine is None else mine
            if mine is None or mine is numpy_object or numpy_object in table:
                continue                # NumPy's own object would dispatch back here
            if isinstance(numpy_object, np.ufunc) and not isinstance(mine, asnumpy_ufunc):
                continue
            table[numpy_object] = mine
            if _takes_like(numpy_object):
                _LIKE.add(numpy_object)
    return table


def implementation_of(numpy_object):
    """asnumpy's counterpart of a NumPy function or ufunc, or None."""
    if not _TABLE:
        _TABLE.update(_build_table())
    return _TABLE.get(numpy_object)


def foreign_ufunc(numpy_ufunc):
    """The :class:`asnumpy.ufunc` running ``numpy_ufunc``, a NumPy ufunc outside NumPy's
    namespace (``scipy.special.gamma``), made on first use; TypeError for one whose
    loops all compute on Python objects (``numpy.frompyfunc``'s)."""
    ours = _FOREIGN.get(numpy_ufunc)
    if ours is not None:
        return ours
    if numpy_ufunc.types and all("O" in loop for loop in numpy_ufunc.types):
        raise TypeError(
            f"asnumpy: the ufunc {numpy_ufunc.__name__!r} computes on Python objects "
            "(dtype object), which asnumpy arrays do not hold; use asnumpy.frompyfunc or "
            "asnumpy.vectorize (they return numeric asnumpy arrays), or copy the arrays to "
            "the host explicitly with a.get()")
    ours = asnumpy_ufunc(numpy_ufunc)
    if len(_FOREIGN) >= _FOREIGN_CACHE_SIZE:
        _FOREIGN.clear()
    _FOREIGN[numpy_ufunc] = ours
    return ours


def _not_implemented(what: str) -> TypeError:
    return TypeError(
        f"asnumpy: {what} is not implemented for asnumpy arrays; copy them to the host "
        "explicitly with asnumpy.asnumpy(a) (or a.get()) to use NumPy's version"
    )


def _foreign(value) -> bool:
    """Whether ``value`` is an array type of another library that overrides NumPy itself."""
    kind = type(value)
    if issubclass(kind, (ndarray, np.ndarray, np.generic)):
        return False
    return getattr(kind, "__array_ufunc__", None) is not None


def array_ufunc(self, numpy_ufunc, method, *inputs, **kwargs):
    """``ndarray.__array_ufunc__``: run asnumpy's ufunc (or its method) instead of NumPy's."""
    outs = kwargs.get("out", ())
    if any(_foreign(x) for x in (*inputs, *outs)):
        return NotImplemented
    ours = implementation_of(numpy_ufunc)
    if ours is None:
        if isinstance(kernel_key(numpy_ufunc), str):     # NumPy's own, not implemented
            raise _not_implemented(f"numpy.{numpy_ufunc.__name__}")
        ours = foreign_ufunc(numpy_ufunc)
    if method != "__call__" and "out" in kwargs and len(outs) == 1:
        # NumPy passes out= as a tuple; the methods take the array, as NumPy's do
        kwargs["out"] = outs[0]
    try:
        target = ours if method == "__call__" else getattr(ours, method)
    except AttributeError:
        raise _not_implemented(f"numpy.{numpy_ufunc.__name__}.{method}") from None
    return target(*inputs, **kwargs)


def array_function(self, func, types, args, kwargs):
    """``ndarray.__array_function__``: run asnumpy's function of the same name."""
    if not all(issubclass(kind, (ndarray, np.ndarray)) for kind in types):
        return NotImplemented
    ours = implementation_of(func)
    if ours is None:
        raise _not_implemented(f"{func.__module__}.{func.__name__}")
    active = _ACTIVE.__dict__.setdefault("functions", set())
    if func in active:
        # asnumpy's function handed asnumpy arrays back to NumPy's: not a loop forever
        raise _not_implemented(f"{func.__module__}.{func.__name__} with these arguments")
    active.add(func)
    try:
        if func in _LIKE:
            # NEP 35: numpy.zeros(3, like=a) makes an asnumpy array on a's device
            with self._device:
                return ours(*args, **kwargs)
        return ours(*args, **kwargs)
    finally:
        active.discard(func)


# ndarray takes part in NumPy's dispatch (ndarray_members.py attaches these)
NDARRAY_MEMBERS = {"__array_ufunc__": array_ufunc, "__array_function__": array_function}

attach(__name__, NDARRAY_MEMBERS)
