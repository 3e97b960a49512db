"""Launching a :class:`~._schedule.Schedule`: outputs from the pool, then one kernel.

The rendered source (:mod:`._render`, for the device's target
``device.backend.cxx``) is compiled once per schedule and device by the back
end (``device.backend.compile``: the host toolchain's memory and disk cache
on cpu, NVRTC on cuda) and its entries launched through the program
(``program.launch``):

* **cpu** -- the task entry runs over the task range, cut into pieces the
  cpu thread pool runs; which thread runs a task never changes what it
  computes.
* **cuda** -- one thread per task, grid-stride (a thread per element of an
  elementwise fusion).

A chunked reduction runs its ``finish`` function after the tasks (a second
launch on the same stream), reading the partials from a scratch array taken
from the device's pool.  Work goes on the device's current stream.
"""

from __future__ import annotations

import numpy as np

from ..._core import _launch
from ...ops.cxx.types import by_value
from ...runtime.observer import queue_work
from ...runtime.stream import get_current_stream
from . import _render

__all__ = ["launch", "scalar_values"]

# A fused element's loop vectorises: it costs about half an element of a scalar loop
# (the unit of a launch's ``work``), so the cpu splits a fusion at twice the elements.
ELEMENT_WORK = 0.5


def scalar_values(schedule, args):
    """The scalar parameters, converted as NumPy converts them (its errors if they do not fit)."""
    values = []
    for index in schedule.scalar_nodes:
        node = schedule.nodes[index]
        source, payload = node.attrs
        value = args[payload] if source == "arg" else payload
        values.append(by_value(np.asarray(value, dtype=node.dtype)))
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
        _launch_kernel(schedule, device, arrays, partials, scalars)
    return tuple(outs[k] if kind == "slot" else args[k] for kind, k in schedule.outputs)


def _sizes(schedule, map_block):
    """The shape, stride, chunk and block parameters, in the kernel's order."""
    sizes = list(schedule.kshape) + list(schedule.rshape)
    for op in schedule.operands:
        sizes += list(op.kstrides) + list(op.rstrides)
    sizes += [schedule.nchunk, map_block]
    return sizes


def _program(schedule, device):
    """``(program, [(entry, grid, block, last values)], work)`` of ``schedule`` on
    ``device``: compiled, and its launches laid out, once."""
    programs = schedule.__dict__.setdefault("_programs", {})
    found = programs.get(device)
    if found is None:
        target = device.backend.cxx
        source, functions, _ = _render.render(schedule, target)
        options = _render.cpu_options(target) if target.host else ()
        program = device.backend.compile(source, device, options=options,
                                         where="asnumpy.fuse")
        block = _render.map_block(target)
        sizes = [np.int64(s) for s in _sizes(schedule, block)]
        rows = int(np.prod(schedule.kshape, dtype=np.int64))
        elements = rows * int(np.prod(schedule.rshape or (1,), dtype=np.int64))
        tasks = -(-rows // block) if schedule.mode == "map" else schedule.ntasks
        launches = [(functions[role], *target.geometry(count), sizes + [np.int64(count)])
                    for role, count in (("task", tasks), ("finish", rows))
                    if role in functions]
        found = programs[device] = (program, launches, int(elements * ELEMENT_WORK))
    return found


def _launch_kernel(schedule, device, arrays, partials, scalars):
    backend = device.backend
    program, launches, work = _program(schedule, device)
    values = ([np.uint64(backend.pointer(a)) for a in arrays]
              + [np.uint64(backend.pointer(p)) for p in partials] + list(scalars))
    failure = (f"asnumpy.fuse: no host memory for the row buffers of {schedule.rshape} "
               "elements each")

    def run():
        for entry, grid, block, last in launches:
            program.launch(entry, grid, block, values + last, work=work, failure=failure)
        # the arrays stay referenced until the kernel is done (a user stream runs it later)
        return arrays, partials

    written = [a for a, op in zip(arrays, schedule.operands) if op.role != "in"]
    queue_work(get_current_stream(device), schedule.name, "fused", run,
               detail=fused_ops(schedule), writes=written,
               reads=[a for a, op in zip(arrays, schedule.operands) if op.role == "in"])


def fused_ops(schedule) -> tuple:
    """The NumPy operations the kernel of ``schedule`` fuses, in graph order (``add``,
    ``add.reduce``, ``cast``): what a profiler lists for it."""
    ops = []
    for node in schedule.nodes:
        if node.kind == "ufunc":
            ops.append(node.attrs[0])
        elif node.kind == "reduce":
            ops.append(f"{node.attrs[0]}.reduce")
        elif node.kind not in ("input", "scalar"):
            ops.append(node.kind)
    return tuple(ops)
