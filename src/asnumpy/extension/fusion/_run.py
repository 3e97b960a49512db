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

A launch one cpu thread runs (under the split size) is laid out once and
then run by :class:`SmallLaunch` while the lean gate is down (no stream
block, observer or capture): its outputs from NumPy's allocator as the fast
lane's small results are, its pointers and scalars written into the kept
value tables and its entries called by one C call
(``compiled.LaidOutKernel``; ``Fusion.direct`` puts it behind a check of the
arguments' signature, ``compiled.CheckedCall``).  It is the same kernel on the
same values as the general path, which every other call takes.
"""

from __future__ import annotations

import functools

import numpy as np

from ..._core import _launch, compiled
from ..._core.ndarray import ndarray
from ..._core.ufuncs.fast import POOL_MIN_BYTES
from ...ops.cxx.types import by_value
from ...runtime._state import lean_gate
from ...runtime.memory import accounting_pools
from ...runtime.observer import queue_work
from ...runtime.stream import get_current_stream
from . import _render

__all__ = ["SmallLaunch", "launch", "scalar_values"]

# A fused element's loop vectorises: it costs about half an element of a scalar loop
# (the unit of a launch's ``work``), so the cpu splits a fusion at twice the elements.
ELEMENT_WORK = 0.5


def scalar_values(schedule, args):
    """The scalar parameters, converted as NumPy converts them (its errors if they do not fit).

    The schedule's constants are converted once (kept on the schedule); the
    arguments' scalars at each call.
    """
    values = list(_constant_values(schedule))
    for k, index in enumerate(schedule.scalar_nodes):
        if values[k] is None:
            node = schedule.nodes[index]
            values[k] = _kernel_value(args[node.attrs[1]], node.dtype)
    return values


def _kernel_value(value, dtype):
    """A scalar parameter's launch value: ``value`` converted to ``dtype`` as NumPy does."""
    return by_value(np.asarray(value, dtype=dtype))


def _constant_values(schedule):
    """Per scalar parameter: a constant's kernel value, or None for an argument's."""
    constants = schedule.__dict__.get("_constant_values")
    if constants is None:
        constants = schedule.__dict__["_constant_values"] = [
            None if schedule.nodes[index].attrs[0] == "arg"
            else _kernel_value(schedule.nodes[index].attrs[1], schedule.nodes[index].dtype)
            for index in schedule.scalar_nodes]
    return constants


def _allocate(schedule, device):
    outs = {}
    for slot, op in enumerate(schedule.operands):
        if op.role != "in":
            outs[slot] = _launch.empty(op.shape, op.dtype, device)
    return outs


def launch(schedule, args, device, scalars):
    """Run ``schedule`` on ``args``; returns the arrays of the returned values."""
    if not lean_gate[0]:
        small = _program(schedule, device)[3]
        if small is not None and not (accounting_pools[0] and device.memory_pool.accounting):
            return small.kernel(args if type(args) is tuple else tuple(args), scalars)
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
    """``(program, [(entry, grid, block, last values)], work, SmallLaunch or None)`` of
    ``schedule`` on ``device``: compiled, and its launches laid out, once."""
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
        work = int(elements * ELEMENT_WORK)
        found = programs[device] = (program, launches, work,
                                    SmallLaunch.of(schedule, device, program, launches, work))
    return found


def _launch_kernel(schedule, device, arrays, partials, scalars):
    backend = device.backend
    program, launches, work, _ = _program(schedule, device)
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


class SmallLaunch:
    """The launches of one schedule laid out once for one thread (see the module
    docstring): ``small.kernel(args, scalars)`` (a ``compiled.LaidOutKernel``) runs
    them and returns what :func:`launch` does; :meth:`checked` puts it behind a check
    of the arguments' signature (``Fusion.direct``).

    Only on a device whose program lays launches out (the cpu's ``lay_out``), with
    the compiled call path built, for work under the split size and results under
    the fast lane's ``POOL_MIN_BYTES``; :meth:`of` gives None for any other.
    """

    @classmethod
    def of(cls, schedule, device, program, launches, work):
        lay_out = getattr(program, "lay_out", None)
        if lay_out is None or compiled.LaidOutKernel is None or device.numpy_loops is None:
            return None
        written = [op for op in schedule.operands if op.role != "in"]
        if not written or any(np.prod(op.shape, dtype=np.int64) * op.dtype.itemsize
                              >= POOL_MIN_BYTES for op in written):
            return None
        partials = (tuple(((schedule.ntasks,), _render.compute_dtype(schedule.nodes[r].dtype))
                          for r in schedule.reductions) if schedule.mode == "chunked" else ())
        pointers = len(schedule.operands) + len(partials)
        # placeholders where each run writes its pointers and scalars (all 16-byte slots)
        leading = [np.uint64(0)] * (pointers + len(schedule.scalar_nodes))
        laid = [lay_out(entry, grid, block, leading + last, work=work)
                for entry, grid, block, last in launches]
        if None in laid or pointers + len(schedule.scalar_nodes) > compiled.LAID_MAX_VALUES:
            return None
        return cls(schedule, device, laid, partials)

    def __init__(self, schedule, device, laid, partials):
        self._laid = laid                          # (keeps the tables alive)
        self._schedule, self._device = schedule, device
        self.kernel = compiled.LaidOutKernel(
            launches=tuple(launch_.addresses for launch_ in laid),
            operands=tuple(op.position if op.role == "in" else (tuple(op.shape), op.dtype)
                           for op in schedule.operands),
            partials=partials, outputs=tuple(map(tuple, schedule.outputs)), device=device,
            failure=(f"asnumpy.fuse: no host memory for the row buffers of "
                     f"{schedule.rshape} elements each"))

    def checked(self, fallback, args, is_tuple):
        """A ``compiled.CheckedCall``: this kernel for calls with the signature of
        ``args`` (argument types; the arrays' dtype objects, shapes, strides and
        device), ``fallback(*args)`` for any other."""
        schedule, device = self._schedule, self._device
        constants = _constant_values(schedule)
        scalars = tuple(
            constant if constant is not None else (
                schedule.nodes[index].attrs[1],
                functools.partial(_kernel_value, dtype=schedule.nodes[index].dtype))
            for index, constant in zip(schedule.scalar_nodes, constants))
        checks = tuple((k, a._dtype, a._shape, a._strides) for k, a in enumerate(args)
                       if type(a) is ndarray)
        return compiled.CheckedCall(kernel=self.kernel, fallback=fallback, gate=lean_gate,
                                    device=device, kinds=tuple(map(type, args)),
                                    checks=checks, scalars=scalars, is_tuple=is_tuple)


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
