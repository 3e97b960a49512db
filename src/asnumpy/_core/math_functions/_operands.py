"""Shared pieces of the mathematical functions: operands, axes, masked copies, concatenation.

Everything here composes ufuncs, views and ``empty``: no device memory is
touched directly and nothing depends on the device kind.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.exceptions import AxisError

from ...runtime.device import get_device
from ...runtime.stream import get_current_stream
from .._launch import check_same_device, empty, nested_device
from .._layout import normalize_axis, shape_text
from ..ndarray import ndarray
from ..ufuncs import UFUNCS

__all__ = [
    "PY_SCALARS",
    "all_true",
    "concatenate",
    "copyto",
    "device_of",
    "empty_like",
    "fetch",
    "moveaxis",
    "normalize_axis",
    "normalize_axis_tuple",
    "operands",
    "probe",
    "to_device",
]

#: Python scalars, which NEP 50 treats as "weak" (they take the array's type).
PY_SCALARS = (bool, int, float, complex)


def device_of(*values):
    """The device of the first asnumpy array among ``values``, nested in sequences too
    (else the current device)."""
    device = nested_device(values)
    return get_device() if device is None else device


def to_device(value, device, func, dtype=None) -> ndarray:
    """``value`` as an asnumpy array on ``device`` (host data is copied there).

    An asnumpy array on another device raises ValueError naming both.
    """
    if isinstance(value, ndarray):
        check_same_device(func, device, value)
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    from ..transfer import asarray

    return asarray(value, dtype=dtype, device=device)


def operands(func, *values):
    """All ``values`` as asnumpy arrays on the device of the first asnumpy array."""
    device = device_of(*values)
    return tuple(to_device(v, device, func) for v in values)


def normalize_axis_tuple(axis, ndim, func):
    """``axis`` (an int or a sequence of ints) as a tuple of axes in ``[0, ndim)``.

    AxisError for an axis out of range, ValueError for a repeated one (NumPy's).
    """
    if not isinstance(axis, (tuple, list)):
        try:
            axis = [operator.index(axis)]
        except TypeError:
            pass
    axes = tuple(normalize_axis(a, ndim, func) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"asnumpy.{func}: repeated axis")
    return axes


def all_true(array) -> bool:
    """Whether every element of the boolean device array is True (one bool crosses to the host)."""
    if array.size == 0:
        return True
    return bool(fetch(UFUNCS["logical_and"].reduce(array, axis=None)))


def fetch(array) -> np.ndarray:
    """A host copy of (small) ``array``, complete even when the current stream is a user stream."""
    host = array.get()
    stream = get_current_stream(array._device)
    if not stream.is_default:
        stream.synchronize()          # the copy was queued behind the work producing ``array``
    return host


def copyto(dst, value, where, func):
    """``numpy.copyto(dst, value, casting='same_kind', where=where)`` for a scalar ``value``.

    The scalar is converted by NumPy on the host (so its casting errors are
    NumPy's), then written where ``where`` is True by a masked ufunc call
    (``maximum(v, v)`` is ``v`` for every dtype, bool included).
    """
    if isinstance(value, ndarray):          # a 0-d device array as the scalar: same device
        check_same_device(func, dst._device, value)
        value = value._host_copy()
    host = np.empty((), dst.dtype)
    try:
        np.copyto(host, value, casting="same_kind")
    except TypeError as error:
        raise TypeError(f"asnumpy.{func}: {error}") from None
    scalar = host[()]
    UFUNCS["maximum"](scalar, scalar, out=dst, where=where)
    return dst


def concatenate(parts, axis, func):
    """Join ``parts`` along ``axis``; each part is ``(array, shape)``, broadcast to ``shape``.

    The result dtype is NumPy's ``result_type`` of the parts (arrays, so no
    weak scalars), and shapes are checked with ``numpy.concatenate``'s errors.
    """
    first_shape = parts[0][1]
    ndim = len(first_shape)
    if axis >= ndim:                          # NumPy checks the axis against the first array
        raise axis_error(axis, ndim, func)
    for index, (_, shape) in enumerate(parts):
        if len(shape) != ndim:
            raise ValueError(
                f"asnumpy.{func}: all the input arrays must have same number of dimensions, "
                f"but the array at index 0 has {ndim} dimension(s) and the array at index "
                f"{index} has {len(shape)} dimension(s)")
        for dim in range(ndim):
            if dim != axis and shape[dim] != first_shape[dim]:
                raise ValueError(
                    f"asnumpy.{func}: all the input array dimensions except for the "
                    f"concatenation axis must match exactly, but along dimension {dim}, the "
                    f"array at index 0 has size {first_shape[dim]} and the array at index "
                    f"{index} has size {shape[dim]}")
    dtype = np.result_type(*(array.dtype for array, _ in parts))
    total = sum(shape[axis] for _, shape in parts)
    out_shape = first_shape[:axis] + (total,) + first_shape[axis + 1:]
    out = empty(out_shape, dtype, parts[0][0]._device, func=func)
    start = 0
    lead = (slice(None),) * axis
    for array, shape in parts:
        stop = start + shape[axis]
        out[lead + (slice(start, stop),)] = array
        start = stop
    return out


def moveaxis(array, source, destination, func):
    """A view of ``array`` with axis ``source`` moved to position ``destination``."""
    source = normalize_axis(source, array.ndim, func)
    destination = normalize_axis(destination, array.ndim, func)
    order = [n for n in range(array.ndim) if n != source]
    order.insert(destination, source)
    return array.transpose(order)


def empty_like(array, dtype=None, shape=None):
    """A new array laid out like ``array`` ('K' order) with another dtype or shape."""
    dtype = array.dtype if dtype is None else np.dtype(dtype)
    if shape is None:
        return empty(array.shape, dtype, array._device, order="K", like=array)
    return empty(tuple(shape), dtype, array._device)


def probe(value):
    """A host stand-in for NumPy's validation: Python scalars as they are, arrays as ones.

    Arrays become host arrays of their dtype with every axis of length
    ``min(n, 1)``, so NumPy's dtype resolution and errors can be had for free.
    """
    if isinstance(value, PY_SCALARS) or value is None:
        return value
    if isinstance(value, np.generic):
        return value
    if isinstance(value, ndarray):
        return np.ones(tuple(min(n, 1) for n in value.shape), value.dtype)
    host = np.asarray(value)
    return np.ones(tuple(min(n, 1) for n in host.shape), host.dtype)


def axis_error(axis, ndim, func, prefix=None):
    """NumPy's AxisError, its message naming ``func`` (and ``prefix``, e.g. 'axisa')."""
    text = f"asnumpy.{func}" if prefix is None else f"asnumpy.{func}: {prefix}"
    return AxisError(axis, ndim, text)


def shape_mismatch(func, a_shape, b_shape):
    """ValueError for operands that do not broadcast (NumPy's wording)."""
    return ValueError(
        f"asnumpy.{func}: shape mismatch: objects cannot be broadcast to a single shape.  "
        f"Mismatch is between arg 0 with shape {shape_text(a_shape)} and arg 1 with shape "
        f"{shape_text(b_shape)}.")
