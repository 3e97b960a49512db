"""``asnumpy.memmap``: an array over a file mapped into memory (``numpy.memmap``).

On devices whose memory is host memory (cpu) the array *is* the mapping:
no copy, writes go to the mapped pages, ``flush()`` writes them to the file.
On other devices (cuda, npu) the file is mapped on the host and copied to
the device once; ``flush()`` copies the device data back into the mapping
and flushes it.  In mode 'r' the array is read-only; in mode 'c' writes
never reach the file (NumPy's copy-on-write).  Results of operations are
plain ndarrays, as NumPy's ufunc results are.
"""

from __future__ import annotations

import numpy as np

from ..runtime.device import Device, get_device
from ..runtime.stream import get_current_stream
from .ndarray import ndarray
from .transfer import asarray, to_host

__all__ = ["memmap"]


class memmap(ndarray):
    """An asnumpy array backed by a memory-mapped file.

    Parameters
    ----------
    filename, dtype, mode, offset, shape, order
        As in ``numpy.memmap`` (dtype must be numeric).
    device : str or Device, optional
        The device the array lives on (the current one).

    Attributes
    ----------
    filename, offset, mode
        As in ``numpy.memmap``.
    """

    __slots__ = ("_map", "_aliased", "filename", "offset", "mode")
    __module__ = "asnumpy"

    def __new__(cls, filename, dtype=np.uint8, mode="r+", offset=0, shape=None, order="C", *,
                device=None):
        mapped = np.memmap(filename, dtype, mode, offset, shape, order)
        device = get_device() if device is None else Device(device)
        source = None
        if device.backend.can_alias_host:
            try:
                source = asarray(mapped, device=device, copy=False)
            except ValueError:          # not aliasable (e.g. a misaligned offset): copy
                source = None
        if source is None:
            source = asarray(mapped, device=device)
        self = object.__new__(cls)
        self._adopt(source._realize(), source.shape, source.dtype, source.strides, source._offset,
                    device, source._base)
        self._writeable = mapped.flags.writeable
        self._map = mapped
        self._aliased = source._base is not None      # an alias keeps its host array as base
        self.filename, self.offset, self.mode = mapped.filename, mapped.offset, mapped.mode
        return self

    def __init__(self, *args, **kwargs):
        pass                            # built by __new__

    def flush(self) -> None:
        """Write changes to the file (copying them from the device first if needed)."""
        if self.mode in ("r", "c"):
            return
        if not self._aliased:
            to_host(self, out=self._map, func="memmap.flush")
            get_current_stream(self._device).synchronize()
        self._map.flush()
