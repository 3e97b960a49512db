"""DLPack on asnumpy arrays: ``__dlpack__``, ``__dlpack_device__`` and :func:`from_dlpack`.

Rules (``docs/interop.md`` shows them at work):

* **Devices.**  Every logical cpu device ``cpu:N`` lives in host memory, so
  all of them export as ``(kDLCPU, 0)``; ``dl_device=(1, 0)`` asks for host
  memory and never copies a cpu array, whatever its ``N``.  ``cuda:N`` is
  ``(kDLCUDA, N)``.  Imported host memory (``kDLCPU``, ``kDLCUDAHost``,
  ``kDLROCMHost``) lands on the current device when that is a cpu device, else
  on ``cpu:0``; CUDA memory (``kDLCUDA``, ``kDLCUDAManaged``) on ``cuda:N``.
  An asnumpy array keeps its own device.
* **Copies.**  ``copy=None`` shares memory when the target device can reach
  it and copies otherwise; ``copy=True`` always copies (into the target
  device's pool); ``copy=False`` never copies and raises ``BufferError``
  when it would have to (another device, ``dl_device`` elsewhere).
* **Lifetime.**  An exported capsule keeps the array, hence its pool block,
  alive until the consumer calls the deleter (or the unconsumed capsule dies).
  An imported array keeps the producer's managed tensor alive and calls its
  deleter when the last asnumpy array over it is gone.
* **Streams.**  On cpu, ``stream`` must be None (NumPy's rule); pending
  work on the device's current stream is waited for.  On cuda the Array API's
  values apply: None or 1 is the legacy default stream, 2 the per-thread one,
  -1 means "no synchronisation", any other integer is a ``cudaStream_t``; the
  consumer's stream waits (on the device) for an event recorded on the
  array's current stream.  0 is ambiguous and refused.
* **Read-only** arrays export only as versioned capsules (DLPack >= 1.0
  carries the flag); a legacy request raises ``BufferError`` as NumPy's
  does, unless ``copy=True``.  Read-only imports stay read-only, and so
  are imports of legacy capsules, which cannot say (NumPy's rule too).
* **Hostile capsules.**  ``dlpack_abi`` checks every field before trusting
  it (ndim, data type, shape, strides, the span of memory) and refuses a
  tensor without consuming it.  Unaligned elements are copied.
"""

from __future__ import annotations

import numpy as np

from .._core import transfer
from .._core.ndarray import ndarray
from .._core.ndarray_members import attach
from .._core.transfer import _alias_host, _check_copy, to_device
from .._errors import DeviceUnavailableError
from ..runtime.device import Device, get_device
from ..runtime.stream import get_current_stream
from . import cuda_array_interface, dlpack_abi as abi

__all__ = ["from_dlpack", "dlpack", "dlpack_device", "install"]

# asnumpy device kind -> DLPack device type of its memory
_DL_TYPE_OF_KIND = {"cpu": abi.KDL_CPU, "cuda": abi.KDL_CUDA}
# DLPack device type -> asnumpy device kind that holds such memory
_KIND_OF_DL_TYPE = {abi.KDL_CPU: "cpu", abi.KDL_CUDA_HOST: "cpu", abi.KDL_ROCM_HOST: "cpu",
                    abi.KDL_CUDA: "cuda", abi.KDL_CUDA_MANAGED: "cuda"}
_READONLY_LEGACY = ("Cannot export readonly array since signalling readonly is unsupported by "
                    "DLPack (supported by newer DLPack version)")


def _describe_dl_device(pair) -> str:
    kind, index = pair
    return f"{abi.DEVICE_TYPES.get(kind, f'device type {kind}')}:{index}"


def dl_device_of(device: Device) -> tuple[int, int]:
    """The DLPack ``(device_type, device_id)`` of an asnumpy device's memory."""
    try:
        kind = _DL_TYPE_OF_KIND[device.kind]
    except KeyError:
        raise BufferError(f"asnumpy: DLPack has no device type for {device}") from None
    return (kind, 0) if kind == abi.KDL_CPU else (kind, device.index)


def host_device() -> Device:
    """The cpu device that imported host memory lands on: the current one, else cpu:0."""
    current = get_device()
    return current if current.kind == "cpu" else Device("cpu:0")


def _device_for(pair, func) -> Device:
    """The asnumpy device whose memory a DLPack device pair names."""
    kind = _KIND_OF_DL_TYPE.get(pair[0])
    if kind is None:                      # a BufferError, and NumPy's RuntimeError
        raise abi.DLPackTensorError(
            f"asnumpy.{func}: DLPack device {_describe_dl_device(pair)} is not supported "
            "(asnumpy reaches kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDA and kDLCUDAManaged "
            "memory)")
    if kind == "cpu":
        return host_device()
    try:
        return Device(f"cuda:{pair[1]}")
    except DeviceUnavailableError as exc:
        raise BufferError(f"asnumpy.{func}: DLPack device {_describe_dl_device(pair)} is not "
                          f"reachable: {exc}") from None


def _same_memory(a: Device, b: Device) -> bool:
    """True when ``a``'s memory is ``b``'s (every cpu:N is host memory)."""
    return a is b or (a.kind == "cpu" and b.kind == "cpu")


def _pair(value, name, func) -> tuple[int, int]:
    try:
        first, second = value
        return int(first), int(second)
    except (TypeError, ValueError):
        raise TypeError(f"asnumpy.{func}: {name} must be a pair of integers, got "
                        f"{value!r}") from None


# -- export ----------------------------------------------------------------------------

def dlpack_device(self) -> tuple[int, int]:
    """``(device_type, device_id)``: ``(1, 0)`` (kDLCPU) on every cpu:N, ``(2, N)`` on cuda:N."""
    return dl_device_of(self._device)


def _export_source(array, dl_device, copy, func):
    """The array to export (``array`` or a copy) and whether it is a copy."""
    if dl_device is not None:
        wanted = _pair(dl_device, "dl_device", func)
        if wanted != dl_device_of(array._device):
            if copy is False:
                raise BufferError(f"asnumpy.{func}: exporting an array on {array._device} to "
                                  f"{_describe_dl_device(wanted)} needs a copy, and copy=False")
            return to_device(array, _device_for(wanted, func), func=func), True
    if copy:
        return array.copy(), True
    return array, False


def _wait_for_pending_work(array, stream, func) -> None:
    """Make the consumer's ``stream`` see ``array``'s data (the Array API handshake)."""
    device = array._device
    if device.kind == "cuda":
        cuda_array_interface.stream_waits_for(device, stream, func)
        return
    if stream is not None:
        raise RuntimeError(f"asnumpy.{func}: the cpu device supports only stream=None, "
                           f"got {stream!r}")
    current = get_current_stream(device)
    if not current.is_default:           # a user stream may still be writing the array
        current.synchronize()


def element_address(array) -> int:
    """The address of ``array``'s first element in its device's memory."""
    if array._device.kind == "cuda":
        return array._device.backend.pointer(array)
    return array._realize().handle.__array_interface__["data"][0] + array._offset


def dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Export the array as a DLPack capsule (the Array API's ``__dlpack__``).

    Parameters
    ----------
    stream : int or None, optional
        The consumer's stream (cuda only; None on cpu).  See the module notes.
    max_version : tuple of (int, int), optional
        The newest DLPack version the consumer reads: ``(1, x)`` or later gives
        a ``"dltensor_versioned"`` capsule, None or ``(0, x)`` a legacy one.
    dl_device : tuple of (int, int), optional
        The device the consumer wants the data on; another device copies.
    copy : bool or None, optional
        True always exports a copy; False never copies (BufferError when it
        would have to); None copies only when ``dl_device`` needs it.

    Returns
    -------
    PyCapsule
    """
    func = "ndarray.__dlpack__"
    _check_copy(copy, func)
    version = None if max_version is None else _pair(max_version, "max_version", func)
    versioned = version is not None and version[0] >= 1
    source, copied = _export_source(self, dl_device, copy, func)
    _wait_for_pending_work(source, stream, func)
    readonly = not source._writeable
    if readonly and not versioned:
        raise BufferError(f"asnumpy.{func}: {_READONLY_LEGACY}")
    dtype, itemsize = source.dtype, source.itemsize
    if abi.dtype_code(dtype) is None:
        raise BufferError(f"asnumpy.{func}: DLPack has no type code for dtype {dtype}")
    if any(stride % itemsize for stride in source.strides):
        raise BufferError(f"asnumpy.{func}: DLPack only supports strides that are a multiple "
                          f"of the itemsize ({source.strides} for itemsize {itemsize})")
    # the capsule keeps ``source`` (so its pool block) alive until the consumer lets go
    return abi.make_capsule(element_address(source), source.shape,
                            [stride // itemsize for stride in source.strides], dtype,
                            dl_device_of(source._device), source, versioned=versioned,
                            version=min(abi.DLPACK_VERSION, version) if versioned else None,
                            readonly=readonly, copied=copied)


# -- import ----------------------------------------------------------------------------

class _CapsuleProducer:
    """A bare DLPack capsule (what ``torch.utils.dlpack.to_dlpack`` and old APIs return)
    seen as a producer: its device is read from the capsule; streams cannot be honoured."""

    def __init__(self, capsule, func):
        self._capsule = capsule
        self._device = abi.peek_capsule(capsule, func).device

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, stream=None):
        return self._capsule


def _request_capsule(producer, stream, dl_device=None, copy=None):
    """Call ``__dlpack__`` the Array API way, falling back to a pre-2023 producer."""
    try:
        return producer.__dlpack__(stream=stream, max_version=abi.DLPACK_VERSION,
                                   dl_device=dl_device, copy=copy)
    except TypeError:
        if dl_device is not None or copy is not None:
            raise
        return producer.__dlpack__(stream=stream)   # legacy: no max_version, dl_device, copy


def _alias_description(description, imported, device, func, copy=None) -> ndarray:
    """An asnumpy array on ``device`` over the memory a consumed capsule describes
    (a copy of it when the elements are unaligned: asnumpy arrays are aligned)."""
    shape, dtype, readonly = description.shape, description.dtype, description.readonly
    low, high = description.extent
    if device.kind != "cpu":
        return cuda_array_interface.alias_device_memory(
            device, description.address, low, high, shape, dtype, description.strides,
            imported, readonly)
    if 0 in shape:                        # no memory to share (the pointer may be NULL)
        out = ndarray(shape, dtype, device=device)
        out._writeable = not readonly
        return out
    window = abi.host_bytes(description.address + low, high - low, imported, readonly)
    host = np.ndarray(shape, dtype, buffer=window, offset=-low, strides=description.strides)
    if not host.flags.aligned:            # NumPy takes these (a byte_offset of 3, say)
        if copy is False:
            raise BufferError(f"asnumpy.{func}: the DLPack tensor's elements are not aligned "
                              f"(address {description.address:#x}, {dtype}): asnumpy can "
                              "only copy them, and copy=False")
        out = transfer.from_host(host, device, None, func)
        out._writeable = not readonly
        return out
    return _alias_host(host, device, func)


def _import_capsule(capsule, device, func, copy=None) -> ndarray:
    def accept(description):              # before the capsule is consumed: a refused one
        if not _same_memory(_device_for(description.device, func), device):   # stays whole
            raise BufferError(f"asnumpy.{func}: the producer exported "
                              f"{_describe_dl_device(description.device)} memory, not "
                              f"{device}'s")

    description, imported = abi.consume_capsule(capsule, func, accept)
    return _alias_description(description, imported, device, func, copy)


def _consumer_stream(device):
    """The ``stream`` value to hand a producer whose data goes to ``device``."""
    if device.kind != "cuda":
        return None
    return cuda_array_interface.stream_value(get_current_stream(device))


def _from_asnumpy(x, device, copy, func) -> ndarray:
    """An asnumpy producer: its memory on its own device (asnumpy devices stay distinct)."""
    if device is None or device is x._device:
        return x.copy() if copy else x._view(x._shape, x._strides, x._offset)
    if copy is False:
        raise BufferError(f"asnumpy.{func}: the array is on {x._device}, not {device}, and "
                          "copy=False")
    return to_device(x, device, func=func)


def from_dlpack(x, /, *, device=None, copy=None) -> ndarray:
    """An asnumpy array over the memory of any DLPack producer.

    Parameters
    ----------
    x : object
        An object with ``__dlpack__`` and ``__dlpack_device__`` (asnumpy,
        NumPy, PyTorch, JAX, CuPy arrays ...), a bare DLPack capsule, or an
        object exposing ``__cuda_array_interface__``.
    device : str or Device, optional
        Where the result lives.  None keeps the producer's device: host memory
        goes to the current device if it is a cpu device, else ``cpu:0``;
        ``kDLCUDA`` memory to ``cuda:N``; an asnumpy array stays where it is.
    copy : bool or None, optional
        True always copies; False never does (``BufferError`` when it must);
        None shares memory when ``device`` reaches it and copies otherwise.

    Returns
    -------
    ndarray
        Shares memory with ``x`` unless a copy was made.  The producer's
        memory stays alive as long as the result (or a view of it) does;
        writes show through both ways where the producer allows them, and a
        read-only producer gives a read-only array.

    Raises
    ------
    TypeError
        When ``x`` supports none of the protocols.
    BufferError
        When ``copy=False`` and a copy is needed, or the data cannot be
        exchanged (an unsupported device or data type).
    """
    func = "from_dlpack"
    _check_copy(copy, func)
    target = None if device is None else Device(device)
    if isinstance(x, ndarray):
        return _from_asnumpy(x, target, copy, func)
    if abi.is_capsule(x):
        x = _CapsuleProducer(x, func)
    elif not hasattr(x, "__dlpack__"):
        if hasattr(x, "__cuda_array_interface__"):
            return cuda_array_interface.from_interface(x, target, copy, func)
        raise TypeError(f"asnumpy.{func}: a {_type_name(x)} object cannot be exchanged: it "
                        "has no __dlpack__, __dlpack_device__ or __cuda_array_interface__")
    if not hasattr(x, "__dlpack_device__"):
        raise TypeError(f"asnumpy.{func}: a {_type_name(x)} object has __dlpack__ but no "
                        "__dlpack_device__")
    try:
        return _from_producer(x, target, copy, func)
    except BufferError as exc:            # name what could not be exchanged (same class)
        raise type(exc)(f"{exc} (exchanging a {_type_name(x)} object)") from None


def _type_name(x) -> str:
    kind = type(x._capsule if isinstance(x, _CapsuleProducer) else x)
    return f"{kind.__module__}.{kind.__qualname__}"


def _from_producer(x, target, copy, func) -> ndarray:
    """from_dlpack of an object with ``__dlpack__`` and ``__dlpack_device__``."""
    source_pair = _pair(x.__dlpack_device__(), "__dlpack_device__()", func)
    try:
        source = _device_for(source_pair, func)
    except BufferError:
        if target is None:
            raise
        source = None                     # asnumpy cannot reach it: the producer must move it
    target = source if target is None else target
    if source is not None and _same_memory(source, target):
        out = _import_capsule(_request_capsule(x, _consumer_stream(target)), target, func, copy)
        return out.copy() if copy else out
    if copy is False:
        raise BufferError(f"asnumpy.{func}: the data is on {_describe_dl_device(source_pair)}; "
                          f"{target} needs a copy, and copy=False")
    if source is not None:                # share it on its own device, then move it
        return to_device(_import_capsule(_request_capsule(x, _consumer_stream(source)), source,
                                         func), target, func=func)
    capsule = _request_capsule(x, _consumer_stream(target), dl_device_of(target), True)
    return _import_capsule(capsule, target, func)


# ndarray's DLPack and CUDA array interface protocols (ndarray_members.py attaches them)
NDARRAY_MEMBERS = {"__dlpack__": dlpack, "__dlpack_device__": dlpack_device,
                   "__cuda_array_interface__": property(cuda_array_interface.interface)}


def install() -> None:
    """Give :class:`asnumpy.ndarray` its DLPack and CUDA array interface protocols, and
    let ``asarray`` alias objects that expose ``__cuda_array_interface__``."""
    attach(__name__, NDARRAY_MEMBERS)
    transfer.DEVICE_MEMORY_IMPORTERS["__cuda_array_interface__"] = \
        cuda_array_interface.alias_interface


install()
