"""``with asnumpy.lazy():`` -- ordinary array code whose elementwise work is deferred and fused.

Inside the block, a ufunc call that a fused kernel can compute (a C form for
its loop, no ``out=`` or ``where=``, operands on one device with a compiler,
the default stream) is not run: it returns an array of the right shape and
dtype over a :class:`DeferredBuffer` and joins its thread's pending graph.
``ufunc.reduce`` with fuse's reductions (``add``, ``multiply``, ``maximum``,
``minimum``) joins it too.  The graph runs -- fused, by the machinery of
``asnumpy.fuse`` and with its caches, the same graph meeting the same
compiled kernels each time -- when a value is needed:

* an array of the graph is read: its buffer's ``handle`` (the one seam
  through which every reader reaches an array's memory: host copies,
  printing, ``bool()``/``item()``, any operation that is not deferred, a view
  a consumer reads);
* eager work is launched on the thread (a kernel by name, a ufunc call that
  is not deferred, a plan, an item assignment): the pending work runs first,
  so that writes into its operands come after it, as in program order;
* the block ends.

Only the arrays still referenced when the graph runs are stored; the
intermediates the program dropped stay in registers.  Results are C
contiguous (eager results follow NumPy's 'K' order).  An error of the
deferred work (an integer power with a negative exponent, ...) is raised
where the graph runs, by the read that ran it.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

import numpy as np

from ..._core import _tracing
from ..._core._launch import empty
from ..._core._layout import contiguous_strides
from ..._core.ndarray import ndarray
from ...runtime import _state
from ...runtime.memory import Buffer
from ...runtime.stream import get_current_stream
from ..fusion import Fusion
from ._values import _C_CHARS, REDUCIBLE, fused_loop

__all__ = ["DeferredBuffer", "lazy"]

_handle_slot = Buffer.handle          # the slot under DeferredBuffer's property
_WEAK = (bool, int, float, complex)
_CACHE_SIZE = 256
_count_lock = threading.Lock()


class DeferredBuffer(Buffer):
    """A Buffer whose contents a lazy block's pending graph computes; reading its ``handle``
    runs the graph first."""

    __slots__ = ("_recorder", "_failure", "_node")

    def _computed_handle(self):
        recorder = self._recorder
        if recorder is not None:
            recorder.flush()
        if self._failure is not None:
            raise RuntimeError(f"asnumpy.lazy: the deferred computation of this array "
                               f"failed: {self._failure}") from self._failure
        return _handle_slot.__get__(self)

    def _set_handle(self, value):
        _handle_slot.__set__(self, value)

    handle = property(_computed_handle, _set_handle)

    def adopt(self, array):
        """Take over the memory of ``array`` (a fresh result laid out as this buffer's)."""
        source = array._realize()
        _handle_slot.__set__(self, _handle_slot.__get__(source))
        self.nbytes, self._pool = source.nbytes, source._pool
        self._size, self._stream = source._size, source._stream
        source._pool = None                  # the block now returns with this buffer
        self._recorder = None


class _Node:
    """One deferred call: ``function(*args, **kwargs)`` with :class:`_Ref` for values of
    the graph, and the (weakly held) array standing for its result."""

    __slots__ = ("function", "args", "kwargs", "array", "key")

    def __init__(self, function, args, kwargs, array, key):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.array = weakref.ref(array)
        self.key = key


class _Ref:
    """Argument ``index`` of the flush's region function (``node``: a node's result)."""

    __slots__ = ("index", "node")

    def __init__(self, index, node):
        self.index, self.node = index, node


class LazyRecorder:
    """A thread's pending graph while a lazy block is open."""

    def __init__(self):
        self.nodes: list[_Node] = []
        self.flushing = False
        self.depth = 0
        self.lock = threading.RLock()      # a deferred array read by another thread
        self.fusions = {}                  # graph structure -> Fusion (the same kernels)

    # -- recording ---------------------------------------------------------------------

    def ufunc_call(self, ufunc, args, kwargs):
        """A deferred array for ``ufunc(*args, **kwargs)``, or None (pending work run: the
        call is made eagerly)."""
        if not self.flushing:
            deferred = self._deferred_call(ufunc, args, kwargs)
            if deferred is not None:
                return deferred
            self.flush()
        return None

    def ufunc_reduce(self, ufunc, array, kwargs):
        """A deferred array for ``ufunc.reduce(array, **kwargs)``, or None (run eagerly)."""
        if not self.flushing:
            deferred = self._deferred_reduce(ufunc, array, kwargs)
            if deferred is not None:
                return deferred
            self.flush()
        return None

    def _operand(self, value, device):
        """(key, argument) of one operand, or None when it cannot be deferred."""
        kind = type(value)
        if kind in _WEAK:
            return (kind,), value
        if isinstance(value, np.generic):
            return ("c", value.dtype, value.item()), value
        if kind is not ndarray or value._device is not device:
            return None
        if 0 in value._shape or value._dtype.char not in _C_CHARS:
            return None
        buffer = value._buffer
        if type(buffer) is DeferredBuffer and buffer._recorder is self:
            node = self._node_of(value)
            if node is None:
                return None                  # a view of a deferred array: computed first
            return ("n", node), _Ref(None, node)
        return ("a",), value

    def _node_of(self, array):
        """The node ``array`` (over one of this graph's buffers) stands for, or None for
        a view of it."""
        index = array._buffer._node
        return index if self.nodes[index].array() is array else None

    def _device(self, values):
        device = None
        for value in values:
            if type(value) is ndarray:
                if device is None:
                    device = value._device
                elif value._device is not device:
                    return None
        if device is None or getattr(device.backend, "cxx", None) is None:
            return None
        if not get_current_stream(device).is_default:
            return None
        return device

    def _deferred_call(self, ufunc, args, kwargs):
        device = self._device(args)
        if device is None or len(args) != ufunc.nin:
            return None
        operands = [self._operand(value, device) for value in args]
        if any(operand is None for operand in operands):
            return None
        loop = fused_loop(ufunc, args, [_dtype_of(value) for value in args], kwargs, device)
        if loop is None:
            return None
        try:
            shape = np.broadcast_shapes(*[value._shape for value in args
                                          if type(value) is ndarray])
        except ValueError:
            return None                      # the eager call raises its error
        key = (ufunc, tuple(k for k, _ in operands), tuple(sorted(kwargs.items())))
        return self._record(ufunc, [a for _, a in operands], kwargs, shape, loop[-1], device,
                            key)

    def _deferred_reduce(self, ufunc, array, kwargs):
        name = ufunc._numpy.__name__
        if name not in REDUCIBLE or kwargs["out"] is not None or kwargs["where"] is not True:
            return None
        if kwargs["initial"] is not np._NoValue and kwargs["initial"] is not None:
            return None
        device = self._device((array,))
        operand = self._operand(array, device) if device is not None else None
        if operand is None or operand[0][0] not in ("a", "n"):
            return None
        if array._dtype.kind == "c" and name in ("maximum", "minimum"):
            return None
        axis, keepdims = kwargs["axis"], bool(kwargs["keepdims"])
        try:
            # NumPy decides the result's dtype and shape, and checks the axes
            probe = ufunc._numpy.reduce(np.zeros(array._shape, array._dtype)[
                tuple(slice(0, 1) for _ in array._shape)], axis=axis,
                dtype=kwargs["dtype"], keepdims=keepdims)
            ndim = array.ndim
            axes = (tuple(range(ndim)) if axis is None else
                    np.lib.array_utils.normalize_axis_tuple(axis, ndim))
        except (TypeError, ValueError, np.exceptions.AxisError):
            return None
        dtype = np.asarray(probe).dtype
        if dtype.char not in _C_CHARS:
            return None
        shape = tuple(1 if d in axes else n for d, n in enumerate(array._shape)
                      if keepdims or d not in axes)
        options = {"axis": axis, "dtype": kwargs["dtype"], "keepdims": keepdims}
        key = (ufunc, "reduce", operand[0], axis if not isinstance(axis, list) else
               tuple(axis), kwargs["dtype"], keepdims)
        return self._record(ufunc.reduce, [operand[1]], options, shape, dtype, device, key)

    def _record(self, function, args, kwargs, shape, dtype, device, key):
        dtype = np.dtype(dtype)
        with self.lock:
            buffer = DeferredBuffer(None, 0, device)
            buffer._recorder, buffer._failure, buffer._node = self, None, len(self.nodes)
            strides = contiguous_strides(shape, dtype.itemsize)
            array = ndarray._from_buffer(buffer, tuple(shape), dtype, strides, 0, device)
            self.nodes.append(_Node(function, args, kwargs, array, key))
        return array

    # -- running -----------------------------------------------------------------------

    def flush(self):
        """Run the pending graph: one fused function of the still-referenced results."""
        with self.lock:
            if not self.nodes or self.flushing:
                return
            nodes, self.nodes = self.nodes, []
            self.flushing = True
            try:
                self._run(nodes)
            finally:
                self.flushing = False

    def _run(self, nodes):
        arrays = [node.array() for node in nodes]
        needed = _needed(nodes, [k for k, a in enumerate(arrays) if a is not None])
        if not needed:
            return
        inputs, key = [], []
        positions = {}                      # node index -> its position in the region
        array_inputs = {}                   # id of an array read -> its input position
        calls = []
        for index in needed:
            node = nodes[index]
            call_args = []
            for value in node.args:
                if type(value) is _Ref:
                    call_args.append(("n", positions[value.node]))
                elif type(value) is ndarray:
                    # an array read by several calls is one input: one pointer the kernel
                    # loads once (and few enough pointers for the vectoriser's alias checks)
                    position = array_inputs.setdefault(id(value), len(inputs))
                    if position == len(inputs):
                        inputs.append(value)
                    call_args.append(("i", position))
                elif type(value) in _WEAK:
                    call_args.append(("i", len(inputs)))
                    inputs.append(value)
                else:
                    call_args.append(("c", value))
            positions[index] = len(calls)
            calls.append((node.function, tuple(call_args), node.kwargs))
            key.append((node.key, tuple(k for kind, k in call_args if kind == "i")))
        outputs = tuple(positions[k] for k in needed if arrays[k] is not None)
        fusion = self._fusion(tuple(key), outputs, calls)
        try:
            results = fusion(*inputs)
        except BaseException as exc:
            for array in arrays:
                if array is not None:
                    array._buffer._failure, array._buffer._recorder = exc, None
            raise
        for index, result in zip((k for k in needed if arrays[k] is not None), results):
            target = arrays[index]
            if (result._strides != target._strides or result._offset != 0
                    or result._base is not None):
                fresh = empty(target._shape, target._dtype, target._device)
                fresh[...] = result            # (an op-by-op result in NumPy's 'K' order)
                result = fresh
            target._buffer.adopt(result)

    def _fusion(self, key, outputs, calls):
        cache_key = (key, outputs)
        fusion = self.fusions.get(cache_key)
        if fusion is None:
            def region(*values):
                results = []
                for function, call_args, kwargs in calls:
                    operands = [results[k] if kind == "n" else values[k] if kind == "i" else k
                                for kind, k in call_args]
                    results.append(function(*operands, **kwargs))
                return tuple(results[k] for k in outputs)

            fusion = Fusion(region, kernel_name="lazy", max_signatures=64, quiet=True)
            if len(self.fusions) >= _CACHE_SIZE:
                self.fusions.clear()
            self.fusions[cache_key] = fusion
        return fusion


def _dtype_of(value):
    kind = type(value)
    if kind in _WEAK:
        return np.dtype(bool) if kind is bool else kind
    return value.dtype


def _needed(nodes, outputs):
    """The indices of the nodes the outputs depend on, in order."""
    needed = set(outputs)
    for index in range(len(nodes) - 1, -1, -1):
        if index in needed:
            needed.update(value.node for value in nodes[index].args if type(value) is _Ref)
    return sorted(needed)


_recorders = threading.local()


@contextlib.contextmanager
def lazy():
    """Defer and fuse the elementwise work of ordinary array code.

    Inside ``with asnumpy.lazy():`` ufunc calls (operators included) and
    ``ufunc.reduce`` with ``add``/``multiply``/``maximum``/``minimum`` build
    a graph instead of running; the graph runs fused -- by ``asnumpy.fuse``'s
    kernels and their caches -- when a value is needed (an array of it read,
    printed or copied to the host, eager work launched on the thread, the
    block's end).  Nothing needs rewriting: the same code runs eagerly
    outside the block.

    Yields
    ------
    None

    Examples
    --------
    >>> x = asnumpy.linspace(0.0, 1.0, 1000)
    >>> with asnumpy.lazy():
    ...     y = asnumpy.exp(-x * x) * 2.0 + x
    ...     z = y - 1.0
    >>> float(z[0])
    1.0
    """
    recorder = _tracing.lazy_recorder()
    if recorder is None:
        recorder = getattr(_recorders, "recorder", None)
        if recorder is None:
            recorder = _recorders.recorder = LazyRecorder()
        _tracing.set_lazy_recorder(recorder)
        with _count_lock:
            _tracing.LAZY_OPEN[0] += 1
        _state.lean_gate_raised(1)            # the lean paths step aside to the ufunc calls
    recorder.depth += 1
    try:
        yield
    finally:
        recorder.depth -= 1
        if recorder.depth == 0:
            try:
                recorder.flush()
            finally:
                _tracing.set_lazy_recorder(None)
                with _count_lock:
                    _tracing.LAZY_OPEN[0] -= 1
                _state.lean_gate_raised(-1)
