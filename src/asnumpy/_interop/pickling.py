"""Pickling asnumpy arrays with protocol 5's out-of-band buffers (PEP 574).

``pickle.dumps(a, protocol=5, buffer_callback=...)`` hands the array's
memory to the callback as a :class:`pickle.PickleBuffer` instead of copying
it into the pickle stream.  Dask's distributed protocol, multiprocessing and
other transports send such buffers as separate frames, so an asnumpy array
crosses a process boundary without being copied through an intermediate
NumPy array or bytes object.

- On devices whose memory is host memory (``cpu:N``), the buffer *is* the
  array's device memory (its DLPack view), when the array is C- or
  F-contiguous; other layouts are compacted on the device first.
- On other devices (``cuda:N``) the data is copied to the host once and that
  host copy is the buffer.
- Unpickling places the array on the device it was pickled from, or, in a
  process pinned to one device (a Dask worker under ``AsnumpyWorkerPlugin``, see
  :func:`land_on_current_device`), on the current device.  On a cpu
  device a writeable, aligned buffer is adopted as the array's memory
  (no copy); otherwise it is copied to the device.  As with NumPy, an array
  rebuilt from a read-only out-of-band buffer is read-only.

Protocols below 5 keep ``ndarray.__reduce__`` (a host copy in the stream).
"""

from __future__ import annotations

import pickle

import numpy as np

from .._core.ndarray import ndarray
from .._core.ndarray_members import attach
from .._core.transfer import asarray
from ..runtime.device import Device, get_device

__all__ = ["array_over_bytes", "host_bytes", "host_view", "land_on_current_device",
           "rebuild_from_buffer", "reduce_ex"]

# Whether unpickled arrays land on the current device instead of the one they left:
# a process pinned to one device must not receive arrays on the sender's device number
_LANDING = {"current_device": False}


def land_on_current_device(enabled: bool = True) -> None:
    """Make arrays unpickled in this process land on the current device (or not).

    A process pinned to one device (a Dask worker) receives arrays from
    processes whose device numbers mean other devices; like CuPy arrays on
    dask-cuda's workers, they land on the receiving thread's current device.
    """
    _LANDING["current_device"] = bool(enabled)


def host_view(array: ndarray) -> np.ndarray:
    """A contiguous NumPy array holding ``array``'s data, without a copy where possible.

    On host-memory devices a C- or F-contiguous array is returned as a view of
    its device memory (through DLPack, which waits for pending work); anything
    else is a host copy.
    """
    source = array
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        source = array.copy(order="C")          # compacted on the device
    if source._device.backend.can_alias_host:
        try:
            return _dlpack_host_view(source)
        except BufferError:
            pass                                # the export was refused: copy
    return source._host_copy()


def host_bytes(host: np.ndarray) -> np.ndarray:
    """The bytes of a contiguous host array, in its memory order, as a 1-D uint8 view.

    Buffers of bytes: the buffer protocol has no format for ml_dtypes' types.
    """
    return host.reshape(-1, order="A").view(np.uint8)


def _dlpack_host_view(source: ndarray) -> np.ndarray:
    dtype = source.dtype
    if dtype.kind in "biufc":
        return np.from_dlpack(source)
    # NumPy imports only its own types through DLPack (not ml_dtypes' bfloat16 or
    # float8): export the bits as unsigned integers of the same width, view them back
    return np.from_dlpack(source.view(np.dtype(f"u{dtype.itemsize}"))).view(dtype)


def reduce_ex(self, protocol):
    """``ndarray.__reduce_ex__``: out-of-band buffers from protocol 5 on."""
    if protocol < 5:
        return self.__reduce__()
    host = host_view(self)
    order = "C" if host.flags.c_contiguous else "F"
    data = host_bytes(host)
    if not self.flags.writeable and data.flags.writeable:
        # a device's host copy is writeable: offer its bytes read-only, as NumPy offers a
        # read-only array's (in-band they then travel as bytes and unpickle read-only)
        data = data.view()
        data.flags.writeable = False
    return rebuild_from_buffer, (pickle.PickleBuffer(data), self.shape, self.dtype,
                                 order, self._device.name)


def rebuild_from_buffer(buffer, shape, dtype, order, device_name) -> ndarray:
    """The array pickled by :func:`reduce_ex`, on the device it came from."""
    device = get_device() if _LANDING["current_device"] else Device(device_name)
    return array_over_bytes(buffer, shape, dtype, order, device)


def array_over_bytes(buffer, shape, dtype, order, device, writeable=None) -> ndarray:
    """An asnumpy array on ``device`` with the data of a contiguous host byte buffer.

    On host-memory devices an aligned buffer becomes the array's memory (no
    copy); otherwise it is copied to the device.  ``writeable=None`` lets the
    buffer decide (a read-only buffer gives a read-only array, as NumPy's
    unpickling does); True copies a read-only buffer.
    """
    host = np.frombuffer(buffer, dtype=dtype).reshape(shape, order=order)
    adopt = (device.backend.can_alias_host and host.flags.aligned
             and (host.flags.writeable or not writeable))
    array = asarray(host, device=device, copy=not adopt)
    if writeable is None and not host.flags.writeable:
        array.flags.writeable = False       # a copy too, so every device unpickles alike
    return array


# the ndarray member this module gives (ndarray_members.py attaches it)
NDARRAY_MEMBERS = {"__reduce_ex__": reduce_ex}

attach(__name__, NDARRAY_MEMBERS)
