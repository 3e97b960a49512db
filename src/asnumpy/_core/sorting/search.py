"""Searching sorted data: searchsorted and digitize (NumPy's binary searches on the device)."""

from __future__ import annotations

import numpy as np

from .._launch import empty, launch
from ..reductions._operands import device_operand
from ._numpy_calls import INTP, call_into, named, on_device

__all__ = ["digitize", "searchsorted"]


@named("searchsorted")
def searchsorted(a, v, side="left", sorter=None):
    """Indices where ``v`` would be inserted into sorted 1-D ``a`` to keep it sorted.

    Parameters
    ----------
    a : array_like
        1-D array, sorted ascending unless ``sorter`` sorts it.
    v : array_like or scalar
        Values to insert.
    side : {'left', 'right'}, optional
        The first or the last suitable index for equal values.
    sorter : array_like of ints, optional
        Indices that sort ``a`` (from :func:`argsort`).

    Returns
    -------
    asnumpy.ndarray
        ``intp`` indices of ``v``'s shape (0-d for a scalar ``v``).

    Raises
    ------
    ValueError
        For an ``a`` that is not 1-D, a bad ``side`` or a ``sorter`` of the wrong size.

    See Also
    --------
    numpy.searchsorted
    """
    a = device_operand(a)
    v = on_device(v, a._device)
    sorter = on_device(sorter, a._device)
    out = empty(tuple(np.shape(v) if not hasattr(v, "shape") else v.shape), INTP, a._device,
                func="searchsorted")
    launch("searchsorted", out, a, v, side, sorter, func="searchsorted")
    return out


@named("digitize")
def digitize(x, bins, right=False):
    """Indices of the bins that each value of ``x`` falls into.

    Parameters
    ----------
    x : array_like
        Values to bin (not complex).
    bins : array_like
        1-D monotonic bin edges (increasing or decreasing).
    right : bool, optional
        Whether a bin includes its right edge instead of its left one.

    Returns
    -------
    asnumpy.ndarray
        ``intp`` indices of ``x``'s shape.

    Raises
    ------
    ValueError
        For ``bins`` that are not 1-D or not monotonic.
    TypeError
        For complex ``x``.

    See Also
    --------
    numpy.digitize
    """
    x = device_operand(x)
    bins = on_device(bins, x._device)
    return call_into("digitize", "digitize", x.shape, INTP, x._device, (x, bins),
                     {"right": right})
