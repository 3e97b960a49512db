"""The cpu back end: host memory as device memory, NumPy's loops as kernels."""

from __future__ import annotations

import functools

import numpy as np

from ...ops.backend import KernelTable
from ...runtime.memory import Buffer, MemoryPool
from ...runtime.stream import DefaultStream
from . import calibration as _calibration
from . import math_kernels, parallel
from .allocator import MMAP_THRESHOLD, CpuAllocator, MemoryWindow, address_of
from .fft_kernels import FFT_KERNELS
from .kernels import KERNELS, dense_bytes, view
from .linalg_kernels import LINALG_KERNELS
from .math_kernels import MATH_KERNELS
from .random_kernels import RANDOM_KERNELS
from .scratch import NAMED_KERNELS, SCRATCH_FACTORS, charged
from .sort_kernels import SORT_KERNELS

__all__ = ["BACKEND", "CpuBackend", "view"]


class CpuBackend:
    """Everything the runtime needs from the cpu device.

    Arrays passed in are asnumpy arrays; :func:`view` turns one into a NumPy
    view of its device memory.  Logical devices ``cpu:0``, ``cpu:1`` … share
    this object and differ only in their pools and streams.
    """

    kind = "cpu"
    # Host memory *is* cpu device memory: NumPy arrays can be aliased with
    # copy=False, and transfers need no staging.
    can_alias_host = True
    # Each device's default stream runs a launch inline, on the caller's thread.
    default_stream_class = DefaultStream
    # How many threads large work is split across (runtime.cpu_threads / set_cpu_threads).
    thread_count = staticmethod(parallel.thread_count)
    set_thread_count = staticmethod(parallel.set_thread_count)
    # The split thresholds and sort choices measured for this CPU (runtime.cpu_calibration).
    calibration = staticmethod(_calibration.current)
    # Kernels are NumPy's loops on views of that memory: small calls may run
    # NumPy directly and adopt its result (the fast lane, _core/ufuncs/fast.py,
    # which reads the split thresholds, weights and views of this module).
    runs_numpy_loops = True
    numpy_loop_kernels = math_kernels

    def make_allocator(self, index: int) -> CpuAllocator:
        return CpuAllocator(index)

    def __init__(self):
        kernels = {**KERNELS, **MATH_KERNELS, **SORT_KERNELS, **RANDOM_KERNELS,
                   **FFT_KERNELS, **LINALG_KERNELS}
        # Kernels whose NumPy calls allocate scratch reserve it in the pool (.scratch).
        for name, factor in SCRATCH_FACTORS.items():
            kernels[name] = charged(kernels[name], factor, named=name in NAMED_KERNELS)
        self.kernels = KernelTable(self, kernels)
        # Host arrays that copies off the device land in: large ones come
        # from this pool, already faulted in, instead of fresh pages.
        self.host_pool = MemoryPool("host", CpuAllocator(-1))

    def kernel(self, name: str):
        """The implementation of kernel ``name``; KeyError when there is none."""
        return self.kernels[name]

    # the ufunc kernel's planning phase (asnumpy.ops.backend.PreparedUfunc)
    prepare_ufunc = staticmethod(math_kernels.prepare_ufunc)

    @staticmethod
    def adopt_host_result(native: np.ndarray, device) -> Buffer:
        """The memory of ``native``, a new NumPy result, as a buffer on ``device``.

        The handle is its bytes from the lowest address, so the array's
        offset is 0.  The memory is NumPy's, outside the pool's accounting.
        """
        return Buffer(dense_bytes(native), native.nbytes, device)

    @staticmethod
    def copy_from_host(dst, host: np.ndarray) -> None:
        parallel.copyto(view(dst), host)

    @staticmethod
    def copy_to_host(host: np.ndarray, src) -> None:
        parallel.copyto(host, view(src))

    @staticmethod
    def alias_host(host: np.ndarray, low: int, high: int) -> np.ndarray:
        """A handle over host memory ``[data + low, data + high)`` of ``host``."""
        data, readonly = host.__array_interface__["data"]
        return np.asarray(MemoryWindow(host, data + low, high - low, readonly))

    def host_empty(self, shape, dtype, order="C") -> np.ndarray:
        """A new host array for data copied off a device (pooled when large)."""
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        if nbytes < MMAP_THRESHOLD:
            return np.empty(shape, dtype, order=order)
        block = self.host_pool.malloc(nbytes)
        raw = np.asarray(MemoryWindow(block, address_of(block.handle), nbytes))
        return np.ndarray(shape, dtype, buffer=raw, order=order)

    @staticmethod
    def copy_peer(dst, src) -> None:
        """Copy between two arrays of this back end (any cpu:N to any cpu:M)."""
        parallel.copyto(view(dst), view(src))

    # Generated C++ (user kernels, fusion): rendered for the host target, compiled and run
    # by programs.py -- imported on first use (the toolchain imports subprocess & co).
    @functools.cached_property
    def cxx(self):
        """The renderer object of this back end (:class:`asnumpy.ops.cxx.targets.HostTarget`)."""
        from .programs import TARGET

        return TARGET

    @staticmethod
    def compile(source: str, device=None, *, options=(), where: str = "asnumpy.extension"):
        """``source`` (host C++) compiled into a :class:`.programs.CpuProgram`."""
        from .programs import compile_program

        return compile_program(source, device, options=options, where=where)

    @staticmethod
    def pointer(array) -> int:
        """The address of ``array``'s first element."""
        return view(array).ctypes.data


BACKEND = CpuBackend()
# This CPU's thresholds and sort choices (measured once per machine, then read from the
# cache: .calibration), in the kernel modules before any kernel or the fast lane reads them.
_calibration.current()
