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
    if outs:
        arrays = [args[op.position] if op.role == "in" else outs[slot]
                  for slot, op in enumerate(schedule.operands)]
        partials = []
        if schedule.mode == "chunked":
            partials = [_launch.empty((schedule.ntasks,), _render.compute_dtype(
                schedule.nodes[r].dtype), device) for r in schedule.reductions]
        (_launch_cpu if device.kind == "cpu" else _launch_cuda)(
            schedule, device, arrays, partials, scalars)
    return tuple(outs[k] if kind == "slot" else args[k] for kind, k in schedule.outputs)


def _sizes(schedule, map_block):
    """The shape, stride, chunk and block parameters, in the kernel's order."""
    sizes = list(schedule.kshape) + list(schedule.rshape)
    for op in schedule.operands:
        sizes += list(op.kstrides) + list(op.rstrides)
    sizes += [schedule.nchunk, map_block]
    return sizes


def _pieces(schedule, ntasks):
    from ...backends.cpu import parallel

    elements = int(np.prod(schedule.kshape, dtype=np.int64)) * int(
        np.prod(schedule.rshape or (1,), dtype=np.int64))
    if elements < SERIAL_ELEMENTS or parallel.thread_count() < 2:
        return 1
    return max(1, min(ntasks, parallel.thread_count() * PIECES_PER_THREAD))


def _cpu_program(schedule):
    """(calls: [(C function, task count)], scalar ctypes, sizes), made once per schedule."""
    from .._toolchain import load_library

    program = getattr(schedule, "_cpu_program", None)
    if program is None:
        source, functions, param_types = _render.render(schedule, "cpu")
        library = load_library(source, options=_render.CPU_OPTIONS)
        argtypes = [ctypes.c_longlong, ctypes.c_longlong] + [_CTYPES[t] for t in param_types]
        rows = int(np.prod(schedule.kshape, dtype=np.int64))
        calls = []
        for role, count in (("task", schedule.ntasks), ("finish", rows)):
            if role in functions:
                function = getattr(library, functions[role])
                function.argtypes, function.restype = argtypes, ctypes.c_int
                calls.append((function, count))
        pointers = len(schedule.operands) + (len(schedule.reductions)
                                             if schedule.mode == "chunked" else 0)
        scalar_types = [_CTYPES[t] for t in param_types[pointers:pointers
                                                           + len(schedule.scalar_nodes)]]
        program = schedule._cpu_program = (calls, scalar_types,
                                            _sizes(schedule, _render.MAP_BLOCK))
    return program


def _launch_cpu(schedule, device, arrays, partials, scalars):
    from ...backends.cpu import parallel
    from ...backends.cpu.kernels import view

    calls, scalar_types, sizes = _cpu_program(schedule)
    pointers = [view(a).ctypes.data for a in arrays] + [view(p).ctypes.data for p in partials]
    scalar_args = [kind(*((v.real, v.imag) if np.iscomplexobj(v) else (v,)))
                   for kind, v in zip(scalar_types, scalars)]
    values = pointers + scalar_args + sizes

    def run():
        for function, count in calls:
            pieces = _pieces(schedule, count)

            def piece(i, function=function, count=count, pieces=pieces):
                if function(count * i // pieces, count * (i + 1) // pieces, *values):
                    raise MemoryError(f"asnumpy.fuse: no host memory for the row buffers "
                                      f"of {schedule.rshape} elements each")

            if pieces == 1:
                piece(0)
            else:
                parallel.run(piece, pieces)
        # the arrays stay referenced until the kernel is done (a user stream runs it later)
        return arrays, partials

    stream = get_current_stream(device)
    if stream.is_default:
        run()
    else:
        stream.launch(run)


def _launch_cuda(schedule, device, arrays, partials, scalars):
    from ...backends.cuda.kernels import BLOCK, launch_grid
    from ...backends.cuda.streams import current_native

    backend = device.backend
    source, functions, _ = _render.render(schedule, "cuda")
    values = ([np.uint64(backend.pointer(a)) for a in arrays]
              + [np.uint64(backend.pointer(p)) for p in partials]
              + list(scalars) + [np.int64(s) for s in _sizes(schedule, 1)])
    rows = int(np.prod(schedule.kshape, dtype=np.int64))
    # a thread per element of an elementwise fusion (the cpu's blocks are for its caches)
    tasks = rows if schedule.mode == "map" else schedule.ntasks
    for role, count in (("task", tasks), ("finish", rows)):
        if role in functions:
            backend.driver.launch(device.index, source, functions[role], launch_grid(count),
                                  BLOCK, 0, values + [np.int64(count)], current_native(device))
