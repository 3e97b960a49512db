"""The npu back end: Ascend memory through the pool, transfers, aclnn kernels.

Kernels are aclnn operators where the catalog has them (:mod:`.kernels`,
:mod:`.catalog`); every other declared kernel, and every call an operator
cannot take, runs as the shared host fallback
(:mod:`asnumpy.ops.host_fallback`) over :meth:`NpuBackend.move_elements`.

Host <-> device copies go through page-locked staging blocks
(``aclrtMallocHost``: AscendCL's asynchronous copies need them) with
``aclrtMemcpyAsync`` on the current stream.  A copy to the host waits for
that stream (``aclrtSynchronizeStream``) before the data is handed over, so
it is complete on return, on any stream.  Strided views are packed on the
device by ``aclnnInplaceCopy`` first; a layout no tensor describes (negative
strides) moves the bytes it spans.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from ...ops.backend import KernelTable, PreparedUfunc
from ...runtime.stream import Event
from . import acl_api
from .catalog import COPY_DTYPES
from .operators import byte_span, describable
from .streams import (EventOrderedReuse, NpuDefaultStream, NpuStream, acl_stream,
                      current_stream)

__all__ = ["NpuBackend"]


class DeviceBlock:
    """A block of device memory from ``aclrtMalloc`` (the pool's handle)."""

    __slots__ = ("pointer", "nbytes")

    def __init__(self, pointer, nbytes):
        self.pointer, self.nbytes = pointer, nbytes


_EMPTY = DeviceBlock(0, 0)


class NpuAllocator:
    """Device memory for one Ascend device."""

    stream_ordering = EventOrderedReuse

    def __init__(self, runtime, index):
        self.runtime, self.index = runtime, index

    def alloc(self, nbytes: int) -> DeviceBlock:
        """``nbytes`` from aclrtMalloc; MemoryError when the device is full (the pool retries)."""
        return DeviceBlock(self.runtime.alloc(self.index, nbytes), nbytes)

    @staticmethod
    def empty_handle():
        return _EMPTY

    def total_memory(self) -> int:
        return self.runtime.total_memory(self.index)


class _Staging:
    """Page-locked host blocks for copies, each reused once its last copy is done."""

    def __init__(self, runtime):
        self.runtime = runtime
        self._free: list = []            # [(pointer, nbytes, device index, event or None)]
        self._lock = threading.Lock()

    def take(self, nbytes):
        with self._lock:
            for i, (pointer, size, index, event) in enumerate(self._free):
                if size >= nbytes:
                    del self._free[i]
                    if event is not None:
                        self.runtime.event_sync(index, event)
                        self.runtime.destroy_event(index, event)
                    return pointer, size
        size = max(1 << 16, 1 << (max(nbytes, 1) - 1).bit_length())
        return self.runtime.alloc_host(size), size

    def give(self, pointer, size, index, event=None):
        with self._lock:
            self._free.append((pointer, size, index, event))
            if len(self._free) > 8:      # keep a few; the oldest goes back to AscendCL
                old, _, old_index, old_event = self._free.pop(0)
                if old_event is not None:
                    self.runtime.event_sync(old_index, old_event)
                self.runtime.free_host(old)

    def release_all(self):
        with self._lock:
            blocks, self._free = self._free, []
        for pointer, _, index, event in blocks:
            if event is not None:
                self.runtime.event_sync(index, event)
            self.runtime.free_host(pointer)


def _host_view(pointer, nbytes) -> np.ndarray:
    return np.ctypeslib.as_array((ctypes.c_uint8 * max(nbytes, 1)).from_address(pointer))[:nbytes]


class NpuBackend:
    """Everything the runtime needs from npu devices, over an :class:`.runtime.AclRuntime`."""

    kind = "npu"
    can_alias_host = False
    stream_class = NpuStream
    default_stream_class = NpuDefaultStream
    host_pool = None
    cxx = None              # no generated-C++ target: user kernels and fusion refuse npu

    def __init__(self, runtime):
        from .kernels import native_kernels

        self.runtime = runtime
        self.kernels = KernelTable(self, native_kernels(self))
        self.staging = _Staging(runtime)

    # -- devices and memory --------------------------------------------------------------

    def device_count(self) -> int:
        return self.runtime.device_count()

    def make_allocator(self, index: int) -> NpuAllocator:
        return NpuAllocator(self.runtime, index)

    def synchronize_device(self, index: int) -> None:
        self.runtime.synchronize_device(index)

    def release_host_memory(self) -> None:
        self.staging.release_all()

    def info(self) -> dict:
        """CANN's runtime version and the SoC (``python -m asnumpy.check``)."""
        return {"acl_version": self.runtime.version(), "soc": self.runtime.soc_name()}

    def describe(self, index: int) -> tuple[str, dict]:
        """(a line naming device ``index``: SoC and memory, the versions that matter)."""
        info = self.info()
        memory = self.runtime.total_memory(index) / 2**30
        origin = self.runtime.acl.origin
        return (f"{info['soc']}, {memory:.2f} GiB",
                {"AscendCL": info["acl_version"], "CANN": self.runtime.cann_version(),
                 "libraries": origin})

    def pointer(self, array) -> int:
        return self.buffer_pointer(array._realize()) + array._offset

    @staticmethod
    def buffer_pointer(buffer) -> int:
        return buffer.handle.pointer

    @staticmethod
    def acl_dtype(dtype) -> int:
        return acl_api.ACL_DTYPES[np.dtype(dtype)]

    # -- kernels -------------------------------------------------------------------------

    def kernel(self, name: str):
        return self.kernels[name]

    def kernels_fallback(self, name: str):
        return self.kernels.fallback(name)

    def prepare_ufunc(self, name, loop, outs, inputs, where) -> PreparedUfunc:
        ufunc = self.kernels["ufunc"]
        return PreparedUfunc(lambda outs, inputs, where: ufunc(outs, name, loop, inputs, where))

    def compile(self, source, device, *, options=(), where="asnumpy.extension"):
        from ...ops.cxx.errors import CompileError

        raise CompileError(f"{where}: user kernels cannot run on {device}: asnumpy has no "
                           "Ascend C compiler binding; run them on cpu or cuda")

    # -- bytes between host and device ---------------------------------------------------

    def upload_bytes(self, device, pointer: int, data: np.ndarray) -> None:
        """Queue the copy of the contiguous host bytes ``data`` to ``pointer``; returns once
        ``data`` may be reused (it is staged in page-locked memory)."""
        nbytes = data.nbytes
        if not nbytes:
            return
        stream = acl_stream(device)
        staged, size = self.staging.take(nbytes)
        ctypes.memmove(staged, data.ctypes.data, nbytes)
        self.runtime.copy_async(device.index, "htod", pointer, staged, nbytes, stream)
        event = self.runtime.create_event(device.index)
        self.runtime.record(device.index, event, stream)
        self.staging.give(staged, size, device.index, event)

    def download_bytes(self, device, pointer: int, out: np.ndarray) -> None:
        """Copy device bytes at ``pointer`` into the contiguous host array ``out`` (complete
        on return: the current stream is synchronized first)."""
        nbytes = out.nbytes
        if not nbytes:
            return
        stream = acl_stream(device)
        staged, size = self.staging.take(nbytes)
        try:
            self.runtime.copy_async(device.index, "dtoh", staged, pointer, nbytes, stream)
            self.runtime.sync_stream(device.index, stream)
            ctypes.memmove(out.ctypes.data, staged, nbytes)
        finally:
            self.staging.give(staged, size, device.index)

    # -- transfers -----------------------------------------------------------------------

    def _packed(self, array):
        """A new C-contiguous array of ``array``'s shape and dtype on its device."""
        device = array._device
        nbytes = array._dtype.itemsize * int(np.prod(array._shape, dtype=np.int64))
        strides, step = [], array._dtype.itemsize
        for n in reversed(array._shape):
            strides.append(step)
            step *= max(n, 1)
        buffer = device.memory_pool.malloc(nbytes, current_stream(device))
        return type(array)._from_buffer(buffer, array._shape, array._dtype,
                                        tuple(reversed(strides)), 0, device)

    def copy_from_host(self, dst, host: np.ndarray):
        """Queue the copy of ``host`` (broadcast, cast) into ``dst``; an Event after it."""
        device = dst._device
        staged = np.empty(dst._shape, dst._dtype)
        np.copyto(staged, host, casting="unsafe")
        self._write_elements(dst, staged)
        return current_stream(device).record()

    def _write_elements(self, dst, packed: np.ndarray) -> None:
        """Write the C-ordered host ``packed`` into the elements of ``dst``."""
        device = dst._device
        if dst.size == 0:
            return
        low, high = byte_span(dst)
        base = self.buffer_pointer(dst._realize())
        if high - low == dst.nbytes or not _packable(dst):
            # dense in some order (its span is its elements): the span's bytes, laid out
            # on the host; else (rare: a gapped view the operators cannot write) the span
            # read, modified and written back
            span = np.empty(high - low, np.uint8)
            if high - low != dst.nbytes:
                self.download_bytes(device, base + low, span)
            _span_view(dst, span, low)[...] = packed
            self.upload_bytes(device, base + low, span)
        else:                        # gapped: uploaded packed, scattered by aclnnInplaceCopy
            temporary = self._packed(dst)
            self.upload_bytes(device, self.pointer(temporary), packed)
            self.kernels["copy"](dst, temporary)

    def copy_to_host(self, host: np.ndarray, src):
        """Copy ``src`` into ``host``: complete on return (an Event already done)."""
        device = src._device
        if src.size == 0:
            return Event()
        low, high = byte_span(src)
        if high - low == src.nbytes or not _packable(src):
            span = np.empty(high - low, np.uint8)
            self.download_bytes(device, self.buffer_pointer(src._realize()) + low, span)
            packed = _span_view(src, span, low)
        else:                        # gapped: packed on the device first
            temporary = self._packed(src)
            self.kernels["copy"](temporary, src)
            packed = np.empty(src._shape, src._dtype)
            self.download_bytes(device, self.pointer(temporary), packed)
        np.copyto(host, packed, casting="unsafe")
        return Event()

    def copy_peer(self, dst, src) -> None:
        """Copy between two npu arrays: on one device by the ``copy`` kernel, across
        devices staged through the host."""
        if dst._device is src._device:
            self.kernels["copy"](dst, src)
            return
        host = np.empty(src._shape, src._dtype)
        self.copy_to_host(host, src)
        self.copy_from_host(dst, host)

    @staticmethod
    def host_empty(shape, dtype, order="C") -> np.ndarray:
        return np.empty(shape, dtype, order=order)

    def move_elements(self, direction, array, mirror: np.ndarray) -> None:
        """Copy the elements of ``array`` to (``"dtoh"``) or from (``"htod"``) the same byte
        offsets of ``mirror``, the host copy of its buffer (the host fallback's moves)."""
        device = array._device
        low, high = byte_span(array)
        base = self.buffer_pointer(array._realize())
        if direction == "dtoh":
            self.download_bytes(device, base + low, mirror[low:high])
        elif high - low == array.nbytes or not _packable(array):
            # (dense: exactly its bytes; a gapped view no operator writes: the bytes it spans)
            self.upload_bytes(device, base + low, np.ascontiguousarray(mirror[low:high]))
        else:
            view = _span_view(array, mirror[low:high], low)
            self._write_elements(array, np.ascontiguousarray(view))


def _span_view(array, span: np.ndarray, low: int) -> np.ndarray:
    """``array``'s elements as a NumPy view of ``span``, the bytes from offset ``low`` on."""
    return np.ndarray(array._shape, array._dtype, buffer=span, offset=array._offset - low,
                      strides=array._strides)


def _packable(array) -> bool:
    """Whether aclnnInplaceCopy packs and scatters ``array`` (its dtype, a tensor layout)."""
    return (describable(array) and array._dtype in COPY_DTYPES
            and all(s or n <= 1 for n, s in zip(array._shape, array._strides)))
