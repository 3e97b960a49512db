"""The compiled call path: the cpu fast lane's common cases in C, where it was built.

``_compiled.c`` (built by ``setup.py`` when a C compiler is there) holds one
object per lane, operator, ``ufunc.__call__``, ``ndarray.__getitem__`` and
the ``shape``/``dtype``/``strides``/``ndim`` attributes.  Each takes only the
commonest case of the pure-Python code it wraps (ufuncs/fast.py, the class
body of ndarray) and hands every other call to that code unchanged, so the
Python lanes stay the reference: both paths make the same single NumPy call
on the same cached views (docs/performance.md, "The compiled path").

Without the extension, or with ``ASNUMPY_COMPILED=0`` in the environment when
asnumpy is imported, every function here returns the Python object it is given
and asnumpy runs the Python path.  :func:`path` says which path is in use
(``python -m asnumpy.check`` prints it).
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np

from ..runtime._state import lean_gate
from ..runtime.device import Device
from ..runtime.memory import accounting_pools

__all__ = ["ArrayFields", "BINARY", "BINARY_OUT", "COMPILED_BASES", "CheckedCall", "INPLACE",
           "LAID_MAX_VALUES", "LaidOutKernel", "PLAIN", "PlanBase", "REDUCE", "REFLECTED",
           "UNARY", "UNARY_OUT", "UfuncBase", "configure", "held_call", "keep_compiled_call",
           "lane", "numpy_call", "path", "python_members", "shortcut"]

# a lane's kind (what it computes) and form (how an operator's arguments map onto it)
BINARY, BINARY_OUT, UNARY, UNARY_OUT, REDUCE = range(5)
PLAIN, REFLECTED, INPLACE = range(3)


def _load():
    """(the extension module or None, why it is not in use)."""
    if os.environ.get("ASNUMPY_COMPILED", "1").strip() == "0":
        return None, "turned off by ASNUMPY_COMPILED=0"
    try:
        from . import _compiled
    except ImportError:              # not built: installed where no C compiler was found
        return None, "not built (no asnumpy._core._compiled extension)"
    return _compiled, ""


_compiled, _ABSENT = _load()
_refused = None                      # fast.py's _refused, given by configure()


class _SlottedFields:
    """The fields of :class:`asnumpy.ndarray` (its base class) on the Python path."""

    __slots__ = ("_buffer", "_shape", "_strides", "_offset", "_dtype", "_device", "_base",
                 "_writeable", "_native", "__weakref__")


# ndarray's base class: the extension's compiled storage of the same fields (which the cycle
# collector does not visit, as it does not NumPy's arrays), or the slotted class above
ArrayFields = _SlottedFields if _compiled is None else _compiled.ArrayFields
# the base classes of asnumpy.ufunc and Plan, whose compiled calls take the fast lanes or
# the held call first; ``object`` on the Python path (the classes then call in Python)
UfuncBase = object if _compiled is None else _compiled.UfuncBase
PlanBase = object if _compiled is None else _compiled.PlanBase

# LaidOutKernel: a small fused cpu kernel laid out once, and CheckedCall: one behind a
# check of its arguments' signature (extension/fusion/_run.py, SmallLaunch); None on the
# Python path, whose fused launches all take the general path (the same kernel: the same
# results).  LAID_MAX_VALUES: the most pointers and scalars one laid-out kernel takes.
LaidOutKernel = None if _compiled is None else _compiled.LaidOutKernel
CheckedCall = None if _compiled is None else _compiled.CheckedCall
LAID_MAX_VALUES = 0 if _compiled is None else _compiled.LAID_MAX_VALUES


def path() -> str:
    """``"compiled"``, or ``"python"`` and why (the extension was not built, or turned off)."""
    return "compiled" if _compiled is not None else f"python: {_ABSENT}"


def configure(ndarray, lane_globals: dict, numpy_dtypes: frozenset, refused) -> None:
    """Hand the extension what its lanes read (the array class; fast.py's module globals:
    POOL_MIN_BYTES; the dtypes a reduction lane takes; fast.py's rule for an ``out=`` call's
    ValueError), and install ndarray's compiled ``__getitem__`` and attributes."""
    global _refused
    if _compiled is None:
        return
    _refused = refused
    _compiled.configure(ndarray, np.ndarray, Device, np.asarray, accounting_pools, lane_globals,
                        numpy_dtypes)
    ndarray.__getitem__ = _named(_compiled.GetItem(python=ndarray.__getitem__),
                                 ndarray.__getitem__)
    for name in ("shape", "dtype", "strides", "ndim"):
        setattr(ndarray, name, _compiled.Field(name, vars(ndarray)[name]))


def _named(made, like):
    """``made`` with the name, documentation and signature of the Python ``like``."""
    functools.update_wrapper(made, like, assigned=("__module__", "__name__", "__qualname__",
                                                   "__doc__"), updated=())
    # (update_wrapper sets __wrapped__: inspect.signature(made) is like's own)
    signature = getattr(like, "__signature__", None)
    if signature is not None:
        made.__signature__ = signature
    return made


def lane(kind: int, form: int, numpy_callable, python, cost_of, gate, name=None):
    """The compiled lane over ``python`` (a lane of fast.py, or an operator built on one).

    ``numpy_callable`` is the NumPy ufunc (its ``reduce`` for REDUCE);
    ``cost_of(loops, key)`` gives ``(cost, result itemsize)`` for a key of
    dtypes or scalar types; ``gate`` is the lane's gate (runtime/_state.py);
    ``name`` a reduction's kernel name.  Without the extension: ``python``.
    """
    if _compiled is None:
        return python
    made = _compiled.Lane(kind, form, numpy_callable, python, cost_of, _refused, gate, name)
    return _named(made, python)


def numpy_call(numpy_function, python, name: str, nargs=(1, 1), scalars=False,
               reduces=False):
    """``python`` (asnumpy's function ``name``) with its small plain calls made by
    ``numpy_function`` on the arrays' NumPy views: ``nargs`` (least, most) positional
    operands, no keywords, Python or NumPy scalars among them where ``scalars``, each array
    under the limits the device's loop kernels give for ``name`` (``SINGLE_CALL_LIMITS``:
    below them asnumpy's path is that one NumPy call) and, unless the function ``reduces``
    to one value, under ``fast.POOL_MIN_BYTES`` (larger results come from the pool); every
    other call, and any NumPy refuses, goes to ``python``.  ``python`` itself without the
    extension."""
    if _compiled is None:
        return python
    made = _compiled.NumpyCall(numpy=numpy_function, python=python, gate=lean_gate, name=name,
                               nargs_min=nargs[0], nargs_max=nargs[1], scalars=scalars,
                               reduces=reduces)
    return _named(made, python)


def shortcut(fast, slow):
    """The method ``slow`` trying ``fast(self)`` first when called with ``self`` alone
    (None from it: ``slow``); a Python function doing that without the extension."""
    if _compiled is not None:
        return _named(_compiled.Shortcut(fast=fast, slow=slow), slow)

    @functools.wraps(slow)
    def with_fast(self, *args, **kwargs):
        if not args and not kwargs:
            result = fast(self)
            if result is not None:
                return result
        return slow(self, *args, **kwargs)

    return with_fast


# class -> the Python function its compiled base's __call__ stands for (keep_compiled_call)
_PYTHON_CALLS: dict = {}
# the base classes that are the extension's types (none on the Python path)
COMPILED_BASES = () if _compiled is None else (ArrayFields, UfuncBase, PlanBase)


def keep_compiled_call(cls, python_call) -> None:
    """Call instances of ``cls`` (a direct subclass of :data:`UfuncBase` or
    :data:`PlanBase` with no ``__call__`` of its own) through the base's vectorcall, which
    Python 3.11 does not pass on to subclasses by itself; ``python_call`` is the Python
    function that call stands for (the Python path's ``__call__``)."""
    _PYTHON_CALLS[cls] = python_call
    if _compiled is not None and sys.version_info < (3, 12):
        _compiled.inherit_vectorcall(cls)


def python_members(cls) -> dict:
    """``vars(cls)`` as the Python path defines it: every compiled member (a lane, a
    ``Field``, ``__getitem__``, a ``Shortcut``) as the Python object it stands for, and
    ``__call__`` where a compiled base class makes it (tools/stubgen.py reads this)."""
    members = {}
    for name, value in vars(cls).items():
        # (a lane keeps the name, documentation and signature of its Python code itself)
        if _compiled is not None and isinstance(value, (_compiled.Field, _compiled.GetItem)):
            value = value.python
        elif _compiled is not None and isinstance(value, _compiled.Shortcut):
            value = value.slow
        members[name] = value
    if cls in _PYTHON_CALLS and "__call__" not in members:
        members["__call__"] = _PYTHON_CALLS[cls]
    return members


def held_call(lean, gate, prepared, plan):
    """A held plan's lean call (``lean(args, out)``, ufunc.py's ``_lean_call``) with its
    commonest case compiled: the planned asnumpy arrays (same dtype objects, shapes,
    strides, device) and a NumPy call the back end made direct (``prepared.direct``).
    ``lean`` itself without the extension, or for any other plan."""
    key = plan._key[0]              # (an object() where the inputs cannot be keyed)
    if (_compiled is None or prepared.direct is None or type(key) is not tuple
            or not 1 <= len(key) <= 2
            or any(type(entry) is not tuple for entry in key)):
        return lean
    call, work = prepared.direct
    shape, dtype, _, _ = plan._single
    return _compiled.Held(python=lean, gate=gate, call=call, work=work,
                          inputs=tuple(entry[:3] for entry in key), device=plan.device,
                          shape=shape, dtype=dtype, adopts=prepared.compute is not None
                          and plan._adopts)
