"""Repeating an array: tile and repeat.

``tile`` and ``repeat`` with one repeat count are one broadcast copy each:
the result, viewed with an extra axis per repeated axis, receives the input
broadcast along that axis.  ``repeat`` with a count per element runs NumPy's
own ``repeat`` on the device data (the ``numpy_function`` kernel).
"""

from __future__ import annotations

import operator

import numpy as np

from .._launch import launch
from ._operands import (
    as_array,
    broadcast_view,
    empty,
    host_values,
    normalize_axis,
    ravel,
    to_device,
)

__all__ = ["repeat", "tile"]


def _tile_count(n) -> int:
    """One count of ``tile``'s ``reps`` as an int, with NumPy's error for anything else."""
    try:
        return operator.index(n)
    except TypeError:
        pass
    # numpy.tile hands a string count to repeat, whose int() conversion raises
    # ValueError; any other non-integer fails later as a shape entry (TypeError)
    if isinstance(n, (str, bytes)):
        raise ValueError(f"asnumpy.tile: invalid literal for int() with base 10: {n!r}")
    raise TypeError(f"asnumpy.tile: {type(n).__name__!r} object cannot be interpreted "
                    f"as an integer (reps entry {n!r})")


def tile(A, reps):
    """Construct an array by repeating ``A`` the number of times given by ``reps``.

    As ``numpy.tile``: the result has ``max(A.ndim, len(reps))`` dimensions;
    ``A`` is promoted with leading unit axes, or ``reps`` with leading ones.

    Parameters
    ----------
    A : array_like
        The input array.
    reps : int or sequence of ints
        Repetitions of ``A`` along each axis.

    Returns
    -------
    asnumpy.ndarray
        A new array of ``A``'s dtype.

    Raises
    ------
    ValueError
        For a negative repetition count.
    """
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    tup = tuple(_tile_count(n) for n in tup)
    A = as_array(A, "tile")
    d = len(tup)
    if A.ndim < d:
        A = A.reshape((1,) * (d - A.ndim) + A.shape)
    tup = (1,) * (A.ndim - d) + tup
    if any(n < 0 for n in tup):
        raise ValueError("asnumpy.tile: negative dimensions are not allowed")
    if all(n == 1 for n in tup):
        out = empty(A.shape, A.dtype, A._device, order="K", like=A, func="tile")
        out[...] = A
        return out
    shape_out = tuple(s * t for s, t in zip(A.shape, tup))
    out = empty(shape_out, A.dtype, A._device, func="tile")
    if out.size:
        # out as (t0, s0, t1, s1, ...) receives A as (1, s0, 1, s1, ...), broadcast
        split = tuple(n for pair in zip(tup, A.shape) for n in pair)
        source = A.reshape(tuple(n for s in A.shape for n in (1, s)))
        out.reshape(split)[...] = broadcast_view(source, split, "tile")
    return out


def repeat(a, repeats, axis=None):
    """Repeat each element of an array after itself, as ``numpy.repeat``.

    Parameters
    ----------
    a : array_like
        Input array.
    repeats : int or array of ints
        Number of repetitions of each element, broadcast to the length of
        ``axis`` (cast to ``intp`` under NumPy's rules).
    axis : int, optional
        Axis along which to repeat; None repeats the flattened array and
        returns a 1-D array.

    Returns
    -------
    asnumpy.ndarray
        ``a``'s dtype; the repeated axis has ``sum(repeats)`` entries.

    Raises
    ------
    ValueError
        For negative counts or counts that do not broadcast to the axis.
    AxisError
        For an axis out of range.
    """
    a = as_array(a, "repeat")
    if axis is None or a.ndim == 0:          # NumPy repeats a 0-d array as a 1-D one
        a = ravel(a)
    if axis is None:
        axis = 0
    else:
        axis = normalize_axis(axis, a.ndim, "repeat")
    n = a.shape[axis]
    counts = host_values(repeats)
    # NumPy's validation (casting, broadcasting, negative counts) on an empty stand-in
    try:
        total = np.repeat(np.empty((0, n), np.bool_), counts, axis=1).shape[1]
        single = np.ndim(counts) == 0 or np.size(counts) == 1
        each = (np.repeat(np.empty((0, 1), np.bool_), counts, axis=1).shape[1]
                if single else None)
    except (ValueError, TypeError) as error:
        raise type(error)(f"asnumpy.repeat: {error}") from None
    shape = a.shape[:axis] + (total,) + a.shape[axis + 1:]
    out = empty(shape, a.dtype, a._device, func="repeat")
    if out.size == 0:
        return out
    if single:
        # out as (..., n, each, ...) receives a as (..., n, 1, ...), broadcast
        split = a.shape[:axis + 1] + (each,) + a.shape[axis + 1:]
        source = a.reshape(a.shape[:axis + 1] + (1,) + a.shape[axis + 1:])
        out.reshape(split)[...] = broadcast_view(source, split, "repeat")
        return out
    counts = to_device(np.asarray(counts).astype(np.intp), a._device, "repeat")
    launch("numpy_function", (out,), "repeat", (a, counts), {"axis": axis}, func="repeat")
    return out
