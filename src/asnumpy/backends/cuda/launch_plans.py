"""Launch plans of elementwise kernels: what a repeated ufunc call does on the host.

Planning an elementwise call (:func:`.elementwise.plan_elementwise`:
broadcasting, collapsing dimensions, rendering, choosing the index width)
costs tens of microseconds of Python; a GPU runs a small kernel in a few.
So the cuda back end plans each call signature once and keeps the result,
a :class:`UfuncLaunch`, in a bounded :class:`PlanCache`.  The key is
:func:`call_key`: the ufunc, its loop, and per operand its storage dtype,
shape and byte strides (a scalar: its dtype or Python type).  The
*kernel* behind a plan is shared more widely -- rendering is cached per
layout class (contiguous, with broadcast scalar inputs or not, or a
collapsed rank with general strides; index width; operand kinds) -- so a
new shape costs one planning, not a compile -- and for contiguous calls
not even that: :func:`contiguous_class` names the layout class of a call
whose array operands are all C-contiguous in the output's shape (or 0-d
inputs), and one plan per class, :meth:`UfuncLaunch.resized` to the call's
element count, serves every shape.  The plans of reductions
(``plan_reduction``) are kept in a cache of the same kind.

What a cached plan still does per call is small and fixed: read each
operand's device address, convert each scalar operand with the converter
built at planning (a NumPy cast and the exact parameter type of
:mod:`.arguments`), and pick the vector-load kernel when every address is
aligned for it.  Everything else in the argument list (element count,
shape, strides) was marshalled once, at planning.
"""

from __future__ import annotations

import copy
import threading

import numpy as np

from . import arguments
from .elementwise import INT32_MAX, ArraySpec, ScalarSpec, plan_elementwise

__all__ = ["BLOCK", "MAX_GRID", "PlanCache", "UfuncLaunch", "call_key", "contiguous_class",
           "launch_grid", "plan_ufunc_launch"]

BLOCK = 256                 # threads per block of elementwise kernels
MAX_GRID = 8192             # grid-stride loops cover the rest


def launch_grid(size: int) -> int:
    """Blocks for ``size`` elements: enough to fill the GPU, capped (grid-stride loops)."""
    return max(1, min(-(-size // BLOCK), MAX_GRID))


class PlanCache:
    """A bounded mapping from call keys to plans; the oldest entry leaves first when full.

    ``capacity`` may be changed at any time (0: nothing is kept); ``hits``
    and ``misses`` count lookups (the tests and the benchmark read them).
    Lookups take no lock; insertions and evictions do (threads may plan at
    once).
    """

    def __init__(self, capacity: int = 2048):
        self.hits = self.misses = 0
        self._plans: dict = {}
        self._lock = threading.Lock()
        self.capacity = capacity

    @property
    def capacity(self) -> int:
        return self._capacity

    @capacity.setter
    def capacity(self, value: int) -> None:
        with self._lock:
            self._capacity = value
            self._trim(value)

    def _trim(self, size: int) -> None:
        plans = self._plans
        while len(plans) > max(size, 0):
            del plans[next(iter(plans))]     # dicts keep insertion order: the oldest

    def get(self, key):
        plan = self._plans.get(key)
        if plan is None:
            self.misses += 1
        else:
            self.hits += 1
        return plan

    def put(self, key, plan) -> None:
        with self._lock:
            if self._capacity > 0:
                self._trim(self._capacity - 1)
                self._plans[key] = plan

    def clear(self) -> None:
        with self._lock:
            self._plans.clear()

    def __len__(self) -> int:
        return len(self._plans)

    def __contains__(self, key) -> bool:
        return key in self._plans


def _operand_key(x):
    shape = getattr(x, "_shape", None)
    if shape is not None:                    # a device array
        return x._dtype, shape, x._strides
    if isinstance(x, np.ndarray | np.generic):
        return x.dtype                       # a NumPy scalar: strong, its dtype counts
    return type(x)                           # a Python scalar


def call_key(name, loop, outs, inputs, where):
    """The plan-cache key of ``ufunc(outs, name, loop, inputs, where)``."""
    return (name, loop, tuple(map(_operand_key, outs)), tuple(map(_operand_key, inputs)),
            None if where is None else _operand_key(where))


def _scalar_converter(value, loop_dtype, parameter, c_type):
    """The function converting a call's scalar operand (like ``value``) to its argument.

    NumPy's rule: the scalar is cast to the loop dtype (unsafely, after taking
    its own dtype when it has one), then passed as the parameter's type (a
    half as its bits).
    """
    carrier = arguments.PARAMETER_DTYPES[c_type]
    if isinstance(value, np.ndarray | np.generic) and value.dtype == loop_dtype:
        # the front end's converted Python scalars (0-d arrays) and NumPy scalars of the
        # loop's type: a view as the parameter's type, no conversion
        def convert(x):
            return parameter(x.view(carrier)[()] if isinstance(x, np.ndarray) else x.view(carrier))
        return convert
    source_dtype = value.dtype if isinstance(value, np.ndarray | np.generic) else loop_dtype

    def convert(x):
        with np.errstate(all="ignore"):      # overflow to inf etc. as NumPy's cast gives it
            cast = np.asarray(np.asarray(x)[()], source_dtype).astype(loop_dtype,
                                                                      casting="unsafe")
        return parameter(cast.view(carrier)[()])
    return convert


class UfuncLaunch:
    """One planned elementwise call: everything but its addresses and scalar values.

    Attributes
    ----------
    source, kernel_name : str
        The module and its scalar kernel.
    grid : int
        Blocks of :data:`BLOCK` threads.
    template : list
        The marshalled arguments; the call's addresses and scalars replace
        the entries at ``pointer_slots`` and ``scalar_slots``.
    pointer_slots : tuple of (int, int)
        (argument position, operand index) per address; operands are
        numbered outputs, inputs, ``where``.
    scalar_slots : tuple of (int, int, callable)
        (argument position, operand index, converter) per scalar operand.
    vector : tuple or None
        (kernel name, grid, ((position, alignment), ...)) of the vector-load
        kernel, used when every address is aligned.
    """

    __slots__ = (
        "count_slot",
        "grid",
        "kernel_name",
        "lanes",
        "pointer_slots",
        "scalar_slots",
        "source",
        "template",
        "vector",
    )

    def resized(self, size):
        """This contiguous plan for ``size`` elements (same kernels, count and grids)."""
        plan = copy.copy(self)
        plan.template = self.template.copy()
        plan.template[self.count_slot] = type(self.template[self.count_slot])(size)
        plan.grid = launch_grid(size)
        if self.vector is not None:
            name, _, alignments = self.vector
            plan.vector = (name, launch_grid(-(-size // self.lanes)), alignments)
        return plan

    def arguments(self, operands, pointer):
        """(kernel name, grid, arguments) of a call on ``operands``.

        ``pointer(array)`` gives an operand's device address.
        """
        args = self.template.copy()
        for position, index in self.pointer_slots:
            args[position] = pointer(operands[index])
        for position, index, convert in self.scalar_slots:
            args[position] = convert(operands[index])
        vector = self.vector
        if vector is not None:
            name, grid, alignments = vector
            for position, alignment in alignments:
                if args[position] % alignment:
                    break
            else:
                return name, grid, args
        return self.kernel_name, self.grid, args


def plan_ufunc_launch(name, loop, outs, inputs, where):
    """Plan ``numpy.<name>(*inputs, out=outs, signature=loop, where=where)`` (unsafe
    casting) for calls of this signature; None when there is nothing to launch."""
    specs = []
    for k, x in enumerate(inputs):
        if hasattr(x, "_realize"):
            specs.append(ArraySpec(x._dtype, x._shape, x._strides))
        else:
            value = np.asarray(x)
            dtype = value.dtype if isinstance(x, np.ndarray | np.generic) else loop[k]
            specs.append(ScalarSpec(dtype, value[()]))
    kernel = plan_elementwise(name, loop, specs,
                              [ArraySpec(o._dtype, o._shape, o._strides) for o in outs],
                              None if where is None else
                              ArraySpec(where._dtype, where._shape, where._strides))
    if kernel.size == 0:
        return None
    nout, nin = len(outs), len(inputs)
    operand_index = {("pointer", "out", k): k for k in range(nout)}
    operand_index.update({("pointer", "in", k): nout + k for k in range(nin)})
    operand_index["pointer", "where"] = nout + nin
    values = [0 if type(a) is tuple else a for a in kernel.arguments]
    plan = UfuncLaunch()
    plan.source, plan.kernel_name = kernel.source, kernel.kernel_name
    plan.grid = launch_grid(kernel.size)
    plan.template = arguments.marshal(kernel.kernel_name, kernel.parameters, values)
    plan.pointer_slots = tuple((position, operand_index[a])
                               for position, a in enumerate(kernel.arguments)
                               if type(a) is tuple)
    scalar_slots = []
    for k, x in enumerate(inputs):
        if not hasattr(x, "_realize"):
            position = nout + k              # outputs' pointers, then one entry per input
            c_type, parameter_name = kernel.parameters[position]
            parameter = arguments.parameter_converter(kernel.kernel_name, position, c_type,
                                                      parameter_name)
            scalar_slots.append((position, nout + k,
                                 _scalar_converter(x, loop[k], parameter, c_type)))
    plan.scalar_slots = tuple(scalar_slots)
    plan.vector, plan.lanes = None, 1
    if kernel.vector is not None:
        plan.lanes = lanes = kernel.vector.lanes
        plan.vector = (kernel.vector.kernel_name, launch_grid(-(-kernel.size // lanes)),
                       kernel.vector.alignments)
    # a contiguous kernel's only layout argument is its element count, the last one
    plan.count_slot = len(plan.template) - 1 if "shape0" not in {
        name for _, name in kernel.parameters} else None
    return plan


def contiguous_class(name, loop, outs, inputs, where):
    """(layout-class key, element count) of a call whose array operands are all
    C-contiguous in the output's shape (inputs may also be 0-d: broadcast
    scalars), else (None, 0).

    Calls of one class differ only in their element count: one plan, resized
    (:meth:`UfuncLaunch.resized`), serves them all, so a new shape of a
    contiguous call costs no planning.
    """
    if where is not None:
        return None, 0
    shape = outs[0]._shape
    size = 1
    for n in shape:
        size *= n
    if size < 2:
        return None, 0                    # 0-d and empty calls have layouts of their own
    operands, widest = [], 1
    for role, x in [("out", o) for o in outs] + [("in", x) for x in inputs]:
        x_shape = getattr(x, "_shape", None)
        if x_shape is None:
            operands.append(_operand_key(x))          # a scalar
            continue
        itemsize = x._dtype.itemsize
        if x_shape == () and role == "in":
            operands.append((x._dtype, "0-d"))
            continue
        if x_shape != shape or x._strides != _c_strides(shape, itemsize):
            return None, 0
        operands.append((x._dtype, "C"))
        widest = max(widest, itemsize)
    bits = 32 if size * widest <= INT32_MAX else 64     # as elementwise.index_width
    return (name, loop, tuple(operands), bits), size


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))
