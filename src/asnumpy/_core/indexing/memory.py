"""Memory overlap: may_share_memory and shares_memory."""

from __future__ import annotations

import numpy as np

from .. import _layout
from .._launch import empty, launch
from ..ndarray import ndarray
from ._probes import named

__all__ = ["may_share_memory", "shares_memory"]


def _extent(a):
    low, high = _layout.memory_extent(a.shape, a.strides, a.itemsize)
    return a._offset + low, a._offset + high


def _same_buffer(a, b):
    if not (isinstance(a, ndarray) and isinstance(b, ndarray)):
        if isinstance(a, ndarray) or isinstance(b, ndarray):
            return False, None
        return None, None                     # both host: NumPy's answer
    if a._realize() is not b._realize() or a.size == 0 or b.size == 0:
        return False, None
    (alo, ahi), (blo, bhi) = _extent(a), _extent(b)
    return alo < bhi and blo < ahi, True


@named("may_share_memory")
def may_share_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` might share memory (same buffer, overlapping byte ranges).

    Parameters
    ----------
    a, b : asnumpy.ndarray
        Arrays to compare.
    max_work : int, optional
        As NumPy's; by default only the byte extents are compared.

    Returns
    -------
    bool
        A Python bool (this answers a question about layouts, not data).

    See Also
    --------
    numpy.may_share_memory
    """
    overlap, _ = _same_buffer(a, b)
    if overlap is None:
        return bool(np.may_share_memory(a, b, max_work))
    if overlap and max_work is not None and max_work != -1:
        return shares_memory(a, b, max_work)
    return overlap


@named("shares_memory")
def shares_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` share memory (an exact answer, as NumPy's).

    Parameters
    ----------
    a, b : asnumpy.ndarray
        Arrays to compare.
    max_work : int, optional
        Bound on the work, as NumPy's (``numpy.exceptions.TooHardError``
        when exceeded).

    Returns
    -------
    bool

    See Also
    --------
    numpy.shares_memory
    """
    overlap, _ = _same_buffer(a, b)
    if overlap is None:
        return bool(np.shares_memory(a, b, max_work))
    if not overlap:
        return False
    # NumPy's exact solver, on the device arrays' own addresses.
    result = empty((), np.dtype(bool), a._device, func="shares_memory")
    launch("numpy_function", (result,), "shares_memory", (a, b), {"max_work": max_work},
           func="shares_memory")
    return bool(result.item())
