"""Shared pieces of the rearranging functions: operands, axes, broadcast views, flat views.

Everything here composes views, ``empty`` and copies; no device memory is
touched directly and nothing depends on the device kind.
"""

from __future__ import annotations

import numpy as np

from .._launch import empty
from .._layout import normalize_axis
from ..math_functions._operands import (
    axis_error,
    device_of,
    empty_like,
    fetch,
    normalize_axis_tuple,
    to_device,
)
from ..ndarray import ndarray

__all__ = [
    "along",
    "as_array",
    "axis_error",
    "broadcast_view",
    "device_of",
    "empty",
    "empty_like",
    "fetch",
    "host_values",
    "normalize_axis",
    "normalize_axis_tuple",
    "ravel",
    "to_device",
]


def as_array(value, func, device=None) -> ndarray:
    """``value`` as an asnumpy array (host data is copied to ``device`` or the current one)."""
    if isinstance(value, ndarray):
        return value
    return to_device(value, device_of(value) if device is None else device, func)


def along(ndim, axis, item):
    """An index selecting ``item`` on ``axis`` and everything on the other axes."""
    index = [slice(None)] * ndim
    index[axis] = item
    return tuple(index)


def ravel(array) -> ndarray:
    """``array`` flattened in C order: a view when the layout allows it, else a copy."""
    return array.reshape(-1)


def broadcast_view(array, shape, func) -> ndarray:
    """A read-only view of ``array`` broadcast to ``shape`` (zero strides); NumPy's errors."""
    shape = tuple(shape)
    if array.shape == shape:
        return array
    ndim = len(shape)
    if array.ndim > ndim:
        raise ValueError(f"asnumpy.{func}: input operand has more dimensions than allowed by "
                         "the axis remapping")
    lead = ndim - array.ndim
    strides = [0] * lead
    for own, stride, want in zip(array.shape, array.strides, shape[lead:]):
        if own == want:
            strides.append(stride)
        elif own == 1:
            strides.append(0)
        else:
            raise ValueError(
                f"asnumpy.{func}: could not broadcast input array from shape "
                f"{array.shape} into shape {shape}")
    view = array._view(shape, tuple(strides), array._offset)
    view._writeable = False
    return view


def host_values(value) -> np.ndarray:
    """Small index-like data (``obj``, ``repeats``, ``shift`` ...) as a host NumPy array."""
    if isinstance(value, ndarray):
        return fetch(value)
    return value
