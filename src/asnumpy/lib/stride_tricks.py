"""Views with chosen strides: ``as_strided`` and ``sliding_window_view``, as ``numpy.lib.stride_tricks``.

Both return views of the device memory, never copies.  Unlike NumPy,
``as_strided`` refuses a view that would reach outside the array's memory
(a ``ValueError`` instead of reading or writing another allocation), since
device memory is shared through a pool.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core import _layout
from .._core.ndarray import ndarray
from .._core.transfer import asarray

__all__ = ["as_strided", "sliding_window_view"]


def _device_array(x, func) -> ndarray:
    if isinstance(x, ndarray):
        return x
    try:
        return asarray(x)
    except TypeError:
        raise TypeError(f"asnumpy.{func}: expected an array, got {type(x).__name__}") from None


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """A view of ``x`` with the given shape and byte strides.

    Parameters
    ----------
    x : ndarray
        The array whose memory the view reads.
    shape : sequence of int, optional
        The view's shape (``x.shape`` by default).
    strides : sequence of int, optional
        The view's strides in bytes (``x.strides`` by default).
    subok : bool, optional
        Accepted for NumPy's signature; asnumpy has no subclasses.
    writeable : bool, optional
        False makes the view read-only (advised when elements overlap).

    Returns
    -------
    ndarray
        A view sharing ``x``'s memory.

    Raises
    ------
    ValueError
        When the view would reach memory outside ``x``'s buffer.
    """
    x = _device_array(x, "lib.stride_tricks.as_strided")
    shape = x.shape if shape is None else tuple(operator.index(n) for n in shape)
    strides = x.strides if strides is None else tuple(operator.index(s) for s in strides)
    if len(shape) != len(strides):
        raise ValueError(f"asnumpy.lib.stride_tricks.as_strided: shape {shape} and strides "
                         f"{strides} have different lengths")
    if any(n < 0 for n in shape):
        raise ValueError(f"asnumpy.lib.stride_tricks.as_strided: negative dimensions are not "
                         f"allowed (shape {shape})")
    low, high = _layout.memory_extent(shape, strides, x.itemsize)
    buffer_bytes = x._realize().nbytes
    if _layout.size_of(shape) and (x._offset + low < 0 or x._offset + high > buffer_bytes):
        raise ValueError(
            f"asnumpy.lib.stride_tricks.as_strided: shape {shape} with strides {strides} "
            f"reaches bytes [{x._offset + low}, {x._offset + high}) outside the array's "
            f"memory of {buffer_bytes} bytes")
    view = x._view(shape, strides, x._offset)
    if not writeable:
        view._writeable = False
    return view


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of ``window_shape`` over ``x``, as a view (``numpy``'s rules).

    Parameters
    ----------
    x : array_like
        The array to take windows of.
    window_shape : int or tuple of int
        The size of the window along each axis in ``axis``.
    axis : int or tuple of int, optional
        The axes the windows slide along (all axes by default).
    subok : bool, optional
        Accepted for NumPy's signature; asnumpy has no subclasses.
    writeable : bool, optional
        Whether the view may be written (its elements overlap).

    Returns
    -------
    ndarray
        Of shape ``x.shape`` with each windowed axis shortened to
        ``n - w + 1``, followed by the window's axes.
    """
    func = "lib.stride_tricks.sliding_window_view"
    x = _device_array(x, func)
    window_shape = tuple(np.atleast_1d(np.asarray(window_shape)).tolist()) \
        if np.iterable(window_shape) else (operator.index(window_shape),)
    if any(w < 0 for w in window_shape):
        raise ValueError(f"asnumpy.{func}: `window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(window_shape) != len(axis):
            raise ValueError(f"asnumpy.{func}: Since axis is `None`, must provide window_shape for all "
                             f"dimensions of `x`; got {len(window_shape)} window_shape "
                             f"elements and `x.ndim` is {x.ndim}.")
    else:
        axis = tuple(np.atleast_1d(np.asarray(axis)).tolist()) if np.iterable(axis) \
            else (operator.index(axis),)
        axis = tuple(_layout.normalize_axis(a, x.ndim, func) for a in axis)
        if len(window_shape) != len(axis):
            raise ValueError(f"asnumpy.{func}: Must provide matching length window_shape and axis; got "
                             f"{len(window_shape)} window_shape elements and {len(axis)} "
                             "axes elements.")
    shape = list(x.shape)
    for ax, window in zip(axis, window_shape):
        if shape[ax] < window:
            raise ValueError(f"asnumpy.{func}: window shape cannot be larger than input "
                             "array shape")
        shape[ax] -= window - 1
    strides = x.strides + tuple(x.strides[ax] for ax in axis)
    view = x._view(tuple(shape) + window_shape, strides, x._offset)
    view._writeable = bool(writeable) and x._writeable
    return view
