"""``asnumpy.memmap``: an array over a file mapped into memory (``numpy.memmap``).

On devices whose memory is host memory (cpu) the array *is* the mapping
when it can be: no copy, writes go to the mapped pages, ``flush()`` writes
them to the file.  Where it cannot (other devices -- cuda, npu --, and on cpu
an offset that leaves the elements unaligned or a non-native byte order,
since asnumpy arrays are aligned and native) the mapping is copied to the
device once, and the copy is written back into the mapping by ``flush()``
and when the last array over it (the memmap or any view) is gone, as
NumPy's mapped writes reach the file.  In mode 'r' the array is read-only;
in mode 'c' writes never reach the file (NumPy's copy-on-write).  Results of
operations are plain ndarrays, as NumPy's ufunc results are.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..runtime.device import Device, get_device
from ..runtime.memory import Buffer
from ..runtime.stream import get_current_stream
from .ndarray import ndarray
from .transfer import asarray, to_host

__all__ = ["memmap"]

_WRITTEN_BACK = ("r+", "w+")              # the modes whose writes reach the file


class _CopyOfMapping(Buffer):
    """The device memory of a memmap that copies its mapping.

    Every array over the copy (the memmap, its views) holds this buffer, so
    its death is the moment the last of them is gone: a ``weakref.finalize``
    then writes the copy back.  The pool block itself (``block``), which this
    buffer only borrows, is held by the buffer (in every mode: in 'r' and 'c'
    nothing else keeps it, and a freed block would be handed to the next
    allocation under the memmap's feet) and by the finalizer, which outlives it.
    """

    __slots__ = ("__weakref__", "block")

    def __init__(self, block):
        super().__init__(block.handle, block.nbytes, block.device)
        self.block = block


def _write_back(block, shape, dtype, strides, offset, device, mapped) -> None:
    """Copy ``block`` (laid out as the memmap) into ``mapped`` and flush it to the file."""
    source = ndarray._from_buffer(block, shape, dtype, strides, offset, device)
    same = mapped.dtype == dtype          # else a byte-swapped file: through a host copy
    host = to_host(source, out=mapped if same else None, func="memmap.flush")
    get_current_stream(device).synchronize()
    if not same:
        mapped[...] = host
    mapped.flush()


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
        aliased = source is not None
        if not aliased:
            source = asarray(mapped, device=device)
        layout = (source.shape, source.dtype, source.strides, source._offset, device)
        buffer = source._realize()
        if not aliased:                 # a copy: written back when its last array is gone
            block, buffer = buffer, _CopyOfMapping(buffer)
            if mapped.mode in _WRITTEN_BACK:
                weakref.finalize(buffer, _write_back, block, *layout, mapped)
        self = ndarray.__new__(cls)      # (ArrayFields': object.__new__ refuses it)
        self._adopt(buffer, *layout[:4], device, source._base)
        self._writeable = mapped.flags.writeable
        self._map = mapped
        self._aliased = aliased
        self.filename, self.offset, self.mode = mapped.filename, mapped.offset, mapped.mode
        return self

    def __init__(self, *args, **kwargs):
        pass                            # built by __new__

    def flush(self) -> None:
        """Write changes to the file (copying them from the device first if needed).

        A copy is also written back when the memmap and all its views are
        gone, so ``flush`` is needed only to see the writes in the file sooner.
        """
        if self.mode not in _WRITTEN_BACK:
            return
        if self._aliased:
            self._map.flush()
        else:
            _write_back(self._buffer, self._shape, self._dtype, self._strides, self._offset,
                        self._device, self._map)
