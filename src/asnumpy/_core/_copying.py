"""Copies between host and device memory: the machinery under transfers and ``ndarray``.

:func:`from_host`, :func:`to_host` and :func:`to_device` (with the host-side
helpers) serve ``asarray``, ``array`` and ``asnumpy`` in :mod:`.transfer` and
``ndarray.get``/``to``/``from_numpy`` alike.  The module sits below
``ndarray.py``: it makes arrays through ``_launch.empty`` and knows them by
their ``__asnumpy_device__``, so ``ndarray`` imports it and not the other way.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from .. import _dtypes
from ..runtime.device import Device
from ._launch import devices_differ, empty, resolve_stream
from ._pending import launch_pending, transfer_stream

if TYPE_CHECKING:      # annotations only (.importlinter leaves these imports out)
    from .ndarray import ndarray

__all__ = ["ASYNC", "copy_host_into", "from_host", "host_array", "host_value", "sequence_device",
           "to_device", "to_host"]

ASYNC = "async"     # stream= value: copy on the device's transfer stream and return at once


class _Sequences(threading.local):
    converting = 0          # host_value is converting a list or tuple on this thread


SEQUENCES = _Sequences()
"""While ``converting``, ``ndarray.__array__`` refuses even on cpu (_interop/host_conversion):
asnumpy arrays inside a sequence are fetched by :func:`host_value`, which learns their
devices (the mixing rule), instead of being read by NumPy as host views."""


def host_value(obj, dtype=None, devices=None) -> np.ndarray:
    """``obj`` as a NumPy array of any dtype; asnumpy arrays inside sequences are fetched.

    ``devices``, a set, collects the devices of the asnumpy arrays fetched.
    """
    if not isinstance(obj, (list, tuple)):
        return np.asarray(obj, dtype=dtype)
    SEQUENCES.converting += 1
    try:
        return np.asarray(obj, dtype=dtype)
    except TypeError:
        pass
    finally:
        SEQUENCES.converting -= 1
    return np.asarray(_fetch_nested(obj, set() if devices is None else devices), dtype=dtype)


def host_array(obj, dtype, func, devices=None) -> np.ndarray:
    """``obj`` as a numeric NumPy array in native byte order; TypeError naming ``func`` if not."""
    host = obj if dtype is None and type(obj) is np.ndarray else host_value(obj, dtype, devices)
    checked = _dtypes.to_dtype(host.dtype, func)
    return host if checked == host.dtype else host.astype(checked)


def _fetch_nested(item, devices):
    device = getattr(item, "__asnumpy_device__", None)     # an asnumpy array
    if device is not None:
        devices.add(device)
        return item.get()
    if isinstance(item, (list, tuple)):
        return [_fetch_nested(x, devices) for x in item]
    return item


def sequence_device(devices, device, func):
    """The device a sequence holding asnumpy arrays of ``devices`` becomes an array on.

    The mixing rule: the arrays' device (the one asked for must be it), and
    arrays of two devices raise ValueError naming both.
    """
    wanted = device if device is not None else next(iter(devices))
    for other in devices:
        if other is not wanted:
            raise devices_differ(func, wanted, other)
    return wanted


def copy_host_into(dst: ndarray, host: np.ndarray, stream, func) -> None:
    """Queue a copy of ``host`` (broadcast and cast) into the device array ``dst``."""
    device = dst._device
    resolve_stream(device, stream, func).launch(device.backend.copy_from_host, dst, host)


def from_host(host: np.ndarray, device: Device, stream, func, order="K", dtype=None) -> ndarray:
    """A new array on ``device`` holding a copy of the NumPy array ``host``."""
    dtype = _dtypes.to_dtype(host.dtype if dtype is None else dtype, func)
    like = host
    if order == "K" and host.flags.c_contiguous:
        order, like = "C", None          # the common case, without layout matching
    background = stream == ASYNC       # "async": queued on the transfer stream; see _pending
    stream = transfer_stream(device) if background else resolve_stream(device, stream, func)
    out = empty(host.shape, dtype, device, order, like=like, stream=stream, func=func)
    if background:
        return launch_pending(stream, out, device.backend.copy_from_host, host)
    stream.launch(device.backend.copy_from_host, out, host)
    return out


def _host_destination(array: ndarray, out, func) -> np.ndarray:
    """``out`` checked against ``array``, or a new host array in its layout.

    New host arrays come from the back end's ``host_empty`` (large ones from
    its host memory pool, already faulted in).
    """
    if out is None:
        flags = array.flags
        use_f = not flags.c_contiguous and flags.f_contiguous
        return array._device.backend.host_empty(array.shape, array.dtype, "F" if use_f else "C")
    _check_host_out(out, array.shape, array.dtype, func)
    return out


def _check_host_out(out, shape, dtype, func) -> None:
    """Raise unless ``out`` is a writeable NumPy array of ``shape`` (and ``dtype`` if given)."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"asnumpy.{func}: out must be a numpy.ndarray, got {type(out).__name__}")
    if out.shape != shape or (dtype is not None and out.dtype != dtype):
        wanted = f"shape {shape}" + ("" if dtype is None else f" and dtype {dtype}")
        raise ValueError(
            f"asnumpy.{func}: out has shape {out.shape} and dtype {out.dtype}, but {wanted} "
            "is required"
        )
    if not out.flags.writeable:
        raise ValueError(f"asnumpy.{func}: out is read-only")


def to_host(array: ndarray, out=None, stream=None, func="asnumpy") -> np.ndarray:
    """Queue a copy of ``array`` to the host; returns the (possibly pending) NumPy array."""
    out = _host_destination(array, out, func)
    device = array._device
    resolve_stream(device, stream, func).launch(device.backend.copy_to_host, out, array)
    return out


def to_device(array: ndarray, device: Device, stream=None, func="to", dtype=None,
              order="K") -> ndarray:
    """``array`` on ``device``: itself if already there, else a copy in ``order``, on a stream."""
    if array._device is device and (dtype is None or dtype == array.dtype):
        return array
    dtype = array.dtype if dtype is None else dtype
    source = array._device
    if source.backend is device.backend:
        out = empty(array.shape, dtype, device, order, like=array, stream=None, func=func)
        resolve_stream(source, stream, func).launch(device.backend.copy_peer, out, array)
        return out
    # Different back ends: stage through the host, in order on one stream.
    host = to_host(array, stream=stream, func=func)
    resolve_stream(source, stream, func).synchronize()
    return from_host(host, device, None, func, order=order, dtype=dtype)
