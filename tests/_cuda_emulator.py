"""A host emulation of the cuda back end's driver, for machines without a GPU.

``ASNUMPY_CUDA_DRIVER=_cuda_emulator:Driver`` makes ``cuda:0`` and
``cuda:1`` appear on any machine with g++.  Device memory is host memory,
streams run everything at once, and ``launch`` compiles the very source
that NVRTC would get for the host (``_cuda_host.build``) and runs the grid
block after block with one thread per block.  Everything above the driver --
pool, streams, transfers, the host fallback, kernel rendering and argument
marshalling -- is the real back end.
"""

from __future__ import annotations

import ctypes
import time

import numpy as np
from _cuda_host import build

DEVICES = 2
MEMORY = 1 << 30

_CTYPES = {
    np.dtype(np.bool_): ctypes.c_bool,
    np.dtype(np.int8): ctypes.c_int8, np.dtype(np.uint8): ctypes.c_uint8,
    np.dtype(np.int16): ctypes.c_int16, np.dtype(np.uint16): ctypes.c_uint16,
    np.dtype(np.int32): ctypes.c_int32, np.dtype(np.uint32): ctypes.c_uint32,
    np.dtype(np.int64): ctypes.c_int64, np.dtype(np.uint64): ctypes.c_uint64,
    np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double,
}


class _Complex64(ctypes.Structure):
    _fields_ = [("re", ctypes.c_float), ("im", ctypes.c_float)]


class _Complex128(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


def _c_value(value):
    value = np.asarray(value)
    if value.dtype == np.complex64:
        return _Complex64(value.real, value.imag)
    if value.dtype == np.complex128:
        return _Complex128(value.real, value.imag)
    try:
        return _CTYPES[value.dtype](value.item())
    except KeyError:
        raise TypeError(f"the emulator cannot pass a {value.dtype} argument") from None


class _Stream:
    def __init__(self, device, handle=None):
        self.device = device
        self.handle = id(self) if handle is None else handle   # a cudaStream_t stand-in


class _ForeignMemory:
    """Exposes another library's memory to NumPy (``pointer`` reads its address)."""

    def __init__(self, owner, address, nbytes):
        self.owner = owner
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (address, False)}


class _Event:
    def __init__(self):
        self.time = None


class Driver:
    """The driver interface of ``asnumpy.backends.cuda.driver``, on the host."""

    def __init__(self):
        self.launches = []                 # kernel names, for tests that count them
        self._defaults = [_Stream(i, handle=0) for i in range(DEVICES)]   # the NULL stream

    def device_count(self):
        return DEVICES

    def name(self, i):
        return f"host emulation {i}"

    def arch(self, i):
        return "sm_90"

    def total_memory(self, i):
        return MEMORY

    def alloc(self, i, nbytes):
        return np.empty(nbytes, np.uint8)

    @staticmethod
    def pointer(handle):
        return handle.ctypes.data

    @staticmethod
    def foreign_memory(i, pointer, nbytes, owner):
        return np.asarray(_ForeignMemory(owner, pointer, nbytes))

    def create_stream(self, i):
        return _Stream(i)

    def default_stream(self, i):
        return self._defaults[i]

    def sync(self, stream):
        pass

    @staticmethod
    def stream_handle(stream):
        return stream.handle

    @staticmethod
    def external_stream(i, handle):
        return _Stream(i, handle)

    def query(self, stream):
        return True

    def create_event(self, i):
        return _Event()

    def record(self, event, stream):
        event.time = time.perf_counter()

    def wait(self, stream, event):
        pass

    def event_sync(self, event):
        pass

    def event_query(self, event):
        return event.time is not None

    def elapsed_ms(self, start, end):
        return (end.time - start.time) * 1000.0

    def _enqueue(self, stream, work):
        """Queue ``work()`` (a callable) on ``stream``: the one seam of stream-ordered work."""
        work()

    def copy_htod(self, dst, host, nbytes, stream):
        self._enqueue(stream, lambda: ctypes.memmove(dst, host.ctypes.data, nbytes))

    def copy_dtoh(self, host, src, nbytes, stream):
        self._enqueue(stream, lambda: ctypes.memmove(host.ctypes.data, src, nbytes))

    def copy_dtod(self, dst, src, nbytes, stream):
        self._enqueue(stream, lambda: ctypes.memmove(dst, src, nbytes))

    def launch(self, i, source, kernel_name, grid, block, shared_bytes, args, stream):
        entry = ('\nextern "C" void asn_set_block(unsigned g, unsigned b) '
                 '{ gridDim.x = g; blockDim.x = 1u; blockIdx.x = b; threadIdx.x = 0u; }\n')
        library = build(source + entry)
        kernel = getattr(library, kernel_name)
        kernel.restype = None
        values = [_c_value(a) for a in args]
        grid = grid[0] if isinstance(grid, tuple) else grid
        for block_index in range(int(grid)):
            library.asn_set_block(ctypes.c_uint(int(grid)), ctypes.c_uint(block_index))
            kernel(*values)
        self.launches.append(kernel_name)
