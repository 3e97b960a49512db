"""A host emulation of the cuda back end's driver, for machines without a GPU.

``ASNUMPY_CUDA_DRIVER=_cuda_emulator:Driver`` makes ``cuda:0`` and
``cuda:1`` appear on any machine with g++.  Device memory is host memory,
and ``launch`` compiles the very source that NVRTC would get for the host
(``_cuda_host.build``) and runs the grid block after block with one thread
per block.  Everything above the driver -- pool, streams, transfers, the
host fallback, kernel rendering and argument marshalling -- is the real
back end.

The emulator is strict where the CUDA driver is, so a back-end bug that a
GPU would expose shows up here as an error or a wrong number:

* **Contexts.** Two GPUs with distinct primary contexts; the current context
  is per thread and a new thread has none (``make_current(i)`` sets it).
  Every allocation, free, copy, launch, stream and event call checks that the
  owning device's context is current and raises :class:`CUDAError`
  (``CUDA_ERROR_INVALID_CONTEXT``) otherwise.
* **Timelines.** Each stream is its own deferred queue: ``_enqueue(stream,
  work)`` only queues.  Work runs when something forces it -- a stream or
  event synchronize, an event or stream query (which answers for the state
  *before* it made progress), a stream reaching a wait on an event recorded
  elsewhere, a device synchronize, or a copy into pageable host memory
  (which forces its own stream only).  A device synchronize drains streams
  in reverse order of their last enqueue, so work that is not ordered by an
  event runs in the order least likely to be the intended one.
* **Stream-ordered free.** ``free(i, handle, stream)`` releases the memory
  when the stream reaches it, after filling it with a poison pattern; the
  emulator keeps all memory alive (poisoned once freed), so work queued on
  freed memory reads garbage and never touches memory the host reused.  As
  cudaMallocAsync's pool may, ``alloc`` hands out memory whose free is still
  queued, with the default stream (where it allocates) made to wait for it.
* **Capacity.** Each GPU has ``capacity[i]`` bytes (``total_memory``); an
  allocation beyond what is allocated and not yet freed (in stream order)
  fails with ``CUDA_ERROR_OUT_OF_MEMORY``, as cuda-core raises it.
* **Stream capture** (``begin_capture`` / ``end_capture`` / ``graph_launch``,
  i.e. cuStreamBeginCapture_v2, cuStreamEndCapture + cuGraphInstantiateWithFlags,
  cuGraphLaunch): work queued on a capturing stream is recorded, not run, and a
  graph launch queues the recorded work again, in order, on the launch stream,
  with the same addresses.  The real driver's rules hold: no capture on the
  legacy stream; synchronizing or querying the capturing stream or an event
  recorded in the capture, a copy with pageable host memory on it, a wait on
  an event recorded outside the capture without CU_EVENT_WAIT_EXTERNAL, and
  -- while a ``"global"`` capture is open on any thread, or a
  ``"thread_local"`` one on this thread -- cuStreamSynchronize,
  cuCtxSynchronize, a pageable device-to-host copy and cuMemAlloc
  (``alloc_sync``) fail with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and
  invalidate the capture, whose later work and end then fail with
  CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
"""

from __future__ import annotations

import collections
import ctypes
import re
import threading
import time
import weakref

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


# Kernel arguments, checked as strictly as a GPU would mangle them.  cuda-core's launch
# packs each argument by its Python type (_PACKED: a Python int as an intptr_t, a float
# as a double; numpy.longlong and numpy.ulonglong it rejects) and the kernel reads the
# bytes as its declared parameter type: any difference is a TypeError here.  (A half by
# value has no portable calling convention: the kernels take its bits, unsigned short.)
_PACKED = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
           complex: np.dtype(np.complex128)}
_PACKED.update({t: np.dtype(t) for t in (
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)})
_DECLARED = {"bool": np.bool_, "signed char": np.int8, "unsigned char": np.uint8,
             "short": np.int16, "unsigned short": np.uint16, "int": np.int32,
             "unsigned int": np.uint32, "long long": np.int64, "unsigned long long": np.uint64,
             "float": np.float32, "double": np.float64,
             "asn_complex64": np.complex64, "asn_complex128": np.complex128}
_PARAMETER_LISTS: dict = {}


def _declared_types(source, kernel_name):
    """The C types of ``kernel_name``'s parameters, read from its definition in ``source``."""
    key = (kernel_name, len(source))
    if key not in _PARAMETER_LISTS:
        found = re.search(r"__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+"
                          + re.escape(kernel_name) + r"\s*\(([^)]*)\)", source)
        if found is None:
            raise TypeError(f"no kernel {kernel_name!r} in the module")
        _PARAMETER_LISTS[key] = [" ".join(p.split()[:-1]) for p in found.group(1).split(",")
                                 if p.strip()]
    return _PARAMETER_LISTS[key]


def _c_value(value, declared):
    """``value`` as the ctypes value of a parameter declared ``declared``, or TypeError."""
    packed = _PACKED.get(type(value))
    if packed is None:
        raise TypeError(f"cuda-core cannot pass a {type(value).__name__} kernel argument")
    if declared.endswith("*"):
        if packed.kind not in "iu" or packed.itemsize != 8:
            raise TypeError(f"a {packed} argument for the pointer parameter {declared!r}")
        return ctypes.c_void_p(int(value))
    want = np.dtype(_DECLARED.get(declared, np.void))
    if packed != want:
        raise TypeError(f"a {packed} argument ({value!r}) for a {declared!r} parameter")
    value = np.asarray(value, want)
    if want.kind == "c":
        return (_Complex64 if want == np.complex64 else _Complex128)(value.real, value.imag)
    return _CTYPES[want](value.item())


def _c_values(source, kernel_name, args):
    """The ctypes values of a launch's ``args``, each checked against its declared type."""
    declared = _declared_types(source, kernel_name)
    if len(declared) != len(args):
        raise TypeError(f"kernel {kernel_name} takes {len(declared)} arguments, got {len(args)}")
    return [_c_value(a, t) for a, t in zip(args, declared)]


class CUDAError(RuntimeError):
    """A failed driver call, named by its CUresult as cuda-core's errors are."""


_POISON = 0xA5          # what freed memory reads as once its free has run


class _Context:
    """A device's primary context."""

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"<primary context of cuda:{self.index}>"


class _Stream:
    """A stream's timeline: ``queue`` holds work not yet run, in order.

    Tickets number the work ever queued (``queued``) and run (``ran``); an
    event recorded on the stream completes when ``ran`` reaches its ticket.
    """

    def __init__(self, device, handle=None):
        self.device = device
        self.handle = id(self) if handle is None else handle   # a cudaStream_t stand-in
        self.queue = collections.deque()
        self.queued = self.ran = 0
        self.last_enqueue = 0           # the driver's enqueue clock when work last came
        self.running = False
        self.destroyed = False
        self.errors = []                # errors raised by queued work, for sync()
        self.capture = None             # the open _Capture while the stream captures

    def __repr__(self):
        return f"<emulated stream {self.handle:#x} of cuda:{self.device}>"


# CUstreamCaptureMode (cuda.h)
CAPTURE_MODES = {"global": 0, "thread_local": 1, "relaxed": 2}


class _Capture:
    """A capture open on one stream: the work recorded, and why it is invalid."""

    def __init__(self, stream, mode):
        self.stream, self.mode = stream, mode
        self.thread = threading.get_ident()
        self.nodes = []                 # callables, in the order queued
        self.invalid = None             # the call that invalidated it

    def forbids_unsafe_calls(self, thread):
        # CUDA: this thread's non-relaxed capture, or any thread's global one
        return (self.mode == "global" or
                (self.mode == "thread_local" and self.thread == thread))


class _GraphExec:
    """An instantiated graph: the captured work, replayed by graph_launch."""

    def __init__(self, device, nodes):
        self.device, self.nodes = device, tuple(nodes)
        self.destroyed = False


class _ForeignMemory:
    """Exposes another library's memory to NumPy (``pointer`` reads its address)."""

    def __init__(self, owner, address, nbytes):
        self.owner = owner
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (address, False)}


class _Event:
    """A recorded point of a stream: complete once the stream's work up to it has run."""

    def __init__(self, device):
        self.device = device
        self.stream, self.ticket = None, 0      # unrecorded: complete
        self.time = None
        self.captured = None                    # the _Capture it was recorded in, if any


class Driver:
    """The driver interface of ``asnumpy.backends.cuda.driver``, on the host."""

    def __init__(self):
        self.launches = []                 # kernel names, for tests that count them
        self._contexts = [_Context(i) for i in range(DEVICES)]
        self._thread = threading.local()   # .context: the context current on this thread
        # Forced work runs under this lock, on the forcing thread.
        self._lock = threading.RLock()
        self._clock = 0                    # counts enqueues, to order forced streams
        # the legacy default stream: cuda-core's default, CU_STREAM_LEGACY (0x1)
        self._defaults = [_Stream(i, handle=1) for i in range(DEVICES)]
        # per device: every stream not yet destroyed, or destroyed with work pending
        self._streams = [[stream] for stream in self._defaults]
        self._external: dict = {}          # (device, handle) -> _Stream of a foreign handle
        self._allocations: dict = {}       # pointer -> memory, until its free has run
        self._pending_frees = [[] for _ in range(DEVICES)]   # frees queued, not yet run
        self._released: list = []          # memory whose free has run (never reused)
        self.capacity = [MEMORY] * DEVICES  # bytes each GPU has (see "capacity" below)
        self._in_use = [0] * DEVICES
        self.freed = 0                     # frees that have run (stream order)
        # transfers (see "pinned host memory and strided copies" below)
        # (kind, "1d"/"2d"/"3d", bytes, host pinned?), the latest ones (a whole suite copies
        # a lot)
        self.transfers = collections.deque(maxlen=1 << 16)
        self.pinned_allocations = 0
        self._pinned = weakref.WeakValueDictionary()   # address -> pinned allocation
        self._captures = []                # the _Captures open now, on every thread
        self.graph_launches = 0

    # -- contexts -----------------------------------------------------------------------

    def make_current(self, i):
        """Make device ``i``'s primary context current on this thread (cuCtxSetCurrent)."""
        self._thread.context = self._contexts[i]

    def current_device(self):
        """The device whose context is current on this thread, None when there is none."""
        context = getattr(self._thread, "context", None)
        return None if context is None else context.index

    def _check(self, i, what):
        context = getattr(self._thread, "context", None)
        if context is not self._contexts[i]:
            raise CUDAError(
                f"CUDA_ERROR_INVALID_CONTEXT: {what} on cuda:{i} with "
                f"{'no context' if context is None else context} current on thread "
                f"{threading.current_thread().name!r}")

    # -- devices ------------------------------------------------------------------------

    def device_count(self):
        return DEVICES

    def name(self, i):
        return f"host emulation {i}"

    def arch(self, i):
        return "sm_90"

    def total_memory(self, i):
        return self.capacity[i]

    # -- memory -------------------------------------------------------------------------

    def alloc(self, i, nbytes):
        self._check(i, "cuMemAllocAsync")
        memory = self._reuse_pending_free(i, nbytes)
        if memory is not None:
            return memory
        self._claim(i, nbytes)
        memory = np.empty(nbytes, np.uint8)
        self._allocations[memory.ctypes.data] = memory
        return memory

    def alloc_sync(self, i, nbytes):
        """cuMemAlloc: synchronous, so an unsafe call during a capture (not used by the
        back end, which allocates stream-ordered; a hook for the driver-level tests)."""
        self._check(i, "cuMemAlloc")
        self._refuse_unsafe("cuMemAlloc")
        return self.alloc(i, nbytes)

    def free(self, i, handle, stream):
        """Release ``handle`` once ``stream`` reaches this point (cuMemFreeAsync)."""
        self._check(i, "cuMemFreeAsync")
        self._check_stream(stream, i, "cuMemFreeAsync")
        address = handle.ctypes.data
        pending = {"handle": handle, "stream": stream, "ticket": None, "reused": False}

        def release():
            handle.fill(_POISON)           # queued work that still reads it reads garbage
            self.freed += 1
            if pending["reused"]:          # allocated again, after this point: it lives on
                return
            self._forget_pending_free(i, pending)
            # kept, poisoned, for the driver's lifetime: work a broken back end still
            # queues on it reads garbage instead of crashing the process
            self._released.append(self._allocations.pop(address, handle))
            self._in_use[i] -= handle.nbytes

        with self._lock:
            self._enqueue(stream, release)
            pending["ticket"] = stream.queued
            self._pending_frees[i].append(pending)

    def _forget_pending_free(self, i, pending):
        # by identity: the entries hold arrays, which == would compare element-wise
        self._pending_frees[i] = [p for p in self._pending_frees[i] if p is not pending]

    def _reuse_pending_free(self, i, nbytes):
        """Memory whose free is still queued, as cudaMallocAsync's pool may hand it out:
        the allocating (default) stream then waits for the free's point."""
        with self._lock:
            for pending in self._pending_frees[i]:
                if pending["handle"].nbytes == nbytes and not pending["reused"]:
                    pending["reused"] = True
                    self._forget_pending_free(i, pending)
                    stream, ticket = pending["stream"], pending["ticket"]
                    self._enqueue(self._defaults[i], lambda: self._run_until(stream, ticket))
                    return pending["handle"]
        return None

    # -- capacity: a full GPU fails an allocation as cuMemAllocAsync does ----------------

    def _claim(self, i, nbytes):
        with self._lock:
            in_use = self._in_use[i]
            if in_use + nbytes > self.capacity[i]:
                raise CUDAError(
                    f"CUDA_ERROR_OUT_OF_MEMORY: cuMemAllocAsync of {nbytes:,} bytes on "
                    f"cuda:{i} with {in_use:,} of its {self.capacity[i]:,} bytes allocated")
            self._in_use[i] = in_use + nbytes

    def memory_in_use(self, i):
        """Bytes allocated on GPU ``i`` whose free has not run (a test hook)."""
        return self._in_use[i]

    @staticmethod
    def pointer(handle):
        return handle.ctypes.data

    @staticmethod
    def foreign_memory(i, pointer, nbytes, owner):
        return np.asarray(_ForeignMemory(owner, pointer, nbytes))

    # -- streams ------------------------------------------------------------------------

    def create_stream(self, i):
        self._check(i, "cuStreamCreate")
        stream = _Stream(i)
        self._streams[i].append(stream)
        return stream

    def destroy_stream(self, stream):
        """cuStreamDestroy: returns at once; queued work still runs (when forced)."""
        self._check_stream(stream, stream.device, "cuStreamDestroy")
        if stream.capture is not None:
            raise self._invalidate([stream.capture], "cuStreamDestroy of a capturing stream")
        stream.destroyed = True
        if not stream.queue:
            self._forget(stream)

    def default_stream(self, i):
        return self._defaults[i]

    def sync(self, stream):
        self._check_stream(stream, stream.device, "cuStreamSynchronize")
        if stream.capture is not None:
            raise self._invalidate([stream.capture], "cuStreamSynchronize of the capturing stream")
        self._refuse_unsafe("cuStreamSynchronize")
        self._run_until(stream, stream.queued)
        errors, stream.errors = stream.errors, []
        if errors:
            raise errors[0]

    def query(self, stream):
        self._check_stream(stream, stream.device, "cuStreamQuery")
        if stream.capture is not None:
            raise self._invalidate([stream.capture], "cuStreamQuery of the capturing stream")
        done = stream.ran == stream.queued
        self._run_until(stream, stream.queued)        # a poll makes progress
        return done

    def synchronize(self, i):
        """cuCtxSynchronize: all work of device ``i``, destroyed streams' included."""
        self._check(i, "cuCtxSynchronize")
        capturing = [c for c in self._captures if c.stream.device == i]
        if capturing:
            raise self._invalidate(capturing, "cuCtxSynchronize with a capturing stream")
        self._refuse_unsafe("cuCtxSynchronize")
        with self._lock:
            # latest-fed stream first: unordered work runs in its least likely order
            for stream in sorted(self._streams[i], key=lambda s: -s.last_enqueue):
                self._run_until(stream, stream.queued)
        errors = [e for stream in self._streams[i] for e in stream.errors]
        for stream in self._streams[i]:
            stream.errors = []
        if errors:
            raise errors[0]

    def live_streams(self, i):
        """Streams of device ``i`` created and not yet destroyed (a test hook)."""
        return [s for s in self._streams[i] if not s.destroyed and s not in self._defaults
                and s not in self._external.values()]

    def pending(self, stream):
        """How many queued operations ``stream`` has not run (a test hook; forces nothing)."""
        return stream.queued - stream.ran

    @staticmethod
    def stream_handle(stream):
        return stream.handle

    def external_stream(self, i, handle):
        """A foreign ``cudaStream_t``: one of ours when the handle is, else a stream of
        its own, the same one for the same handle."""
        if handle in (0, 1):                # NULL and legacy default: our default stream
            return self._defaults[i]
        for stream in self._streams[i]:
            if stream.handle == handle:
                return stream
        stream = _Stream(i, handle)
        self._external[(i, handle)] = stream
        self._streams[i].append(stream)
        return stream

    def _check_stream(self, stream, i, what):
        self._check(i, what)
        if stream.device != i:
            raise CUDAError(f"CUDA_ERROR_INVALID_HANDLE: {what}: {stream} is not a stream "
                            f"of cuda:{i}")
        if stream.destroyed:
            raise CUDAError(f"CUDA_ERROR_INVALID_HANDLE: {what} on a destroyed stream")

    # -- events -------------------------------------------------------------------------

    def create_event(self, i):
        self._check(i, "cuEventCreate")
        return _Event(i)

    def record(self, event, stream):
        self._check_stream(stream, event.device, "cuEventRecord")

        def mark():
            event.time = time.perf_counter()

        self._enqueue(stream, mark)
        event.captured = stream.capture          # a node of the capture, if it captures
        event.stream, event.ticket, event.time = stream, stream.queued, None

    def wait(self, stream, event, external=False):
        """Later work on ``stream`` waits for ``event`` (its latest record, as now).

        ``external``: CU_EVENT_WAIT_EXTERNAL, which a capturing stream needs to wait
        for an event recorded outside its capture (an event wait node).
        """
        self._check_stream(stream, stream.device, "cuStreamWaitEvent")
        capture = stream.capture
        if event.captured is not None and event.captured in self._captures:
            if event.captured is capture:        # one stream's capture: already in order
                return
            raise CUDAError("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: cuStreamWaitEvent on an "
                            "event recorded in another stream's capture (joining a capture "
                            "from another stream is not emulated)")
        if capture is not None and not external:
            raise self._invalidate(
                [capture], "cuStreamWaitEvent on an event recorded outside the capture "
                "without CU_EVENT_WAIT_EXTERNAL", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION")
        if external and capture is None:
            raise CUDAError("CUDA_ERROR_INVALID_VALUE: cuStreamWaitEvent: "
                            "CU_EVENT_WAIT_EXTERNAL outside stream capture")
        source, ticket = event.stream, event.ticket
        if source is not None and source is not stream:
            self._enqueue(stream, lambda: self._run_until(source, ticket))

    def event_sync(self, event):
        self._check(event.device, "cuEventSynchronize")
        self._refuse_captured_event(event, "cuEventSynchronize")
        if event.stream is not None:
            self._run_until(event.stream, event.ticket)

    def event_query(self, event):
        self._check(event.device, "cuEventQuery")
        self._refuse_captured_event(event, "cuEventQuery")
        if event.stream is None:
            return True
        done = event.stream.ran >= event.ticket
        self._run_until(event.stream, event.ticket)   # a poll makes progress
        return done

    def elapsed_ms(self, start, end):
        self._check(start.device, "cuEventElapsedTime")
        for event in (start, end):
            if event.stream is None or event.stream.ran < event.ticket:
                raise CUDAError("CUDA_ERROR_NOT_READY: cuEventElapsedTime on an event "
                                "that has not completed")
        return (end.time - start.time) * 1000.0

    # -- the timelines ------------------------------------------------------------------

    def _enqueue(self, stream, work):
        """Queue ``work()`` (a callable) on ``stream``: the one seam of stream-ordered work.

        Nothing runs now; see the module's notes for what forces it.
        """
        if stream.destroyed:
            raise CUDAError("CUDA_ERROR_INVALID_HANDLE: work queued on a destroyed stream")
        capture = stream.capture
        if capture is not None:             # recorded, not run (graph_launch runs it)
            if capture.invalid is not None:
                raise CUDAError(f"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: work queued on "
                                f"{stream}, whose capture {capture.invalid} invalidated")
            capture.nodes.append(work)
            return
        with self._lock:
            self._clock += 1
            stream.queue.append(work)
            stream.queued += 1
            stream.last_enqueue = self._clock

    def _run_until(self, stream, ticket):
        """Run ``stream``'s queued work up to ``ticket`` (on this thread)."""
        with self._lock:
            while stream.ran < ticket:
                if stream.running:
                    raise CUDAError("CUDA_ERROR_ILLEGAL_STATE: streams wait on each other "
                                    "in a cycle (a deadlock on a GPU)")
                work = stream.queue.popleft()
                stream.running = True
                try:
                    work()
                except Exception as exc:  # noqa: BLE001 - GPU work's fault: sync reports it
                    stream.errors.append(exc)
                finally:
                    stream.running = False
                    stream.ran += 1
            if stream.destroyed and not stream.queue:
                self._forget(stream)

    def _forget(self, stream):
        if stream in self._streams[stream.device] and not stream.errors:
            self._streams[stream.device].remove(stream)

    def launch_host_func(self, stream, fn):
        """cuLaunchHostFunc: ``fn()`` runs on the host when ``stream`` reaches it."""
        self._check_stream(stream, stream.device, "cuLaunchHostFunc")
        self._enqueue(stream, fn)

    # -- copies -------------------------------------------------------------------------

    def copy_htod(self, dst, host, nbytes, stream):
        # pageable source: staged now (the host may reuse it on return), copied in order
        self._check_stream(stream, stream.device, "cuMemcpyHtoDAsync")
        pinned = self._pinned_owner(host.ctypes.data) is not None
        self._refuse_pageable_copy(stream, pinned, "cuMemcpyHtoDAsync")
        if self._note_transfer("htod", "1d", nbytes, host.ctypes.data):
            # pinned source: read when the stream gets there, as a DMA engine does
            self._enqueue(stream, lambda: ctypes.memmove(dst, host.ctypes.data, nbytes))
            return
        staged = np.frombuffer(ctypes.string_at(host.ctypes.data, nbytes), np.uint8)
        self._enqueue(stream, lambda: ctypes.memmove(dst, staged.ctypes.data, nbytes))

    def copy_dtoh(self, host, src, nbytes, stream):
        # pageable destination: returns once copied, having forced this stream only
        self._check_stream(stream, stream.device, "cuMemcpyDtoHAsync")
        pinned = self._pinned_owner(host.ctypes.data) is not None
        self._refuse_pageable_copy(stream, pinned, "cuMemcpyDtoHAsync", dtoh=True)
        self._enqueue(stream, lambda: ctypes.memmove(host.ctypes.data, src, nbytes))
        if not self._note_transfer("dtoh", "1d", nbytes, host.ctypes.data):
            self._run_until(stream, stream.queued)

    def copy_dtod(self, dst, src, nbytes, stream):
        self._check_stream(stream, stream.device, "cuMemcpyAsync")
        self._note_transfer("dtod", "1d", nbytes, None)
        self._enqueue(stream, lambda: ctypes.memmove(dst, src, nbytes))

    # -- pinned host memory and strided copies (the transfers' block) -------------------

    MAX_PITCH = (1 << 31) - 1

    def alloc_pinned(self, nbytes):
        """Host memory the emulator treats as page-locked: copies through it stay queued."""
        memory = np.empty(nbytes, np.uint8)
        self._pinned[memory.ctypes.data] = memory
        self.pinned_allocations += 1
        return memory

    def _pinned_owner(self, address):
        """The pinned allocation holding ``address``, or None (pageable memory)."""
        for start, memory in list(self._pinned.items()):
            if start <= address < start + memory.nbytes:
                return memory
        return None

    def _note_transfer(self, kind, shape, nbytes, host_address):
        """Log a copy for tests; True when its host side is pinned memory."""
        pinned = host_address is not None and self._pinned_owner(host_address) is not None
        self.transfers.append((kind, shape, nbytes, pinned))
        return pinned

    def max_pitch(self, i):
        return self.MAX_PITCH

    def copy_strided(self, kind, dst, dst_pitches, src, src_pitches, width, counts, stream):
        """cuMemcpy2DAsync (one count) / cuMemcpy3DAsync (two): rows of ``width`` bytes."""
        what = "cuMemcpy2DAsync" if len(counts) == 1 else "cuMemcpy3DAsync"
        self._check_stream(stream, stream.device, what)
        if len(counts) != len(dst_pitches) or len(counts) != len(src_pitches) or not (
                0 < len(counts) <= 2):
            raise CUDAError(f"CUDA_ERROR_INVALID_VALUE: {what}: counts {counts} and pitches "
                            f"{dst_pitches}, {src_pitches} do not match")
        for pitches in (dst_pitches, src_pitches):
            if not width <= pitches[0] <= self.MAX_PITCH or (
                    len(pitches) == 2 and pitches[1] < pitches[0] * (counts[0] - 1) + width):
                raise CUDAError(f"CUDA_ERROR_INVALID_VALUE: {what}: pitches {pitches} for "
                                f"rows of {width} bytes")
        shape = (counts[1] if len(counts) == 2 else 1, counts[0], width)
        host = dst if kind == "dtoh" else src if kind == "htod" else None
        if host is not None:
            self._refuse_pageable_copy(stream, self._pinned_owner(host) is not None, what,
                                       dtoh=kind == "dtoh")
        pinned = self._note_transfer(kind, f"{len(counts) + 1}d",
                                     width * counts[0] * shape[0], host)
        dst_view = _strided_bytes(dst, dst_pitches, shape)
        src_view = _strided_bytes(src, src_pitches, shape)
        if kind == "htod" and not pinned:
            src_view = src_view.copy()     # a pageable source is staged before returning
        keep = self._pinned_owner(host) if pinned else None   # alive while queued

        def run():
            np.copyto(dst_view, src_view)
            return keep

        self._enqueue(stream, run)
        if kind == "dtoh" and not pinned:
            self._run_until(stream, stream.queued)

    # -- stream capture and graphs (see the module's notes) ------------------------------

    def begin_capture(self, stream, mode):
        """cuStreamBeginCapture_v2(stream, CU_STREAM_CAPTURE_MODE_<mode>)."""
        self._check_stream(stream, stream.device, "cuStreamBeginCapture")
        if mode not in CAPTURE_MODES:
            raise CUDAError(f"CUDA_ERROR_INVALID_VALUE: cuStreamBeginCapture: mode {mode!r}")
        if stream in self._defaults:
            raise CUDAError("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: cuStreamBeginCapture on "
                            "the legacy default stream")
        if stream.capture is not None:
            raise CUDAError(f"CUDA_ERROR_ILLEGAL_STATE: cuStreamBeginCapture: {stream} is "
                            "already capturing")
        with self._lock:
            stream.capture = _Capture(stream, mode)
            self._captures = [*self._captures, stream.capture]

    def is_capturing(self, stream):
        """cuStreamIsCapturing: True while capturing (an invalidated capture included)."""
        self._check_stream(stream, stream.device, "cuStreamIsCapturing")
        return stream.capture is not None

    def end_capture(self, stream):
        """cuStreamEndCapture, then cuGraphInstantiateWithFlags: the graph to launch."""
        self._check_stream(stream, stream.device, "cuStreamEndCapture")
        capture = stream.capture
        if capture is None:
            raise CUDAError(f"CUDA_ERROR_ILLEGAL_STATE: cuStreamEndCapture: {stream} is not "
                            "capturing")
        with self._lock:
            stream.capture = None
            self._captures = [c for c in self._captures if c is not capture]
        if capture.invalid is not None:
            raise CUDAError(f"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: cuStreamEndCapture: "
                            f"the capture was invalidated by {capture.invalid}")
        return _GraphExec(stream.device, capture.nodes)

    def graph_launch(self, graph, stream):
        """cuGraphLaunch: the graph's work, queued in order on ``stream``."""
        self._check_stream(stream, graph.device, "cuGraphLaunch")
        if graph.destroyed:
            raise CUDAError("CUDA_ERROR_INVALID_HANDLE: cuGraphLaunch of a destroyed graph")
        self.graph_launches += 1
        for node in graph.nodes:
            self._enqueue(stream, node)

    def graph_destroy(self, graph):
        """cuGraphExecDestroy and cuGraphDestroy."""
        self._check(graph.device, "cuGraphExecDestroy")
        graph.destroyed = True

    def _invalidate(self, captures, what, code="CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"):
        """Invalidate ``captures`` (``what`` did it); the error the call fails with."""
        for capture in captures:
            if capture.invalid is None:
                capture.invalid = what
        return CUDAError(f"{code}: {what} during stream capture")

    def _refuse_unsafe(self, what):
        """Fail an unsafe call (a synchronous one) that an open capture forbids."""
        thread = threading.get_ident()
        forbidding = [c for c in self._captures if c.forbids_unsafe_calls(thread)]
        if forbidding:
            raise self._invalidate(forbidding, what)

    def _refuse_captured_event(self, event, what):
        if event.captured is not None and event.captured in self._captures:
            raise self._invalidate([event.captured], f"{what} of an event recorded in the "
                                   "capture")

    def _refuse_pageable_copy(self, stream, pinned, what, dtoh=False):
        if stream.capture is not None and not pinned:
            raise self._invalidate([stream.capture], f"{what} with pageable host memory on "
                                   "the capturing stream")
        if dtoh and not pinned:       # returns once copied: synchronous
            self._refuse_unsafe(f"{what} to pageable host memory")

    # -- kernels ------------------------------------------------------------------------

    def launch(self, i, source, kernel_name, grid, block, shared_bytes, args, stream):
        self._check_stream(stream, i, "cuLaunchKernel")
        entry = ('\nextern "C" void asn_set_block(unsigned g, unsigned b) '
                 '{ gridDim.x = g; blockDim.x = 1u; blockIdx.x = b; threadIdx.x = 0u; }\n')
        library = build(source + entry)
        kernel = getattr(library, kernel_name)
        kernel.restype = None
        values = _c_values(source, kernel_name, args)        # arguments are copied at launch
        grid = grid[0] if isinstance(grid, tuple) else grid

        def run():
            for block_index in range(int(grid)):
                library.asn_set_block(ctypes.c_uint(int(grid)), ctypes.c_uint(block_index))
                kernel(*values)

        self._enqueue(stream, run)
        self.launches.append(kernel_name)


def _strided_bytes(address, pitches, shape):
    """A ``uint8`` NumPy view of ``shape`` (slices, rows, width) at ``address``."""
    slices, rows, width = shape
    slice_pitch = pitches[1] if len(pitches) == 2 else 0
    extent = slice_pitch * (slices - 1) + pitches[0] * (rows - 1) + width
    raw = np.ctypeslib.as_array((ctypes.c_uint8 * extent).from_address(address))
    return np.lib.stride_tricks.as_strided(raw, shape, (slice_pitch, pitches[0], 1))
