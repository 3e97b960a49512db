"""The replayed program of one ``asnumpy.jit`` signature, built from a :class:`Recording`.

The recorded steps keep their order.  Each maximal run of fusible steps
(elementwise ufunc calls with a C form, ``astype``, the reductions fuse
computes) becomes one *region*: a Python function of the run's inputs that
makes the run's calls, compiled by :class:`asnumpy.fuse`'s machinery (one
kernel, or a few with the reductions stored in between; on cpu the measured
choice between the fused kernels and the region op by op).  Only the values
later steps or the results read leave a region; a region none of whose
values is read is not run.  A run of one step is a call (its own plan is as
fast), unless it is a transcendental function (``ops.cxx.vecmath.FUNCTIONS``):
a fused kernel vectorises it and splits it across the threads, so it is a
region of one step, whose measured choice keeps the faster.  Every other
step -- views, indexing, item assignment, ``matmul``, ``where``, ``argmin``,
out= calls -- is a *call*: the recorded function called on the slots' current
values, its own cached plans doing the work.  Why each boundary exists is what :meth:`Program.explain`
says.
"""

from __future__ import annotations

import contextlib

from ...ops.cxx.vecmath import FUNCTIONS as VECTOR_MATH
from ...runtime import observer
from ..fusion import Fusion, _Unfused
from ._graph import GraphReplay
from ._values import SlotRef

__all__ = ["Program"]

_NO_RANGE = contextlib.nullcontext()     # an op-by-op region's range while no profiler observes

# regions are keyed by the jit function's own signature cap; each region sees one
# signature per jit signature (its inputs' layouts follow from the arguments')
_REGION_SIGNATURES = 64


def _resolve(template, env):
    kind = type(template)
    if kind is SlotRef:
        return env[template.slot]
    if kind in (tuple, list):
        return kind(_resolve(item, env) for item in template)
    if kind is dict:
        return {key: _resolve(item, env) for key, item in template.items()}
    return template








class _Source:
    """The Python source of a replay function: one line per call, names for its values."""

    def __init__(self, constants):
        self.namespace = {}
        self.lines = []
        self.constant_names = {slot: self.constant(value) for slot, value in constants.items()}

    def constant(self, value) -> str:
        name = f"k{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def expression(self, template) -> str:
        """``template`` (a recorded argument) as an expression of the replay function."""
        kind = type(template)
        if kind is SlotRef:
            return self.constant_names.get(template.slot) or f"v{template.slot}"
        if kind is tuple:
            items = [self.expression(item) for item in template]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if kind is list:
            return "[" + ", ".join(self.expression(item) for item in template) + "]"
        if kind is dict:
            return "{" + ", ".join(f"{self.constant(key)}: {self.expression(item)}"
                                   for key, item in template.items()) + "}"
        if template is None or kind in (bool, int, str):
            return repr(template)
        return self.constant(template)

    def target(self, outputs) -> str:
        """The assignment target binding a call's result to the slots of ``outputs``."""
        kind = type(outputs)
        if kind is SlotRef:
            return f"v{outputs.slot}"
        if kind in (tuple, list) and outputs:
            return "(" + ", ".join(self.target(item) for item in outputs) + ",)"
        return "_"

    def call(self, step):
        """The line of a recorded call."""
        arguments = [self.expression(item) for item in step.args]
        arguments += [f"{key}={self.expression(item)}" for key, item in step.kwargs.items()]
        function = self.constant(step.function)
        self.lines.append(f"    {self.target(step.outputs)} = {function}({', '.join(arguments)})"
                          f"  # {step.label}")

    def function(self, name, arguments, result):
        """Compile the lines into ``replay(args, kwargs)`` returning ``result``."""
        header = [f"def replay(args, kwargs):  # asnumpy.jit {name}"]
        header += [f"    v{slot} = {'args' if type(key) is int else 'kwargs'}[{key!r}]"
                   for key, slot in arguments]
        source = "\n".join(header + self.lines + [f"    return {self.expression(result)}"])
        code = compile(source, f"<asnumpy.jit {name}>", "exec")
        exec(code, self.namespace)               # noqa: S102 (our generated source)
        return self.namespace["replay"], source


class _Region:
    """A run of fusible steps, computed by one :class:`Fusion` of a synthetic function."""

    def __init__(self, steps, inputs, outputs, name, program):
        self.steps, self.inputs, self.outputs = steps, tuple(inputs), tuple(outputs)
        self.program = program
        calls = [(step.function, step.args, step.kwargs, step.outputs.slot) for step in steps]
        input_slots, output_slots = self.inputs, self.outputs

        def region(*values):
            env = dict(zip(input_slots, values))
            for function, args, kwargs, slot in calls:
                env[slot] = function(*_resolve(args, env), **_resolve(kwargs, env))
            return tuple(env[slot] for slot in output_slots)

        region.__name__ = region.__qualname__ = name
        self.fusion = Fusion(region, kernel_name=name, max_signatures=_REGION_SIGNATURES,
                             quiet=True)
        self.choice = None          # "fused" / "op by op" once the fusion's choice is made
        self.direct = None          # the fusion's direct call of a small kernel, once fused

    def __call__(self, *inputs):
        """The region while its fusion decides (the replay calls the fusion, or the
        steps, directly once it has)."""
        results = self.fusion(*inputs)
        choice = _choice(self.fusion)
        if choice is not None:
            self.choice = choice
            if choice == "fused":
                self.direct = self.fusion.direct(*inputs)
            self.program.rebuild()
        return results

    def emit(self, source):
        """This region's lines of the replay function."""
        if self.choice == "op by op":
            # the steps inlined, inside a profiler range that says why while one observes
            entries = list(self.fusion._schedules.values())
            why = observer.ObservedRange(f"{self.fusion.kernel_name}: {entries[-1].explain()}")
            source.lines.append(f"    with ({source.constant(why)} if "
                                f"{source.constant(observer)}.observer is not None "
                                f"else {source.constant(_NO_RANGE)}):")
            first = len(source.lines)
            for step in self.steps:
                source.call(step)
            source.lines[first:] = ["    " + line for line in source.lines[first:]]
            return
        callee = source.constant(self if self.choice != "fused" else self.direct or self.fusion)
        inputs = ", ".join(source.expression(SlotRef(slot)) for slot in self.inputs)
        targets = "".join(f"v{slot}, " for slot in self.outputs)
        source.lines.append(f"    ({targets}) = {callee}({inputs})  # fused region")

    def explain(self):
        labels = [step.label for step in self.steps]
        entries = list(self.fusion._schedules.values())
        how = entries[-1].explain() if entries else "not run yet"
        ops = f"{len(labels)} op{'s' if len(labels) != 1 else ''}"
        return f"fused region of {ops} ({', '.join(labels)}): {how}"


def _choice(fusion):
    """``"fused"`` / ``"op by op"`` once ``fusion``'s one signature has chosen, else None."""
    entries = list(fusion._schedules.values())
    if len(entries) != 1:
        return None
    entry = entries[0]
    if type(entry) is _Unfused:
        return "op by op"
    return None if entry.measuring else "fused"


class _Call:
    """A recorded call, replayed as it was made."""

    def __init__(self, step):
        self.step = step

    def emit(self, source):
        source.call(self.step)

    def explain(self):
        return f"call {self.step.label}"


class Program:
    """The steps replayed for one signature: calls and fused regions over numbered slots,
    compiled into one Python function (``source`` shows it).

    ``arguments`` maps the traced arguments (positions and keyword names) to
    their slots; the recording's constants are the arrays from outside the
    arguments; ``result`` is the returned structure with :class:`SlotRef` in it.
    """

    def __init__(self, recording, arguments, result, name, donated=frozenset()):
        self.name = name
        self.donated = donated  # the keys of donated arguments (a graph may reuse them)
        self.arguments = arguments
        self.constants = dict(recording.constants)
        self.result = result
        self.graph = None       # the GraphReplay, or why there is none, once tried
        # Python arithmetic on weak scalars first: it reads no array, so it is no
        # boundary between the fusible steps around it
        self.steps = [_Call(step) for step in recording.steps if step.scalar]
        steps = [step for step in recording.steps if not step.scalar]
        read_later = _reads_after(steps, result)
        run = []
        for index, step in enumerate(steps):
            if step.fusible:
                run.append((index, step))
                continue
            self._close(run, read_later)
            run = []
            self.steps.append(_Call(step))
        self._close(run, read_later)
        self.rebuild()

    def _close(self, run, read_later):
        """The program's step(s) for a run of fusible steps."""
        if not run:
            return
        last = run[-1][0]
        produced = set()
        inputs = []
        for _, step in run:
            for slot in step.reads():
                if slot not in produced and slot not in inputs:
                    inputs.append(slot)
            produced.update(step.writes())
        outputs = [slot for slot in sorted(produced) if slot in read_later[last]]
        if not outputs:
            return                              # nothing it computes is read: not run
        if len(run) == 1 and not _vector_math(run[0][1]):   # one op: its plan is as fast
            self.steps.append(_Call(run[0][1]))
            return
        region_name = f"{self.name}_region{sum(type(s) is _Region for s in self.steps)}"
        self.steps.append(_Region([step for _, step in run], inputs, outputs, region_name,
                                  self))

    def rebuild(self):
        """(Re)compile the replay function: regions that chose op by op are inlined.  Once
        every region has chosen, the next call tries to capture the replay as a graph."""
        source = _Source(self.constants)
        for step in self.steps:
            step.emit(source)
        self.replay, self.source = source.function(self.name, self.arguments, self.result)
        chosen = all(step.choice is not None for step in self.steps if type(step) is _Region)
        self.run = self._capture if chosen and self.graph is None else self.replay

    def _capture(self, args, kwargs):
        """The first call once the program is settled: captured as a graph where the
        device replays graphs rebound (:mod:`._graph`), else replayed as before."""
        replay = self.replay
        self.graph = GraphReplay.capture(replay, self.arguments, self.constants.values(),
                                          args, kwargs, self.donated) or ""
        if type(self.graph) is GraphReplay:
            self.run = self.graph.run
            return self.run(args, kwargs)
        self.run = replay
        return replay(args, kwargs)

    def explain(self):
        """One line per step of the program (and how it replays, where graphs can)."""
        lines = [step.explain() for step in self.steps]
        graph = self.graph
        if graph:
            lines.append(graph if type(graph) is str else graph.explain())
        return "\n".join(lines)


def _vector_math(step) -> bool:
    """Whether ``step`` calls a transcendental ufunc (see the module docstring)."""
    return getattr(step.function, "__name__", None) in VECTOR_MATH and not step.kwargs


def _reads_after(steps, result):
    """For each step index, the slots read by later steps or by the result."""
    later = set()
    found = [None] * len(steps)
    results = []
    from ._values import _collect

    _collect(result, results)
    later.update(results)
    for index in range(len(steps) - 1, -1, -1):
        found[index] = frozenset(later)
        later.update(steps[index].reads())
    return found
