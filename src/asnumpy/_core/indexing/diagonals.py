"""Diagonals: diagonal (a read-only view), trace and fill_diagonal."""

from __future__ import annotations

import numpy as np

from ..._errors import check_writeable
from .. import _layout
from ..ndarray import ndarray
from ._probes import (
    device_operand,
    launch_inplace,
    named,
    standin,
    to_device,
    writable_standin,
)

__all__ = ["diagonal", "fill_diagonal", "trace"]


@named("diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of ``a`` over ``axis1`` and ``axis2``, as a read-only view.

    Parameters
    ----------
    a : array_like
        At least 2-d.
    offset : int, optional
        Above (positive) or below (negative) the main diagonal.
    axis1, axis2 : int, optional
        The two axes; the diagonal becomes the last axis of the result.

    Returns
    -------
    asnumpy.ndarray
        A view, not writeable (as NumPy's).

    See Also
    --------
    numpy.diagonal
    """
    a = device_operand(a)
    np.diagonal(standin(a), offset, axis1, axis2)          # NumPy's errors
    ax1 = _layout.normalize_axis(axis1, a.ndim, "diagonal")
    ax2 = _layout.normalize_axis(axis2, a.ndim, "diagonal")
    offset = int(offset)
    n1, n2 = a.shape[ax1], a.shape[ax2]
    s1, s2 = a.strides[ax1], a.strides[ax2]
    start = a._offset
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        if length:
            start += offset * s2
    else:
        length = max(0, min(n1 + offset, n2))
        if length:
            start -= offset * s1
    others = [i for i in range(a.ndim) if i not in (ax1, ax2)]
    shape = tuple(a.shape[i] for i in others) + (length,)
    strides = tuple(a.strides[i] for i in others) + (s1 + s2,)
    if 0 in shape:
        start = a._offset
    view = a._view(shape, strides, start)
    view._writeable = False
    return view


@named("trace")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along a diagonal of ``a``.

    Parameters
    ----------
    a : array_like
        At least 2-d.
    offset : int, optional
        Which diagonal (see :func:`diagonal`).
    axis1, axis2 : int, optional
        The axes of the diagonal.
    dtype : data-type, optional
        Accumulator and result type (NumPy's ``sum`` default otherwise).
    out : asnumpy.ndarray, optional
        Where to write the result.

    Returns
    -------
    asnumpy.ndarray
        0-d for a 2-d ``a`` (NumPy returns a scalar).

    See Also
    --------
    numpy.trace
    """
    from ..reductions import sum as _sum

    return _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


@named("fill_diagonal")
def fill_diagonal(a, val, wrap=False):
    """Fill the main diagonal of ``a`` with ``val`` (cycled), in place.

    Parameters
    ----------
    a : asnumpy.ndarray
        At least 2-d; all dimensions equal unless 2-d.
    val : scalar or array_like
        Values written along the diagonal.
    wrap : bool, optional
        For tall 2-d arrays, continue the diagonal after N columns.

    See Also
    --------
    numpy.fill_diagonal
    """
    if not isinstance(a, ndarray):
        raise TypeError(f"fill_diagonal() argument 1 must be asnumpy.ndarray, not "
                        f"{type(a).__name__}")
    check_writeable(a, "fill_diagonal", "underlying array")       # NumPy's words
    np.fill_diagonal(writable_standin(a), standin(val), wrap)
    if a.size:
        launch_inplace(a._device, "fill_diagonal",
                       (a, to_device(val, a._device, "fill_diagonal"), wrap), {}, "fill_diagonal")
