"""A traced function one kernel cannot compute, run as a few: the :class:`Plan`.

:func:`._schedule.build` refuses the shape patterns one pass over one
iteration space cannot compute: reductions along different axes
(``a.sum(axis=0) + b.sum(axis=1)``), a reduced value broadcast back along
other axes than its own (``x.sum(axis=-1) + x`` for ``x`` of shape
``(n, 1)`` is an ``(n, n)`` outer sum), a reduction of a smaller value than
another one's operand, results of different shapes.  Such a function still
fuses, as a few kernels: reductions are *materialized* -- computed by a
kernel of their own into an array of the reduced shape -- and the kernels
after it read that array as an input, aligned as NumPy broadcasts it.

:func:`plan` works greedily, in the graph's order: while the rest does not
build as one kernel, the next group of reductions (the first one all of whose
inner reductions are materialized, with every other such one of the same
operand shape and axes) becomes a kernel; once every reduction is
materialized, each shape of result gets one elementwise kernel.  Every stage
builds (an operand's whole cone broadcasts to its shape, so each kernel sees
inputs aligned with its iteration space); only reduction results are stored
in between.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _run
from ._schedule import Unfusable, _contiguous, _cone, build
from ._nodes import Input, Reduce

__all__ = ["Plan", "plan"]


@dataclass(frozen=True)
class _Fresh:
    """The layout a materialized value will have (a new C-contiguous array), for ``build``."""

    shape: tuple
    dtype: object

    @property
    def strides(self):
        return _contiguous(self.shape, self.dtype.itemsize)


class _Graph:
    """The traced nodes with the materialized ones read as inputs (what ``build`` reads)."""

    def __init__(self, nodes, materialized):
        self.nodes = list(nodes)
        for index, position in materialized.items():
            node = nodes[index]
            self.nodes[index] = Input((), node.dtype, node.shape, position, index)


@dataclass
class Plan:
    """Stages run in order: ``(schedule, nodes it returns, how many of them are materialized)``;
    a stage's materialized results are appended to the arguments the later stages read."""

    stages: list
    outputs: list                   # the function's results: node indices

    def scalar_values(self, args):
        """Every stage's scalar parameters (NumPy's conversion errors before anything runs)."""
        return [_run.scalar_values(schedule, args) for schedule, _, _ in self.stages]

    def launch(self, args, device, scalars):
        """Run the stages on ``args``; returns the arrays of the function's results."""
        arguments, values = list(args), {}
        for (schedule, produced, materialized), stage_scalars in zip(self.stages, scalars):
            results = _run.launch(schedule, arguments, device, stage_scalars)
            values.update(zip(produced, results))
            arguments.extend(results[:materialized])
        return tuple(values[index] for index in self.outputs)


def _inner_reductions(nodes, index):
    """The reductions the operand of reduction ``index`` is computed from."""
    return [i for i in _cone(nodes, nodes[index].args) if isinstance(nodes[i], Reduce)]


def plan(graph, outputs, args, name="fused") -> Plan:
    """The stages computing ``outputs`` of ``graph`` on ``args`` (Unfusable if one cannot)."""
    nodes = graph.nodes
    pending = [i for i in _cone(nodes, outputs) if isinstance(nodes[i], Reduce)]
    materialized = {}                     # node index -> its argument position in later stages
    arguments = list(args)
    stages = []
    while True:
        rest = _Graph(nodes, materialized)
        try:
            stages.append((build(rest, outputs, arguments, name), list(outputs), 0))
            return Plan(stages, list(outputs))
        except Unfusable:
            if not pending:
                break
        ready = [r for r in pending
                 if all(i in materialized for i in _inner_reductions(nodes, r))]
        first = nodes[ready[0]]
        key = (nodes[first.args[0]].shape, first.attrs[1])
        group = [r for r in ready if (nodes[nodes[r].args[0]].shape, nodes[r].attrs[1]) == key]
        stages.append((build(rest, group, arguments, name), group, len(group)))
        for r in group:
            materialized[r] = len(arguments)
            arguments.append(_Fresh(nodes[r].shape, nodes[r].dtype))
            pending.remove(r)
    # every reduction materialized and still not one kernel: one per shape of result
    rest = _Graph(nodes, materialized)
    for shape in dict.fromkeys(nodes[o].shape for o in outputs):
        group = list(dict.fromkeys(o for o in outputs if nodes[o].shape == shape))
        stages.append((build(rest, group, arguments, name), group, 0))
    return Plan(stages, list(outputs))
