"""Tracing a Python function into an op graph (the first step of ``asnumpy.fuse``).

The function is called once per input signature with :class:`Proxy` values
in place of its arguments.  asnumpy's ufuncs hand calls on proxies to
:meth:`Proxy.__asnumpy_ufunc__` (the hook in ``ufunc.__call__`` and
``ufunc.reduce``), which resolves the loop with NumPy's own
``resolve_dtypes`` (NEP 50: Python scalars are weak) and records a
:class:`Node`; operators and the reduction methods of a proxy go through
the same ufuncs, so ``a * b + 2`` and ``ap.sum(x, axis=1)`` record alike.

What cannot be recorded raises :class:`Untraceable` naming the operation:
a ufunc with no scalar C form, ``where=``, Python branching on a traced
value (``bool(x)``), indexing, ... ``asnumpy.fuse`` then runs the function
op by op.  Errors NumPy itself would raise (broadcasting, casting, axes)
propagate as they are.
"""

from __future__ import annotations

import numpy as np

from ..._core import reductions
from ..._core.ndarray import ndarray
from ..._core.ufuncs import UFUNCS
from ...ops.ufuncs import BINARY_OPERATORS, COMPARISONS, UNARY_OPERATORS, power_shortcut
from ...ops.cxx.layout import ArraySpec
from ...ops.cxx.types import CTYPES
from ._nodes import Cast, Input, Node, Reduce, Scalar, Ufunc

__all__ = ["ArraySpec", "Graph", "Node", "Proxy", "Untraceable", "raises_for_values", "trace"]

_WEAK = (bool, int, float, complex)
# reductions that fuse: ufunc -> the combine loop is the ufunc's own
REDUCIBLE = ("add", "multiply", "maximum", "minimum")
_C_CHARS = frozenset(CTYPES)
_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(bool)


class Untraceable(Exception):
    """An operation ``asnumpy.fuse`` cannot put into a kernel; ``str()`` names it."""


class Graph:
    """The nodes of one trace, in the order recorded (a topological order)."""

    def __init__(self, device):
        self.nodes: list[Node] = []
        self.device = device

    def add(self, kind, args, dtype, shape, attrs=None) -> Node:
        """A new node of class ``kind`` (:mod:`._nodes`) computed from nodes ``args``."""
        node = kind([a.index for a in args], np.dtype(dtype), shape, attrs, len(self.nodes))
        self.nodes.append(node)
        return node


def _unsupported(what):
    def method(self, *args, **kwargs):
        raise Untraceable(what)

    return method


class Proxy:
    """A traced value: shape and dtype known, contents not (see module docstring).

    A weak Python scalar argument is a proxy whose ``dtype`` is its Python
    type; it takes the type of the array it meets, as in NumPy.
    """

    __array_priority__ = 1000

    def __init__(self, graph, node, weak=None):
        self._graph = graph
        self._node = node
        self._weak = weak                 # the Python type of a weak scalar argument
        self._device = graph.device

    # -- array attributes --------------------------------------------------------------

    @property
    def shape(self):
        return self._node.shape

    @property
    def ndim(self):
        return len(self._node.shape)

    @property
    def size(self):
        return int(np.prod(self._node.shape, dtype=np.int64))

    @property
    def dtype(self):
        if self._weak is not None:
            raise Untraceable("the dtype of a Python scalar argument")
        return self._node.dtype

    @property
    def device(self):
        return self._device

    def __repr__(self):
        return f"<asnumpy.fuse traced value shape={self.shape} dtype={self._node.dtype}>"

    # -- what a trace cannot follow ----------------------------------------------------

    __bool__ = _unsupported("bool() of a traced value (Python branching on array values)")
    __index__ = _unsupported("using a traced value as an index or integer")
    __int__ = __index__
    __float__ = _unsupported("float() of a traced value")
    __complex__ = _unsupported("complex() of a traced value")
    __len__ = _unsupported("len() of a traced value")
    __iter__ = _unsupported("iterating over a traced value")
    __getitem__ = _unsupported("indexing (x[...])")
    __setitem__ = _unsupported("item assignment (x[...] = ...)")
    __array__ = _unsupported("converting a traced value to a NumPy array")
    __matmul__ = __rmatmul__ = _unsupported("matmul (@)")
    reshape = _unsupported("reshape")
    transpose = _unsupported("transpose")
    T = property(_unsupported("transpose (.T)"))
    item = _unsupported("item()")
    tolist = _unsupported("tolist()")

    def __hash__(self):
        return id(self)

    # -- the ufunc hook ------------------------------------------------------------------

    def __asnumpy_ufunc__(self, ufunc, method, args, kwargs):
        graph = self._graph
        if method == "reduce":
            return _record_reduce(graph, ufunc, args[0], **kwargs)
        return _record_call(graph, ufunc, args, kwargs)

    # -- methods -----------------------------------------------------------------------

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        dtype = np.dtype(dtype)
        source = self.dtype
        if not np.can_cast(source, dtype, casting=casting):
            raise TypeError(f"Cannot cast array data from {source!r} to {dtype!r} according "
                            f"to the rule {casting!r}")
        _check_storable(dtype, "astype")
        if dtype == source:
            return self if not copy else Proxy(self._graph, self._node)
        return Proxy(self._graph, self._graph.add(Cast, (self._node,), dtype, self.shape))

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return reductions.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return reductions.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return reductions.max(self, axis=axis, out=out, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return reductions.min(self, axis=axis, out=out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return reductions.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _power_operator(self, other)

    def __ipow__(self, other):
        return _rebind(self, _power_operator(self, other))


def _binary(name, form):
    ufunc = UFUNCS[name]
    if form == "r":
        def operator(self, other):
            return ufunc(other, self)
    elif form == "i":
        def operator(self, other):
            return ufunc(self, other, out=self)
    else:
        def operator(self, other):
            return ufunc(self, other)
    return operator


def _attach_operators():
    for op, name in BINARY_OPERATORS.items():
        if op in ("pow", "matmul", "divmod"):
            continue
        for form in ("", "r", "i"):
            setattr(Proxy, f"__{form}{op}__", _binary(name, form))
    for op, name in COMPARISONS.items():
        setattr(Proxy, f"__{op}__", _binary(name, ""))
    for op, name in UNARY_OPERATORS.items():
        setattr(Proxy, f"__{op}__", lambda self, _u=UFUNCS[name]: _u(self))
    Proxy.__rpow__ = _binary("power", "r")
    Proxy.__divmod__ = Proxy.__rdivmod__ = _unsupported("divmod")


def _power_operator(array, exponent):
    """NumPy's ``array ** exponent`` shortcuts (square, sqrt, reciprocal), as ndarray's
    (:func:`asnumpy.ops.ufuncs.power_shortcut`)."""
    kind = array._node.dtype.kind if array._weak is None else "?"
    name = power_shortcut(kind, exponent)
    return UFUNCS["power"](array, exponent) if name is None else UFUNCS[name](array)


def _rebind(target, result):
    """In-place forms: ``target`` now names ``result``'s node (SSA renaming)."""
    if isinstance(target._node, Input):
        raise Untraceable("writing into an argument (out= or an in-place operator)")
    target._node = result._node
    return target


def _check_storable(dtype, what):
    if dtype.char not in _C_CHARS:
        raise Untraceable(f"{what} with dtype {dtype}")


def _operand(graph, value, what):
    """(node or None, dtype for resolution, python value) of one ufunc operand."""
    if isinstance(value, Proxy):
        if value._graph is not graph:
            raise Untraceable(f"{what}: a value traced by another fused function")
        if value._weak is not None:
            return value, value._weak
        return value, value._node.dtype
    if type(value) in _WEAK:
        return value, (np.dtype(bool) if type(value) is bool else type(value))
    if isinstance(value, ndarray) and value.ndim == 0:
        # a 0-d array computed while tracing (``ap.negative(2)``): a constant, strong as
        # NumPy's 0-d arrays are; read once, at trace time
        value = value.get()[()]
    if isinstance(value, np.generic):
        return value, value.dtype
    raise Untraceable(f"{what} of a {type(value).__name__} that is not an argument of the "
                      "fused function")


def _scalar_node(graph, value, conversion):
    """The node of a scalar operand converted to ``conversion`` (NumPy's rule)."""
    if isinstance(value, Proxy):              # a scalar argument, converted at each call
        return graph.add(Scalar, (), conversion, (), ("arg", value._node.attrs[1]))
    try:
        np.asarray(value, dtype=conversion)
    except (OverflowError, ValueError, TypeError):
        raise Untraceable(f"the constant {value!r} as {conversion}") from None
    return graph.add(Scalar, (), conversion, (), ("const", value))


def _record_call(graph, ufunc, args, kwargs):
    name = ufunc._numpy.__name__
    what = f"asnumpy.{ufunc.__name__}"
    forms = graph.device.backend.cxx.forms        # the ufunc loops with a C form
    if name not in forms or ufunc.nout != 1:
        raise Untraceable(what)
    unknown = set(kwargs) - {"out", "casting", "dtype", "signature", "order", "subok"}
    if unknown:
        raise Untraceable(f"{what}({min(unknown)}=...)")
    nin = ufunc.nin
    if len(args) not in (nin, nin + 1):
        raise TypeError(f"{what}() takes from {nin} to {nin + 1} positional arguments but "
                        f"{len(args)} were given")
    out = kwargs.get("out", args[nin] if len(args) > nin else None)
    if isinstance(out, tuple):
        out = out[0] if len(out) == 1 else out
    if out is not None and not isinstance(out, Proxy):
        raise Untraceable(f"{what}(out=) into an array that is not a traced value")
    operands = [_operand(graph, x, what) for x in args[:nin]]
    dtypes = tuple(d for _, d in operands)
    out_dtypes = (None if out is None else out.dtype,)
    options = {"casting": kwargs.get("casting", "same_kind")}
    if kwargs.get("dtype") is not None:
        options["signature"] = (None,) * nin + (np.dtype(kwargs["dtype"]),)
    elif kwargs.get("signature") is not None:
        options["signature"] = kwargs["signature"]
    loop = ufunc._numpy.resolve_dtypes(dtypes + out_dtypes, **options)
    for dtype in loop:
        _check_storable(dtype, what)
    if tuple(loop) not in forms.loops(name):
        raise Untraceable(f"{what} on {', '.join(map(str, loop[:nin]))}")
    if raises_for_values(name, loop, [_exponent(v) for v, _ in operands]):
        raise Untraceable(f"{what} of integers by exponents that may be negative (NumPy "
                          "raises for those)")
    shapes = [v.shape for v, _ in operands if isinstance(v, Proxy) and v._weak is None]
    shape = np.broadcast_shapes(*shapes) if shapes else ()
    nodes = []
    for (value, _), dtype in zip(operands, loop):
        if isinstance(value, Proxy) and value._weak is None:
            nodes.append(value._node)
        else:
            # NumPy's Plan: a Python int meeting a bool loop goes through int64 first
            weak = isinstance(value, Proxy) or type(value) in _WEAK
            conversion = (_INT64 if weak and _python_type(value) is int and dtype == _BOOL
                          else dtype if weak else np.asarray(value).dtype)
            nodes.append(_scalar_node(graph, value, conversion))
    node = graph.add(Ufunc, nodes, loop[-1], shape, (name, tuple(d.str for d in loop)))
    result = Proxy(graph, node)
    if out is None:
        return result
    if out.shape != np.broadcast_shapes(out.shape, shape):
        raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't "
                         f"match the broadcast shape {shape}")
    if out.shape != shape:
        raise Untraceable(f"{what}(out=) broadcasting the result into a larger output")
    if out.dtype != loop[-1]:
        result = Proxy(graph, graph.add(Cast, (node,), out.dtype, shape))
    return _rebind(out, result)


def raises_for_values(name, loop, operands) -> bool:
    """Whether NumPy's loop ``loop`` of ufunc ``name`` raises for some values of these
    operands (fused kernels raise nothing): an integer ``power`` whose exponent may be
    negative.  ``operands``: each one's value where it is a constant, else None."""
    if name != "power" or loop[-1].kind not in "iu":
        return False
    exponent = operands[1]
    if exponent is None:                    # an array or a scalar argument
        return loop[1].kind == "i"
    return exponent < 0


def _exponent(value):
    """A constant operand's value, or None for a traced one."""
    if isinstance(value, Proxy) or not isinstance(value, (bool, int, float, np.generic)):
        return None
    return value


def _python_type(value):
    return value._weak if isinstance(value, Proxy) else type(value)


def _record_reduce(graph, ufunc, array, axis=0, dtype=None, out=None, keepdims=False,
                   initial=np._NoValue, where=True):
    name = ufunc._numpy.__name__
    what = f"asnumpy.{name}.reduce"
    if name not in REDUCIBLE:
        raise Untraceable(what)
    if initial is not np._NoValue and initial is not None:
        raise Untraceable(f"{what}(initial=...)")
    if where is not True:
        raise Untraceable(f"{what}(where=...)")
    if not isinstance(array, Proxy) or array._weak is not None:
        raise Untraceable(f"{what} of a scalar")
    source = array._node
    # NumPy decides the result dtype and checks the axes (a one-element stand-in)
    probe = ufunc._numpy.reduce(np.zeros((1,) * len(source.shape), source.dtype), axis=axis,
                                dtype=dtype, keepdims=bool(keepdims))
    result_dtype = np.asarray(probe).dtype
    _check_storable(result_dtype, what)
    if result_dtype.kind == "c" and name in ("maximum", "minimum"):
        raise Untraceable(f"{what} of complex values")
    ndim = len(source.shape)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(sorted(np.lib.array_utils.normalize_axis_tuple(axis, ndim)))
    shape = tuple(1 if d in axes else n for d, n in enumerate(source.shape) if keepdims
                  or d not in axes)
    value = source
    if result_dtype != source.dtype:            # the operand is cast to the loop's dtype first
        value = graph.add(Cast, (source,), result_dtype, source.shape)
    node = graph.add(Reduce, (value,), result_dtype, shape, (name, axes, bool(keepdims)))
    result = Proxy(graph, node)
    if isinstance(out, tuple):
        out = out[0] if len(out) == 1 else out
    if out is None:
        return result
    if not isinstance(out, Proxy):
        raise Untraceable(f"{what}(out=) into an array that is not a traced value")
    if out.shape != shape:
        raise ValueError(f"output parameter for reduction operation {name} has the wrong "
                         f"shape {out.shape} (expected {shape})")
    if out.dtype != result_dtype:
        result = Proxy(graph, graph.add(Cast, (node,), out.dtype, shape))
    return _rebind(out, result)


_attach_operators()


def trace(function, args, device):
    """Call ``function`` on proxies of ``args``; returns (graph, output node indices, is_tuple).

    ``args`` are asnumpy arrays (or ``ArraySpec``: a dtype and a shape, no
    data), Python scalars (weak) and NumPy scalars.
    """
    graph = Graph(device)
    proxies = []
    for position, value in enumerate(args):
        if isinstance(value, (ndarray, ArraySpec)):
            node = graph.add(Input, (), value.dtype, value.shape, position)
            proxies.append(Proxy(graph, node))
        elif type(value) in _WEAK:
            kind = type(value)
            node = graph.add(Input, (), np.dtype(bool if kind is bool else np.float64), (),
                             ("weak", position))
            proxies.append(Proxy(graph, node, weak=np.dtype(bool) if kind is bool else kind))
        else:                                            # a NumPy scalar (strong)
            node = graph.add(Scalar, (), np.asarray(value).dtype, (), ("arg", position))
            proxies.append(Proxy(graph, node))
    result = function(*proxies)
    is_tuple = isinstance(result, tuple)
    outputs = result if is_tuple else (result,)
    for value in outputs:
        if not isinstance(value, Proxy) or value._graph is not graph or value._weak is not None:
            raise Untraceable("returning a value that is not an array computed from the "
                              "arguments")
    return graph, [value._node.index for value in outputs], is_tuple
