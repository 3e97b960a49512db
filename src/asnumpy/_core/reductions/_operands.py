"""Helpers shared by the reduction modules: operands, axes, counts, errors.

Everything here composes ufunc calls and views; nothing touches device
memory directly.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from numpy.exceptions import AxisError

from ..._errors import user_stacklevel
from .._layout import shape_text
from .._tracing import lazy_recording
from ..ndarray import ndarray
from ..ufuncs import UFUNCS

__all__ = [
    "INTP",
    "NoValue",
    "any_true",
    "broadcast_view",
    "count_items",
    "device_operand",
    "divide_by_count",
    "fill_where",
    "given",
    "named",
    "reduced_axes",
    "scalar_axis",
    "warn",
    "where_operand",
]

NoValue = np._NoValue
INTP = np.dtype(np.intp)
_RENAMED = (ValueError, TypeError, IndexError, ZeroDivisionError)


def _public_type(cls):
    """``cls`` or its nearest public ancestor (NumPy raises private subclasses)."""
    for klass in cls.__mro__:
        module = klass.__module__.split(".")
        if not klass.__name__.startswith("_") and not any(p.startswith("_") for p in module):
            return klass
    return cls


def _renamed(exc, func):
    """An exception like ``exc`` (its public type) whose message names ``func``."""
    if type(exc).__module__.startswith("asnumpy"):
        return None                      # asnumpy's own error types are kept as they are
    text = str(exc)
    if text.startswith("asnumpy."):
        head, sep, rest = text.partition(": ")
        if sep and " " not in head:
            text = rest
    cls = _public_type(type(exc))
    try:
        return cls(f"asnumpy.{func}: {text}")
    except (TypeError, ValueError):   # an exception class with a constructor of its own
        return None


def named(func):
    """Decorator: errors raised inside the function name ``asnumpy.<func>``.

    The exception keeps NumPy's (public) type; its message is NumPy's (or
    the inner operation's) prefixed with the public function's name.
    """

    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except _RENAMED as exc:
                new = _renamed(exc, func)
                if new is None:
                    raise
                raise new.with_traceback(exc.__traceback__) from None

        return wrapper

    return decorate


def device_operand(a, out=None):
    """``a`` as a device array: device arrays stay; host data moves to ``out``'s device.

    Values traced by ``asnumpy.fuse`` (see ``ufunc.__asnumpy_ufunc__``) stay too.
    """
    if isinstance(a, ndarray) or hasattr(type(a), "__asnumpy_ufunc__"):
        return a
    from ..transfer import asarray

    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    device = out._device if isinstance(out, ndarray) else None
    return asarray(a, device=device)


def given(**kwargs):
    """The keyword arguments that were passed (not ``NoValue``), as NumPy forwards them."""
    return {name: value for name, value in kwargs.items() if value is not NoValue}


def scalar_axis(a, axis):
    """``axis`` for reducing device array ``a``, with NumPy's 0-d quirk made explicit.

    ``ufunc.reduce`` of a 0-d array accepts an integer axis 0 or -1 (and
    reduces nothing); the ufunc layer expects a tuple there, so () is given.
    """
    if a.ndim or axis is None or isinstance(axis, tuple):
        return axis
    try:
        index = axis.__index__()
    except (AttributeError, TypeError):
        return axis                      # the reduction raises NumPy's TypeError
    if index not in (0, -1):
        raise AxisError(index, 0)
    return ()


def reduced_axes(axis, ndim):
    """The axes a reduction over ``axis`` removes, normalized (NumPy's AxisError)."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    result = []
    for ax in axes:
        try:
            index = ax.__index__()
        except (AttributeError, TypeError):
            raise TypeError(f"'{type(ax).__name__}' object cannot be interpreted as an "
                            "integer") from None
        if not -ndim <= index < ndim:
            raise AxisError(index, ndim)
        result.append(index % ndim)
    if len(set(result)) != len(result):
        raise ValueError("duplicate value in 'axis'")
    return tuple(result)


def broadcast_view(x, shape):
    """A read-only view of device array ``x`` broadcast to ``shape`` (zero strides)."""
    if x.shape == tuple(shape):
        return x
    full = np.broadcast_shapes(x.shape, shape)      # NumPy's ValueError when they don't fit
    if full != tuple(shape):
        raise ValueError(f"cannot broadcast an array of shape {shape_text(x.shape)} to "
                         f"shape {shape_text(shape)}")
    lead = len(shape) - x.ndim
    strides = tuple(0 if i < lead or x.shape[i - lead] != n else x.strides[i - lead]
                    for i, n in enumerate(shape))
    view = x._view(tuple(shape), strides, x._offset)
    view._writeable = False
    return view


def where_operand(where, device):
    """``where=`` as True or a device bool array (host masks move to ``device``)."""
    if where is True or where is NoValue:
        return True
    if isinstance(where, ndarray):
        return where
    from ..transfer import asarray

    return asarray(where, device=device)


def count_items(arr, axis, keepdims=False, where=True):
    """Elements each reduction sees: a host ``intp`` scalar, or a device intp array with where=.

    NumPy's ``_count_reduce_items``.
    """
    if where is True:
        items = 1
        for ax in reduced_axes(axis, arr.ndim):
            items *= arr.shape[ax]
        return np.intp(items)
    mask = broadcast_view(where, arr.shape)
    return UFUNCS["add"].reduce(mask, axis=axis, dtype=INTP, keepdims=keepdims)


def any_true(x):
    """Whether any element of device (or host) array ``x`` is true, on the host."""
    if not isinstance(x, ndarray):
        return bool(np.any(x))
    return bool(UFUNCS["logical_or"].reduce(x, axis=None, dtype=np.bool_).item())


def fill_where(target, value, mask):
    """``numpy.copyto(target, value, where=mask, casting='unsafe')`` on device arrays."""
    scalar = np.asarray(value).astype(target.dtype)[()]
    UFUNCS["positive"](scalar, out=target, where=mask, casting="unsafe")
    return target


def divide_by_count(x, count, out=None):
    """``x / count`` into ``out`` (else into ``x``), NumPy's 'unsafe' in-place divide.

    As NumPy does, the quotient is computed in the promoted type of ``x``
    and the count (an ``intp``), then cast back.
    """
    exact = _EXACT_COUNTS.get(x.dtype.char)
    if (exact is not None and type(x) is ndarray and isinstance(count, np.integer)
            and 0 < count <= exact and (out is None or out.dtype == x.dtype)):
        # the count is exact in x's type, so x's own loop gives NumPy's quotient bit for bit
        # (float32 computed in float64 and rounded back is the correctly rounded float32
        # quotient): no mixed-dtype loop, which a device without one would run on the host
        if out is None and lazy_recording():
            # in a lazy block the in-place divide (an out=) would run the pending graph:
            # a new quotient instead, deferred
            return UFUNCS["divide"](x, int(count))
        return UFUNCS["divide"](x, int(count), out=x if out is None else out, casting="unsafe")
    return UFUNCS["divide"](x, count, out=x if out is None else out, casting="unsafe")


_EXACT_COUNTS = {"d": 1 << 53, "f": 1 << 24}     # the largest count exact in the type


def warn(message):
    """A RuntimeWarning attributed to the caller of the public function.

    That is the first frame outside the asnumpy package, however deep the
    call into it went (a method, a nan* function calling the plain one).
    """
    warnings.warn(message, RuntimeWarning, stacklevel=user_stacklevel())
