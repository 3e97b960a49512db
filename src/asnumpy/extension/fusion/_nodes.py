"""The kinds of node of a traced graph: one small class each, with what differs per kind.

A node is one value: ``args`` (indices of the nodes it is computed from),
``dtype``, ``shape``, ``attrs`` (the kind's data) and ``index``.  Each kind
carries its own behaviour, so the passes over a graph dispatch on the node
rather than on a name:

* :meth:`axis_map` (used by :mod:`._schedule`): the axis of the iteration
  space ``S`` each of the node's axes runs along (None: extent 1), from its
  arguments' maps -- raising :class:`Unfusable` for what one kernel cannot
  compute;
* :meth:`statement` (used by :mod:`._render`, for the kinds computed per
  element): the C statement defining the node's value ``name``; ``code``
  gives the C value of a node (``code.value(index)``), an input's load
  (``code.load(index, ctype)``) and a ufunc loop's device function
  (``code.ufunc(name, loop)``).

:class:`Scalar` values are kernel parameters and :class:`Reduce` values are
computed by a reduction pass (the renderer's, per schedule mode), so neither
has a statement.  Adding a kind is a class here and the trace step that
records it (``Graph.add(Kind, ...)`` in :mod:`._trace`).
"""

from __future__ import annotations

import numpy as np

from ...ops.cxx.types import CTYPES

__all__ = ["Cast", "Input", "Node", "Reduce", "Scalar", "Ufunc", "Unfusable"]

_CROSSED = "a reduced value broadcast against other axes than the ones it keeps"


class Unfusable(Exception):
    """A traced function whose shape pattern one kernel cannot compute; ``str()`` says why."""


def _ctype(dtype) -> str:
    return CTYPES[np.dtype(dtype).char]


class Node:
    """One value of the graph (see the module docstring); ``kind`` names the class in
    signatures (part of the kernel cache key) and reprs."""

    __slots__ = ("args", "attrs", "dtype", "index", "shape")
    kind = "node"

    def __init__(self, args, dtype, shape, attrs, index):
        self.args, self.dtype, self.shape = tuple(args), dtype, tuple(shape)
        self.attrs, self.index = attrs, index

    def key_attrs(self):
        """The attributes the rendered code depends on."""
        return self.attrs

    def signature(self):
        """What the rendered code depends on (constants' values are launch arguments)."""
        return (self.kind, self.args, self.dtype.str, len(self.shape), self.key_attrs())

    def __repr__(self):
        return f"<Node {self.index} {self.kind} {self.attrs} {self.dtype} {self.shape}>"


class Input(Node):
    """An array argument (``attrs``: its position), read from memory."""

    __slots__ = ()
    kind = "input"

    def axis_map(self, nodes, maps, S):
        n, k = len(S), len(self.shape)
        return tuple(None if extent == 1 else n - k + j for j, extent in enumerate(self.shape))

    def statement(self, name, ctype, code):
        return f"const {ctype} {name} = {code.load(self.index, ctype)};"


class Scalar(Node):
    """A scalar (``attrs``: ``("arg", position)`` or ``("const", value)``), passed by value;
    ``dtype`` is the type it is converted to, as NumPy converts it."""

    __slots__ = ()
    kind = "scalar"

    def key_attrs(self):
        return ("const",) if self.attrs[0] == "const" else self.attrs

    def axis_map(self, nodes, maps, S):
        return ()


class _Elementwise(Node):
    """A value computed element by element from its arguments, broadcast together."""

    __slots__ = ()

    def axis_map(self, nodes, maps, S):
        result = [None] * len(self.shape)
        for arg in self.args:
            arg_map = maps[arg]
            offset = len(result) - len(arg_map)
            for j, axis in enumerate(arg_map):
                if axis is None:
                    continue
                if result[offset + j] not in (None, axis):
                    raise Unfusable(_CROSSED)
                result[offset + j] = axis
        # one axis of S at two positions: a reduced value broadcast along another axis
        # than its own (``x.sum(axis=-1) + x`` for x of shape (n, 1) is an (n, n) outer
        # sum); one pass over S would compute its diagonal only
        used = [axis for axis in result if axis is not None]
        if len(used) != len(set(used)):
            raise Unfusable(_CROSSED)
        return tuple(result)


class Ufunc(_Elementwise):
    """A ufunc call (``attrs``: NumPy name and loop dtypes)."""

    __slots__ = ()
    kind = "ufunc"

    def statement(self, name, ctype, code):
        ufunc_name, loop = self.attrs
        fn = code.ufunc(ufunc_name, loop)
        args = []
        for arg, dtype in zip(self.args, loop):
            value = code.value(arg)
            if code.dtype(arg) != np.dtype(dtype):
                value = f"asn_cast<{_ctype(dtype)}>({value})"
            args.append(value)
        return f"{ctype} {name}; {fn}({', '.join(args)}, {name});"


class Cast(_Elementwise):
    """Its argument converted to ``dtype`` (NumPy's unsafe cast)."""

    __slots__ = ()
    kind = "cast"

    def statement(self, name, ctype, code):
        return f"const {ctype} {name} = asn_cast<{ctype}>({code.value(self.args[0])});"


class Reduce(Node):
    """A reduction (``attrs``: ufunc name, reduced axes of the operand, keepdims)."""

    __slots__ = ()
    kind = "reduce"

    def _operand_map(self, nodes, maps, S):
        source = nodes[self.args[0]]
        arg_map = maps[source.index]
        if source.shape != S or any(a not in (j, None) for j, a in enumerate(arg_map)):
            raise Unfusable("a reduction of a value with fewer dimensions than the "
                            "iteration space")
        return arg_map

    def reduced_axes(self, nodes, maps, S) -> frozenset:
        """The axes of S it reduces."""
        _, axes, _ = self.attrs
        arg_map = self._operand_map(nodes, maps, S)
        if any(arg_map[j] is None and S[j] > 1 for j in axes):
            raise Unfusable("a reduction along a broadcast axis")
        return frozenset(arg_map[j] for j in axes if arg_map[j] is not None)

    def axis_map(self, nodes, maps, S):
        _, axes, keepdims = self.attrs
        arg_map = self._operand_map(nodes, maps, S)
        if keepdims:
            return tuple(None if j in axes else a for j, a in enumerate(arg_map))
        return tuple(a for j, a in enumerate(arg_map) if j not in axes)
