"""Index arrays: diag_indices, tril/triu_indices, mask_indices, ix_,
ravel_multi_index and unravel_index.

The small index sets that depend only on integers are computed on the host
by NumPy and moved to the device; conversions of index data run on the
device after a host probe has checked them.
"""

from __future__ import annotations

import numpy as np

from .._launch import check_same_device, empty
from ..ndarray import ndarray
from ._probes import (
    INTP,
    device_of,
    device_operand,
    host_of,
    launch_into,
    named,
    to_device,
)

__all__ = [
    "diag_indices",
    "diag_indices_from",
    "ix_",
    "mask_indices",
    "ravel_multi_index",
    "tril_indices",
    "tril_indices_from",
    "triu_indices",
    "triu_indices_from",
    "unravel_index",
]


def _to_device(arrays, device=None):
    from ..transfer import asarray

    return tuple(asarray(x, device=device) for x in arrays)


def _array_argument(arr, func):
    """``arr`` on the device; NumPy's AttributeError for what is not an array (no ``ndim``).

    ``numpy.tril_indices_from(4)`` and ``diag_indices_from([[1]])`` read
    ``arr.ndim`` first: a number or a list is refused, not converted.
    """
    if not hasattr(arr, "ndim"):
        raise AttributeError(f"asnumpy.{func}: {type(arr).__name__!r} object has no attribute "
                             "'ndim' (an array is needed)")
    return device_operand(arr)


def _triangle_from(arr, k, triangle_indices):
    """``triangle_indices`` (numpy.tril_indices or triu_indices) of the 2-d ``arr``."""
    arr = _array_argument(arr, f"{triangle_indices.__name__}_from")
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return _to_device(triangle_indices(arr.shape[-2], k=k, m=arr.shape[-1]), arr._device)


@named("diag_indices")
def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an ``(n,) * ndim`` array.

    Parameters
    ----------
    n : int
        Length of each axis.
    ndim : int, optional
        Number of dimensions.

    Returns
    -------
    tuple of asnumpy.ndarray
        ``ndim`` equal ``arange(n)`` arrays.

    See Also
    --------
    numpy.diag_indices
    """
    return _to_device(np.diag_indices(n, ndim))


@named("diag_indices_from")
def diag_indices_from(arr):
    """Indices of the main diagonal of ``arr`` (all of whose axes have one length).

    Parameters
    ----------
    arr : array_like
        At least 2-d.

    Returns
    -------
    tuple of asnumpy.ndarray

    See Also
    --------
    numpy.diag_indices_from
    """
    arr = _array_argument(arr, "diag_indices_from")
    return _to_device(np.diag_indices_from(np.broadcast_to(np.zeros((), arr.dtype), arr.shape)),
                      arr._device)


@named("tril_indices")
def tril_indices(n, k=0, m=None):
    """Indices of the lower triangle of an ``(n, m)`` array.

    Parameters
    ----------
    n : int
        Number of rows.
    k : int, optional
        Diagonal offset.
    m : int, optional
        Number of columns (``n`` by default).

    Returns
    -------
    tuple of asnumpy.ndarray
        Row and column indices.

    See Also
    --------
    numpy.tril_indices
    """
    return _to_device(np.tril_indices(n, k, m))


@named("triu_indices")
def triu_indices(n, k=0, m=None):
    """Indices of the upper triangle of an ``(n, m)`` array (see :func:`tril_indices`).

    See Also
    --------
    numpy.triu_indices
    """
    return _to_device(np.triu_indices(n, k, m))


@named("tril_indices_from")
def tril_indices_from(arr, k=0):
    """Indices of the lower triangle of the 2-d ``arr``.

    See Also
    --------
    numpy.tril_indices_from
    """
    return _triangle_from(arr, k, np.tril_indices)


@named("triu_indices_from")
def triu_indices_from(arr, k=0):
    """Indices of the upper triangle of the 2-d ``arr``.

    See Also
    --------
    numpy.triu_indices_from
    """
    return _triangle_from(arr, k, np.triu_indices)


@named("mask_indices")
def mask_indices(n, mask_func, k=0):
    """Indices where ``mask_func(ones((n, n)), k)`` is non-zero.

    Parameters
    ----------
    n : int
        Size of the square array.
    mask_func : callable
        Such as :func:`asnumpy.triu` or :func:`asnumpy.tril`.
    k : int, optional
        Passed on to ``mask_func``.

    Returns
    -------
    tuple of asnumpy.ndarray

    See Also
    --------
    numpy.mask_indices
    """
    from ..creation import ones
    from ..reductions import nonzero

    return nonzero(device_operand(mask_func(ones((n, n), int), k)) != 0)


@named("ix_")
def ix_(*args):
    """Open mesh index arrays from 1-d sequences (booleans become their indices).

    Parameters
    ----------
    *args : 1-d array_like
        One sequence of integers or booleans per axis.

    Returns
    -------
    tuple of asnumpy.ndarray
        Each with one non-unit axis; views of asnumpy inputs.

    See Also
    --------
    numpy.ix_
    """
    from ..reductions import nonzero
    from ..transfer import asarray

    out = []
    nd = len(args)
    device = device_of(*args)
    check_same_device("ix_", device, *args)      # one mesh, one device (the mixing rule)
    for k, new in enumerate(args):
        if not isinstance(new, ndarray):
            host = np.asarray(host_of(new))
            if host.size == 0:
                host = host.astype(INTP)
            new = asarray(host, device=device)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype == bool:
            (new,) = nonzero(new)
        out.append(new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


@named("ravel_multi_index")
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices of the index tuples ``multi_index`` into an array of shape ``dims``.

    Parameters
    ----------
    multi_index : tuple of array_like of int
        One index array per dimension.
    dims : tuple of int
        The array's shape.
    mode : {'raise', 'wrap', 'clip'} or tuple of them, optional
        How out-of-bounds indices behave (per dimension if a tuple).
    order : {'C', 'F'}, optional
        Row- or column-major flattening.

    Returns
    -------
    asnumpy.ndarray
        ``intp`` flat indices.

    See Also
    --------
    numpy.ravel_multi_index
    """
    device = device_of(*multi_index) if isinstance(multi_index, (tuple, list)) else \
        device_of(multi_index)
    probe = np.asarray(np.ravel_multi_index(tuple(host_of(x) for x in multi_index), dims,
                                            mode=mode, order=order))
    out = empty(probe.shape, INTP, device, func="ravel_multi_index")
    launch_into((out,), "ravel_multi_index",
                (tuple(to_device(x, device, "ravel_multi_index") for x in multi_index), dims),
                {"mode": mode, "order": order}, "ravel_multi_index")
    return out


@named("unravel_index")
def unravel_index(indices, shape, order="C"):
    """The index tuples of flat ``indices`` into an array of ``shape``.

    Parameters
    ----------
    indices : array_like of int
        Flat indices.
    shape : tuple of int
        The array's shape.
    order : {'C', 'F'}, optional
        Row- or column-major flattening.

    Returns
    -------
    tuple of asnumpy.ndarray
        One ``intp`` array (of ``indices``' shape) per dimension.

    See Also
    --------
    numpy.unravel_index
    """
    device = device_of(indices)
    probe = np.unravel_index(host_of(indices), shape, order=order)
    outs = tuple(empty(np.shape(p), INTP, device, func="unravel_index") for p in probe)
    if outs:
        launch_into(outs, "unravel_index", (to_device(indices, device, "unravel_index"),),
                    {"shape": shape, "order": order}, "unravel_index")
    return outs
