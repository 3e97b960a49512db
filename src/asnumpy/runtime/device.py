"""Devices: naming, discovery, the current device per thread, runtime calls.

Device objects are interned: ``Device("cpu:1") is Device("cpu:1")``.  Each
owns a memory pool and a default stream, and records its live user streams
so that :func:`synchronize` can wait for all of them.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref

from .._errors import DeviceUnavailableError
from . import _fork, graph as _graph
from .backend_loader import KNOWN_KINDS, load_backend
from ._state import thread_state as _thread_state
from .memory import MemoryPool

__all__ = [
    "Device", "devices", "get_device", "set_device", "reset_device", "reset_device_force",
    "init", "finalize", "synchronize", "default_device", "set_default_device",
]

_DEFAULT_CPU_DEVICES = 4
_registry_lock = threading.RLock()
_devices: dict[str, "Device"] = {}      # name -> Device, for every discovered device
_kinds_loaded: set[str] = set()
# kind -> why it is unavailable: probed once (the probe may spawn processes)
_kinds_missing: dict[str, str] = {}
_default_device: "Device | None" = None


def _forget_parent_errors_in_child() -> None:
    # errors of the parent's dropped streams are the parent's to raise, not a forked child's
    for device in list(_devices.values()):
        device._orphaned_errors.clear()


# a thread of the parent may be discovering devices when the process forks
_fork.register_locks(sys.modules[__name__], "_registry_lock", threading.RLock)
_fork.register(after_in_child=_forget_parent_errors_in_child)


def _parse(spec) -> tuple[str, int]:
    if isinstance(spec, bool) or not isinstance(spec, (str, int)):
        raise TypeError(f"asnumpy.Device: expected a device name such as 'cpu:1', got {spec!r}")
    if isinstance(spec, int):
        return default_device().kind, spec
    kind, sep, index = spec.strip().partition(":")
    if kind not in KNOWN_KINDS or (sep and not index.isdigit()):
        raise ValueError(
            f"asnumpy.Device: unknown device {spec!r}; device names are "
            + ", ".join(f"'{k}:N'" for k in KNOWN_KINDS)
        )
    return kind, int(index) if sep else 0


def _load_kind(kind: str) -> None:
    """Discover the devices of one back-end kind (once)."""
    with _registry_lock:
        if kind in _kinds_loaded:
            return
        if kind in _kinds_missing:
            raise DeviceUnavailableError(_kinds_missing[kind])
        try:
            backend = load_backend(kind)
        except DeviceUnavailableError as exc:
            _kinds_missing[kind] = str(exc)
            raise
        count = _cpu_device_count() if kind == "cpu" else backend.device_count()
        for index in range(count):
            _add_device(backend, kind, index)
        _kinds_loaded.add(kind)


def _add_device(backend, kind, index):
    device = object.__new__(Device)
    device.kind, device.index, device.name = kind, index, f"{kind}:{index}"
    device.backend = backend
    # a back end whose kernels are NumPy's loops on host memory names the module of
    # those loops (thresholds, views): the fast lane's test and its one way in
    device.numpy_loops = getattr(backend, "numpy_loop_kernels", None)
    device.memory_pool = MemoryPool(device, backend.make_allocator(index))
    # the back end names its default stream's class: this module stays below stream.py
    device.default_stream = backend.default_stream_class(device)
    device._streams = weakref.WeakSet()
    # errors of work on streams collected before anyone synchronized them
    device._orphaned_errors = []
    _devices[device.name] = device


def _cpu_device_count() -> int:
    text = os.environ.get("ASNUMPY_CPU_DEVICES", str(_DEFAULT_CPU_DEVICES))
    try:
        count = int(text)
    except ValueError:
        raise ValueError(f"ASNUMPY_CPU_DEVICES must be a whole number, got {text!r}") from None
    if count < 1:
        raise ValueError(f"ASNUMPY_CPU_DEVICES must be at least 1, got {count}")
    return count


def _available_names() -> str:
    for kind in KNOWN_KINDS:
        try:
            _load_kind(kind)
        except DeviceUnavailableError:
            pass
    return ", ".join(_devices)


class Device:
    """A compute device, such as ``cpu:0``, ``cpu:1`` or ``cuda:0``.

    ``Device(spec)`` accepts a name (``'cpu'`` means ``'cpu:0'``), an index on
    the default device's kind, another Device, or None for the current device.
    As a context manager it makes the device current on this thread.

    Attributes
    ----------
    kind : str
        ``'cpu'``, ``'cuda'`` or ``'npu'``.
    index : int
        The device's number within its kind.
    memory_pool : MemoryPool
        The pool that arrays on this device allocate from.
    default_stream : Stream
        The stream whose work runs in order with the host.
    """

    __slots__ = ("kind", "index", "name", "backend", "memory_pool", "default_stream",
                 "numpy_loops", "_streams", "_orphaned_errors", "__weakref__")

    def __new__(cls, spec=None):
        if isinstance(spec, Device):
            return spec
        if spec is None:
            return get_device()
        if hasattr(spec, "__asnumpy_device__"):
            return spec.__asnumpy_device__
        kind, index = _parse(spec)
        name = f"{kind}:{index}"
        device = _devices.get(name)
        if device is not None:
            return device
        try:
            _load_kind(kind)
        except DeviceUnavailableError as exc:
            raise DeviceUnavailableError(
                f"asnumpy.Device: {name} is not available: {exc}. "
                f"Available devices: {_available_names()}"
            ) from None
        device = _devices.get(name)
        if device is None:
            raise DeviceUnavailableError(
                f"asnumpy.Device: {name} does not exist. Available devices: {_available_names()}"
            )
        return device

    def __reduce__(self):
        return Device, (self.name,)

    def synchronize(self) -> None:
        """Wait for all work on every stream of this device."""
        synchronize(self)

    def __enter__(self):
        _thread_state().devices.append(self)
        return self

    def __exit__(self, *exc_info):
        _thread_state().devices.pop()

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                return _parse(other) == (self.kind, self.index)
            except (TypeError, ValueError):
                return False
        return self is other

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"Device('{self.name}')"

    def __str__(self):
        return self.name


def default_device() -> Device:
    """The process-wide default: ``$ASNUMPY_DEVICE`` if set, else ``cpu:0``."""
    global _default_device
    if _default_device is None:
        with _registry_lock:
            if _default_device is None:
                name = os.environ.get("ASNUMPY_DEVICE", "cpu:0")
                kind, index = _parse(name) if not name.isdigit() else ("cpu", int(name))
                _default_device = Device(f"{kind}:{index}")
    return _default_device


def set_default_device(device) -> Device:
    """Make ``device`` the process-wide default (what ``$ASNUMPY_DEVICE`` sets at start).

    Threads that never chose a device (:func:`set_device`, ``with device:``)
    use it from now on: a Dask worker's task threads, for instance, when a
    worker is pinned to one device (``asnumpy._interop.dask_serialization``).
    """
    global _default_device
    device = Device(device)
    with _registry_lock:
        _default_device = device
    return device


def get_device() -> Device:
    """The current device of this thread.

    The innermost ``with Device(...)`` block, else the device chosen with
    :func:`set_device` on this thread, else the default device.
    """
    state = _thread_state()
    if state.devices:
        return state.devices[-1]
    return state.selected or default_device()


def set_device(device) -> Device:
    """Make ``device`` the current device of this thread (AsNumpy's runtime call)."""
    device = Device(device)
    _thread_state().selected = device
    return device


def devices(kind: str | None = None) -> list[Device]:
    """Every available device (of ``kind`` only, if given)."""
    _available_names()
    return [d for d in _devices.values() if kind is None or d.kind == kind]


def synchronize(device=None) -> None:
    """Wait for all work on every stream of ``device`` (the current device).

    The first error raised by asynchronous work on any of its streams is
    raised here, including streams dropped (collected) before anyone
    synchronized them.
    """
    device = Device(device)
    _graph.check_sync("synchronize")
    errors = []
    # the default stream too: on cuda its work is asynchronous to the host
    for stream in [*device._streams, device.default_stream]:
        try:
            stream.synchronize()
        except BaseException as exc:
            errors.append(exc)
    whole_device = getattr(device.backend, "synchronize_device", None)
    if whole_device is not None:     # cuda: also the work of streams dropped with work pending
        try:
            whole_device(device.index)
        except BaseException as exc:
            errors.append(exc)
    # taken last: streams dropped, and their work finished, while this waited count too
    orphaned, device._orphaned_errors[:] = list(device._orphaned_errors), []
    errors = orphaned + errors
    if errors:
        raise errors[0]


def init(cpu_devices: int | None = None) -> list[Device]:
    """Discover devices (AsNumpy's runtime call); idempotent.

    ``cpu_devices`` adds logical cpu devices up to that count; it can grow
    the set but never remove devices that arrays may live on.
    """
    if cpu_devices is not None:
        if int(cpu_devices) < 1:
            raise ValueError(f"asnumpy.init: cpu_devices must be at least 1, got {cpu_devices!r}")
        _load_kind("cpu")
        with _registry_lock:
            backend = _devices["cpu:0"].backend
            for index in range(len(devices("cpu")), int(cpu_devices)):
                _add_device(backend, "cpu", index)
    return devices()


def reset_device(device=None) -> None:
    """Synchronize ``device`` and release the cached memory of its pool."""
    device = Device(device)
    synchronize(device)
    device.memory_pool.free_all_blocks()
    release_host_memory = getattr(device.backend, "release_host_memory", None)
    if release_host_memory is not None:     # cuda: its pinned staging blocks
        release_host_memory()


def reset_device_force(device=None) -> None:
    """Release ``device``'s resources (the current device): AsNumpy's runtime call.

    Like CANN's ``aclrtResetDeviceForce``: the device's pending work is
    finished first, then every user stream created on it, on any thread, is
    closed (launching on one afterwards raises RuntimeError), and the cached
    memory of its pool and its staging memory are released as
    :func:`reset_device` does.  Arrays still alive keep their memory and stay
    valid; the device's default stream keeps working, so the device can be
    used again at once.  Threads that made it current keep it current.
    """
    device = Device(device)
    synchronize(device)
    errors = []
    for stream in list(device._streams):
        try:
            stream.close()
        except BaseException as exc:    # (synchronize raised any error kept before)
            errors.append(exc)
        device._streams.discard(stream)
    reset_device(device)
    if errors:
        raise errors[0]


def finalize() -> None:
    """Synchronize every device and release every pool's cached memory."""
    for device in list(_devices.values()):
        reset_device(device)
    _thread_state().__init__()
