"""Launching a :class:`~._schedule.Schedule`: outputs from the pool, then one kernel.

* **cpu** -- the rendered C++ is compiled once by the extension toolchain
  (:func:`asnumpy.extension._toolchain.load_library`, memory and disk cache)
  and its task function is called through ctypes, which releases the GIL,
  on pieces of the task range handed out by :func:`backends.cpu.parallel.run`.
  Which thread runs a task never changes what it computes.
* **cuda** -- the rendered CUDA C goes through the driver interface
  (``driver.launch``: NVRTC on a GPU, g++ under the emulator), one thread
  per task, grid-stride.

A chunked reduction runs its ``finish`` function after the tasks (a second
launch on the same stream), reading the partials from a scratch array taken
from the device's pool.  Work goes on the device's current stream.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ..._core import _launch
from ...backends.cuda import scalar_ops
from ...runtime.stream import get_current_stream
from . import _render

__all__ = ["launch", "scalar_values"]

SERIAL_ELEMENTS = 1 << 16         # below this many elements a call stays on the caller's thread
PIECES_PER_THREAD = 4             # pieces of the task range per thread (load balance)

_CTYPES = {"char*": ctypes.c_void_p, "long long": ctypes.c_longlong, "bool": ctypes.c_bool,
           "signed char": ctypes.c_byte, "unsigned char": ctypes.c_ubyte,
           "short": ctypes.c_short, "unsigned short": ctypes.c_ushort, "int": ctypes.c_int,
           "unsigned int": ctypes.c_uint, "unsigned long long": ctypes.c_ulonglong,
           "float": ctypes.c_float, "double": ctypes.c_double}


class _Complex64(ctypes.Structure):
    _fields_ = [("re", ctypes.c_float), ("im", ctypes.c_float)]


class _Complex128(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


_CTYPES.update({"asn_complex64": _Complex64, "asn_complex128": _Complex128})


def scalar_values(schedule, args):
    """The scalar parameters, converted as NumPy converts them (its errors if they do not fit)."""
    values = []
    for index in schedule.scalar_nodes:
        node = schedule.nodes[index]
        source, payload = node.attrs
        value = args[payload] if source == "arg" else payload
        values.append(scalar_ops.by_value(np.asarray(value, dtype=node.dtype)))
    return values


def _allocate(schedule, device):
    outs = {}
    for slot, op in enumerate(schedule.operands):
        if op.role != "in":
            outs[slot] = _launch.empty(op.shape, op.dtype, device)
    return outs


def launch(schedule, args, device, scalars):
    """Run ``schedule`` on ``args``; returns the arrays of the returned values."""
    outs = _allocate(schedule, device)
    arrays = [args[op.position] if op.role == "in" else outs[slot]
              for slot, op in enumerate(schedule.operands)]
    if outs:
        partials = []
        if schedule.mode == "chunked":
            rows = schedule.ntasks
            partials = [_launch.empty((rows,), _render.compute_dtype(schedule.nodes[r].dtype),
                                      device) for r in schedule.reductions]
        sizes = list(schedule.kshape) + list(schedule.rshape)
        for op in schedule.operands:
            sizes += list(op.kstrides) + list(op.rstrides)
        sizes.append(schedule.nchunk)
        (_launch_cpu if device.kind == "cpu" else _launch_cuda)(
            schedule, device, arrays, partials, scalars, sizes)
    return tuple(outs[k] if kind == "slot" else args[k] for kind, k in schedule.outputs)


def _pieces(schedule, ntasks):
    from ...backends.cpu import parallel

    elements = int(np.prod(schedule.kshape, dtype=np.int64)) * int(
        np.prod(schedule.rshape or (1,), dtype=np.int64))
    if elements < SERIAL_ELEMENTS or parallel.thread_count() < 2:
        return 1
    return max(1, min(ntasks, parallel.thread_count() * PIECES_PER_THREAD))


def _launch_cpu(schedule, device, arrays, partials, scalars, sizes):
    from ...backends.cpu import parallel
    from ...backends.cpu.kernels import view
    from .._toolchain import load_library

    source, functions, param_types = _render.render(schedule, "cpu")
    library = load_library(source, options=_render.CPU_OPTIONS)
    argtypes = [ctypes.c_longlong, ctypes.c_longlong] + [_CTYPES[t] for t in param_types]
    calls = {}
    for role, name in functions.items():
        function = getattr(library, name)
        function.argtypes, function.restype = argtypes, ctypes.c_int
        calls[role] = function
    pointers = [view(a).ctypes.data for a in arrays] + [view(p).ctypes.data for p in partials]
    scalar_args = [_CTYPES[t](*((v.real, v.imag) if np.iscomplexobj(v) else (v,)))
                   for t, v in zip(param_types[len(pointers):], scalars)]
    values = pointers + scalar_args + sizes
    rows = int(np.prod(schedule.kshape, dtype=np.int64))

    def run():
        for role, count in (("task", schedule.ntasks), ("finish", rows)):
            if role not in calls:
                continue
            function, pieces = calls[role], _pieces(schedule, count)

            def piece(i, function=function, count=count, pieces=pieces):
                if function(count * i // pieces, count * (i + 1) // pieces, *values):
                    raise MemoryError(f"asnumpy.fuse: no host memory for the row buffers "
                                      f"of {schedule.rshape} elements each")

            if pieces == 1:
                piece(0)
            else:
                parallel.run(piece, pieces)
        # keep the arrays alive until the kernel is done (the stream may run it later)
        return arrays, partials

    stream = get_current_stream(device)
    if stream.is_default:
        run()
    else:
        stream.launch(run)


def _launch_cuda(schedule, device, arrays, partials, scalars, sizes):
    from ...backends.cuda.kernels import BLOCK, launch_grid
    from ...backends.cuda.streams import current_native

    backend = device.backend
    source, functions, _ = _render.render(schedule, "cuda")
    values = ([np.uint64(backend.pointer(a)) for a in arrays]
              + [np.uint64(backend.pointer(p)) for p in partials]
              + list(scalars) + [np.int64(s) for s in sizes])
    rows = int(np.prod(schedule.kshape, dtype=np.int64))
    for role, count in (("task", schedule.ntasks), ("finish", rows)):
        if role in functions:
            backend.driver.launch(device.index, source, functions[role], launch_grid(count),
                                  BLOCK, 0, values + [np.int64(count)], current_native(device))
