"""Conversions users reach for beside ``asarray``: ``asanyarray``,
``asarray_chkfinite``, and the top-level ``from_numpy``/``to_numpy``.

asnumpy has one array class (``memmap`` is an ndarray), so ``asanyarray`` is
``asarray`` that also accepts NumPy's ``like=``.
"""

from __future__ import annotations

from .ndarray import ndarray
from .reductions import all as all_
from .transfer import asarray, asnumpy
from .ufuncs import isfinite

__all__ = ["asanyarray", "asarray_chkfinite", "from_numpy", "to_numpy"]


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None) -> ndarray:
    """Convert ``a`` to an asnumpy array, passing asnumpy arrays (and memmaps) through.

    Parameters
    ----------
    a : array_like
    dtype, order, device, copy
        As in :func:`asarray`.
    like : array_like, optional
        An asnumpy array whose device is the default ``device``.

    Returns
    -------
    ndarray
    """
    if device is None and isinstance(like, ndarray):
        device = like.device
    return asarray(a, dtype, order, device=device, copy=copy)


def asarray_chkfinite(a, dtype=None, order=None, *, device=None) -> ndarray:
    """Convert ``a`` to an asnumpy array, raising ValueError if it holds infs or NaNs.

    Parameters
    ----------
    a : array_like
    dtype, order, device
        As in :func:`asarray`.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError
        If the (floating or complex) result has a non-finite element.
    """
    result = asarray(a, dtype, order, device=device)
    if result.dtype.kind in "fc" and not bool(all_(isfinite(result))):
        raise ValueError("asnumpy.asarray_chkfinite: array must not contain infs or NaNs")
    return result


def from_numpy(x, device=None, stream=None) -> ndarray:
    """Copy a NumPy array (or array-like) to ``device`` (the current one).

    Parameters
    ----------
    x : array_like
    device : str or Device, optional
    stream : Stream or "async", optional
        As in :func:`asarray`: ``"async"`` returns at once, the copy queued
        on the device's transfer stream.

    Returns
    -------
    ndarray
    """
    if isinstance(x, ndarray):
        raise TypeError("asnumpy.from_numpy: expected a NumPy array or array-like, got an "
                        "asnumpy.ndarray (use asarray or .to(device))")
    return asarray(x, device=device, copy=True, stream=stream)


def to_numpy(a, stream=None):
    """Copy the asnumpy array ``a`` to a new NumPy array (``asnumpy(a, stream=stream)``).

    Parameters
    ----------
    a : ndarray
    stream : Stream, optional
        The stream the copy is queued on; the result is complete on return.

    Returns
    -------
    numpy.ndarray
    """
    return asnumpy(a, stream=stream)
