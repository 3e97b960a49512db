"""Moving data between the host and devices, and between devices.

One machinery serves ``asarray``, ``array``, ``asnumpy``, ``from_numpy``,
``to_numpy``, ``get`` and ``to``: :func:`from_host`, :func:`to_host` and
:func:`to_device`.  Each copy is queued on a stream: the given one, else the
current stream of the device involved (the default stream runs it at once).
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _dtypes
from ..runtime.device import Device, get_device
from ..runtime.graph import check_host_read
from ..runtime.memory import Buffer
from ..runtime.observer import queue_work
from ..runtime.stream import Event
# the copies themselves, below ndarray.py (which uses them too); re-exported here
from ._host_device_copies import (  # noqa: F401
    ASYNC, _check_host_out, _host_destination, copy_host_into, from_host, host_array, host_value,
    sequence_device, to_device, to_host,
)
from ._launch import empty, resolve_stream
from . import _layout
from .ndarray import ndarray

__all__ = ["asarray", "array", "asnumpy", "from_host", "to_host", "to_device", "TransferHandle"]

_NO_COPY_HINT = "Unable to avoid copy while creating an array as requested"
# Objects whose device memory asarray aliases instead of reading through NumPy: attribute
# -> alias(obj, device or None, func) -> ndarray on the memory's device.  The interop
# package registers "__cuda_array_interface__".
DEVICE_MEMORY_IMPORTERS: dict = {}


def _alias_host(host: np.ndarray, device: Device, func) -> ndarray:
    """An asnumpy array over the memory of ``host`` (no copy; cpu back ends)."""
    _dtypes.to_dtype(host.dtype, func)        # TypeError for non-numeric data, on any device
    if not device.backend.can_alias_host:
        raise ValueError(f"asnumpy.{func}: {_NO_COPY_HINT}: {device} memory cannot alias host memory")
    problem = None
    if not host.dtype.isnative:
        problem = f"dtype {host.dtype} is not in native byte order"
    elif not host.flags.aligned:
        problem = "the array is not aligned"
    if problem:
        raise ValueError(f"asnumpy.{func}: {_NO_COPY_HINT} (copy=False): {problem}")
    low, high = _layout.memory_extent(host.shape, host.strides, host.itemsize)
    handle = device.backend.alias_host(host, low, high)
    buffer = Buffer(handle, high - low, device)
    alias = ndarray._from_buffer(buffer, host.shape, host.dtype, host.strides, -low, device, host)
    alias._writeable = bool(host.flags.writeable)
    return alias


def _check_copy(copy, func):
    if copy not in (None, True, False):
        raise ValueError(f"asnumpy.{func}: copy must be True, False or None, got {copy!r}")


def asarray(obj, dtype=None, order=None, *, device=None, copy=None, stream=None) -> ndarray:
    """Convert ``obj`` to an asnumpy array on ``device``.

    Parameters
    ----------
    obj : array_like
        A NumPy array, scalar, nested sequence, object with ``__array__`` or
        the buffer protocol, or an asnumpy array (copied if on another device).
    dtype : data-type, optional
        Numeric dtype of the result; inferred from ``obj`` by default.
    order : {'C', 'F', 'A', 'K'}, optional
        Memory layout of a copy.
    device : str or Device, optional
        Target device: an asnumpy array's own device, else the current device.
    copy : bool or None, optional
        True always copies; None copies only when needed; False never copies
        and raises ValueError when that is impossible.  On cpu devices
        ``copy=False`` aliases a suitable NumPy array's memory (writes show
        through in both directions); ``copy=None`` still transfers a NumPy
        array, so that programs behave the same on every device.
    stream : Stream or "async", optional
        Stream to queue the copy on (asynchronous on a user stream).
        ``"async"`` queues the copy of host data on the target device's
        transfer stream and returns at once; every later use of the array
        (on any stream, or on the host) waits for the copy to finish.  As
        with CUDA's asynchronous copies, a NumPy source must not be
        modified until then.  An asnumpy array is copied as with None.

    Returns
    -------
    ndarray
    """
    _check_copy(copy, "asarray")
    order = _layout.check_order(order, "asarray")
    dtype = None if dtype is None else _dtypes.to_dtype(dtype, "asarray")
    if isinstance(obj, ndarray):
        stream = None if stream == ASYNC else stream
        return _from_device_array(obj, dtype, order, device, copy, stream, "asarray")
    if type(obj) is not np.ndarray:
        stands_for = getattr(type(obj), "__asnumpy_array__", None)
        if stands_for is not None:      # a value asnumpy.jit traces: the array it stands for
            return asarray(stands_for(obj), dtype, order, device=device, copy=copy,
                           stream=stream)
        for attribute, alias in DEVICE_MEMORY_IMPORTERS.items():
            if hasattr(obj, attribute):      # another library's device memory, aliased
                stream = None if stream == ASYNC else stream
                alias = alias(obj, None if device is None else Device(device), "asarray")
                return _from_device_array(alias, dtype, order, device, copy, stream, "asarray")
    device = None if device is None else Device(device)
    if copy is False:
        device = get_device() if device is None else device
        return _alias_host(_host_without_copy(obj, dtype, order), device, "asarray")
    nested = set()
    host = host_array(obj, dtype, "asarray", nested)
    if nested:                  # a sequence holding asnumpy arrays: on their device
        device = sequence_device(nested, device, "asarray")
    device = get_device() if device is None else device
    return from_host(host, device, stream, "asarray", order)


def _host_without_copy(obj, dtype, order) -> np.ndarray:
    """``obj`` as a NumPy array that shares its memory; ValueError when that needs a copy."""
    _layout.check_order(order, "asarray")
    if isinstance(obj, (list, tuple)):
        raise ValueError(f"asnumpy.asarray: {_NO_COPY_HINT} (copy=False): a {type(obj).__name__} "
                         "has no array memory to share")
    try:
        return np.asarray(obj, dtype=dtype, order=order, copy=False)
    except ValueError:
        raise ValueError(
            f"asnumpy.asarray: {_NO_COPY_HINT} (copy=False): the {type(obj).__name__} cannot "
            f"be viewed with dtype={dtype} and order={order!r}"
        ) from None


def _from_device_array(obj, dtype, order, device, copy, stream, func):
    device = obj._device if device is None else Device(device)
    dtype = obj.dtype if dtype is None else dtype
    moves = device is not obj._device
    needs_copy = moves or dtype != obj.dtype or not _layout_satisfies(obj, order)
    if copy is False and needs_copy:
        reason = f"the array is on {obj._device}, not {device}" if moves else "dtype or order differs"
        raise ValueError(f"asnumpy.{func}: {_NO_COPY_HINT} (copy=False): {reason}")
    if not needs_copy and not copy:
        return obj
    if moves:
        # One copy, in the requested layout, on one stream: a second copy
        # launched elsewhere could run before this one has finished.
        return to_device(obj, device, stream, func, dtype, order)
    out = empty(obj.shape, dtype, device, order, like=obj, stream=stream, func=func)
    from ._launch import launch

    launch("copy", out, obj, stream=stream, func=func)
    return out


def _layout_satisfies(array, order) -> bool:
    flags = array.flags
    if order == "C":
        return flags.c_contiguous
    if order == "F":
        return flags.f_contiguous
    return True


def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, device=None) -> ndarray:
    """Create an asnumpy array, copying by default (as ``numpy.array``).

    Parameters
    ----------
    obj : array_like
        Anything :func:`asarray` accepts.
    dtype : data-type, optional
        Numeric dtype of the result.
    copy : bool or None, optional
        True (default) always copies; None copies when needed; False never.
    order : {'K', 'A', 'C', 'F'}, optional
        Memory layout of the result.
    ndmin : int, optional
        Minimum number of dimensions; ones are prepended to the shape.
    device : str or Device, optional
        Target device.

    Returns
    -------
    ndarray
    """
    _check_copy(copy, "array")
    order = _layout.check_order(order, "array")
    result = asarray(obj, dtype, order, device=device, copy=copy)
    ndmin = operator.index(ndmin)
    if ndmin > _layout.MAX_NDIM:
        raise ValueError(f"asnumpy.array: ndmin must be <= ndmax ({_layout.MAX_NDIM})")
    if ndmin > result.ndim:
        result = _prepend_ones(result, ndmin, order)
    return result


def _prepend_ones(array: ndarray, ndmin: int, order) -> ndarray:
    """A view of ``array`` with axes of length 1 prepended up to ``ndmin`` (NumPy's strides)."""
    flags = array.flags
    if order == "F" or (flags.f_contiguous and not flags.c_contiguous) or array.ndim == 0:
        stride = array.itemsize
    else:
        stride = array.strides[0] * array.shape[0]
    extra = ndmin - array.ndim
    return array._view((1,) * extra + array.shape, (stride,) * extra + array.strides, array._offset)


class TransferHandle:
    """A device-to-host copy in flight, returned by ``asnumpy(..., wait=False)``.

    ``wait()`` blocks until the copy has finished and returns the NumPy
    array, raising the copy's error if it failed; ``done()`` polls.
    """

    def __init__(self, host: np.ndarray):
        self._host = host
        self._event = Event()
        self._error = None

    def done(self) -> bool:
        """True once the copy has completed."""
        return self._event.query()

    def wait(self) -> np.ndarray:
        """Block until the copy has finished; return the NumPy array."""
        self._event.synchronize()
        if self._error is not None:
            raise self._error
        return self._host

    def __repr__(self):
        state = "done" if self.done() else "pending"
        return f"<asnumpy.TransferHandle {state} shape={self._host.shape} dtype={self._host.dtype}>"


def _queue_to_host(array: ndarray, out: np.ndarray, stream) -> TransferHandle:
    handle = TransferHandle(out)
    copy_to_host = array._device.backend.copy_to_host

    def copy():
        try:
            copy_to_host(out, array)
        except BaseException as exc:
            handle._error = exc
            raise

    queue_work(stream, "asnumpy", "dtoh", copy, reads=(array,), writes=(out,))
    handle._event.record(stream)
    return handle


def asnumpy(a, *, stream=None, out=None, wait=True, order="C"):
    """Copy ``a`` to the host as a NumPy array.

    Parameters
    ----------
    a : ndarray or array_like
        An asnumpy array (copied from its device) or anything NumPy accepts.
    stream : Stream, optional
        The stream to queue the copy on (the array device's current stream).
    out : numpy.ndarray, optional
        Destination of the same shape and dtype.
    wait : bool, optional
        True (default) returns the NumPy array once the copy is complete.
        False returns a :class:`TransferHandle` at once; its ``wait()``
        returns the array.
    order : {'C', 'F', 'A', 'K'}, optional
        Layout of a host array made from a non-asnumpy ``a``.

    Returns
    -------
    numpy.ndarray or TransferHandle
    """
    if not isinstance(a, ndarray):
        host = np.asarray(host_value(a), order=order)
        if out is not None:
            _check_host_out(out, host.shape, None, "asnumpy")
            np.copyto(out, host)
            host = out
        if wait:
            return host
        return TransferHandle(host)
    stream = resolve_stream(a._device, stream, "asnumpy")
    if wait and stream.is_default:
        # The default stream copies at once: no handle or event is needed.
        return to_host(a, out, stream, "asnumpy")
    check_host_read("asnumpy", a, stream)
    handle = _queue_to_host(a, _host_destination(a, out, "asnumpy"), stream)
    return handle.wait() if wait else handle
