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
from .._errors import check_writeable
from ..runtime.device import Device
from ..runtime.graph import check_host_copy, check_host_read
from ..runtime.observer import queue_work
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
    if host.dtype.kind in "OUS" and dtype is None and not isinstance(obj, np.ndarray):
        # what NumPy makes of None, sets, generators, strings, big ints ...: say which it was
        raise TypeError(f"asnumpy.{func}: cannot make an array of {_described(obj)}; "
                        f"{_ACCEPTED}")
    checked = _dtypes.to_dtype(host.dtype, func)
    return host if checked == host.dtype else host.astype(checked)


_ACCEPTED = ("asnumpy arrays hold numbers (bool, integer, float, complex): pass a number, a "
             "(nested) list or tuple of numbers, or a numeric array")


def _described(obj) -> str:
    """What ``obj`` (which NumPy makes a non-numeric array of) is, and how to pass it."""
    if obj is None:
        return "None"
    kind = type(obj)
    if isinstance(obj, (set, frozenset)):
        return f"a {kind.__name__} (it has no order: pass sorted(s) or list(s))"
    if kind.__module__.startswith("scipy.sparse"):
        return f"a SciPy sparse {kind.__name__} (make it dense first: m.toarray())"
    if isinstance(obj, (str, bytes)):
        return f"the {'bytes' if isinstance(obj, bytes) else 'string'} {obj[:40]!r}"
    if isinstance(obj, int):
        return f"the integer {obj}, which neither int64 nor uint64 holds (float(x) is a float64)"
    if isinstance(obj, np.ndarray):
        return f"a NumPy array of dtype {obj.dtype}"
    if isinstance(obj, (list, tuple)):
        item = _first_non_number(obj)
        return f"a {kind.__name__}" + ("" if item is _NONE else f" holding {_described(item)}")
    if hasattr(obj, "__next__") or hasattr(obj, "__iter__") and not hasattr(obj, "__len__"):
        return (f"a {kind.__name__} (an iterator: pass list(it), or "
                "asnumpy.fromiter(it, dtype) for a 1-d array of numbers)")
    if kind.__module__ == "builtins":
        return f"{'an' if kind.__name__[0] in 'aeiou' else 'a'} {kind.__name__}"
    return f"an object of type {kind.__module__}.{kind.__qualname__}"


_NONE = object()        # _first_non_number found none
_NUMBERS = (float, complex, np.number, np.bool_)


def _first_non_number(sequence):
    """The first leaf of a nested list/tuple that is no number asnumpy holds (or _NONE)."""
    for item in sequence:
        if isinstance(item, (list, tuple)):
            found = _first_non_number(item)
            if found is not _NONE:
                return found
        elif isinstance(item, int) and not isinstance(item, np.generic):
            if not -2**63 <= item < 2**64:
                return item
        elif isinstance(item, np.ndarray):
            if item.dtype.kind not in "biufc":
                return item
        elif not isinstance(item, _NUMBERS) and not hasattr(item, "__asnumpy_device__"):
            return item
    return _NONE


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
    stream = resolve_stream(device, stream, func)
    check_host_copy(func, stream)
    queue_work(stream, func, "htod", device.backend.copy_from_host, dst, host)


def from_host(host: np.ndarray, device: Device, stream, func, order="K", dtype=None) -> ndarray:
    """A new array on ``device`` holding a copy of the NumPy array ``host``."""
    dtype = _dtypes.to_dtype(host.dtype if dtype is None else dtype, func)
    like = host
    if order == "K" and host.flags.c_contiguous:
        order, like = "C", None          # the common case, without layout matching
    background = stream == ASYNC       # "async": queued on the transfer stream; see _pending
    stream = transfer_stream(device) if background else resolve_stream(device, stream, func)
    check_host_copy(func, stream)
    out = empty(host.shape, dtype, device, order, like=like, stream=stream, func=func)
    if background:
        return launch_pending(stream, out, device.backend.copy_from_host, host, name=func)
    queue_work(stream, func, "htod", device.backend.copy_from_host, out, host)
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
    check_writeable(out, func)


def to_host(array: ndarray, out=None, stream=None, func="asnumpy") -> np.ndarray:
    """Queue a copy of ``array`` to the host; returns the (possibly pending) NumPy array."""
    device = array._device
    stream = resolve_stream(device, stream, func)
    check_host_read(func, array, stream)    # (nothing to check unless a graph capture is open)
    out = _host_destination(array, out, func)
    queue_work(stream, func, "dtoh", device.backend.copy_to_host, out, array)
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
        queue_work(resolve_stream(source, stream, func), func, "dtod",
                   device.backend.copy_peer, out, array)
        return out
    # Different back ends: stage through the host, in order on one stream.
    host = to_host(array, stream=stream, func=func)
    resolve_stream(source, stream, func).synchronize()
    return from_host(host, device, None, func, order=order, dtype=dtype)
