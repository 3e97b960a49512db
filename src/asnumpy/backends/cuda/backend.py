"""The cuda back end: GPU memory through the pool, transfers, and kernels.

Kernels come from three places, looked up in this order:

* generated kernels (:mod:`.kernels`): every ufunc and ufunc reduction,
  rendered from the op table (asnumpy.ops.ufuncs) into CUDA C and compiled by NVRTC;
* copies and fills done by the driver (contiguous layouts);
* everything else (sorting, linear algebra, FFT, random, fancy indexing,
  ...) runs as the *host fallback* (:mod:`asnumpy.ops.host_fallback`,
  shared by every device with memory of its own): the arrays' elements are
  copied to the host, the cpu back end's kernel of the same name runs on
  them, and the elements of the arrays it writes are copied back
  (:meth:`CudaBackend.move_elements`).  Correct everywhere, and the seam where
  later work replaces one kernel at a time with a GPU one (cuBLAS, cuFFT, ...).

Host<->device copies in any layout are :mod:`.transfers`' (pinned staging
from :mod:`.staging`, 2D/3D driver copies for strided views).

Fork: CUDA's rule.  A child made by ``os.fork`` cannot use the CUDA context
of a parent that initialized cuda (built this back end): every use of a cuda
device there raises RuntimeError saying so and naming the 'spawn' start
method, as PyTorch does.  A parent that never used cuda forks children that
may initialize it themselves.
"""

from __future__ import annotations

import time
import weakref

import numpy as np

from ...ops.backend import KernelTable, PreparedUfunc
from ...runtime import _fork, observer as _observer
from ...runtime.stream import Event
from . import programs, transfers
from .staging import StagingPool
from .streams import (CudaDefaultStream, CudaStream, StreamOrderedReuse, across_devices,
                      current_native, current_stream)

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
                if retry:
                    # raised in the handler, which unbinds ``exc`` on the way out: no name
                    # in this frame holds the driver's error, whose traceback holds the
                    # frame (and its callers' frames: a cycle that pins their arrays)
                    raise MemoryError(str(exc)) from exc

    # blocks freed on one stream and reused on another: ordered by events
    stream_ordering = StreamOrderedReuse

    @staticmethod
    def empty_handle():
        return _EMPTY

    def total_memory(self) -> int:
        return self.driver.total_memory(self.index)


def _out_of_memory(exc) -> bool:
    """Whether a driver error is CUDA_ERROR_OUT_OF_MEMORY.

    cuda-core's CUDAError (like the emulator's) begins with the CUresult's
    name; when the driver cannot even name the status, cuda-core says
    ``UNEXPECTED ERROR CODE: 2`` (2 is CUDA_ERROR_OUT_OF_MEMORY).
    """
    text = str(exc)
    return "CUDA_ERROR_OUT_OF_MEMORY" in text or text == "UNEXPECTED ERROR CODE: 2"


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
        _backends.add(self)
        native, self._prepare_ufunc = kernels.native_kernels(self)
        self.kernels = KernelTable(self, native)
        self.host_pool = None
        self.staging = StagingPool(driver)     # pinned blocks host<->device copies use
        self._max_pitch: dict[int, int] = {}

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

    # Generated C++ (user kernels, fusion): the cuda target renders it, programs.py runs it
    cxx = programs.TARGET

    def compile(self, source: str, device, *, options=(), where: str = "asnumpy.extension"):
        """``source`` (CUDA C), checked by NVRTC for ``device``: a :class:`.programs.CudaProgram`."""
        return programs.compile_program(self, source, device, options=options, where=where)

    def kernel(self, name: str):
        """The implementation of kernel ``name``: generated, or the host fallback."""
        return self.kernels[name]

    def prepare_ufunc(self, name, loop, outs, inputs, where) -> PreparedUfunc:
        """One ufunc call signature planned once (:class:`asnumpy.ops.backend.PreparedUfunc`)."""
        return self._prepare_ufunc(name, loop, outs, inputs, where)

    # -- transfers ------------------------------------------------------------------

    def copy_from_host(self, dst, host: np.ndarray):
        """Queue the copy of ``host`` (broadcast and cast) into ``dst`` on the current stream.

        Returns once ``host`` may be reused (staged through pinned memory, or
        copied by the driver); the DMA itself may still be running.  Returns
        an :class:`~asnumpy.Event` recorded after the copy: waiting on it (or
        on the stream) orders the data.  Strided destinations are written by
        2D/3D copies, or packed on the device when those cannot serve.
        """
        device = dst._device
        if not transfers.upload(self, current_native(device), device.index, self._region(dst),
                                host):
            packed = self._device_temporary(dst)
            transfers.upload(self, current_native(device), device.index,
                             self._region(packed), host)
            self.kernel("copy")(dst, packed)
        return current_stream(device).record()

    def copy_to_host(self, host: np.ndarray, src):
        """Copy ``src`` into ``host`` on the current stream; returns an :class:`~asnumpy.Event`.

        On the default stream the copy is done on return (having waited for
        that stream only).  On a user stream a staged copy is only queued:
        ``host`` holds the data once the returned event (or the stream) has
        completed -- as on cpu, where a user stream's copy runs later on its
        thread.  Strided sources are read by 2D/3D copies, or packed on the
        device first -- never by copying their whole buffer.
        """
        device = src._device
        stream = current_stream(device)
        # on a user stream the copy into ``host`` completes in stream order (host functions)
        defer = None if stream.is_default else stream.launch_host_func
        started = time.perf_counter()
        if not transfers.download(self, current_native(device), device.index,
                                  self._region(src), host, defer):
            packed = self._device_temporary(src)
            self.kernel("copy")(packed, src)
            transfers.download(self, current_native(device), device.index,
                               self._region(packed), host, defer)
        if defer is None:
            # a download on the default stream is complete: the host waited for the stream
            # (a profiler flags it), and an unrecorded Event is done
            _observer.waited("copy to host", device, stream, started)
            return Event()
        return stream.record()

    def _region(self, array) -> transfers.Region:
        return transfers.Region.of(array, self.pointer(array))

    @staticmethod
    def _device_temporary(array):
        """A new C-contiguous array of ``array``'s shape and dtype, from its device's pool."""
        device = array._device
        strides, step = [], array._dtype.itemsize
        for n in reversed(array._shape):
            strides.append(step)
            step *= max(n, 1)
        buffer = device.memory_pool.malloc(step, current_stream(device))
        return type(array)._from_buffer(buffer, array._shape, array._dtype,
                                        tuple(reversed(strides)), 0, device)

    def max_pitch(self, index: int) -> int:
        """The largest row pitch the driver's 2D/3D copies take on GPU ``index``."""
        pitch = self._max_pitch.get(index)
        if pitch is None:
            self.driver.make_current(index)
            pitch = self._max_pitch[index] = self.driver.max_pitch(index)
        return pitch

    def release_host_memory(self) -> None:
        """Free the pinned staging blocks (once their copies are done): reset and finalize."""
        self.staging.release_all()

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

    def move_elements(self, direction, array, mirror: np.ndarray) -> None:
        """Copy the elements of the cuda ``array`` to (``"dtoh"``) or from (``"htod"``) the
        same offsets of ``mirror``, the host copy of its buffer's bytes (the host fallback's
        moves); a layout no 2D/3D copy serves moves the bytes it spans instead."""
        device = array._device
        # the array's device's context current again (buffers of two GPUs may be mirrored)
        stream = current_native(device)
        move = transfers.upload if direction == "htod" else transfers.download
        host = np.ndarray(array._shape, array._dtype, buffer=mirror, offset=array._offset,
                          strides=array._strides)
        if not move(self, stream, device.index, self._region(array), host):
            low, high = transfers.byte_span(array._shape, array._strides, array._offset,
                                            array._dtype.itemsize)
            region = transfers.Region(self.buffer_pointer(array._realize()) + low,
                                      (high - low,), (1,), np.dtype(np.uint8))
            move(self, stream, device.index, region, mirror[low:high])


_backends: "weakref.WeakSet[CudaBackend]" = weakref.WeakSet()    # built in this process


def _refuse_inherited_context(index) -> None:
    raise RuntimeError(
        f"asnumpy: cannot use cuda:{index} in a forked child process; the CUDA context of the "
        "parent is not usable after fork. To use cuda with multiprocessing, use the 'spawn' "
        "start method (multiprocessing.get_context('spawn'))")


def _refuse_cuda_in_child() -> None:
    # Every driver call that needs a context is preceded by ``make_current`` (driver.py,
    # "Contexts"): the one seam where an inherited driver is refused.
    for backend in list(_backends):
        backend.driver.make_current = _refuse_inherited_context


_fork.register(after_in_child=_refuse_cuda_in_child)
