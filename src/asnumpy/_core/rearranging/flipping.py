"""Reversing, rotating and rolling: flip, fliplr, flipud, rot90, roll.

``flip``, ``fliplr``, ``flipud`` and ``rot90`` are views with negative
strides (writing through them changes the input, as in NumPy); ``roll``
copies the two rotated halves of each rolled axis into a new array.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from ._operands import as_array, empty_like, host_values, normalize_axis_tuple, ravel

__all__ = ["flip", "fliplr", "flipud", "roll", "rot90"]


def flip(m, axis=None):
    """Reverse the order of elements along the given axes, as ``numpy.flip``.

    Parameters
    ----------
    m : array_like
        Input array (host data is copied to the current device first).
    axis : None, int or tuple of ints, optional
        Axes to flip; None flips every axis.

    Returns
    -------
    asnumpy.ndarray
        A view of ``m`` with the entries of ``axis`` reversed (negative strides).

    Raises
    ------
    AxisError
        For an axis out of range.
    ValueError
        For a repeated axis.
    """
    m = as_array(m, "flip")
    if axis is None:
        index = (slice(None, None, -1),) * m.ndim
    else:
        axes = normalize_axis_tuple(axis, m.ndim, "flip")
        index = tuple(slice(None, None, -1) if n in axes else slice(None)
                      for n in range(m.ndim))
    return m[index]


def _reversed_along(m, min_ndim, index, func):
    """``m[index]`` for an ``m`` of at least ``min_ndim`` dimensions: fliplr and flipud."""
    m = as_array(m, func)
    if m.ndim < min_ndim:
        raise ValueError(f"asnumpy.{func}: Input must be >= {min_ndim}-d.")
    return m[index]


def fliplr(m):
    """Reverse the order of elements along axis 1 (left/right), as ``numpy.fliplr``.

    Parameters
    ----------
    m : array_like
        Input array, at least 2-D.

    Returns
    -------
    asnumpy.ndarray
        A view of ``m`` with its columns reversed.

    Raises
    ------
    ValueError
        For an input of fewer than two dimensions.
    """
    return _reversed_along(m, 2, (slice(None), slice(None, None, -1)), "fliplr")


def flipud(m):
    """Reverse the order of elements along axis 0 (up/down), as ``numpy.flipud``.

    Parameters
    ----------
    m : array_like
        Input array, at least 1-D.

    Returns
    -------
    asnumpy.ndarray
        A view of ``m`` with its rows reversed.

    Raises
    ------
    ValueError
        For a 0-d input.
    """
    return _reversed_along(m, 1, (slice(None, None, -1), Ellipsis), "flipud")


def rot90(m, k=1, axes=(0, 1)):
    """Rotate an array by 90 degrees ``k`` times in the plane of ``axes``, as ``numpy.rot90``.

    Parameters
    ----------
    m : array_like
        Array of two or more dimensions.
    k : int, optional
        Number of rotations, from the first axis towards the second.
    axes : (2,) sequence of int, optional
        The plane of rotation; the two axes must differ.

    Returns
    -------
    asnumpy.ndarray
        A view of ``m`` (flipped and transposed strides).

    Raises
    ------
    ValueError
        If ``axes`` does not name two different axes within range.
    """
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("asnumpy.rot90: len(axes) must be 2.")
    m = as_array(m, "rot90")
    first, second = (operator.index(axis) for axis in axes)
    if first == second or abs(first - second) == m.ndim:
        raise ValueError("asnumpy.rot90: Axes must be different.")
    if not (-m.ndim <= first < m.ndim and -m.ndim <= second < m.ndim):
        raise ValueError(f"asnumpy.rot90: Axes={axes} out of range for array of "
                         f"ndim={m.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return m[:]
    if k == 2:
        return flip(flip(m, first), second)
    order = list(range(m.ndim))
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return flip(m, second).transpose(order)
    return flip(m.transpose(order), second)


def roll(a, shift, axis=None):
    """Roll array elements along the given axes, as ``numpy.roll``.

    Elements that roll beyond the last position come back at the first.

    Parameters
    ----------
    a : array_like
        Input array.
    shift : int or tuple of ints
        Places by which elements are shifted; a tuple pairs with ``axis``
        (broadcast against it).  Shifts of a repeated axis add up.
    axis : int or tuple of ints, optional
        Axes to roll; None rolls the flattened array and restores the shape.

    Returns
    -------
    asnumpy.ndarray
        A new array of ``a``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``shift`` and ``axis`` are not scalars or 1-D sequences that broadcast.
    AxisError
        For an axis out of range.
    """
    a = as_array(a, "roll")
    shift = host_values(shift)
    if axis is None:
        return roll(ravel(a), shift, 0).reshape(a.shape)
    if isinstance(axis, (tuple, list)):
        axes = tuple(_normalize_axes(axis, a.ndim))
    else:
        axes = _normalize_axes((axis,), a.ndim)[0]
    try:
        pairs = np.broadcast(shift, axes)
    except ValueError as error:
        raise ValueError(f"asnumpy.roll: {error}") from None
    if pairs.ndim > 1:
        raise ValueError("asnumpy.roll: 'shift' and 'axis' should be scalars or 1D sequences")
    shifts = dict.fromkeys(range(a.ndim), 0)
    for step, ax in pairs:
        shifts[int(ax)] += int(step)
    rolls = [((slice(None), slice(None)),)] * a.ndim
    for ax, offset in shifts.items():
        offset %= a.shape[ax] or 1
        if offset:
            rolls[ax] = ((slice(None, -offset), slice(offset, None)),
                         (slice(-offset, None), slice(None, offset)))
    result = empty_like(a)
    for indices in itertools.product(*rolls):
        source, target = zip(*indices)
        result[target] = a[source]
    return result


def _normalize_axes(axes, ndim):
    """Axes in ``[0, ndim)`` (repeats allowed, as ``roll`` accepts them)."""
    return [normalize_axis_tuple(ax, ndim, "roll")[0] for ax in axes]
