"""AscendCL's runtime, as the npu back end uses it: devices, memory, copies, streams, events.

One :class:`AclRuntime` per process, over :class:`.acl.Acl`.  ``aclInit``
runs when it is built and ``aclFinalize`` at interpreter exit (after every
device is reset).  Each call first makes the device it acts on current on
the calling thread (``aclrtSetDevice``), since AscendCL's current device is
per thread.  ``ASCEND_RT_VISIBLE_DEVICES`` is CANN's own: the runtime
numbers only the devices it lists, and asnumpy's ``npu:N`` is that number.
"""

from __future__ import annotations

import atexit
import ctypes
import os

from ..._errors import DeviceUnavailableError
from . import acl_api
from .acl import Acl, AclError, load_libraries

__all__ = ["AclRuntime", "load_runtime"]


class AclRuntime:
    """Typed calls of AscendCL's runtime; handles (pointers, streams, events) are ints."""

    def __init__(self, acl: Acl):
        self.acl = acl
        try:
            acl.call("aclInit", None)
        except AclError as exc:
            if exc.code != 100002:          # ACL_ERROR_REPEAT_INITIALIZE: someone else did
                raise
        self.finalized = False
        atexit.register(self.finalize)

    # -- devices --------------------------------------------------------------------------

    def device_count(self) -> int:
        count = ctypes.c_uint32()
        self.acl.call("aclrtGetDeviceCount", ctypes.byref(count))
        return count.value

    def soc_name(self) -> str:
        return self.acl.text("aclrtGetSocName")

    def version(self) -> str:
        parts = [ctypes.c_int32() for _ in range(3)]
        self.acl.call("aclrtGetVersion", *map(ctypes.byref, parts))
        return ".".join(str(p.value) for p in parts)

    def cann_version(self) -> str:
        """The toolkit's version, from its ``version.cfg``/``version.info`` files (else "?")."""
        for variable in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
            root = os.environ.get(variable)
            for name in ("version.cfg", "version.info") if root else ():
                try:
                    with open(os.path.join(root, name)) as file:
                        for line in file:
                            if line.lower().startswith(("version=", "toolkit_version=")):
                                return line.split("=", 1)[1].strip().strip("[]\"")
                except OSError:
                    continue
        return "?"

    def use(self, index: int) -> None:
        self.acl.use_device(index)

    def synchronize_device(self, index: int) -> None:
        self.use(index)
        self.acl.call("aclrtSynchronizeDevice")

    def reset_device(self, index: int) -> None:
        self.use(index)
        self.acl.call("aclrtResetDevice", index)
        self.acl.forget_thread_device()

    def finalize(self) -> None:
        if not self.finalized:
            self.finalized = True
            try:
                self.acl.call("aclFinalize")
            except AclError:
                pass                        # at exit: nothing left to report it to

    # -- memory ---------------------------------------------------------------------------

    def total_memory(self, index: int) -> int:
        self.use(index)
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self.acl.call("aclrtGetMemInfo", acl_api.MEM_INFO_HBM, ctypes.byref(free),
                      ctypes.byref(total))
        return total.value

    def alloc(self, index: int, nbytes: int) -> int:
        """``nbytes`` of device memory (aclrtMalloc, huge pages first); MemoryError when full."""
        self.use(index)
        pointer = ctypes.c_void_p()
        try:
            self.acl.call("aclrtMalloc", ctypes.byref(pointer), nbytes,
                          acl_api.MALLOC_HUGE_FIRST)
        except AclError as exc:
            if exc.code in acl_api.OUT_OF_MEMORY:
                raise MemoryError(str(exc)) from None
            raise
        return pointer.value

    def free(self, index: int, pointer: int) -> None:
        self.use(index)
        self.acl.call("aclrtFree", pointer)

    def alloc_host(self, nbytes: int) -> int:
        """Page-locked host memory (aclrtMallocHost): what asynchronous copies need."""
        pointer = ctypes.c_void_p()
        self.acl.call("aclrtMallocHost", ctypes.byref(pointer), nbytes)
        return pointer.value

    def free_host(self, pointer: int) -> None:
        self.acl.call("aclrtFreeHost", pointer)

    def copy_async(self, index, direction: str, dst: int, src: int, nbytes: int, stream) -> None:
        """aclrtMemcpyAsync of ``nbytes`` (``direction``: "htod", "dtoh" or "dtod")."""
        if nbytes:
            self.use(index)
            self.acl.call("aclrtMemcpyAsync", dst, nbytes, src, nbytes,
                          acl_api.MEMCPY[direction], stream)

    # -- streams and events ----------------------------------------------------------------

    def create_stream(self, index: int) -> int:
        self.use(index)
        stream = ctypes.c_void_p()
        self.acl.call("aclrtCreateStream", ctypes.byref(stream))
        return stream.value

    def destroy_stream(self, index: int, stream: int) -> None:
        self.use(index)
        self.acl.call("aclrtDestroyStream", stream)

    def sync_stream(self, index: int, stream: int) -> None:
        self.use(index)
        self.acl.call("aclrtSynchronizeStream", stream)

    def create_event(self, index: int) -> int:
        self.use(index)
        event = ctypes.c_void_p()
        self.acl.call("aclrtCreateEvent", ctypes.byref(event))
        return event.value

    def destroy_event(self, index: int, event: int) -> None:
        self.use(index)
        self.acl.call("aclrtDestroyEvent", event)

    def record(self, index: int, event: int, stream: int) -> None:
        self.use(index)
        self.acl.call("aclrtRecordEvent", event, stream)

    def wait(self, index: int, stream: int, event: int) -> None:
        """``stream``'s later work waits for ``event`` (the device waits, not the host)."""
        self.use(index)
        self.acl.call("aclrtStreamWaitEvent", stream, event)

    def event_sync(self, index: int, event: int) -> None:
        self.use(index)
        self.acl.call("aclrtSynchronizeEvent", event)

    def event_done(self, index: int, event: int) -> bool:
        self.use(index)
        status = ctypes.c_int()
        self.acl.call("aclrtQueryEventStatus", event, ctypes.byref(status))
        return status.value == acl_api.EVENT_COMPLETE

    def elapsed_ms(self, index: int, start: int, end: int) -> float:
        self.use(index)
        ms = ctypes.c_float()
        self.acl.call("aclrtEventElapsedTime", ctypes.byref(ms), start, end)
        return ms.value


def load_runtime() -> AclRuntime:
    """The process's AscendCL runtime; DeviceUnavailableError when CANN or a device is missing."""
    libraries = load_libraries()
    origin = os.environ.get("ASNUMPY_NPU_LIBRARIES") or os.path.dirname(
        getattr(libraries["ascendcl"], "_name", "") or "")
    runtime = AclRuntime(Acl(libraries, origin))
    if runtime.device_count() == 0:
        visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
        hint = f" (ASCEND_RT_VISIBLE_DEVICES={visible!r})" if visible is not None else ""
        raise DeviceUnavailableError(f"npu: CANN is installed but sees no Ascend device{hint}")
    return runtime
