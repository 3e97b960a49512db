"""A strict emulation of CANN's ``libascendcl.so`` and ``libopapi.so``, for machines without Ascend.

``ASNUMPY_NPU_LIBRARIES=_npu_emulator:libraries`` hands the npu back end two
stand-in library objects instead of ``ctypes.CDLL``s.  Everything above them
-- the bindings' argument tables, the runtime, pool, streams, transfers,
descriptors, the two-phase launches and the host fallback -- is the real
back end.  The operators compute with NumPy on emulated device memory.

The emulator enforces the real API's rules, so a back-end bug that hardware
would expose shows up as an error code or a wrong number:

* **Bindings.** Every function checks that its ``argtypes``/``restype`` were
  set to :data:`acl_api.SIGNATURES`' entry and converts each argument by that
  type as ctypes would (``from_param``): a wrong type is a TypeError.
* **Devices.** ``aclInit`` first (else ``ACL_ERROR_UNINITIALIZE``; twice:
  ``ACL_ERROR_REPEAT_INITIALIZE``); ``DEVICES`` devices, filtered by
  ``ASCEND_RT_VISIBLE_DEVICES``; the current device is per thread, a new
  thread has none (``ACL_ERROR_RT_CONTEXT_NULL``), and memory, streams and
  events are used only on their own device.
* **Timelines.** Each stream is a deferred queue: copies and operators run
  only when forced -- synchronizing the stream, the device or an event, a
  stream reaching a wait on an event recorded elsewhere -- and forcing one
  stream runs no other (a device synchronize runs its streams in reverse
  order of their last enqueue), so a missing event reads stale data.
* **Memory.** ``capacity[i]`` bytes per device (ACL_ERROR_RT_MEMORY_ALLOCATION
  beyond them); fresh memory holds garbage; ``aclrtFree`` poisons the block
  at once, and queued work that touches a freed block fails the stream
  (ACL_ERROR_RT_AICORE_EXCEPTION at its synchronize).  Asynchronous copies
  need page-locked host memory (``aclrtMallocHost``) and read or write it
  when they *run*.
* **Two-phase operators.** A tensor descriptor must lie inside its
  allocation (storage and view); an executor runs once, under its own
  operator's name, with a workspace of at least the size reported, inside a
  live allocation; dtypes the real operators refuse (``REFUSED``) fail
  ``GetWorkspaceSize`` with ACLNN_ERR_PARAM_INVALID.
"""

from __future__ import annotations

import bisect
import ctypes
import itertools
import os
import threading
import time

import numpy as np

from asnumpy.backends.npu import acl_api

DEVICES = 2
MEMORY = 1 << 30
SOC = "Ascend910B3 (emulated)"
VERSION = (1, 0, 0)
_GARBAGE, _POISON = 0xAB, 0xCD
_ALIGN = 512

_DTYPE_OF = {code: dtype for dtype, code in acl_api.ACL_DTYPES.items()}
_FLOAT64 = np.dtype(np.float64)

# What the real operators refuse (their documented dtype lists, Atlas A2), independent of
# the back end's catalog: complex and wide unsigned everywhere; float64 and integers for the
# transcendental, rounding and cube (matmul) operators; floats for the bitwise ones.
_MATH = {"Exp", "Exp2", "Expm1", "Log", "Log2", "Log10", "Log1p", "Sqrt", "Sin", "Cos", "Tan",
         "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Floor",
         "Ceil", "Trunc", "Round", "Reciprocal", "Atan2", "PowTensorTensor", "FloorDivide",
         "RemainderTensorTensor", "Matmul", "Dot"}
_BITWISE = {"BitwiseAndTensor", "BitwiseOrTensor", "BitwiseXorTensor", "BitwiseNot"}
_NEVER = {np.dtype(c) for c in "HILQFD"}


def refused(operator: str, dtype) -> bool:
    """Whether the real ``aclnn<operator>`` refuses tensors of ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype in _NEVER and operator not in ("Cast", "InplaceCopy"):
        return True
    if operator in _MATH:
        return dtype.kind != "f" or dtype == _FLOAT64
    if operator in ("Sort", "ProdDim", "Sign"):
        return dtype == _FLOAT64 or dtype.kind in "bc"
    if operator in _BITWISE:
        return dtype.kind == "f"
    if operator == "Inverse":
        return dtype.kind != "f"
    if operator == "Slogdet":
        return dtype not in (np.dtype(np.float32), _FLOAT64)
    return False


class _Status(Exception):
    """An error status a call returns (with AscendCL's recent-error message)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _fail(name, message):
    codes = {value: key for key, value in acl_api.ERRORS.items()}
    raise _Status(codes[name], message)


class _Allocation:
    __slots__ = ("base", "nbytes", "device", "data", "freed")

    def __init__(self, base, nbytes, device):
        self.base, self.nbytes, self.device = base, nbytes, device
        self.data = np.full(nbytes, _GARBAGE, np.uint8)
        self.freed = False


class _Tensor:
    __slots__ = ("shape", "strides", "offset", "dtype", "allocation", "start", "storage")

    def view(self) -> np.ndarray:
        """The NumPy view of the described elements (fails on freed memory)."""
        if self.allocation is None:
            return np.empty(self.shape, self.dtype)
        if self.allocation.freed:
            _fail("ACL_ERROR_RT_AICORE_EXCEPTION",
                  f"an operator touched freed device memory at {self.allocation.base:#x}")
        itemsize = self.dtype.itemsize
        return np.ndarray(self.shape, self.dtype, buffer=self.allocation.data,
                          offset=self.start + self.offset * itemsize,
                          strides=tuple(s * itemsize for s in self.strides))


class _Stream:
    def __init__(self, device):
        self.device = device
        self.queue: list = []
        self.errors: list = []
        self.stamp = 0
        self.destroyed = False


class _Event:
    def __init__(self, device):
        self.device = device
        self.stream = None
        self.done = False
        self.time = None
        self.serial = 0


class _Executor:
    def __init__(self, operator, run, workspace):
        self.operator, self.run, self.workspace = operator, run, workspace
        self.used = False


class Emulator:
    """The state behind both libraries: one per :func:`libraries` call."""

    def __init__(self):
        visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
        physical = list(range(DEVICES))
        if visible is not None:
            try:
                ids = [int(t) for t in visible.split(",") if t.strip()]
            except ValueError:
                ids = []
            physical = [i for i in ids if 0 <= i < DEVICES]
        self.count = len(physical)
        self.capacity = [MEMORY] * self.count
        self.in_use = [0] * self.count
        self.initialized = False
        self.local = threading.local()
        self.lock = threading.RLock()
        self.bases: list = []              # sorted allocation bases
        self.allocations: dict = {}        # base -> _Allocation
        self.pinned: dict = {}             # address -> host array
        self.streams: dict = {}
        self.events: dict = {}
        self.tensors: dict = {}
        self.scalars: dict = {}
        self.int_arrays: dict = {}
        self.executors: dict = {}
        self.handles = itertools.count(0x1000, 16)
        self.cursor = [0] * self.count
        self.clock = itertools.count(1)
        self.message = ""
        self.launches: list = []           # (operator, dtypes) of every queued operator
        self.functions = {**self._runtime_functions(), **self._tensor_functions(),
                          **self._operator_functions()}

    # -- checks ------------------------------------------------------------------------

    def need_init(self):
        if not self.initialized:
            _fail("ACL_ERROR_UNINITIALIZE", "aclInit has not been called")

    def current(self) -> int:
        self.need_init()
        device = getattr(self.local, "device", None)
        if device is None:
            _fail("ACL_ERROR_RT_CONTEXT_NULL", "no device is set on this thread "
                  "(aclrtSetDevice)")
        return device

    def stream(self, handle) -> _Stream:
        stream = self.streams.get(handle)
        if stream is None or stream.destroyed:
            _fail("ACL_ERROR_RT_PARAM_INVALID", f"stream {handle!r} does not exist")
        if stream.device != self.current():
            _fail("ACL_ERROR_RT_STREAM_CONTEXT", f"stream of device {stream.device} used with "
                  f"device {self.current()} current")
        return stream

    def event(self, handle) -> _Event:
        event = self.events.get(handle)
        if event is None:
            _fail("ACL_ERROR_RT_PARAM_INVALID", f"event {handle!r} does not exist")
        return event

    def locate(self, pointer, nbytes=0, device=None) -> tuple:
        """(allocation, offset) of device memory ``[pointer, pointer + nbytes)``."""
        i = bisect.bisect_right(self.bases, pointer or 0) - 1
        allocation = self.allocations[self.bases[i]] if i >= 0 else None
        if (allocation is None or allocation.freed
                or pointer + nbytes > allocation.base + allocation.nbytes):
            _fail("ACL_ERROR_RT_PARAM_INVALID", f"{pointer!r} (+{nbytes} bytes) is not inside "
                  "a live device allocation")
        if device is not None and allocation.device != device:
            _fail("ACL_ERROR_RT_PARAM_INVALID", f"device memory of device {allocation.device} "
                  f"used on device {device}")
        return allocation, pointer - allocation.base

    def host(self, pointer, nbytes) -> np.ndarray:
        """The page-locked host bytes ``[pointer, pointer + nbytes)``."""
        for address, array in self.pinned.items():
            if address <= pointer and pointer + nbytes <= address + array.nbytes:
                return array[pointer - address:pointer - address + nbytes]
        _fail("ACL_ERROR_RT_PARAM_INVALID", f"host memory {pointer!r} is not page-locked "
              "(aclrtMallocHost): an asynchronous copy needs it")

    # -- timelines -----------------------------------------------------------------------

    def enqueue(self, stream, work):
        stream.queue.append(work)
        stream.stamp = next(self.clock)

    def force(self, stream, until=None):
        """Run ``stream``'s queue (up to and including the item ``until``)."""
        while stream.queue:
            work = stream.queue.pop(0)
            try:
                work()
            except _Status as status:
                stream.errors.append(status)
            if work is until:
                return

    def drain(self, stream):
        self.force(stream)
        if stream.errors:
            first, stream.errors = stream.errors[0], []
            raise first

    # -- the runtime ---------------------------------------------------------------------

    def _runtime_functions(self):
        e = self

        def aclInit(config):
            if e.initialized:
                _fail("ACL_ERROR_REPEAT_INITIALIZE", "aclInit was called before")
            e.initialized = True

        def aclFinalize():
            e.need_init()
            e.initialized = False

        def aclrtGetVersion(major, minor, patch):
            for out, value in zip((major, minor, patch), VERSION):
                out._obj.value = value

        def aclrtGetDeviceCount(count):
            e.need_init()
            count._obj.value = e.count

        def aclrtSetDevice(device):
            e.need_init()
            if not 0 <= device < e.count:
                _fail("ACL_ERROR_RT_INVALID_DEVICEID", f"device {device} does not exist "
                      f"({e.count} visible)")
            e.local.device = device

        def aclrtResetDevice(device):
            e.need_init()
            if getattr(e.local, "device", None) == device:
                e.local.device = None

        def aclrtGetDevice(device):
            device._obj.value = e.current()

        def aclrtSynchronizeDevice():
            device = e.current()
            streams = sorted((s for s in e.streams.values() if s.device == device),
                             key=lambda s: -s.stamp)
            for stream in streams:
                e.drain(stream)

        def aclrtGetMemInfo(attribute, free, total):
            device = e.current()
            free._obj.value = e.capacity[device] - e.in_use[device]
            total._obj.value = e.capacity[device]

        def aclrtMalloc(pointer, size, policy):
            device = e.current()
            if size == 0 or policy not in (0, 1, 2):
                _fail("ACL_ERROR_RT_PARAM_INVALID", f"aclrtMalloc(size={size}, policy={policy})")
            if e.in_use[device] + size > e.capacity[device]:
                _fail("ACL_ERROR_RT_MEMORY_ALLOCATION", f"device {device}: {size} bytes "
                      f"requested, {e.capacity[device] - e.in_use[device]} free")
            base = ((device + 1) << 40) + e.cursor[device]
            e.cursor[device] += -(-size // _ALIGN) * _ALIGN + _ALIGN
            e.allocations[base] = _Allocation(base, size, device)
            bisect.insort(e.bases, base)
            e.in_use[device] += size
            pointer._obj.value = base

        def aclrtFree(pointer):
            device = e.current()
            allocation = e.allocations.get(pointer)
            if allocation is None or allocation.freed:
                _fail("ACL_ERROR_RT_PARAM_INVALID", f"aclrtFree({pointer!r}): not an allocation")
            if allocation.device != device:
                _fail("ACL_ERROR_RT_PARAM_INVALID", f"memory of device {allocation.device} "
                      f"freed on device {device}")
            allocation.data[:] = _POISON      # freed at once: queued work now reads poison
            allocation.freed = True
            e.in_use[device] -= allocation.nbytes

        def aclrtMallocHost(pointer, size):
            e.need_init()
            array = np.full(max(size, 1), _GARBAGE, np.uint8)
            e.pinned[array.ctypes.data] = array
            pointer._obj.value = array.ctypes.data

        def aclrtFreeHost(pointer):
            if e.pinned.pop(pointer, None) is None:
                _fail("ACL_ERROR_RT_PARAM_INVALID", f"aclrtFreeHost({pointer!r})")

        def endpoints(kind, dst, src, count, device):
            """(write, read): functions that write/read the copy's bytes when it runs."""
            def device_side(pointer):
                allocation, offset = e.locate(pointer, count, device)

                def get():
                    if allocation.freed:
                        _fail("ACL_ERROR_RT_AICORE_EXCEPTION", "a copy touched freed memory")
                    return allocation.data[offset:offset + count]
                return get

            def host_side(pointer, pinned):
                if pinned:
                    view = e.host(pointer, count)
                    return lambda: view
                view = np.ctypeslib.as_array((ctypes.c_uint8 * count).from_address(pointer))
                return lambda: view
            names = {0: ("host", "host"), 1: ("device", "host"), 2: ("host", "device"),
                     3: ("device", "device")}
            if kind not in names:
                _fail("ACL_ERROR_RT_PARAM_INVALID", f"aclrtMemcpyKind {kind}")
            return names[kind], device_side, host_side

        def copy(dst, dest_max, src, count, kind, pinned):
            device = e.current()
            if count > dest_max:
                _fail("ACL_ERROR_RT_PARAM_INVALID", f"count {count} > destMax {dest_max}")
            (to, frm), device_side, host_side = endpoints(kind, dst, src, count, device)
            write = device_side(dst) if to == "device" else host_side(dst, pinned)
            read = device_side(src) if frm == "device" else host_side(src, pinned)

            def work():
                write()[:] = read()
            return work

        def aclrtMemcpy(dst, dest_max, src, count, kind):
            if count:
                copy(dst, dest_max, src, count, kind, False)()   # at once: no stream waited

        def aclrtMemcpyAsync(dst, dest_max, src, count, kind, stream):
            stream = e.stream(stream)
            if count:
                e.enqueue(stream, copy(dst, dest_max, src, count, kind, True))

        def aclrtCreateStream(stream):
            handle = next(e.handles)
            e.streams[handle] = _Stream(e.current())
            stream._obj.value = handle

        def aclrtDestroyStream(stream):
            s = e.stream(stream)
            e.force(s)                   # its queued work still runs
            s.destroyed = True

        def aclrtSynchronizeStream(stream):
            e.drain(e.stream(stream))

        def aclrtCreateEvent(event):
            handle = next(e.handles)
            e.events[handle] = _Event(e.current())
            event._obj.value = handle

        def aclrtDestroyEvent(event):
            e.event(event)
            del e.events[event]

        def aclrtRecordEvent(event, stream):
            ev, s = e.event(event), e.stream(stream)
            ev.done, ev.stream, ev.serial = False, s, ev.serial + 1

            def mark():
                ev.done, ev.time = True, time.perf_counter()
            ev.marker = mark
            e.enqueue(s, mark)

        def reach(ev):
            if ev.stream is not None and not ev.done:
                e.force(ev.stream, ev.marker)

        def aclrtSynchronizeEvent(event):
            e.current()
            reach(e.event(event))

        def aclrtQueryEventStatus(event, status):
            e.current()
            ev = e.event(event)
            status._obj.value = int(ev.done or ev.stream is None)   # the state before ...
            reach(ev)                                               # ... progress is made

        def aclrtStreamWaitEvent(stream, event):
            s, ev = e.stream(stream), e.event(event)
            if ev.stream is not None and not ev.done:
                marker = ev.marker
                e.enqueue(s, lambda: ev.done or e.force(ev.stream, marker))

        def aclrtEventElapsedTime(ms, start, end):
            first, last = e.event(start), e.event(end)
            if not (first.done and last.done):
                _fail("ACL_ERROR_RT_PARAM_INVALID", "aclrtEventElapsedTime: an event has not "
                      "completed")
            ms._obj.value = (last.time - first.time) * 1000.0

        def aclGetRecentErrMsg():
            message, e.message = e.message, ""
            return message.encode() or None

        def aclrtGetSocName():
            return SOC.encode()

        return {name: fn for name, fn in locals().items() if name.startswith("acl")}

    # -- descriptors ---------------------------------------------------------------------

    def _tensor_functions(self):
        e = self

        def aclCreateTensor(dims, ndim, dtype, strides, offset, fmt, storage, nstorage, data):
            if dtype not in _DTYPE_OF or fmt not in (0, 1, 2):
                _fail("ACLNN_ERR_PARAM_INVALID", f"aclCreateTensor: dtype {dtype}, format {fmt}")
            tensor = _Tensor()
            tensor.shape = tuple(dims[i] for i in range(ndim))
            tensor.strides = tuple(strides[i] for i in range(ndim))
            tensor.offset, tensor.dtype = offset, _DTYPE_OF[dtype]
            tensor.storage = int(np.prod([storage[i] for i in range(nstorage)], dtype=np.int64))
            itemsize = tensor.dtype.itemsize
            if any(n < 0 for n in tensor.shape) or any(s < 0 for s in tensor.strides) \
                    or offset < 0:
                _fail("ACLNN_ERR_PARAM_INVALID", "aclCreateTensor: negative dims, strides or "
                      f"offset {tensor.shape} {tensor.strides} {offset}")
            if 0 not in tensor.shape:
                last = offset + sum((n - 1) * s for n, s in zip(tensor.shape, tensor.strides))
                if last >= tensor.storage:
                    _fail("ACLNN_ERR_PARAM_INVALID", f"aclCreateTensor: view reaches element "
                          f"{last} of a storage of {tensor.storage}")
            if tensor.storage:
                tensor.allocation, tensor.start = e.locate(data, tensor.storage * itemsize)
            else:
                tensor.allocation, tensor.start = None, 0
            handle = next(e.handles)
            e.tensors[handle] = tensor
            return handle

        def aclCreateScalar(value, dtype):
            if dtype not in acl_api.SCALAR_CTYPES:
                _fail("ACLNN_ERR_PARAM_INVALID", f"aclCreateScalar: dtype {dtype}")
            raw = acl_api.SCALAR_CTYPES[dtype].from_address(value).value
            number = (np.uint16(raw).view(np.float16) if dtype == 1
                      else np.asarray(raw, _DTYPE_OF[dtype])[()])
            handle = next(e.handles)
            e.scalars[handle] = number
            return handle

        def aclCreateIntArray(values, size):
            handle = next(e.handles)
            e.int_arrays[handle] = tuple(values[i] for i in range(size))
            return handle

        def destroyer(table, what):
            def destroy(handle):
                if table.pop(handle, None) is None:
                    _fail("ACLNN_ERR_PARAM_INVALID", f"aclDestroy{what}({handle!r}): not a live "
                          f"{what}")
            return destroy

        return {"aclCreateTensor": aclCreateTensor, "aclCreateScalar": aclCreateScalar,
                "aclCreateIntArray": aclCreateIntArray,
                "aclDestroyTensor": destroyer(self.tensors, "Tensor"),
                "aclDestroyScalar": destroyer(self.scalars, "Scalar"),
                "aclDestroyIntArray": destroyer(self.int_arrays, "IntArray")}

    # -- operators -----------------------------------------------------------------------

    def _operator_functions(self):
        functions = {}
        for operator, params in acl_api.ACLNN_OPERATORS.items():
            functions[f"aclnn{operator}GetWorkspaceSize"] = self._planner(operator, params)
            functions[f"aclnn{operator}"] = self._launcher(operator)
        return functions

    def _argument(self, operator, kind, value):
        tables = {"tensor": self.tensors, "scalar": self.scalars, "int_array": self.int_arrays}
        if kind in tables:
            found = tables[kind].get(value)
            if found is None:
                _fail("ACLNN_ERR_PARAM_NULLPTR", f"aclnn{operator}: no live {kind} {value!r}")
            if kind == "tensor" and refused(operator, found.dtype):
                _fail("ACLNN_ERR_PARAM_INVALID", f"aclnn{operator} does not support "
                      f"{found.dtype} tensors")
            return found
        return value

    def _planner(self, operator, params):
        e = self

        def get_workspace_size(*args):
            *values, size, executor = args
            e.current()
            arguments = [e._argument(operator, kind, value) for kind, value in zip(params, values)]
            compute, workspace = _plan(operator, arguments)
            handle = next(e.handles)
            e.executors[handle] = _Executor(operator, compute, workspace)
            size._obj.value = workspace
            executor._obj.value = handle
        return get_workspace_size

    def _launcher(self, operator):
        e = self

        def launch(workspace, size, executor, stream):
            s = e.stream(stream)
            plan = e.executors.pop(executor, None)
            if plan is None or plan.operator != operator:
                _fail("ACLNN_ERR_PARAM_INVALID", f"aclnn{operator}: executor {executor!r} is not "
                      "a fresh one of this operator (each runs once)")
            if size < plan.workspace:
                _fail("ACLNN_ERR_PARAM_INVALID", f"aclnn{operator}: workspace of {size} bytes, "
                      f"{plan.workspace} needed")
            scratch = None
            if plan.workspace:
                allocation, offset = e.locate(workspace, plan.workspace, s.device)
                scratch = (allocation, offset)

            def work():
                if scratch is not None:
                    allocation, offset = scratch
                    if allocation.freed:
                        _fail("ACL_ERROR_RT_AICORE_EXCEPTION", f"aclnn{operator}: its workspace "
                              "was freed before it ran")
                    allocation.data[offset:offset + plan.workspace] = _GARBAGE   # scratch used
                with np.errstate(all="ignore"):       # the device raises no NumPy warnings
                    plan.run()
            e.launches.append(operator)
            e.enqueue(s, work)
        return launch

    # -- the library objects -----------------------------------------------------------------

    def call(self, name, args):
        """Run ``name``: a status (0 on success), or the handle or text it returns (NULL on
        failure), the failure's text kept for aclGetRecentErrMsg."""
        status_call = acl_api.SIGNATURES[name][0] is ctypes.c_int
        with self.lock:
            try:
                result = self.functions[name](*args)
            except _Status as status:
                self.message = f"{name}: {status}"
                return status.code if status_call else None
        return 0 if status_call else result


def _bad(operator, message):
    _fail("ACLNN_ERR_PARAM_INVALID", f"aclnn{operator}: {message}")


def _write(operator, tensor, value):
    out = tensor.view()
    if out.shape != np.shape(value):
        _bad(operator, f"out has shape {out.shape}, the result {np.shape(value)}")
    with np.errstate(all="ignore"):
        out[...] = value


_UNARY = {"Exp": np.exp, "Exp2": np.exp2, "Expm1": np.expm1, "Log": np.log, "Log2": np.log2,
          "Log10": np.log10, "Log1p": np.log1p, "Sqrt": np.sqrt, "Abs": np.absolute,
          "Neg": np.negative, "Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin,
          "Acos": np.arccos, "Atan": np.arctan, "Sinh": np.sinh, "Cosh": np.cosh,
          "Tanh": np.tanh, "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh,
          "Floor": np.floor, "Ceil": np.ceil, "Trunc": np.trunc, "Round": np.rint,
          "Sign": np.sign, "Reciprocal": np.reciprocal, "LogicalNot": np.logical_not,
          "BitwiseNot": np.invert}
_BINARY = {"Mul": np.multiply, "Div": np.true_divide, "Maximum": np.maximum,
           "Minimum": np.minimum, "Atan2": np.arctan2, "FloorDivide": np.floor_divide,
           "RemainderTensorTensor": np.remainder, "PowTensorTensor": np.power,
           "EqTensor": np.equal, "NeTensor": np.not_equal, "GtTensor": np.greater,
           "GeTensor": np.greater_equal, "LtTensor": np.less, "LeTensor": np.less_equal,
           "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or,
           "LogicalXor": np.logical_xor, "BitwiseAndTensor": np.bitwise_and,
           "BitwiseOrTensor": np.bitwise_or, "BitwiseXorTensor": np.bitwise_xor}
_COMPARES = {"EqTensor", "NeTensor", "GtTensor", "GeTensor", "LtTensor", "LeTensor",
             "LogicalAnd", "LogicalOr", "LogicalXor", "LogicalNot"}


def _result_dtype(operator, inputs, out):
    if operator in _COMPARES:
        if out.dtype != np.bool_:
            _bad(operator, f"a {out.dtype} out (bool expected)")
    elif any(t.dtype != out.dtype for t in inputs):
        _bad(operator, f"inputs {[str(t.dtype) for t in inputs]} with a {out.dtype} out")


def _reduced_shape(shape, dims, keep):
    dims = {d % len(shape) for d in dims} if shape else set()
    return tuple(1 if i in dims else n for i, n in enumerate(shape) if keep or i not in dims)


def _accumulator(dtype):
    return np.float32 if dtype == np.float16 else dtype


def _plan(operator, args):
    """(the computation run when the operator reaches its stream, workspace bytes)."""
    if operator in _UNARY:
        x, out = args
        _result_dtype(operator, [x], out)
        return (lambda: _write(operator, out, _UNARY[operator](x.view()))), 0
    if operator in _BINARY:
        a, b, out = args
        _result_dtype(operator, [a, b], out)
        return (lambda: _write(operator, out, _BINARY[operator](a.view(), b.view()))), 0
    if operator in ("Add", "Sub"):
        a, b, alpha, out = args
        _result_dtype(operator, [a, b], out)
        sign = np.add if operator == "Add" else np.subtract

        def run():
            other = b.view() if alpha == 1 else b.view() * alpha
            _write(operator, out, sign(a.view(), other.astype(out.dtype, copy=False)))
        return run, 0
    if operator == "Cast":
        x, dtype, out = args
        if _DTYPE_OF.get(dtype) != out.dtype:
            _bad(operator, f"dtype {dtype} with a {out.dtype} out")
        return (lambda: _write(operator, out, x.view().astype(out.dtype))), 0
    if operator == "InplaceCopy":
        target, source = args
        if len(source.shape) > len(target.shape):
            _bad(operator, f"a source of shape {source.shape} broadcast to {target.shape}")
        return (lambda: _write(operator, target, np.broadcast_to(
            source.view(), target.shape).astype(target.dtype))), 0
    if operator == "InplaceFillScalar":
        target, value = args
        return (lambda: _write(operator, target, np.full(target.shape, value, target.dtype))), 0
    if operator in ("ReduceSum", "Mean", "Amax", "Amin"):
        if operator in ("Amax", "Amin"):
            x, dims, keep, out = args
            dtype = out.dtype
        else:
            x, dims, keep, dtype, out = args
            if _DTYPE_OF.get(dtype) != out.dtype:
                _bad(operator, f"dtype {dtype} with a {out.dtype} out")
        if out.shape != _reduced_shape(x.shape, dims, keep):
            _bad(operator, f"out shape {out.shape} for dims {dims} of {x.shape}")
        axis = tuple(d % len(x.shape) for d in dims) if x.shape else None
        reduce = {"ReduceSum": np.sum, "Mean": np.mean, "Amax": np.amax, "Amin": np.amin}[operator]

        def run():
            view = x.view()
            if operator in ("ReduceSum", "Mean"):
                value = reduce(view, axis=axis, keepdims=keep, dtype=_accumulator(out.dtype))
            else:
                value = reduce(view, axis=axis, keepdims=keep)
            _write(operator, out, np.asarray(value).astype(out.dtype))
        return run, 4096
    if operator == "ProdDim":
        x, dim, keep, dtype, out = args
        if out.shape != _reduced_shape(x.shape, (dim,), keep):
            _bad(operator, f"out shape {out.shape} for dim {dim} of {x.shape}")
        return (lambda: _write(operator, out, np.prod(
            x.view(), axis=dim, keepdims=keep, dtype=_accumulator(out.dtype)).astype(
                out.dtype))), 4096
    if operator in ("ArgMax", "ArgMin"):
        x, dim, keep, out = args
        if out.dtype != np.int64 or out.shape != _reduced_shape(x.shape, (dim,), keep):
            _bad(operator, f"out {out.dtype}{out.shape} for dim {dim} of {x.shape}")
        find = np.argmax if operator == "ArgMax" else np.argmin
        return (lambda: _write(operator, out, find(x.view(), axis=dim, keepdims=keep))), 1024
    if operator == "Cumsum":
        x, dim, dtype, out = args
        if _DTYPE_OF.get(dtype) != out.dtype or out.shape != x.shape:
            _bad(operator, f"out {out.dtype}{out.shape} for {x.shape}, dtype {dtype}")
        return (lambda: _write(operator, out, np.cumsum(x.view(), axis=dim,
                                                        dtype=out.dtype))), 1024
    if operator == "Sort":
        x, stable, dim, descending, values, indices = args
        if values.shape != x.shape or indices.shape != x.shape or indices.dtype != np.int64:
            _bad(operator, "values/indices must have the input's shape (indices int64)")

        def run():
            view = x.view()
            order = np.argsort(view, axis=dim, kind="stable")
            if descending:
                order = np.flip(order, axis=dim)
            _write(operator, values, np.take_along_axis(view, order, axis=dim))
            _write(operator, indices, order)
        return run, 8 * max(int(np.prod(x.shape)), 1)
    if operator == "Matmul":
        a, b, out, cube = args
        if (cube not in (0, 1, 2, 3) or not 2 <= len(a.shape) <= 6 or not 2 <= len(b.shape) <= 6
                or a.shape[-1] != b.shape[-2] or out.shape != _matmul_shape(a.shape, b.shape)):
            _bad(operator, f"shapes {a.shape} x {b.shape} -> {out.shape}, cubeMathType {cube}")
        return _cube_product(operator, a, b, out), 1 << 16
    if operator == "Dot":
        a, b, out = args
        _result_dtype(operator, [a, b], out)
        if len(a.shape) != 1 or a.shape != b.shape or out.shape != ():
            _bad(operator, f"shapes {a.shape} . {b.shape} -> {out.shape} (1-D, 1-D -> 0-d)")
        return _cube_product(operator, a, b, out), 1024
    if operator in ("Inverse", "Slogdet"):
        x, *outs = args
        if len(x.shape) < 2 or x.shape[-1] != x.shape[-2] or len(x.shape) > 8:
            _bad(operator, f"a self of shape {x.shape} (square matrices expected)")
        wanted = x.shape if operator == "Inverse" else x.shape[:-2]
        if any(o.shape != wanted or o.dtype != x.dtype for o in outs):
            _bad(operator, f"outs {[(str(o.dtype), o.shape) for o in outs]} for {x.dtype}{x.shape}")
        return (lambda: _linalg(operator, x.view(), outs)), 1 << 16
    _bad(operator, "not emulated")


def _cube_product(operator, a, b, out):
    """Matmul's and Dot's computation: float32 products and sums, rounded once to out's dtype."""
    return lambda: _write(operator, out, np.matmul(
        a.view().astype(np.float32), b.view().astype(np.float32)).astype(out.dtype))


def _matmul_shape(a, b):
    """aclnnMatmul's out shape: the batch axes broadcast, then (M, N) (None: no broadcast)."""
    try:
        return np.broadcast_shapes(a[:-2], b[:-2]) + (a[-2], b[-1])
    except ValueError:
        return None


def _linalg(operator, matrices, outs):
    """Inverse (NaN where a matrix is singular: the device raises nothing) or Slogdet."""
    if operator == "Slogdet":
        for out, value in zip(outs, np.linalg.slogdet(matrices)):
            _write(operator, out, value)
        return
    try:
        inverse = np.linalg.inv(matrices)
    except np.linalg.LinAlgError:
        inverse = np.full(matrices.shape, np.nan, matrices.dtype)
    _write(operator, outs[0], inverse)


class _Function:
    """One exported symbol: argtypes/restype must be the table's; arguments convert as ctypes."""

    def __init__(self, emulator, name):
        self.emulator, self.name = emulator, name
        self.argtypes = None
        self.restype = ctypes.c_int

    def __call__(self, *args):
        restype, argtypes = acl_api.SIGNATURES[self.name]
        if self.argtypes != list(argtypes) or self.restype is not restype:
            raise TypeError(f"{self.name}: argtypes/restype are not CANN's signature "
                            f"({self.argtypes}, {self.restype})")
        if len(args) != len(argtypes):
            raise TypeError(f"{self.name} takes {len(argtypes)} arguments ({len(args)} given)")
        converted = []
        for i, (value, ctype) in enumerate(zip(args, argtypes)):
            try:
                ctype.from_param(value)
            except TypeError as exc:
                raise ctypes.ArgumentError(f"argument {i + 1}: {exc}") from None
            if isinstance(value, ctypes._SimpleCData):
                value = value.value
            converted.append(value)
        return self.emulator.call(self.name, converted)


class _Library:
    def __init__(self, emulator, names):
        self._functions = {name: _Function(emulator, name) for name in names}

    def __getattr__(self, name):
        try:
            return self.__dict__["_functions"][name]
        except KeyError:
            raise AttributeError(f"undefined symbol: {name}") from None


EMULATOR: Emulator | None = None


def libraries() -> dict:
    """The two stand-in libraries (``ASNUMPY_NPU_LIBRARIES=_npu_emulator:libraries``)."""
    global EMULATOR
    EMULATOR = Emulator()
    names = {"ascendcl": [], "opapi": []}
    for name, library in acl_api.LIBRARY_OF.items():
        names[library].append(name)
    return {key: _Library(EMULATOR, value) for key, value in names.items()}
