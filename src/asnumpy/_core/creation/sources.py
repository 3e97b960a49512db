"""Copies, layouts and host sources: copy, ascontiguousarray, asfortranarray,
frombuffer, fromiter."""

from __future__ import annotations

import numpy as np

from ... import _dtypes
from .. import _launch, transfer
from ..ndarray import ndarray
from ._allocation import _input_array, _named_errors, _order_letter, _target_device

__all__ = ["ascontiguousarray", "asfortranarray", "copy", "frombuffer", "fromiter"]


# -- copies and layouts -------------------------------------------------------

def copy(a, order="K", subok=False, *, device=None):
    """Return an array copy of the given object.

    Parameters
    ----------
    a : array_like
        An asnumpy array, or a host array-like (transferred).
    order : {'C', 'F', 'A', 'K'}, optional
        Memory layout of the copy: 'K' (default) follows ``a``'s as closely
        as possible.
    subok : bool, optional
        Accepted for NumPy compatibility (asnumpy has no array subclasses).
    device : str or Device, optional
        Where the copy lives (default: ``a``'s device, the current device for
        host input).

    Returns
    -------
    ndarray
        A new array with ``a``'s values.
    """
    func = "copy"
    order = _order_letter(order, func, "K")
    if not isinstance(a, ndarray):
        with _named_errors(func):
            host = transfer.host_array(a, None, func)
        return transfer.from_host(host, _target_device(device), None, func, order=order)
    source = _input_array(a, device, func)
    out = _launch.empty(source.shape, source.dtype, source.device, order, like=source, func=func)
    _launch.launch("copy", out, source, func=func)
    return out


def _satisfies(array, order) -> bool:
    flags = array.flags
    return flags.c_contiguous if order == "C" else flags.f_contiguous


def _contiguous(a, dtype, order, device, func) -> ndarray:
    """``a`` with at least one dimension, contiguous in ``order``; copied only if needed."""
    dtype = None if dtype is None else _dtypes.to_dtype(dtype, func)
    if not isinstance(a, ndarray):
        with _named_errors(func):
            host = transfer.host_array(a, dtype, func)
        host = host.reshape(1) if host.ndim == 0 else host
        return transfer.from_host(host, _target_device(device), None, func, order=order)
    source = _input_array(a, device, func)
    if source.ndim == 0:
        source = source._view((1,), (source.itemsize,), source._offset)
    dtype = source.dtype if dtype is None else dtype
    if dtype == source.dtype and _satisfies(source, order):
        return source
    out = _launch.empty(source.shape, dtype, source.device, order, func=func)
    _launch.launch("copy", out, source, func=func)
    return out


_CONTIGUOUS_DOC = """{summary}

    Parameters
    ----------
    a : array_like
        An asnumpy array or a host array-like (transferred).
    dtype : data-type, optional
        Numeric dtype of the result (default ``a``'s).
    like : array_like, optional
        Accepted for NumPy compatibility.
    device : str or Device, optional
        Where the result lives (default: ``a``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        ``a`` itself when it is already {layout} with that dtype and
        on that device (a 0-d array becomes a 1-element view), else a copy.
    """


def _contiguous_function(name, order, summary, layout):
    def converter(a, dtype=None, *, like=None, device=None):
        return _contiguous(a, dtype, order, device, name)
    converter.__name__ = converter.__qualname__ = name
    converter.__doc__ = _CONTIGUOUS_DOC.format(summary=summary, layout=layout)
    return converter


ascontiguousarray = _contiguous_function(
    "ascontiguousarray", "C", "Return a contiguous array (ndim >= 1) in memory (C order).",
    "C-contiguous")
asfortranarray = _contiguous_function(
    "asfortranarray", "F", "Return an array (ndim >= 1) laid out in Fortran order in memory.",
    "Fortran-contiguous")


# -- from host objects --------------------------------------------------------

def _from_host_source(make_host, dtype, device, func) -> ndarray:
    """Run a NumPy reader on the host, then transfer its result to ``device``."""
    _dtypes.to_dtype(dtype, func)  # numeric dtypes only (any byte order)
    with _named_errors(func):
        host = make_host(np.dtype(dtype))
    return transfer.from_host(host, device, None, func)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None, device=None):
    """Interpret a host buffer as a 1-D array and copy it to the device.

    Parameters
    ----------
    buffer : buffer_like
        An object exposing the buffer interface (bytes, bytearray, memoryview ...).
    dtype : data-type, optional
        Numeric dtype of the data in the buffer (default float64); a
        non-native byte order is read correctly and stored natively.
    count : int, optional
        Number of items to read; -1 (default) reads the whole buffer.
    offset : int, optional
        Start reading from this byte offset (default 0).
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.

    Returns
    -------
    ndarray
        A new (writeable) array holding a copy of the buffer's data.
    """
    return _from_host_source(lambda dt: np.frombuffer(buffer, dt, count, offset),
                             dtype, _target_device(device, like), "frombuffer")


def fromiter(iter, dtype, count=-1, *, like=None, device=None):
    """Create a 1-D array from an iterable object, then copy it to the device.

    Parameters
    ----------
    iter : iterable
        An iterable of numbers.
    dtype : data-type
        Numeric dtype of the result.
    count : int, optional
        Number of items to read; -1 (default) reads all of them.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.

    Returns
    -------
    ndarray
        A new 1-D array.
    """
    return _from_host_source(lambda dt: np.fromiter(iter, dt, count), dtype,
                             _target_device(device, like), "fromiter")
