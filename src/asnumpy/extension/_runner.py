"""Running compiled user kernels through the device's back end.

A kernel call is queued on the stream of the arrays' device (the current
stream unless ``stream=`` is given) like every other asnumpy kernel; array
addresses are taken when the work runs, so pending transfers are honoured.
The work itself is ``program.launch(entry, grid, block, values)`` of the
program ``device.backend.compile`` made of the rendered source: the host
toolchain's library run on the cpu thread pool, or NVRTC's image launched by
the cuda driver (see :mod:`asnumpy.ops.cxx.targets`).
"""

from __future__ import annotations

from .._core._launch import check_same_device, resolve_stream
from .._core.ndarray import ndarray
from ..runtime.device import get_device
from ..runtime.observer import queue_work

__all__ = ["device_of", "launch", "launch_values", "pointer"]


def device_of(values, where: str):
    """The device of the asnumpy arrays among ``values`` (all must share it), else
    the current device."""
    arrays = [v for v in values if isinstance(v, ndarray)]
    device = arrays[0]._device if arrays else get_device()
    check_same_device(where, device, *arrays)
    return device


def pointer(array) -> int:
    """The address of ``array``'s first element in its device's memory."""
    return array._device.backend.pointer(array)


def launch_values(operands, values, strides) -> list:
    """The flat launch values of ``values`` described by ``operands`` (``_codegen.Operand``),
    arrays' addresses taken now; ``strides[k]`` replaces array ``k``'s own strides."""
    flat = []
    for k, (operand, value) in enumerate(zip(operands, values)):
        if operand.kind == "scalar":
            flat += operand.values(value)
        else:
            flat += operand.values(None, pointer(value), value.shape,
                                   strides.get(k, value._strides))
    return flat


def launch(device, stream, work, arrays, *, name, writes) -> None:
    """Queue ``work()``, kernel ``name``, on ``device``'s stream (``arrays`` are kept alive
    until it ran; a profiler counts ``writes`` among them as written, the rest as read)."""
    reads = [a for a in arrays if not any(a is w for w in writes)]
    queue_work(resolve_stream(device, stream, "extension"), name, "user kernel",
               lambda *_: work(), *arrays, reads=reads, writes=writes)
