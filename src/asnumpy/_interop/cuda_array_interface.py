"""The CUDA array interface (version 3) on cuda arrays, and CUDA stream handshakes.

``a.__cuda_array_interface__`` describes a cuda array for Numba, CuPy,
PyTorch ...: ``shape``, ``typestr``, ``descr``, ``data`` ``(pointer,
read_only)``, ``strides`` (None when C-contiguous), ``version`` 3 and
``stream``: the handle of the array's current stream, where its pending work
is queued (1 for the legacy default stream), for the consumer to wait on.
Arrays on other devices have no such attribute (``hasattr`` is False).

:func:`alias_interface` aliases an object exposing the interface as a cuda
array (keeping the object alive) after making the current stream wait for
the producer's; ``asarray`` and ``from_dlpack`` accept such objects through
it.  The interface does not say which GPU holds the pointer: the array
lands on the ``device`` asked for, else the current device when it is a cuda
device, else ``cuda:0``.

The DLPack stream values (:func:`stream_waits_for`) share the machinery:
the driver wraps a foreign ``cudaStream_t`` (``external_stream``) and
orders it after one of ours with an event.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._core._layout import contiguous_view_strides, memory_extent
from .._core.ndarray import ndarray
from .._core.transfer import to_device
from ..runtime.device import Device, get_device
from ..runtime.memory import Buffer
from ..runtime.stream import get_current_stream

__all__ = ["interface", "alias_interface", "from_interface", "alias_device_memory",
           "stream_value", "stream_waits_for"]

LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM = 1, 2


def stream_value(stream) -> int:
    """The integer that names an asnumpy cuda stream to other libraries."""
    handle = stream.device.backend.driver.stream_handle(stream._native)
    return handle or LEGACY_DEFAULT_STREAM       # the NULL stream is the legacy default


def _check_stream_value(value, func) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"asnumpy.{func}: a CUDA stream must be an integer or None, got "
                        f"{value!r}")
    if value == 0:
        raise ValueError(f"asnumpy.{func}: stream 0 is ambiguous (legacy default, "
                         "per-thread default or none); pass 1, 2 or a stream handle")


def _queue_wait(device, waiter, producer) -> None:
    """Queue on driver stream ``waiter`` a wait for driver stream ``producer``'s work so far."""
    driver = device.backend.driver
    driver.make_current(device.index)    # any thread may hand arrays over
    event = driver.create_event(device.index)
    driver.record(event, producer)
    driver.wait(waiter, event)


def _order_after(device, waiting: int, producer_stream) -> None:
    """Queue on the foreign stream ``waiting`` a wait for ``producer_stream``'s work so far."""
    if waiting == stream_value(producer_stream):
        return                           # one stream: already in order
    driver = device.backend.driver
    _queue_wait(device, driver.external_stream(device.index, waiting), producer_stream._native)


def stream_waits_for(device, stream, func) -> None:
    """The DLPack producer's handshake: the consumer's ``stream`` waits for our current one.

    None means the legacy default stream; -1 means the consumer synchronises itself.
    """
    if stream == -1:
        return
    stream = LEGACY_DEFAULT_STREAM if stream is None else stream
    _check_stream_value(stream, func)
    _order_after(device, stream, get_current_stream(device))


def _wait_for_foreign(device, value, func) -> None:
    """The consumer's handshake: our current stream waits for the foreign stream ``value``."""
    if value is None:
        return                           # the producer says no synchronisation is needed
    _check_stream_value(value, func)
    ours = get_current_stream(device)
    if value == stream_value(ours):
        return
    _queue_wait(device, ours._native, device.backend.driver.external_stream(device.index, value))


def interface(self) -> dict:
    """The CUDA array interface (version 3) of a cuda array."""
    device = self._device
    if device.kind != "cuda":
        raise AttributeError(f"asnumpy.ndarray on {device} has no __cuda_array_interface__ "
                             "(only cuda arrays have one)")
    pointer = device.backend.pointer(self) if self.size else 0
    return {
        "shape": self._shape,
        "typestr": self._dtype.str,
        "descr": [("", self._dtype.str)],
        "data": (pointer, not self._writeable),
        "strides": None if self.flags.c_contiguous else self._strides,
        "version": 3,
        "stream": stream_value(get_current_stream(device)),
    }


def alias_device_memory(device, address, low, high, shape, dtype, strides, owner,
                        readonly) -> ndarray:
    """A cuda array over foreign device memory ``[address + low, address + high)``.

    ``address`` is the first element's; ``owner`` is kept alive with the array.
    """
    if 0 in shape:                       # no memory to share (the pointer may be NULL)
        out = ndarray(shape, dtype, device=device)
    else:
        handle = device.backend.driver.foreign_memory(device.index, address + low, high - low,
                                                      owner)
        out = ndarray._from_buffer(Buffer(handle, high - low, device), shape, dtype,
                                   strides, -low, device)
    out._writeable = not readonly
    return out


def _read_interface(obj, func):
    """shape, dtype, byte strides, pointer, read-only and stream of ``obj``'s interface."""
    name = type(obj).__qualname__
    try:
        spec = obj.__cuda_array_interface__
        shape = tuple(int(n) for n in spec["shape"])
        dtype = np.dtype(spec["typestr"])
        pointer, readonly = spec["data"]
        strides = spec.get("strides")
        mask = spec.get("mask")
        version = int(spec.get("version", 0))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise TypeError(f"asnumpy.{func}: the __cuda_array_interface__ of a {name} object "
                        f"cannot be read: {exc!r}") from None
    if mask is not None:
        raise BufferError(f"asnumpy.{func}: a {name} with a mask in its "
                          "__cuda_array_interface__ cannot be exchanged")
    dtype = _dtypes.to_dtype(dtype, func)         # TypeError naming a non-numeric dtype
    if strides is None:
        strides = contiguous_view_strides(shape, dtype.itemsize)
    stream = spec.get("stream") if version >= 3 else None
    return shape, dtype, tuple(int(s) for s in strides), int(pointer or 0), bool(readonly), \
        stream


def _cuda_device(device) -> Device:
    """Where aliased interface memory lives: ``device`` if it is a cuda device, else the
    current device if that is one, else cuda:0."""
    if device is not None and device.kind == "cuda":
        return device
    current = get_device()
    return current if current.kind == "cuda" else Device("cuda:0")


def alias_interface(obj, device, func) -> ndarray:
    """A cuda array over the memory of ``obj``'s ``__cuda_array_interface__`` (no copy).

    It lives on ``device`` when that is a cuda device, else on the current cuda
    device or cuda:0, and keeps ``obj`` alive.  The current stream of that
    device first waits for the interface's ``stream``.
    """
    shape, dtype, strides, pointer, readonly, stream = _read_interface(obj, func)
    source = _cuda_device(device)
    _wait_for_foreign(source, stream, func)
    low, high = memory_extent(shape, strides, dtype.itemsize)
    return alias_device_memory(source, pointer, low, high, shape, dtype, strides, obj, readonly)


def from_interface(obj, device, copy, func) -> ndarray:
    """``from_dlpack``'s rules for an object exposing ``__cuda_array_interface__``.

    The memory is aliased on a cuda device (:func:`alias_interface`); another
    ``device`` gets a copy (BufferError when ``copy=False``); ``copy=True``
    copies on the device.
    """
    out = alias_interface(obj, device, func)
    if device is not None and device is not out.device:
        if copy is False:
            raise BufferError(f"asnumpy.{func}: the data is CUDA memory on {out.device}; "
                              f"{device} needs a copy, and copy=False")
        return to_device(out, device, func=func)
    return out.copy() if copy else out
