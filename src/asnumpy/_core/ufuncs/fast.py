"""The fast lane: small calls on a device whose kernels are NumPy's own loops.

On the cpu device an array's memory is host memory and a ufunc's kernel is
the NumPy ufunc run on NumPy views of it (``backends/cpu/math_kernels.py``).
A small call on plain operands therefore needs none of the general path's
planning (``ufunc.py``): NumPy's own call resolves the loop (NEP 50 included),
broadcasts and casts exactly as the planned call would, and its result can
become the new array's memory as it is (:meth:`ndarray._adopt_native`).  A
lane is one Python function per ufunc that checks the common case, calls
NumPy on the operands' cached views and wraps the result: about 1 us a call
instead of 4-10.

A lane answers None, and the caller takes the general path, unless:

* every array is an asnumpy array on one device that runs NumPy's loops
  (``Device.numpy_loops``: the back end's loop-kernel module, whose split
  thresholds, weights and views the lane reads: the lane imports no back
  end), the other operands Python ``int``/``float``/``complex`` (weak scalars);
* no ``with stream:`` block is open on any thread, so the call belongs to
  the default stream, which runs on the caller (as the general path would);
* the loop's dtypes are NumPy's built-in ones and the kernel is exactly
  NumPy's call for them (no Array API special values, ``direct_weight``);
* the work is below the thread-split threshold (``SPLIT_MIN_WORK`` for
  elementwise calls, ``REDUCE_SPLIT_MIN`` for reductions), so the general
  path too would make one NumPy call on this thread;
* shapes are equal or one operand is 0-d (other broadcasting is planned);
* NumPy raises no TypeError or OverflowError (type resolution, casting, a
  Python int out of range: raised before its loop writes anything), and no
  ValueError for a read-only ``out`` (also refused before the loop): the
  general path then raises the error with asnumpy's message.

A lane falls back only after those errors.  Any other error NumPy raises is
raised as it is, with what NumPy's loop wrote left in place, exactly as NumPy's
own call leaves it: an integer ``power`` stops with ValueError at its first
negative exponent having written the elements before it, so running the call
again (the general path) would apply the power twice to those elements of an
in-place ``x **= y``.  Floating-point errors and warnings are NumPy's, raised
under the caller's ``numpy.errstate`` after the loop, as on the general path.

Results are identical to the general path's (``tests/test_fast_lane.py``
runs both on the same inputs).  Where they live: a result under
``POOL_MIN_BYTES`` is NumPy's own array, from NumPy's allocator, unless the
device's pool is accounting for every array (``MemoryPool.accounting``: a
limit is set, or ``set_accounting(True)``); larger results, and every result
while the pool accounts, are written into a block of the pool
(docs/performance.md, "Where results live").
"""

from __future__ import annotations

import numpy as np

from ..._dtypes import SUPPORTED_DTYPES
from ...runtime import observer as _observer
from ...runtime._state import lean_gate, open_stream_blocks
from ...runtime.memory import accounting_pools
from .._layout import contiguous_strides, size_of
from .._tracing import lazy_recording
from ..ndarray import ndarray
from ...ops.ufuncs import kernel_key
from .. import compiled

__all__ = ["binary_lanes", "lane_costs", "no_lane", "reduce_lane", "unary_lanes"]

_WEAK_SCALARS = frozenset((int, float, complex))
_NUMPY_DTYPES = frozenset(np.dtype(d) for d in SUPPORTED_DTYPES if np.dtype(d).isbuiltin)
_adopt = ndarray._adopt_native
_asarray = np.asarray
_numpy_array = np.ndarray
# What NumPy raises before its loop writes anything, whatever the operands:
# after these a lane may fall back, and the general path raises asnumpy's error.
_PRE_LOOP_ERRORS = (TypeError, OverflowError)
# What an ``out=`` call may raise before its loop (see _refused)
_OUT_CALL_ERRORS = (*_PRE_LOOP_ERRORS, ValueError)
# What resolving a loop or reducing into a fresh result raises (an empty maximum's
# ValueError): nothing the caller can see is written, so these fall back too.
_RESOLUTION_ERRORS = (TypeError, ValueError, OverflowError)
# Results of at least this many bytes come from the memory pool, smaller ones
# from NumPy's allocator (measured: benchmarks/size_sweep.py, docs/performance.md),
# unless the device's pool is accounting for every array (a limit is set:
# MemoryPool.accounting), when every result comes from the pool.
POOL_MIN_BYTES = 1 << 20


def _cost(loops, numpy_ufunc, operands):
    """``(cost, result dtype)`` of the loop NumPy picks for ``operands``
    (dtypes, or Python scalar types): cost is bytes times weight per output
    element (``loops``: the device's loop kernels), 0 when such calls never
    take the lane."""
    try:
        loop = numpy_ufunc.resolve_dtypes(tuple(operands) + (None,) * numpy_ufunc.nout)
    except _RESOLUTION_ERRORS:
        return 0, None
    if not _NUMPY_DTYPES.issuperset(loop):
        return 0, None
    return loop[-1].itemsize * loops.direct_weight(kernel_key(numpy_ufunc), loop), loop[-1]


def lane_costs(numpy_ufunc):
    """``cost_of(loops, key)``: ``(cost, result itemsize)`` as :func:`_cost` finds them, for
    a compiled lane (compiled.py), which keeps its own cache of them."""

    def cost_of(loops, key):
        cost, dtype = _cost(loops, numpy_ufunc, key)
        return cost, 0 if dtype is None else dtype.itemsize

    return cost_of


def _into_pool(call, device, operands, dtype, shape):
    """``call(*operands, out=)`` into a new C-contiguous array from the device's
    pool (None, for the general path, unless the array operands are C-contiguous).

    Results from ``POOL_MIN_BYTES`` on: there NumPy's allocator hands out
    fresh pages that fault on first write, and the pool's cached blocks win.
    All results while the pool accounts for every array: the limit and the
    statistics then see them, and a result over the limit is refused before
    anything is allocated.
    """
    for operand in operands:
        if type(operand) is _numpy_array and not operand.flags.c_contiguous:
            return None
    out = ndarray._from_buffer(device.memory_pool.malloc(size_of(shape) * dtype.itemsize),
                               shape, dtype, contiguous_strides(shape, dtype.itemsize), 0, device)
    try:
        call(*operands, out=_view_of(out))
    except _PRE_LOOP_ERRORS:
        return None
    return out


def _refused(error, out_view):
    """None (the general path) when NumPy refused an ``out=`` call before its loop;
    else ``error`` is raised as it is.

    A TypeError or OverflowError always comes before the loop; with the lane's
    shapes checked, the one ValueError that does is a read-only output (a
    read-only host array adopted without a copy): the lane falls back, for
    asnumpy's message.  Any other ValueError came from the loop, which has
    written part of ``out`` as NumPy's own call would (an integer power's
    negative exponent): it is raised as it is, since running the call again
    would write those elements twice.
    """
    if isinstance(error, ValueError) and out_view.flags.writeable:
        raise error
    return None


def _view_of(array):
    """The cached NumPy view of an array on a NumPy-loop device (made on first need)."""
    native = array._native
    return array._device.numpy_loops.view(array) if native is None else native


def no_lane(*operands):
    """A lane that never takes a call: the default fallback, and the lane of a
    ufunc that has none (matmul, divmod)."""
    return None


# The gate of a lane's inner copy: never raised (see _stepped_aside).
_OPEN = [0]


def _stepped_aside(name, inner, fallback):
    """What a lane does when ``lean_gate`` is raised (runtime/_state.py).

    A ``with stream:`` block open somewhere: ``fallback`` (the general path
    queues the call in stream order).  Else a profiler observes: ``inner``,
    the same lane built with a gate that never rises and no fallback, runs
    under the observer, which records the call it takes; a call it does not
    take goes to ``fallback``, whose own seams record it.
    """

    def aside(*operands):
        observer = _observer.observer
        if observer is None or open_stream_blocks[0] or lazy_recording():
            return fallback(*operands)
        result = observer.called(name, "lane", inner, operands)
        return fallback(*operands) if result is None else result

    return aside


def binary_lanes(numpy_ufunc, fallback=no_lane, gate=lean_gate):
    """``(lane(a, b), lane_out(a, b, out))`` for a binary single-output ufunc.

    Where ``lane`` does not take a call it returns ``fallback(a, b)`` (by
    default None, for ``ufunc.__call__`` to go on); an operator passes its
    general path, so that ``a + b`` runs one Python function on the lane.
    """
    f = numpy_ufunc
    costs = {}
    last = (None, None, None)         # (dtype of a, dtype of b, their entry): see lane()
    if gate is lean_gate:             # the observed form: the same lane, never stepping aside
        inner, inner_out = binary_lanes(numpy_ufunc, no_lane, _OPEN)
        aside = _stepped_aside(kernel_key(f), inner, fallback)
        aside_out = _stepped_aside(kernel_key(f), inner_out, no_lane)
    else:
        aside, aside_out = fallback, no_lane

    def operands(a, b):
        """(device, a's view, b's view, cost key, output shape) or None.

        The lane's conditions on the device and streams are checked before
        any view is taken: a view of an array still being filled by an
        asynchronous copy waits for it.
        """
        ta, tb = type(a), type(b)
        if ta is ndarray:
            device = a._device
            if not device.numpy_loops:
                return None
            if tb is ndarray:
                if b._device is not device:
                    return None
                shape, shape_b = a._shape, b._shape
                if shape != shape_b and shape_b:
                    if shape:
                        return None
                    shape = shape_b
                return device, _view_of(a), _view_of(b), (a._dtype, b._dtype), shape
            if tb in _WEAK_SCALARS:
                return device, _view_of(a), b, (a._dtype, tb), a._shape
            return None
        if tb is ndarray and ta in _WEAK_SCALARS and b._device.numpy_loops:
            return b._device, a, _view_of(b), (ta, b._dtype), b._shape
        return None

    def lane(a, b):
        nonlocal last
        # (operands() inlined for the commonest call, two
        # arrays of one shape: every step here costs a visible part of a call)
        if type(a) is ndarray and type(b) is ndarray and a._shape == b._shape:
            device = a._device
            if b._device is not device or not device.numpy_loops or gate[0]:
                return aside(a, b)
            an, bn = a._native, b._native
            if an is None:
                an = _view_of(a)
            if bn is None:
                bn = _view_of(b)
            # the last pair of dtypes' entry first (one tuple, swapped whole: thread-safe)
            da, db, entry = last
            if da is not a._dtype or db is not b._dtype:
                key = (a._dtype, b._dtype)
                entry = costs.get(key)
                if entry is None:
                    entry = costs[key] = _cost(device.numpy_loops, f, key)
                last = (a._dtype, b._dtype, entry)
            cost, dtype = entry
            size = an.size
            if not cost or size * cost >= device.numpy_loops.SPLIT_MIN_WORK:
                return fallback(a, b)
            if size * dtype.itemsize >= POOL_MIN_BYTES or (accounting_pools[0]
                                                           and device.memory_pool.accounting):
                pooled = _into_pool(f, device, (an, bn), dtype, a._shape)
                return fallback(a, b) if pooled is None else pooled
            try:
                result = f(an, bn)
            except _PRE_LOOP_ERRORS:       # (the fallback's own error must not chain to it)
                result = None
            if result is None:
                return fallback(a, b)
            if type(result) is not _numpy_array:       # 0-d operands give a NumPy scalar
                result = _asarray(result)
            return _adopt(result, device)
        if gate[0]:
            return aside(a, b)
        found = operands(a, b)
        if found is None:
            return fallback(a, b)
        device, an, bn, key, shape = found
        entry = costs.get(key)
        if entry is None:
            entry = costs[key] = _cost(device.numpy_loops, f, key)
        cost, dtype = entry
        size = size_of(shape)
        if not cost or size * cost >= device.numpy_loops.SPLIT_MIN_WORK:
            return fallback(a, b)
        if size * dtype.itemsize >= POOL_MIN_BYTES or (accounting_pools[0]
                                                       and device.memory_pool.accounting):
            pooled = _into_pool(f, device, (an, bn), dtype, shape)
            return fallback(a, b) if pooled is None else pooled
        try:
            result = f(an, bn)
        except _PRE_LOOP_ERRORS:
            result = None
        if result is None:
            return fallback(a, b)
        if type(result) is not _numpy_array:
            result = _asarray(result)
        return _adopt(result, device)

    def lane_out(a, b, out):
        if type(out) is not ndarray:
            return None
        if type(a) is ndarray and type(b) is ndarray and a._shape == b._shape:
            # (operands() inlined for the commonest call, as in lane())
            device, shape = a._device, a._shape
            if b._device is not device or not device.numpy_loops or gate[0]:
                return aside_out(a, b, out)
            an, bn, key = a._native, b._native, (a._dtype, b._dtype)
            if an is None:
                an = _view_of(a)
            if bn is None:
                bn = _view_of(b)
        else:
            if gate[0]:
                return aside_out(a, b, out)
            found = operands(a, b)
            if found is None:
                return None
            device, an, bn, key, shape = found
        if out._device is not device or not out._writeable or out._shape != shape:
            return None
        entry = costs.get(key)
        if entry is None:
            entry = costs[key] = _cost(device.numpy_loops, f, key)
        cost = entry[0]
        on = _view_of(out)
        if not cost or on.size * cost >= device.numpy_loops.SPLIT_MIN_WORK:
            return None
        try:
            f(an, bn, out=on)
        except _OUT_CALL_ERRORS as error:
            return _refused(error, on)
        return out

    cost_of = lane_costs(f)
    return (compiled.lane(compiled.BINARY, compiled.PLAIN, f, lane, cost_of, gate),
            compiled.lane(compiled.BINARY_OUT, compiled.PLAIN, f, lane_out, cost_of, gate))


def unary_lanes(numpy_ufunc, gate=lean_gate):
    """``(lane(a), lane_out(a, out))`` for a unary single-output ufunc."""
    f = numpy_ufunc
    costs = {}
    if gate is lean_gate:             # the observed form (see binary_lanes)
        inner, inner_out = unary_lanes(numpy_ufunc, _OPEN)
        aside = _stepped_aside(kernel_key(f), inner, no_lane)
        aside_out = _stepped_aside(kernel_key(f), inner_out, no_lane)
    else:
        aside = aside_out = no_lane

    def lane(a):
        if type(a) is not ndarray:
            return None
        device = a._device
        if not device.numpy_loops:
            return None
        if gate[0]:
            return aside(a)
        an = a._native
        if an is None:
            an = _view_of(a)
        entry = costs.get(a._dtype)
        if entry is None:
            entry = costs[a._dtype] = _cost(device.numpy_loops, f, (a._dtype,))
        cost, dtype = entry
        size = an.size
        if not cost or size * cost >= device.numpy_loops.SPLIT_MIN_WORK:
            return None
        if size * dtype.itemsize >= POOL_MIN_BYTES or (accounting_pools[0]
                                                       and device.memory_pool.accounting):
            return _into_pool(f, device, (an,), dtype, a._shape)
        try:
            result = f(an)
        except _PRE_LOOP_ERRORS:
            return None
        if type(result) is not _numpy_array:
            result = _asarray(result)
        return _adopt(result, device)

    def lane_out(a, out):
        if type(a) is not ndarray or type(out) is not ndarray:
            return None
        device = a._device
        if (out._device is not device or not out._writeable or out._shape != a._shape
                or not device.numpy_loops):
            return None
        if gate[0]:
            return aside_out(a, out)
        an = _view_of(a)
        entry = costs.get(a._dtype)
        if entry is None:
            entry = costs[a._dtype] = _cost(device.numpy_loops, f, (a._dtype,))
        if not entry[0] or an.size * entry[0] >= device.numpy_loops.SPLIT_MIN_WORK:
            return None
        on = _view_of(out)
        try:
            f(an, out=on)
        except _OUT_CALL_ERRORS as error:
            return _refused(error, on)
        return out

    cost_of = lane_costs(f)
    return (compiled.lane(compiled.UNARY, compiled.PLAIN, f, lane, cost_of, gate),
            compiled.lane(compiled.UNARY_OUT, compiled.PLAIN, f, lane_out, cost_of, gate))


def reduce_lane(numpy_ufunc, gate=lean_gate):
    """``lane(a)``: ``numpy_ufunc.reduce`` over all of ``a`` with NumPy's defaults (``a.sum()``)."""
    reduce, name = numpy_ufunc.reduce, kernel_key(numpy_ufunc)
    aside = (_stepped_aside(f"{name}.reduce", reduce_lane(numpy_ufunc, _OPEN), no_lane)
             if gate is lean_gate else no_lane)

    def lane(a):
        if type(a) is not ndarray:
            return None
        device = a._device
        if not device.numpy_loops or a._dtype not in _NUMPY_DTYPES:
            return None
        if gate[0]:
            return aside(a)
        loops = device.numpy_loops
        if name in loops.STANDARD_VALUES:
            return None
        an = _view_of(a)
        if an.size >= loops.REDUCE_SPLIT_MIN:
            return None
        try:
            result = reduce(an, axis=None)
        except _RESOLUTION_ERRORS:              # an empty maximum, ...: the general path's error
            return None
        return _adopt(_asarray(result), device)

    return compiled.lane(compiled.REDUCE, compiled.PLAIN, reduce, lane, None, gate, name)


# the compiled lanes' view of this module (POOL_MIN_BYTES, read at each call) and rules
compiled.configure(ndarray, globals(), _NUMPY_DTYPES, _refused)
