"""The cuda back end: GPU memory through the pool, transfers, and kernels.

Kernels come from three places, looked up in this order:

* generated kernels (:mod:`.kernels`): every ufunc and ufunc reduction,
  rendered from the op catalog into CUDA C and compiled by NVRTC;
* copies and fills done by the driver (contiguous layouts);
* everything else (sorting, linear algebra, FFT, random, fancy indexing,
  ...) runs as the *host fallback*: the arrays' buffers are copied to the
  host, the cpu back end's kernel of the same name runs on them, and the
  buffers are copied back.  Correct everywhere, and the seam where later
  work replaces one kernel at a time with a GPU one (cuBLAS, cuFFT, ...).
"""

from __future__ import annotations

import numpy as np

from ...runtime.memory import Buffer
from .streams import (CudaDefaultStream, CudaStream, StreamOrderedReuse, across_devices,
                      current_native)

__all__ = ["CudaBackend"]


class _EmptyHandle:
    """The handle of a 0-byte buffer: no memory, pointer 0."""


_EMPTY = _EmptyHandle()


class CudaAllocator:
    """Device memory for one GPU, from the driver."""

    def __init__(self, driver, index: int):
        self.driver, self.index = driver, index

    def alloc(self, nbytes: int):
        """``nbytes`` of device memory; MemoryError when the GPU has no room for them.

        The driver's CUDA_ERROR_OUT_OF_MEMORY becomes MemoryError, the one
        exception the pool treats as "full" (it then frees its cached blocks
        and retries); every other driver error propagates as itself.
        """
        self.driver.make_current(self.index)       # any thread: none may be current
        for retry in (False, True):
            if retry:
                # Blocks the pool gave back are freed in stream order: once the device
                # has caught up with those frees, their memory is the driver's again.
                self.driver.synchronize(self.index)
            try:
                return self.driver.alloc(self.index, nbytes)
            except Exception as exc:  # noqa: BLE001 - filtered: only out-of-memory is handled
                if not _out_of_memory(exc):
                    raise
                failure = exc
        raise MemoryError(str(failure)) from failure

    # blocks freed on one stream and reused on another: ordered by events
    stream_ordering = StreamOrderedReuse

    @staticmethod
    def empty_handle():
        return _EMPTY

    def total_memory(self) -> int:
        return self.driver.total_memory(self.index)


def _out_of_memory(exc) -> bool:
    """Whether a driver error is CUDA_ERROR_OUT_OF_MEMORY (cuda-core's errors, like the
    emulator's, begin with the CUresult's name; its fallback text holds the name too)."""
    return "CUDA_ERROR_OUT_OF_MEMORY" in str(exc)


def _layout_order(array):
    """'C' or 'F' when ``array`` is contiguous in that order, else None."""
    shape, strides, itemsize = array._shape, array._strides, array._dtype.itemsize
    for order, dims in (("C", range(len(shape) - 1, -1, -1)), ("F", range(len(shape)))):
        expected = itemsize
        for axis in dims:
            if shape[axis] != 1 and strides[axis] != expected:
                break
            expected *= shape[axis]
        else:
            return order
    return None


class CudaBackend:
    """Everything the runtime needs from cuda devices, over a driver object."""

    kind = "cuda"
    can_alias_host = False
    stream_class = CudaStream
    default_stream_class = CudaDefaultStream

    def __init__(self, driver):
        from . import kernels  # generated kernels: imports the renderers

        self.driver = driver
        self._kernels = kernels.native_kernels(self)
        self.host_pool = None

    def device_count(self) -> int:
        return self.driver.device_count()

    def make_allocator(self, index: int) -> CudaAllocator:
        return CudaAllocator(self.driver, index)

    def synchronize_device(self, index: int) -> None:
        """Wait for all work on GPU ``index``: every stream, dropped ones included."""
        self.driver.make_current(index)
        self.driver.synchronize(index)

    # -- pointers and host mirrors ---------------------------------------------------

    def pointer(self, array) -> int:
        """The device address of ``array``'s first element."""
        return self.buffer_pointer(array._realize()) + array._offset

    def buffer_pointer(self, buffer) -> int:
        """The device address of a pool :class:`Buffer` (0 for an empty one)."""
        return 0 if buffer.handle is _EMPTY else self.driver.pointer(buffer.handle)

    def _buffer_to_host(self, buffer, stream) -> np.ndarray:
        host = np.empty(buffer.nbytes, np.uint8)
        if buffer.nbytes:
            self.driver.copy_dtoh(host, self.driver.pointer(buffer.handle), buffer.nbytes, stream)
        return host

    def kernel(self, name: str):
        """The implementation of kernel ``name``: generated, or the host fallback."""
        kernel = self._kernels.get(name)
        if kernel is None:
            kernel = self._kernels[name] = self.host_fallback(name)
        return kernel

    def host_fallback(self, name: str):
        """The cpu back end's kernel ``name`` run on host copies of the arrays."""
        from ...runtime.device import Device

        return _HostFallback(self, Device("cpu:0").backend.kernel(name))  # KeyError: none

    # -- transfers ------------------------------------------------------------------

    def copy_from_host(self, dst, host: np.ndarray) -> None:
        stream = current_native(dst._device)
        order = _layout_order(dst)
        if order is None:                   # strided destination: write through a mirror
            _HostFallback(self, lambda out, src: np.copyto(_view(out), src,
                                                           casting="unsafe"))(dst, host)
            return
        staged = host
        if not (host.shape == dst._shape and host.dtype == dst._dtype
                and host.flags[f"{order}_CONTIGUOUS"]):
            staged = np.empty(dst._shape, dst._dtype, order=order)
            np.copyto(staged, host, casting="unsafe")
        if staged.nbytes:
            self.driver.copy_htod(self.pointer(dst), staged, staged.nbytes, stream)

    def copy_to_host(self, host: np.ndarray, src) -> None:
        stream = current_native(src._device)
        order = _layout_order(src)
        if (order is not None and host.dtype == src._dtype and host.shape == src._shape
                and host.flags[f"{order}_CONTIGUOUS"]):
            if host.nbytes:
                self.driver.copy_dtoh(host, self.pointer(src), host.nbytes, stream)
            return
        whole = self._buffer_to_host(src._realize(), stream)
        np.copyto(host, np.ndarray(src._shape, src._dtype, buffer=whole, offset=src._offset,
                                   strides=src._strides), casting="unsafe")

    def copy_peer(self, dst, src) -> None:
        order = _layout_order(src)
        if order is not None and _layout_order(dst) == order and dst._dtype == src._dtype:
            nbytes = src._dtype.itemsize * int(np.prod(src._shape, dtype=np.int64))
            if nbytes:
                with across_devices(src._device, dst._device):
                    self.driver.copy_dtod(self.pointer(dst), self.pointer(src), nbytes,
                                          current_native(src._device))
            return
        self.kernel("copy")(dst, src)

    @staticmethod
    def host_empty(shape, dtype, order="C") -> np.ndarray:
        return np.empty(shape, dtype, order=order)


def _view(array) -> np.ndarray:
    from ..cpu.kernels import view

    return view(array)


class _HostFallback:
    """Run a cpu kernel on host copies of the cuda arrays among its arguments.

    Every distinct buffer reached from the arguments (inside tuples, lists
    and dicts too) is copied to the host once, the arrays are rebuilt over
    those copies as cpu arrays (views of one buffer stay views of one copy,
    so in-place and aliasing kernels behave), the cpu kernel runs, and every
    buffer is copied back.
    """

    def __init__(self, backend, cpu_kernel):
        self.backend, self.cpu_kernel = backend, cpu_kernel

    def __call__(self, *args, **kwargs):
        from ...runtime.device import Device

        cpu = Device("cpu:0")
        mirrors: dict[int, tuple] = {}      # id(buffer) -> (buffer, host bytes, cpu Buffer)

        def mirror(value):
            if hasattr(value, "_realize") and getattr(value, "_device", None) is not None \
                    and value._device.kind == "cuda":
                buffer = value._realize()
                entry = mirrors.get(id(buffer))
                if entry is None:
                    stream = current_native(value._device)
                    host = self.backend._buffer_to_host(buffer, stream)
                    entry = mirrors[id(buffer)] = (buffer, host, Buffer(host, buffer.nbytes, cpu),
                                                   stream)
                return type(value)._from_buffer(entry[2], value._shape, value._dtype,
                                                value._strides, value._offset, cpu)
            if type(value) in (tuple, list):
                return type(value)(mirror(item) for item in value)
            if type(value) is dict:
                return {key: mirror(item) for key, item in value.items()}
            return value

        args = [mirror(a) for a in args]
        kwargs = {key: mirror(value) for key, value in kwargs.items()}
        result = self.cpu_kernel(*args, **kwargs)
        for buffer, host, _, stream in mirrors.values():
            if buffer.nbytes:
                # the same stream, with its device's context current again (buffers of
                # two GPUs may be mirrored)
                stream = current_native(buffer.device)
                self.backend.driver.copy_htod(self.backend.driver.pointer(buffer.handle), host,
                                              buffer.nbytes, stream)
        return result
