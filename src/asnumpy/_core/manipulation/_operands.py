"""Shared pieces of the manipulation functions: operands, axes, named errors.

Nothing here touches device memory: operands are converted with
:func:`asnumpy.asarray` (host data goes to the device of the first asnumpy
operand), axes are checked with NumPy's errors and messages naming the
function.
"""

from __future__ import annotations

import contextlib

from numpy.exceptions import AxisError

from ...runtime.device import get_device
from .._layout import normalize_axis
from ..math_functions import _operands as _elementwise
from ..math_functions._operands import device_of
from ..ndarray import ndarray

__all__ = [
    "as_array",
    "device_of",
    "named_errors",
    "normalize_axis",
    "normalize_axis_tuple",
    "operands",
    "to_device",
]


def to_device(value, device, func) -> ndarray:
    """``value`` as an asnumpy array on ``device`` (host data is copied there)."""
    with named_errors(func):
        return _elementwise.to_device(value, device, func)


def as_array(value, func) -> ndarray:
    """``value`` as an asnumpy array (itself when it is one)."""
    if isinstance(value, ndarray):
        return value
    return to_device(value, get_device(), func)


def operands(values, func) -> list:
    """All ``values`` as asnumpy arrays on the device of the first asnumpy array."""
    values = list(values)
    device = device_of(*values)
    return [to_device(v, device, func) for v in values]


def normalize_axis_tuple(axis, ndim, func, argname=None):
    """``axis`` (an int or a sequence of ints) as a tuple of axes in ``[0, ndim)``.

    AxisError for an axis out of range, ValueError for a repeated one (NumPy's,
    naming ``argname`` when given).
    """
    try:
        return _elementwise.normalize_axis_tuple(axis, ndim, func)
    except AxisError:
        raise
    except ValueError:
        if argname is None:
            raise
        raise ValueError(f"asnumpy.{func}: repeated axis in `{argname}` argument") from None


@contextlib.contextmanager
def named_errors(func):
    """Re-raise errors from host-side checks (NumPy's) with the function's name."""
    try:
        yield
    except AxisError:
        raise
    except (TypeError, ValueError, IndexError, KeyError) as exc:
        message = str(exc) if not isinstance(exc, KeyError) else (exc.args[0] if exc.args else "")
        if isinstance(exc, KeyError) or str(message).startswith("asnumpy."):
            raise
        try:
            named = type(exc)(f"asnumpy.{func}: {message}")
        except TypeError:           # an error type whose constructor differs
            raise exc from None
        raise named from None
