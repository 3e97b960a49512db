"""Running compiled user kernels: on the cpu across cores, on cuda through the driver.

A kernel call is queued on the stream of the arrays' device (the current
stream unless ``stream=`` is given) like every other asnumpy kernel; array
addresses are taken when the work runs, so pending transfers are honoured.

cpu: :func:`run_cpu` calls an ``extern "C"`` entry of a library built by
:mod:`._toolchain` once per piece of work; ctypes releases the GIL during
foreign calls, so :func:`asnumpy.backends.cpu.parallel.run` spreads the
pieces over cores.  cuda: :func:`run_cuda` hands the source to the driver
interface (NVRTC on a GPU, cached per architecture; the emulator compiles it
for the host).
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from .._core._launch import check_same_device, resolve_stream
from .._core.ndarray import ndarray
from ..backends.cpu import parallel
from ..backends.cpu.kernels import view
from ..runtime.device import get_device
from ._toolchain import CompileError, numbered_source

__all__ = ["check_cuda", "device_of", "launch", "launch_values", "pointer", "run_cpu",
           "run_cuda", "split"]

MIN_PIECE = 1 << 15          # elements (or blocks of threads) below which one thread runs all


def device_of(values, where: str):
    """The device of the asnumpy arrays among ``values`` (all must share it), else
    the current device."""
    arrays = [v for v in values if isinstance(v, ndarray)]
    device = arrays[0]._device if arrays else get_device()
    check_same_device(where, device, *arrays)
    return device


def pointer(array) -> int:
    """The address of ``array``'s first element in its device's memory."""
    device = array._device
    if device.kind == "cpu":
        return view(array).ctypes.data
    return device.backend.pointer(array)


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


def launch(device, stream, work, *arrays) -> None:
    """Queue ``work()`` on ``device``'s stream (``arrays`` are kept alive until it ran)."""
    resolve_stream(device, stream, "extension").launch(lambda *_: work(), *arrays)


def split(count: int, weight: int = 1) -> int:
    """How many pieces ``count`` units of work (each about ``weight`` elements) are cut into."""
    if count * weight < MIN_PIECE:
        return 1
    return max(1, min(count, parallel.thread_count() * 4))


def _table(values):
    """A ``void*`` table pointing at each value (kept alive by the returned holders)."""
    holders = [np.array(v) for v in values]
    table = (ctypes.c_void_p * max(1, len(holders)))(*[h.ctypes.data for h in holders])
    return table, holders


def run_cpu(entry, values, count: int, *extra, weight: int = 1) -> None:
    """Call ``entry(table, begin, end, *extra)`` over ``[0, count)``, cut into pieces.

    The flat ``values`` are passed through a table of pointers; pieces run on
    the cpu thread pool, the GIL released in each foreign call.
    """
    table, holders = _table(values)
    parts = split(count, weight)

    def piece(k):
        entry(table, ctypes.c_longlong(count * k // parts),
              ctypes.c_longlong(count * (k + 1) // parts), *extra)

    if parts == 1:
        piece(0)
    else:
        parallel.run(piece, parts)
    del holders


_checked: set = set()         # (source, arch) pairs NVRTC compiled


def check_cuda(device, source: str, where: str) -> None:
    """Compile ``source`` with NVRTC for ``device`` now, when NVRTC is available.

    The driver compiles at launch through the same cache (so this costs no
    second compile); doing it first turns a compile error into a
    :class:`CompileError` at call time, with the numbered source.  Without
    NVRTC (the emulated driver on a machine without it) the launch compiles.
    """
    from ..backends.cuda import compiler

    arch = device.backend.driver.arch(device.index)
    if (source, arch) in _checked or not _nvrtc_available():
        return
    try:
        compiler.compile_module(source, arch)
    except compiler.CompileError as exc:
        raise CompileError(f"{where}: {exc}\n\n--- source ---\n{numbered_source(source)}"
                           ) from None
    _checked.add((source, arch))


@functools.cache
def _nvrtc_available() -> bool:
    from ..backends.cuda import compiler

    return compiler.nvrtc_available()


def run_cuda(device, source, kernel_name, grid, block, values, shared_bytes=0) -> None:
    """Launch ``kernel_name`` of ``source`` on ``device``'s current driver stream."""
    from ..backends.cuda.streams import current_native

    device.backend.driver.launch(device.index, source, kernel_name, grid, block, shared_bytes,
                                 list(values), current_native(device))
