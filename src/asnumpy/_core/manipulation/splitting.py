"""Splitting arrays: split, array_split, hsplit, vsplit, dsplit, unstack.

Every piece is a view of the input (a slice along the splitting axis), as
in NumPy: writing through a piece changes the original.
"""

from __future__ import annotations

import itertools
import operator

from ._operands import as_array
from .shapes import moveaxis

__all__ = ["array_split", "dsplit", "hsplit", "split", "unstack", "vsplit"]


def _axis_length(ary, axis, func):
    # NumPy reads ``ary.shape[axis]``: an out-of-range axis is an IndexError there
    axis = operator.index(axis)
    if not -ary.ndim <= axis < ary.ndim:
        raise IndexError(f"asnumpy.{func}: tuple index out of range (axis {axis} of an array "
                         f"of dimension {ary.ndim})")
    return axis % ary.ndim, ary.shape[axis]


def _pieces(ary, div_points, axis):
    lead = (slice(None),) * axis
    return [ary[lead + (slice(start, stop),)]
            for start, stop in itertools.pairwise(div_points)]


def _index_points(indices, total):
    points = [0]
    for i in indices:
        points.append(operator.index(i))
    points.append(total)
    return points


def array_split(ary, indices_or_sections, axis=0):
    """Split an array into multiple sub-arrays (sections need not be equal).

    Parameters
    ----------
    ary : array_like
        Array to be divided into sub-arrays.
    indices_or_sections : int or 1-D sequence of ints
        An integer N gives N sections; the first ``len % N`` have one more
        element.  A sequence gives the split points along ``axis``.
    axis : int, optional
        The axis along which to split.

    Returns
    -------
    list of ndarray
        Views of ``ary``.
    """
    return _array_split(as_array(ary, "array_split"), indices_or_sections, axis, "array_split")


def _array_split(ary, indices_or_sections, axis, func):
    axis, total = _axis_length(ary, axis, func)
    try:
        count = len(indices_or_sections)
    except TypeError:
        count = None
    if count is not None:
        points = _index_points(indices_or_sections, total)
    else:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError(f"asnumpy.{func}: number sections must be larger than 0.")
        each, extras = divmod(total, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = []
        acc = 0
        for n in sizes:
            acc += n
            points.append(acc)
    return _pieces(ary, points, axis)


def split(ary, indices_or_sections, axis=0):
    """Split an array into multiple sub-arrays as views of it.

    Parameters
    ----------
    ary : array_like
        Array to be divided into sub-arrays.
    indices_or_sections : int or 1-D sequence of ints
        An integer N divides ``ary`` into N equal sections (ValueError if
        impossible); a sorted sequence gives the split points.
    axis : int, optional
        The axis along which to split.

    Returns
    -------
    list of ndarray
        Views of ``ary``.
    """
    ary = as_array(ary, "split")
    return _split(ary, indices_or_sections, axis, "split")


def _split(ary, indices_or_sections, axis, func):
    try:
        len(indices_or_sections)
    except TypeError:
        sections = indices_or_sections
        _, total = _axis_length(ary, axis, func)
        if total % sections:
            raise ValueError(f"asnumpy.{func}: array split does not result in an equal division")
    return _array_split(ary, indices_or_sections, axis, func)


def _split_along(ary, indices_or_sections, axis, min_ndim, func):
    """:func:`split` along ``axis`` (the last axis when ``ary`` has fewer) of an array of
    at least ``min_ndim`` dimensions: hsplit, vsplit and dsplit."""
    ary = as_array(ary, func)
    if ary.ndim < min_ndim:
        raise ValueError(f"asnumpy.{func}: {func} only works on arrays of {min_ndim} or more "
                         "dimensions")
    return _split(ary, indices_or_sections, min(axis, ary.ndim - 1), func)


def hsplit(ary, indices_or_sections):
    """Split an array into sub-arrays horizontally (column-wise).

    The second axis for arrays of 2 or more dimensions, the first for 1-d.

    Returns
    -------
    list of ndarray
        Views of ``ary``.
    """
    return _split_along(ary, indices_or_sections, 1, 1, "hsplit")


def vsplit(ary, indices_or_sections):
    """Split an array into sub-arrays vertically (row-wise), along the first axis.

    Returns
    -------
    list of ndarray
        Views of ``ary`` (which must be at least 2-d).
    """
    return _split_along(ary, indices_or_sections, 0, 2, "vsplit")


def dsplit(ary, indices_or_sections):
    """Split an array into sub-arrays along the third axis (depth).

    Returns
    -------
    list of ndarray
        Views of ``ary`` (which must be at least 3-d).
    """
    return _split_along(ary, indices_or_sections, 2, 3, "dsplit")


def unstack(x, /, *, axis=0):
    """Split an array into a sequence of arrays along an axis.

    Parameters
    ----------
    x : array_like
        The array to unstack (at least 1-d).
    axis : int, optional
        The axis to unstack along.

    Returns
    -------
    tuple of ndarray
        ``x.shape[axis]`` views of ``x``, each without that axis (for a 1-d
        ``x``, 0-d copies, where NumPy gives scalars).
    """
    x = as_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("asnumpy.unstack: Input array must be at least 1-d.")
    moved = moveaxis(x, axis, 0)
    if x.ndim == 1:
        # NumPy gives scalars (copies) here; asnumpy gives 0-d copies
        return tuple(moved[i].copy() for i in range(moved.shape[0]))
    return tuple(moved[i] for i in range(moved.shape[0]))


