"""How a traced graph runs as one kernel on concrete arrays: the :class:`Schedule`.

The iteration space is the shape ``S`` the reductions read (else the
outputs' shape).  Every node gets a *map*: for each of its axes, the axis of
``S`` it runs along (None where its extent is 1), from NumPy's trailing
alignment; an elementwise op whose operands disagree (a reduced value
broadcast against other axes than the ones it was reduced from) does not
fuse.  With reductions, the axes they reduce (``A``, the same for all) are
the *row*; the other axes of ``S`` number the rows.  Nodes that do not vary
along ``A`` are *row values*, computed once per row.

Modes (see :mod:`._render`): ``map`` without reductions; ``chunked`` when
no reduction depends on another and every output is a row value; ``rows``
otherwise (a softmax: a reduction, elementwise work on its result, another
reduction, elementwise outputs).

The kept axes and the reduced axes are each collapsed (as the cuda
elementwise kernels collapse theirs), so a C-contiguous operand gives a
unit-stride inner loop; any strides work (broadcast zeros, negative,
non-contiguous), with a strided inner loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ...ops.cxx.layout import collapse
from . import _render
from ._nodes import Input, Reduce, Scalar, Unfusable

__all__ = ["Operand", "Schedule", "Unfusable", "build"]


@dataclass(frozen=True)
class Operand:
    """A pointer argument: an input (``in``), an elementwise output (``out``) or a row
    output (``rowout``), with its byte strides over the collapsed kept (``k``) and
    reduced (``r``) axes and the class of each innermost stride (0: broadcast,
    1: unit, 2: other)."""

    role: str
    node: int
    dtype: np.dtype
    kstrides: tuple
    rstrides: tuple
    inner_class: dict
    position: int = -1              # argument position of an input
    shape: tuple = ()               # shape of an output


@dataclass
class Schedule:
    nodes: list
    mode: str
    kshape: tuple
    rshape: tuple
    operands: list
    reductions: list
    row_nodes: frozenset
    input_slot: dict
    scalar_nodes: list
    outputs: list                   # per returned value: ("slot", k) or ("arg", position)
    ntasks: int
    nchunk: int
    key: tuple
    name: str = "fused"             # a C identifier: the kernels are asn_<name>_<role>_<hash>


def _cone(nodes, outputs):
    needed, stack = set(), list(outputs)
    while stack:
        index = stack.pop()
        if index not in needed:
            needed.add(index)
            stack.extend(nodes[index].args)
    return sorted(needed)


def _depends_on_reduction(nodes, index):
    stack, seen = list(nodes[index].args), set()
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        if isinstance(nodes[i], Reduce):
            return True
        stack.extend(nodes[i].args)
    return False


def _maps(nodes, needed, S):
    """Node index -> the axis of S each of its axes runs along (None: extent 1)."""
    maps = {}
    axes_of_reductions = set()
    for i in needed:                  # needed is in topological order
        node = nodes[i]
        if isinstance(node, Reduce):
            axes_of_reductions.add(node.reduced_axes(nodes, maps, S))
        maps[i] = node.axis_map(nodes, maps, S)
    if len(axes_of_reductions) > 1:
        raise Unfusable("reductions along different axes")
    return maps, (next(iter(axes_of_reductions)) if axes_of_reductions else frozenset())


def _contiguous(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _collapsed(shape, strides_list):
    if not shape:
        return (1,), [(0,) for _ in strides_list]
    new_shape, new_strides = collapse(tuple(shape), [tuple(s) for s in strides_list],
                                      order_by=None)
    if not new_shape:
        return (1,), [(0,) for _ in strides_list]
    return new_shape, new_strides


def _inner_class(stride, itemsize):
    return 0 if stride == 0 else 1 if stride == itemsize else 2


def build(graph, outputs, args, name="fused") -> Schedule:
    """The schedule of ``graph`` (returning ``outputs``) on the concrete ``args``.

    ``name`` (the fused function's kernel name) becomes part of the C names.
    """
    nodes = graph.nodes
    needed = _cone(nodes, outputs)
    reductions = [i for i in needed if isinstance(nodes[i], Reduce)]
    if reductions:
        S = nodes[nodes[reductions[0]].args[0]].shape
    else:
        S = nodes[outputs[0]].shape
        if any(nodes[o].shape != S for o in outputs if not isinstance(nodes[o], Input)):
            raise Unfusable("outputs of different shapes")
    inputs = [i for i in needed if isinstance(nodes[i], Input)]
    try:
        if np.broadcast_shapes(S, *(nodes[i].shape for i in inputs)) != S:
            raise Unfusable("an input larger than the reductions' operand")
    except ValueError:
        raise Unfusable("inputs that do not broadcast to the reductions' operand") from None
    maps, A = _maps(nodes, needed, S)
    n = len(S)
    if reductions:
        row_nodes = frozenset(i for i in needed if not isinstance(nodes[i], Scalar)
                              and not (set(maps[i]) & A))
        kept = [s for s in range(n) if s not in A]
        reduced = sorted(A)
    else:
        row_nodes = frozenset()
        kept, reduced = list(range(n)), []

    # pointer operands: inputs, then each distinct output node once
    operands_spec = []                      # (role, node, dtype, strides over S, position, shape)
    input_slot = {}
    for i in inputs:
        array = args[nodes[i].attrs]
        k = len(array.shape)
        strides = [0] * n
        for j, (extent, stride) in enumerate(zip(array.shape, array.strides)):
            if extent != 1:
                strides[n - k + j] = stride
        input_slot[i] = len(operands_spec)
        operands_spec.append(("in", i, array.dtype, strides, nodes[i].attrs, array.shape))
    returned, slot_of = [], {}
    for o in outputs:
        node = nodes[o]
        if isinstance(node, Input):
            returned.append(("arg", node.attrs))
            continue
        if isinstance(node, Scalar):
            raise Unfusable("returning a scalar")
        if o not in slot_of:
            own = _contiguous(node.shape, node.dtype.itemsize)
            if o in row_nodes:
                missing = [s for s in kept if S[s] > 1 and s not in maps[o]]
                if missing:
                    raise Unfusable("an output that does not vary along every kept axis")
                strides = [0] * n
                for axis, stride in zip(maps[o], own):
                    if axis is not None:
                        strides[axis] = stride
                role = "rowout"
            else:
                # an elementwise output is stored with S's own strides: it must run along
                # S's axes in S's order
                if node.shape != S or any(a not in (j, None) for j, a in enumerate(maps[o])):
                    raise Unfusable("outputs of different shapes")
                strides, role = list(own), "out"
            slot_of[o] = len(operands_spec)
            operands_spec.append((role, o, node.dtype, strides, -1, node.shape))
        returned.append(("slot", slot_of[o]))

    kshape, kstrides = _collapsed([S[s] for s in kept],
                                  [[spec[3][s] for s in kept] for spec in operands_spec])
    if reduced:
        rshape, rstrides = _collapsed([S[s] for s in reduced],
                                      [[spec[3][s] for s in reduced] for spec in operands_spec])
    elif reductions:
        rshape, rstrides = (1,), [(0,) for _ in operands_spec]
    else:
        rshape, rstrides = (), [() for _ in operands_spec]
    operands = []
    for (role, node, dtype, _, position, shape), ks, rs in zip(operands_spec, kstrides, rstrides):
        inner = {"k": _inner_class(ks[-1], dtype.itemsize)}
        if rs:
            inner["r"] = _inner_class(rs[-1], dtype.itemsize)
        operands.append(Operand(role, node, dtype, tuple(ks), tuple(rs), inner, position,
                                shape))

    rows = int(np.prod(kshape, dtype=np.int64))
    length = int(np.prod(rshape, dtype=np.int64)) if rshape else 0
    nchunk = 1
    if not reductions:
        mode = "map"
        ntasks = -(-rows // _render.MAP_BLOCK)
    else:
        element_outputs = any(op.role == "out" for op in operands)
        nested = any(_depends_on_reduction(nodes, r) for r in reductions)
        if element_outputs or nested:
            mode, ntasks = "rows", rows
        else:
            mode = "chunked"
            nchunk = -(-length // _render.CHUNK)
            ntasks = rows * nchunk
    scalar_nodes = [i for i in needed if isinstance(nodes[i], Scalar)]
    key = (tuple(nodes[i].signature() + (i,) for i in needed), mode, len(kshape), len(rshape),
           tuple((op.role, op.node, op.dtype.str, tuple(sorted(op.inner_class.items())))
                 for op in operands), tuple(reductions), tuple(sorted(row_nodes)),
           tuple(scalar_nodes))
    name = re.sub(r"\W", "_", name, flags=re.ASCII)[:40] or "fused"
    return Schedule(nodes, mode, tuple(kshape), tuple(rshape), operands, reductions,
                    row_nodes, input_slot, scalar_nodes, returned, ntasks, nchunk,
                    key + (name,), name)
