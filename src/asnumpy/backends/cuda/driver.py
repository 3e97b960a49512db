"""The cuda back end's only contact with NVIDIA's software: cuda-core and cuda-bindings.

Everything above this module speaks to a *driver* object with the small
interface below, so the back end's logic (pool, streams, transfers, kernel
launches, host fallbacks) is the same whether the driver is
:class:`CudaCoreDriver` on a real GPU or the host emulator the test suite
plugs in with ``ASNUMPY_CUDA_DRIVER`` (``tests/_cuda_emulator.py``), which
runs the very same generated kernel source compiled for the host.

Driver interface (``i`` is a device index, pointers are ints)::

    device_count(); name(i); arch(i) -> "sm_90"; total_memory(i)
    make_current(i)                       (GPU i's primary context, current on this
                                          thread: cuCtxSetCurrent; cheap when it is)
    alloc(i, nbytes) -> handle; pointer(handle) -> int   (a full GPU: an error whose
                                          text names CUDA_ERROR_OUT_OF_MEMORY, as
                                          cuda-core's CUDAError does)
    free(i, handle, stream)               (cuMemFreeAsync: released once ``stream``
                                          gets there; a handle dropped unfreed leaks
                                          on the emulator, is freed without the
                                          context guarantee on cuda-core)
    foreign_memory(i, pointer, nbytes, owner) -> handle  (another library's memory;
                                                          keeps owner alive)
    create_stream(i); default_stream(i); sync(stream); query(stream) -> bool
    destroy_stream(stream)                (returns at once; queued work still runs)
    synchronize(i)                        (cuCtxSynchronize: every stream of GPU i,
                                          destroyed ones with work pending included)
    launch_host_func(stream, fn)          (cuLaunchHostFunc: ``fn()`` on a driver
                                          thread in stream order; no CUDA calls in it)
    create_event(i); record(event, stream); wait(stream, event, external=False)
                                          (external: CU_EVENT_WAIT_EXTERNAL, what a
                                          capturing stream needs for an event recorded
                                          outside its capture)
    event_sync(event); event_query(event) -> bool; elapsed_ms(start, end)
    stream_handle(stream) -> int; external_stream(i, handle)  (another library's
                                          cudaStream_t, for record / wait / sync)
    copy_htod(dst, host, nbytes, stream); copy_dtoh(host, src, nbytes, stream)
    copy_dtod(dst, src, nbytes, stream)        (any two devices: unified addressing)
    alloc_pinned(nbytes) -> 1-D uint8 NumPy array over page-locked host memory
                                          (portable to every device; freed when dropped)
    max_pitch(i) -> int                   (the largest row pitch copy_strided takes)
    copy_strided(kind, dst, dst_pitches, src, src_pitches, width, counts, stream)
        kind "htod" | "dtoh" | "dtod"; dst, src: addresses (host ones as ints too);
        counts (rows,) or (rows, slices), pitches (row pitch,) or (row pitch, slice
        pitch) in bytes on each side: rows of ``width`` contiguous bytes, as
        cuMemcpy2DAsync / cuMemcpy3DAsync copy them
    launch(i, source, kernel_name, grid, block, shared_bytes, args, stream)
    begin_capture(stream, mode)           (cuStreamBeginCapture_v2; mode "global" |
                                          "thread_local" | "relaxed")
    end_capture(stream) -> graph          (cuStreamEndCapture + cuGraphInstantiateWithFlags;
                                          fails naming CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
                                          for an invalidated capture, which still ends)
    is_capturing(stream) -> bool          (cuStreamIsCapturing)
    graph_launch(graph, stream); graph_destroy(graph)   (cuGraphLaunch; cuGraphExecDestroy
                                          and cuGraphDestroy)

Host memory in copies follows CUDA's rules for asynchronous copies: with
*pageable* host memory, ``copy_htod`` (and a strided "htod") returns once
``host`` may be reused and ``copy_dtoh`` once the data is in host memory
(having waited for that stream only); with *pinned* memory from
``alloc_pinned`` both only queue the copy, and the host memory must stay
untouched until the stream has passed it (an event recorded after it has
completed).  cuda-core is imported here only, and only when a cuda device
is first asked for.

Contexts: every call but the first group (names, counts) and ``pointer`` acts
on the context current on the calling thread, which must be the owning
device's primary context; a thread starts with none.  The back end calls
``make_current(i)`` before them (``streams.py``): this module does not
switch contexts behind its back, except where cuda-core does.
"""

from __future__ import annotations

import ctypes
import importlib
import itertools
import os
import threading

import numpy as np

from ..._errors import DeviceUnavailableError
from . import compiler, discovery

__all__ = ["CudaCoreDriver", "load_driver"]


class CudaCoreDriver:
    """The driver interface over NVIDIA's ``cuda.core`` and ``cuda.bindings``."""

    def __init__(self):
        try:
            import cuda.core as core
            from cuda import bindings
            from cuda.bindings import driver as cu
        except ImportError as exc:
            raise DeviceUnavailableError(
                "the cuda back end needs NVIDIA's cuda-core and cuda-bindings "
                "(pip install 'asnumpy[cuda13]', or 'asnumpy[cuda12]' for a CUDA 12 "
                f"driver): {exc}") from None
        self._core, self._cu = core, cu
        # Through the driver API only (cuInit, cuDeviceGetCount): cuda.core.system
        # would load NVML, which many containers lack.  The driver applies
        # CUDA_VISIBLE_DEVICES itself; discovery reports it and rejects bad entries.
        self.discovery = discovery.discover(cu, bindings.__version__)
        self._versions = {"driver": f"CUDA {discovery.version_text(self.discovery.version)}",
                          "cuda-bindings": bindings.__version__,
                          "cuda-core": getattr(core, "__version__", "unknown")}
        self._devices = [core.Device(i) for i in range(self.discovery.device_count)]
        self._modules: dict = {}         # (device, kernel name) -> Kernel
        self._objects: dict = {}         # (device, source) -> ObjectCode
        self._configs: dict = {}         # (grid, block, shared bytes) -> LaunchConfig
        self._lock = threading.Lock()

    # -- devices ------------------------------------------------------------------------

    def device_count(self) -> int:
        return len(self._devices)

    def _device(self, i):
        device = self._devices[i]
        device.set_current()             # cheap when already current on this thread
        return device

    def name(self, i) -> str:
        return self._devices[i].name

    def arch(self, i) -> str:
        return f"sm_{self._devices[i].arch}"

    def versions(self) -> dict:
        """The driver's and toolkit's versions by component, for reports."""
        versions = dict(self._versions)
        try:
            versions["nvrtc"] = "%d.%d" % compiler.nvrtc_version()
        except Exception as exc:  # noqa: BLE001 - a missing or broken NVRTC fails in many ways
            versions["nvrtc"] = f"unavailable ({exc})"
        return versions

    def total_memory(self, i) -> int:
        self._device(i)
        _, free, total = self._cu.cuMemGetInfo()
        return int(total)

    # -- memory -------------------------------------------------------------------------

    def alloc(self, i, nbytes):
        # Stream-ordered allocations from the device's default memory resource; the
        # pool above caches them, so the driver is asked rarely.
        device = self._device(i)
        return device.allocate(nbytes, stream=device.default_stream)

    @staticmethod
    def pointer(handle) -> int:
        return int(handle.handle)

    @staticmethod
    def foreign_memory(i, pointer, nbytes, owner):
        return _ForeignMemory(pointer, owner)

    # -- streams and events -------------------------------------------------------------

    def create_stream(self, i):
        return self._device(i).create_stream()

    def default_stream(self, i):
        return self._device(i).default_stream

    @staticmethod
    def sync(stream) -> None:
        stream.sync()

    @staticmethod
    def stream_handle(stream) -> int:
        return int(stream.handle)

    def external_stream(self, i, handle):
        return _ExternalStream(self._cu, handle)

    def query(self, stream) -> bool:
        (status,) = self._cu.cuStreamQuery(stream.handle)
        return status == self._cu.CUresult.CUDA_SUCCESS

    def create_event(self, i):
        return self._device(i).create_event(self._core.EventOptions(timing_enabled=True))

    @staticmethod
    def record(event, stream) -> None:
        stream.record(event)

    def wait(self, stream, event, external=False) -> None:
        if not external:
            stream.wait(event)
            return
        cu = self._cu
        (status,) = cu.cuStreamWaitEvent(stream.handle, event.handle,
                                         cu.CUevent_wait_flags.CU_EVENT_WAIT_EXTERNAL)
        _raise_unless_success(cu, status, "an external event wait in a stream capture")

    @staticmethod
    def event_sync(event) -> None:
        event.sync()

    @staticmethod
    def event_query(event) -> bool:
        return bool(event.is_done)

    @staticmethod
    def elapsed_ms(start, end) -> float:
        return float(end - start)

    # -- contexts, frees, streams' ends, host functions (the streams block) ---------------

    _primary_contexts = None             # device -> (CUcontext, its address), when known

    def make_current(self, i) -> None:
        cu = self._cu
        contexts = self._primary_contexts
        if contexts is None:
            contexts = self._primary_contexts = {}
        known = contexts.get(i)
        if known is None:
            # cuda-core retains the primary context and makes it current
            self._devices[i].set_current()
            status, context = cu.cuCtxGetCurrent()
            _raise_unless_success(cu, status, "reading the current context")
            contexts[i] = (context, int(context))
            return
        status, current = cu.cuCtxGetCurrent()
        if int(current) != known[1]:     # another device's, another library's, or none
            (status,) = cu.cuCtxSetCurrent(known[0])
            _raise_unless_success(cu, status, f"making cuda:{i}'s context current")

    @staticmethod
    def free(i, handle, stream) -> None:
        handle.close(stream)             # cuMemFreeAsync on ``stream``

    @staticmethod
    def destroy_stream(stream) -> None:
        stream.close()

    def synchronize(self, i) -> None:
        (status,) = self._cu.cuCtxSynchronize()
        _raise_unless_success(self._cu, status, f"synchronizing cuda:{i}")

    def launch_host_func(self, stream, fn) -> None:
        cu = self._cu
        key = next(_host_function_keys)
        _pending_host_functions[key] = fn
        (status,) = cu.cuLaunchHostFunc(stream.handle, _host_function_pointer(cu), key)
        if status != cu.CUresult.CUDA_SUCCESS:
            del _pending_host_functions[key]
            _raise_unless_success(cu, status, "queueing a host function")

    # -- stream capture and graphs -------------------------------------------------------

    def begin_capture(self, stream, mode) -> None:
        cu = self._cu
        modes = cu.CUstreamCaptureMode
        value = {"global": modes.CU_STREAM_CAPTURE_MODE_GLOBAL,
                 "thread_local": modes.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                 "relaxed": modes.CU_STREAM_CAPTURE_MODE_RELAXED}[mode]
        (status,) = cu.cuStreamBeginCapture(stream.handle, value)     # the _v2 entry point
        _raise_unless_success(cu, status, "beginning a stream capture")

    def end_capture(self, stream):
        cu = self._cu
        status, graph = cu.cuStreamEndCapture(stream.handle)
        _raise_unless_success(cu, status, "ending a stream capture")
        status, executable = cu.cuGraphInstantiateWithFlags(graph, 0)
        if status != cu.CUresult.CUDA_SUCCESS:
            cu.cuGraphDestroy(graph)
            _raise_unless_success(cu, status, "instantiating a captured graph")
        return _Graph(graph, executable)

    def is_capturing(self, stream) -> bool:
        cu = self._cu
        status, state = cu.cuStreamIsCapturing(stream.handle)
        _raise_unless_success(cu, status, "reading a stream's capture status")
        return state != cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE

    def graph_launch(self, graph, stream) -> None:
        (status,) = self._cu.cuGraphLaunch(graph.executable, stream.handle)
        _raise_unless_success(self._cu, status, "launching a graph")

    def graph_destroy(self, graph) -> None:
        cu = self._cu
        (status,) = cu.cuGraphExecDestroy(graph.executable)
        _raise_unless_success(cu, status, "destroying a graph")
        (status,) = cu.cuGraphDestroy(graph.graph)
        _raise_unless_success(cu, status, "destroying a graph")

    # -- copies -------------------------------------------------------------------------

    def _check(self, result, what):
        status = result[0] if isinstance(result, tuple) else result
        if status != self._cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"asnumpy (cuda): {what} failed: {status!r}")

    # The driver itself makes pageable copies safe (see the module's notes): a
    # pageable source is staged before cuMemcpyHtoDAsync returns, and a copy to
    # pageable memory returns once done; pinned memory makes both asynchronous.
    def copy_htod(self, dst, host, nbytes, stream) -> None:
        self._check(self._cu.cuMemcpyHtoDAsync(dst, host.ctypes.data, nbytes, stream.handle),
                    "host-to-device copy")

    def copy_dtoh(self, host, src, nbytes, stream) -> None:
        self._check(self._cu.cuMemcpyDtoHAsync(host.ctypes.data, src, nbytes, stream.handle),
                    "device-to-host copy")

    def copy_dtod(self, dst, src, nbytes, stream) -> None:
        self._check(self._cu.cuMemcpyAsync(dst, src, nbytes, stream.handle),
                    "device-to-device copy")

    # -- pinned host memory and strided copies --------------------------------------------

    def alloc_pinned(self, nbytes):
        cu = self._cu
        status, context = cu.cuCtxGetCurrent()
        if status == cu.CUresult.CUDA_SUCCESS and int(context) == 0:
            self.make_current(0)     # cuMemHostAlloc needs a context; PORTABLE serves all
        status, pointer = cu.cuMemHostAlloc(nbytes, cu.CU_MEMHOSTALLOC_PORTABLE)
        if status == cu.CUresult.CUDA_ERROR_OUT_OF_MEMORY:
            raise MemoryError(f"asnumpy (cuda): no page-locked host memory for {nbytes} bytes")
        self._check(status, "page-locked host allocation")
        return np.asarray(_PinnedMemory(cu, int(pointer), nbytes))

    def max_pitch(self, i) -> int:
        status, value = self._cu.cuDeviceGetAttribute(
            self._cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_PITCH, i)
        self._check(status, "reading the largest pitch")
        return int(value)

    def copy_strided(self, kind, dst, dst_pitches, src, src_pitches, width, counts,
                     stream) -> None:
        cu = self._cu
        rows = counts[0]
        slices = counts[1] if len(counts) > 1 else 1
        if slices > 1 and all(p[1] % p[0] == 0 and p[1] // p[0] >= rows
                              for p in (dst_pitches, src_pitches)):
            # slices a whole number of rows apart on both sides: one 3D copy
            copy = cu.CUDA_MEMCPY3D()
            _set_sides(cu, copy, kind, dst, dst_pitches[0], src, src_pitches[0])
            copy.srcHeight = src_pitches[1] // src_pitches[0]
            copy.dstHeight = dst_pitches[1] // dst_pitches[0]
            copy.WidthInBytes, copy.Height, copy.Depth = width, rows, slices
            self._check(cu.cuMemcpy3DAsync(copy, stream.handle), "3D copy")
            return
        for z in range(slices):          # one 2D copy per slice
            step_dst = dst_pitches[1] * z if z else 0
            step_src = src_pitches[1] * z if z else 0
            copy = cu.CUDA_MEMCPY2D()
            _set_sides(cu, copy, kind, dst + step_dst, dst_pitches[0], src + step_src,
                       src_pitches[0])
            copy.WidthInBytes, copy.Height = width, rows
            self._check(cu.cuMemcpy2DAsync(copy, stream.handle), "2D copy")

    # -- kernels ------------------------------------------------------------------------

    def launch(self, i, source, kernel_name, grid, block, shared_bytes, args, stream) -> None:
        # ``args`` are exact: the back end marshals them to the kernel's parameter
        # types (arguments.py), which is what cuda-core's launch packs them as.
        # Kernels and launch configurations are cached, so a repeated launch
        # is two dictionary lookups and cuda-core's own launch.
        key = (i, kernel_name)
        kernel = self._modules.get(key)
        if kernel is None:
            kernel = self._load_kernel(i, source, kernel_name)
        shape = (grid, block, shared_bytes)
        config = self._configs.get(shape)
        if config is None:
            config = self._configs[shape] = self._core.LaunchConfig(
                grid=grid, block=block, shmem_size=shared_bytes)
        self._core.launch(stream, config, kernel, *args)

    def _load_kernel(self, i, source, kernel_name):
        """Compile (through the caches) and load ``source`` once per device, then take
        ``kernel_name`` from it (a source may hold several kernels)."""
        device = self._device(i)
        with self._lock:
            module = self._objects.get((i, source))
            if module is None:
                cubin = compiler.compile_module(source, f"sm_{device.arch}")
                module = self._objects[i, source] = self._core.ObjectCode.from_cubin(cubin)
            kernel = self._modules[i, kernel_name] = module.get_kernel(kernel_name)
        return kernel


def _set_sides(cu, copy, kind, dst, dst_pitch, src, src_pitch) -> None:
    """Fill the source and destination of a CUDA_MEMCPY2D/3D for a copy of ``kind``."""
    host, device = cu.CUmemorytype.CU_MEMORYTYPE_HOST, cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    src_host, dst_host = kind == "htod", kind == "dtoh"
    copy.srcMemoryType = host if src_host else device
    copy.dstMemoryType = host if dst_host else device
    if src_host:
        copy.srcHost = src
    else:
        copy.srcDevice = src
    if dst_host:
        copy.dstHost = dst
    else:
        copy.dstDevice = dst
    copy.srcPitch, copy.dstPitch = src_pitch, dst_pitch


class _PinnedMemory:
    """Page-locked host memory from cuMemHostAlloc, exposed to NumPy; freed with the
    last array over it."""

    def __init__(self, cu, pointer, nbytes):
        self._cu, self._pointer = cu, pointer
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (pointer, False)}

    def __del__(self):
        try:
            self._cu.cuMemFreeHost(self._pointer)
        except Exception:            # interpreter shutdown: the bindings may be gone
            pass


class _Graph:
    """A captured CUgraph and its instantiation (CUgraphExec)."""

    __slots__ = ("graph", "executable")

    def __init__(self, graph, executable):
        self.graph, self.executable = graph, executable


class _ForeignMemory:
    """Device memory that another library owns: ``handle`` is its address (as for
    cuda-core's buffers); ``owner`` keeps it allocated."""

    __slots__ = ("handle", "owner")

    def __init__(self, pointer, owner):
        self.handle, self.owner = pointer, owner


class _ExternalStream:
    """A CUDA stream that another library owns, with cuda-core's record / wait / sync."""

    def __init__(self, cu, handle):
        self._cu, self.handle = cu, cu.CUstream(handle)

    def record(self, event) -> None:
        (status,) = self._cu.cuEventRecord(event.handle, self.handle)
        _raise_unless_success(self._cu, status, "event record on a foreign stream")

    def wait(self, event) -> None:
        (status,) = self._cu.cuStreamWaitEvent(self.handle, event.handle, 0)
        _raise_unless_success(self._cu, status, "wait on a foreign stream")

    def sync(self) -> None:
        (status,) = self._cu.cuStreamSynchronize(self.handle)
        _raise_unless_success(self._cu, status, "synchronizing a foreign stream")


# Host functions: one C trampoline (a ctypes callback, which takes the GIL) runs the
# Python callable queued under the key it is handed as user data.
_pending_host_functions: dict = {}
_host_function_keys = itertools.count(1)
_HOST_FUNCTION_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_HOST_FUNCTION_TYPE
def _run_host_function(key):
    fn = _pending_host_functions.pop(key, None)
    if fn is not None:
        fn()                             # errors: the back end's wrapper keeps them


_host_function_cache: list = []          # [CUhostFn of the trampoline], made once


def _host_function_pointer(cu):
    if not _host_function_cache:
        address = ctypes.cast(_run_host_function, ctypes.c_void_p).value
        _host_function_cache.append(cu.CUhostFn(address))
    return _host_function_cache[0]


def _raise_unless_success(cu, status, what) -> None:
    if status != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"asnumpy (cuda): {what} failed: {status!r}")


def load_driver():
    """The driver named by ``ASNUMPY_CUDA_DRIVER`` (``module:attribute``), else cuda-core's.

    Raises DeviceUnavailableError (with the reason) when no driver can serve.
    """
    spec = os.environ.get("ASNUMPY_CUDA_DRIVER")
    if spec:
        module, _, attribute = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module), attribute or "Driver")
        except (ImportError, AttributeError) as exc:   # a typo: cuda unavailable, cpu works
            raise DeviceUnavailableError(
                f"the driver named by ASNUMPY_CUDA_DRIVER={spec!r} cannot be loaded: "
                f"{exc}") from None
        return factory()
    return CudaCoreDriver()
