"""One-dimensional linear interpolation: interp."""

from __future__ import annotations

import numpy as np

from .._launch import empty, launch
from ..ndarray import ndarray
from ._operands import device_of, fetch, to_device

__all__ = ["interp"]


def _check_castable(array, dtype, func):
    if not np.can_cast(array.dtype, dtype, casting="safe"):
        raise TypeError(f"asnumpy.{func}: Cannot cast array data from {array.dtype!r} to "
                        f"{np.dtype(dtype)!r} according to the rule 'safe'")


def _scalar(value, func):
    """``left``/``right`` as a host scalar (a device 0-d array is fetched)."""
    if isinstance(value, ndarray):
        if value.ndim != 0:
            raise TypeError(f"asnumpy.{func}: left and right must be scalars")
        return fetch(value)[()]
    return value


def interp(x, xp, fp, left=None, right=None, period=None):
    """One-dimensional piecewise linear interpolation, as ``numpy.interp``.

    Computed by NumPy's own interpolation loop on the device's kernel
    library (the ``numpy_function`` kernel).

    Parameters
    ----------
    x : array_like
        Where to evaluate.
    xp : 1-D array_like
        Increasing sample coordinates (any order with ``period``).
    fp : 1-D array_like
        Sample values (float or complex), as long as ``xp``.
    left, right : float or complex, optional
        Values below ``xp[0]`` and above ``xp[-1]`` (default ``fp[0]``, ``fp[-1]``).
    period : float, optional
        Period of the x-coordinates (``left``/``right`` are then ignored).

    Returns
    -------
    asnumpy.ndarray
        Shape of ``x``; float64, or complex128 for complex ``fp``.
    """
    device = device_of(x, xp, fp)
    x, xp, fp = (to_device(v, device, "interp") for v in (x, xp, fp))
    dtype = np.dtype(np.complex128 if fp.dtype.kind == "c" else np.float64)
    _check_castable(x, np.float64, "interp")
    _check_castable(xp, np.float64, "interp")
    _check_castable(fp, dtype, "interp")
    if period is not None:
        if period == 0:
            raise ValueError("asnumpy.interp: period must be a non-zero value")
        left = right = None
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("asnumpy.interp: Data points must be 1-D sequences")
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("asnumpy.interp: object too deep for desired array")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("asnumpy.interp: fp and xp are not of the same length.")
    if xp.shape[0] == 0:
        raise ValueError("asnumpy.interp: array of sample points is empty")
    options = {"left": _scalar(left, "interp"), "right": _scalar(right, "interp"),
               "period": period}
    out = empty(x.shape, dtype, device, func="interp")
    launch("numpy_function", (out,), "interp", (x, xp, fp), options, func="interp")
    return out
