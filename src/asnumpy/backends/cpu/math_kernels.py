"""cpu kernels for universal functions, reductions and other NumPy functions.

NumPy's own loops do the arithmetic, on NumPy views of device memory.  The
front end has already resolved dtypes (``loop``), shapes and casting, so
every call here uses ``casting="unsafe"``.

Large work is split across threads (:mod:`.parallel`):

* **Elementwise ufuncs** are cut into slabs along one axis (C- or
  F-contiguous operands are first seen as 1-D).  Every NumPy elementwise loop
  computes each element independently, so the result is bit-identical to one
  NumPy call however it is cut.  Outputs that overlap an input other than
  exactly (same memory, same layout: in-place) are not split.
* **Reductions** are cut by shape alone, never by thread count, so their
  results do not depend on timing or on :func:`parallel.set_thread_count`
  (with one thread the pieces run one after another).  The cut is along the
  axis outermost in memory: a non-reduced one gives pieces that each write
  their own part of ``out``; a reduced one (reorderable ufuncs, no ``where``
  or ``initial``) gives partial results that one more reduction combines in
  a fixed order; a contiguous array reduced over every axis is cut into
  power-of-two runs of its memory.  Each piece is a NumPy reduction, so float
  sums keep NumPy's pairwise accuracy, and partial sums of float16/float32
  (complex64) are added in double precision.  Integer results equal NumPy's;
  float results may differ from NumPy's in the last bits.

Floating-point errors of split work are reported once, under the caller's
``numpy.errstate``, as NumPy would (:mod:`.fpstatus`).  Work too small to be
worth a thread hand-off is one direct NumPy call under the caller's errstate.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from ...ops.backend import PreparedUfunc
from ...ops.ufuncs import OPS
from . import fpstatus, parallel, sort_kernels, statistics_kernels
from .kernels import view
from .statistics_kernels import CPU_FUNCTIONS

__all__ = ["MATH_KERNELS", "SINGLE_CALL_LIMITS", "REDUCE_CHUNK", "REDUCE_SPLIT_MIN", "REDUCE_STREAMING_SPLIT_MIN",
           "SPLIT_MIN_WORK", "STANDARD_VALUES", "reduce_split_min",
           "UFUNCS", "direct_weight"]

_ndarray = np.ndarray

# ---------------------------------------------------------------------------
# Thresholds.  These values are the defaults: when the back end loads, the
# choices measured on this CPU (.calibration, cached per CPU model) replace
# them, and ASNUMPY_CALIBRATION=off keeps them.  The kernels and the fast lane
# read them at each call (tests lower them to force splitting).  The defaults
# were measured on the 2-core AMD EPYC (KVM) this was developed on, where
# handing work to a second thread costs 20-60 us and the second core is at
# times not there at all: a split pays for itself once one NumPy call would
# take about a millisecond (the calibration's model reproduces them there).
#
# An elementwise call splits when ``out.nbytes * weight >= SPLIT_MIN_WORK``
# (16 MiB: 2 Mi float64 results of add, 512 Ki of exp).  A ufunc's weight is
# its relative cost per element, a power of two: 1 for memory-bound
# arithmetic (add, comparisons, ...: ~0.4 ns per float64 in cache), 4 for exp
# and log (~0.8 ns), up to 64 for sin, cos, hypot, fmod (8-20 ns); wider
# results (float64, complex) cost more per element.  Measured on a quiet
# machine (benchmarks/thresholds.py, load 0.12; thresholds-cpu-2core.txt):
# add float64 split / one call 0.63x at 2**19 elements, 1.11-1.25x from 2**20
# (work 2**23-2**25); exp float64 0.99x at 2**18, 1.30-1.90x from 2**19 (work
# 2**24).  An earlier run at load 1.3 put add's crossover at 2**21 (work 2**24).
SPLIT_MIN_WORK = 1 << 24
# Reductions over fewer elements are one NumPy call; larger ones are cut
# into pieces of about REDUCE_CHUNK elements (at most REDUCE_MAX_CHUNKS).
# Measured by timing each reduction as one call and split across the two
# cores, alternating, from 2**20 to 2**26 elements (per-dtype runs of sum,
# mean, max; benchmarks/thresholds.py):
# * one that converts every element (int32 summed in int64, float32 in
#   float64, float16) is compute-bound, 0.2-2 elements per ns: split at load
#   0.6 it ran 1.27x-1.78x at 2**21 elements (int32 sum and mean, float32 into
#   float64, float16; int16 0.95x), 1.3x-1.8x at 2**22-2**26, and 0.86x-0.95x
#   at 2**20 (one 2**20-element run: no second piece, only the overhead);
# * one that streams in the operand's own dtype (float32/float64 sum and
#   mean, int64 sum, max) reads near the memory bandwidth on one thread
#   (float64 sum 31 GB/s, float32 24-27 GB/s), so a second core adds less:
#   at load 0.6, 1.08x-1.15x at 2**21, 1.29x-1.40x at 2**22, 0.9x-1.06x at
#   2**23, and a mean of 3000 x 3000 / 4000 x 4000 float32 1.26x (float64
#   1.03x-1.08x): split from REDUCE_STREAMING_SPLIT_MIN.
# Both lose when the second core is busy (0.27x-0.97x at load 3-5).
REDUCE_SPLIT_MIN = 1 << 21
REDUCE_STREAMING_SPLIT_MIN = 1 << 22
REDUCE_CHUNK = 1 << 20
REDUCE_MAX_CHUNKS = 64
_SLABS_PER_THREAD = 4           # elementwise pieces per thread: a late or busy thread costs little

# (each ufunc's weight is its entry's in the op table: asnumpy.ops.ufuncs)
_WEIGHTS = {name: op.weight for name, op in OPS.items()}

# Sums of low-precision partial results are combined in double precision.
_WIDER = {np.dtype(np.float16): np.dtype(np.float64), np.dtype(np.float32): np.dtype(np.float64),
          np.dtype(np.complex64): np.dtype(np.complex128)}

# ufuncs whose reductions may be regrouped (the op table's ``reorderable``)
_REORDERABLE = frozenset(name for name, op in OPS.items() if op.reorderable)


def _weight(ufunc) -> int:
    if ufunc.signature is not None:
        return 0                       # gufuncs (matmul & co): NumPy/BLAS, never split
    return _WEIGHTS.get(ufunc.__name__, 1)


UFUNCS = {f.__name__: f for f in vars(np).values() if isinstance(f, np.ufunc)}
"""Every ufunc in NumPy's namespace, by ``__name__``."""

# A ufunc outside NumPy's namespace (SciPy's special functions, a user's) is
# passed by the front end as the object itself, and weighs as NumPy's costlier
# loops: per float64 element scipy.special's expit takes 5 ns, j0 10, erf 16,
# gamma 29, gammaln 35 (NumPy's sin 26, exp 0.9; 2-core AMD EPYC, 2**20 elements).
FOREIGN_WEIGHT = 32


class _Loops(dict):
    """ufunc name -> (NumPy ufunc, weight); a foreign ufunc object is its own entry."""

    def __missing__(self, key):
        if isinstance(key, np.ufunc):       # not stored: such objects may be short-lived
            return key, (FOREIGN_WEIGHT if key.signature is None else 0)
        raise KeyError(key)


_UFUNCS = _Loops({name: (f, _weight(f)) for name, f in UFUNCS.items()})


def _native(value):
    """The NumPy view of an asnumpy array; anything else as it is."""
    return view(value) if hasattr(value, "_realize") else value


def _native_deep(value):
    """:func:`_native`, also inside (nested) tuples and lists."""
    if hasattr(value, "_realize"):
        return view(value)
    if type(value) in (tuple, list):
        return type(value)(map(_native_deep, value))
    return value


# ---------------------------------------------------------------------------
# Elementwise ufuncs

def ufunc(outs, name, loop, inputs, where) -> None:
    """``numpy.<name>(*inputs, out=outs, signature=loop, casting="unsafe", where=where)``.

    ``outs``: asnumpy arrays of the broadcast shape; ``inputs``: asnumpy
    arrays, 0-d NumPy arrays or Python scalars; ``where``: None or a bool
    array (asnumpy, or 0-d NumPy).  Large calls are split across threads
    (bit-identical to one call).
    """
    f, weight = _UFUNCS[name]
    if name in STANDARD_VALUES and _with_standard_values(f, weight, outs, name, loop, inputs, where):
        return
    # The lean path, for small calls: no thread hand-off, few Python steps,
    # and plain positional/keyword calls (NumPy's fast vectorcall path).
    if where is None and len(outs) == 1:
        out = outs[0]._native
        if out is None:
            out = view(outs[0])
        if out.nbytes * weight < SPLIT_MIN_WORK:
            if len(inputs) == 2:
                x, y = inputs
                if type(x) is not _ndarray:
                    x = _device_or_scalar(x)
                if type(y) is not _ndarray:
                    y = _device_or_scalar(y)
                f(x, y, out=out, signature=loop, casting="unsafe")
                return
            if len(inputs) == 1:
                x = inputs[0]
                if type(x) is not _ndarray:
                    x = _device_or_scalar(x)
                f(x, out=out, signature=loop, casting="unsafe")
                return
    _ufunc_general(f, weight, name, tuple(map(view, outs)), loop,
                   [_native(x) for x in inputs], None if where is None else _native(where))


def prepare_ufunc(name, loop, outs, inputs, where) -> PreparedUfunc:
    """Calls like ``ufunc(outs, name, loop, inputs, where)``, decided once per signature.

    A call NumPy's loop computes as it is (one output, no mask, no special
    values of the standard's) launches straight into NumPy while its work
    stays under :data:`SPLIT_MIN_WORK` (read at each call: tests lower it),
    and NumPy may also make the result itself (``compute``: the caller adopts
    it, as the fast lane does, where NumPy's layout is the planned one; None
    when the work is to be split).  When every operand already has its
    loop's dtype, NumPy's own resolution picks that very loop and the call
    passes no ``signature``/``casting`` (NumPy's quicker path).  Anything else
    is the general kernel.
    """
    f, weight = _UFUNCS[name]
    loop = tuple(loop)
    nin = len(inputs)

    def general(outs, inputs, where):
        ufunc(outs, name, loop, inputs, where)

    if (where is not None or len(outs) != 1 or nin > 2 or not weight
            or name in STANDARD_VALUES and np.dtype(loop[0]).char in STANDARD_VALUES[name][0]):
        return PreparedUfunc(general)
    exact = outs[0]._dtype == loop[-1] and all(
        getattr(x, "_dtype", getattr(x, "dtype", None)) == dtype
        for x, dtype in zip(inputs, loop))
    call = f if exact else functools.partial(f, signature=loop, casting="unsafe")
    nbytes = outs[0].nbytes

    def launch(outs, inputs, where):
        if nbytes * weight >= SPLIT_MIN_WORK:
            return ufunc(outs, name, loop, inputs, where)
        out = outs[0]._native
        if out is None:
            out = view(outs[0])
        # an asnumpy array's cached NumPy view (made on first need); NumPy values as they are
        if nin == 2:
            x, y = inputs
            xn, yn = getattr(x, "_native", x), getattr(y, "_native", y)
            call(view(x) if xn is None else xn, view(y) if yn is None else yn, out=out)
        else:
            x = inputs[0]
            xn = getattr(x, "_native", x)
            call(view(x) if xn is None else xn, out=out)

    def compute(inputs):
        if nbytes * weight >= SPLIT_MIN_WORK:
            return None                    # split across threads: the caller launches
        if nin == 2:
            x, y = inputs
            xn, yn = getattr(x, "_native", x), getattr(y, "_native", y)
            result = call(view(x) if xn is None else xn, view(y) if yn is None else yn)
        else:
            x = inputs[0]
            xn = getattr(x, "_native", x)
            result = call(view(x) if xn is None else xn)
        return result if type(result) is _ndarray else np.asarray(result)

    return PreparedUfunc(launch, compute, (call, nbytes * weight))


def direct_weight(name, loop) -> int:
    """The cost weight of one ``name`` call with loop dtypes ``loop``, or 0
    when the kernel does more than NumPy's call (the standard's special values).

    Calls whose ``out.nbytes * weight`` stays below :data:`SPLIT_MIN_WORK`
    are one NumPy call on the caller's thread; the fast lane
    (``_core/ufuncs/fast.py``) makes such calls itself.
    """
    if name in STANDARD_VALUES and np.dtype(loop[0]).char in STANDARD_VALUES[name][0]:
        return 0
    return _UFUNCS[name][1]


def _device_or_scalar(value):
    """The NumPy view of an asnumpy array; a Python scalar as it is."""
    try:
        native = value._native
    except AttributeError:
        return value
    return native if native is not None else view(value)


def _ufunc_general(f, weight, name, outs, loop, inputs, where):
    kwargs = {"signature": loop, "casting": "unsafe"}
    if where is not None:
        kwargs["where"] = where
    first = outs[0]
    work = first.nbytes * weight
    threads = parallel.thread_count()
    if (work < SPLIT_MIN_WORK or threads < 2 or first.ndim == 0 or not _may_split(outs, inputs, where)
            or _stops_mid_loop(name, loop, inputs)):
        f(*inputs, out=outs, **kwargs)
        return
    shape = first.shape
    operands = list(outs) + inputs + ([where] if where is not None else [])
    arrays = [x for x in operands if isinstance(x, _ndarray) and x.ndim]
    if all(x.shape == shape for x in arrays):
        flat = None
        if all(x.flags.c_contiguous for x in arrays):
            flat = lambda x: x.reshape(-1)
        elif all(x.flags.f_contiguous for x in arrays):
            flat = lambda x: x.T.reshape(-1)
        if flat is not None:
            shape = (first.size,)
            operands = [flat(x) if isinstance(x, _ndarray) and x.ndim else x for x in operands]
    # Inputs are broadcast to the full shape so that every slab is a plain slice.
    operands = [np.broadcast_to(x, shape) if isinstance(x, _ndarray) and x.ndim and x.shape != shape
                else x for x in operands]
    want = min(threads * _SLABS_PER_THREAD, max(2, work * 8 // SPLIT_MIN_WORK))
    strides = operands[0].strides
    axis = _pick_axis(range(len(shape)), shape, strides, want)
    count = 0 if axis is None else min(want, shape[axis])
    if count < 2:
        f(*inputs, out=outs, **kwargs)
        return
    extent = shape[axis]
    lead = (slice(None),) * axis
    parts = [lead + (slice(extent * i // count, extent * (i + 1) // count),) for i in range(count)]
    sliced = [isinstance(x, _ndarray) and x.ndim > 0 for x in operands]
    nout = len(outs)

    def piece(i):
        part = parts[i]
        ops = [x[part] if s else x for x, s in zip(operands, sliced)]
        outs_i = tuple(ops[:nout])
        if where is None:
            f(*ops[nout:], out=outs_i, signature=loop, casting="unsafe")
        else:
            f(*ops[nout:-1], out=outs_i, signature=loop, casting="unsafe", where=ops[-1])

    fpstatus.replay(parallel.run(piece, count), f.__name__)


# ---------------------------------------------------------------------------
# The Array API standard's special values where NumPy's loops differ: each
# ufunc's (loop type chars, select, value) from the op table
# (asnumpy.ops.special_values says what they mean)

# Where each function is one NumPy call on the caller's thread: name -> the limits every
# array must stay under, as (module, attribute, whether it counts bytes, else elements).
# The front end's compiled small calls (asnumpy._core.compiled.numpy_call) read them at
# each call -- the calibration and tests set the attributes -- and under them make that
# NumPy call themselves.  matmul never splits (NumPy's BLAS call).
SINGLE_CALL_LIMITS = {
    "sort": ((sort_kernels, "SPLIT_MIN", False),),
    "argsort": ((sort_kernels, "SPLIT_MIN", False),),
    "argmax": ((statistics_kernels, "ARG_SPLIT_MIN_BYTES", True),),
    "argmin": ((statistics_kernels, "ARG_SPLIT_MIN_BYTES", True),),
    "mean": ((sys.modules[__name__], "REDUCE_SPLIT_MIN", False),
             (sys.modules[__name__], "REDUCE_STREAMING_SPLIT_MIN", False)),
    "where": ((statistics_kernels, "_WHERE_BITS_MIN", False),),
    "matmul": (),
}

STANDARD_VALUES = {name: op.standard for name, op in OPS.items() if op.standard is not None}
"""ufunc name -> :class:`asnumpy.ops.special_values.StandardValues`."""


def _with_standard_values(f, weight, outs, name, loop, inputs, where) -> bool:
    """Run ``name`` with the standard's special values; False (nothing done)
    when the loop or the inputs have none."""
    if np.dtype(loop[0]).char not in STANDARD_VALUES[name][0]:
        return False
    return _standard_call(f, weight, name, view(outs[0]), loop, [_native(x) for x in inputs],
                          None if where is None else _native(where))


def _standard_call(f, weight, name, out, loop, args, where) -> bool:
    """:func:`_with_standard_values` on NumPy arrays and scalars."""
    _, select, value = STANDARD_VALUES[name]
    with np.errstate(all="ignore"):
        special = select(*args)
    if special is None:
        return False
    special = np.broadcast_to(special, out.shape)
    if where is not None:
        special = special & where
    if not special.any():
        return False
    # The standard's values are computed before NumPy's loop runs, since
    # ``out`` may be an input (in place); the loop skips those elements.
    picked = [np.broadcast_to(np.asarray(x, dtype=t), out.shape)[special]
              for x, t in zip(args, loop)]
    with np.errstate(all="ignore"):
        values = value(*picked)
    others = ~special if where is None else where & ~special
    _ufunc_general(f, weight, name, (out,), loop, args, others)
    out[special] = values
    return True


def _pick_axis(axes, shape, strides, want):
    """The axis to cut: outermost in memory among those at least ``want`` long,
    else the longest (None when every candidate has length < 2)."""
    best = None
    for ax in axes:
        n = shape[ax]
        if n < 2:
            continue
        if best is None:
            best = ax
            continue
        long_enough, best_long_enough = n >= want, shape[best] >= want
        if long_enough != best_long_enough:
            if long_enough:
                best = ax
        elif long_enough:
            if abs(strides[ax]) > abs(strides[best]):
                best = ax
        elif n > shape[best]:
            best = ax
    return best


def _data(x):
    return x.__array_interface__["data"][0]


def _same_memory_layout(a, b):
    return (a.shape == b.shape and a.strides == b.strides and a.itemsize == b.itemsize
            and _data(a) == _data(b))


def _stops_mid_loop(name, loop, inputs) -> bool:
    """Whether NumPy's loop will stop part-way with an error: an integer power
    with a negative exponent raises ValueError there, having written the
    elements before it.  Such a call is not split (slabs after the failing one
    would be written too), so ``out`` is left exactly as NumPy's one call leaves it.
    """
    return (name == "power" and np.dtype(loop[1]).kind == "i"
            and bool(np.less(inputs[1], 0).any()))


def _may_split(outs, inputs, where):
    """False when slab order could change the result: an output overlapping
    another operand other than exactly (in place), or itself (zero strides)."""
    reads = [x for x in inputs if isinstance(x, _ndarray)]
    if isinstance(where, _ndarray):
        reads.append(where)
    for k, out in enumerate(outs):
        if any(s == 0 and n > 1 for s, n in zip(out.strides, out.shape)):
            return False
        for x in reads:
            if np.may_share_memory(out, x) and not _same_memory_layout(out, x):
                return False
        for other in outs[k + 1:]:
            if np.may_share_memory(out, other):
                return False
    return True


# ---------------------------------------------------------------------------
# Reductions

def reduce(out, name, array, axes, dtype, keepdims, initial, where) -> None:
    """``numpy.<name>.reduce(array, axis=axes, dtype=dtype, out=out, keepdims=keepdims,
    initial=initial, where=where)``; ``initial``/``where`` None mean not given.

    Large reductions are split by shape alone (deterministic for any thread
    count; see the module docstring).
    """
    f = _UFUNCS[name][0]
    a = view(array)
    o = view(out)
    fold = name in STANDARD_VALUES and len(axes) == 1 and _folds(name, dtype or o.dtype, a)
    if fold and not np.isfinite(a).all():
        return _reduce_by_fold(name, a, o, axes[0], dtype, keepdims, initial, where)
    small = a.size < reduce_split_min(a.dtype, o.dtype, a.dtype if dtype is None else dtype)
    if initial is None and where is None:
        if small or not _reduce_split(f, a, o, axes, dtype, keepdims, {}):
            f.reduce(a, axis=axes, dtype=dtype, out=o, keepdims=keepdims)
    else:
        kwargs = {}
        if initial is not None:
            kwargs["initial"] = initial
        if where is not None:
            kwargs["where"] = _native(where)
        if small or not _reduce_split(f, a, o, axes, dtype, keepdims, kwargs):
            f.reduce(a, axis=axes, dtype=dtype, out=o, keepdims=keepdims, **kwargs)
    if fold and np.isnan(o).any():
        _reduce_by_fold(name, a, o, axes[0], dtype, keepdims, initial, where)


def reduce_split_min(dtype, *computed) -> int:
    """The size from which a reduction of ``dtype`` data, accumulated and
    written in the ``computed`` dtypes, is split: one that converts each
    element (another dtype, or float16's arithmetic in float32) from
    REDUCE_SPLIT_MIN, a streaming one from REDUCE_STREAMING_SPLIT_MIN."""
    if dtype == np.float16 or any(other != dtype for other in computed):
        return REDUCE_SPLIT_MIN
    return max(REDUCE_SPLIT_MIN, REDUCE_STREAMING_SPLIT_MIN)


def _reduce_by_fold(name, a, o, axis, dtype, keepdims, initial, where):
    folded = _standard_fold(name, dtype or o.dtype, a, axis, initial,
                            None if where is None else _native(where))[-1]
    np.copyto(o, np.expand_dims(folded, axis) if keepdims else folded, casting="unsafe")


def _reduce_split(f, a, o, axes, dtype, keepdims, kwargs) -> bool:
    """Run a large reduction in pieces cut by shape alone; False when it
    should be one NumPy call."""
    where = kwargs.get("where")
    if np.may_share_memory(o, a) or (isinstance(where, _ndarray) and np.may_share_memory(o, where)):
        return False
    shape, size = a.shape, a.size
    axes = tuple(axes)
    # Partial results may be combined only for reorderable ufuncs, and only
    # when no mask or initial value would have to be shared out among them.
    regroup = f.__name__ in _REORDERABLE and UFUNCS.get(f.__name__) is f and not kwargs
    if regroup and len(axes) == a.ndim and (a.flags.c_contiguous or a.flags.f_contiguous):
        # Everything reduced: cut the memory into fixed power-of-two runs,
        # the lengths NumPy's pairwise summation handles best.
        flat = a.reshape(-1) if a.flags.c_contiguous else a.T.reshape(-1)
        chunk = max(REDUCE_CHUNK, 1 << (-(-size // REDUCE_MAX_CHUNKS) - 1).bit_length())
        _reduce_in_parts(f, flat, (0,), o, axes, dtype, keepdims, 0, [*range(0, size, chunk), size])
        return True
    # Cut the axis outermost in memory (slabs stay contiguous), among those
    # long enough; a reduced axis only when partial results may be combined.
    want = max(2, min(REDUCE_MAX_CHUNKS, size // REDUCE_CHUNK))
    ax = _pick_axis(range(a.ndim), shape, a.strides, want)
    if ax is None:
        return False
    count = min(want, shape[ax])
    bounds = [shape[ax] * i // count for i in range(count + 1)]
    if ax not in axes:
        _reduce_along_kept(f, a, o, axes, dtype, keepdims, kwargs, ax, bounds)
    elif regroup:
        _reduce_in_parts(f, a, axes, o, axes, dtype, keepdims, ax, bounds)
    else:
        return False        # other cuts would make NumPy walk memory across the grain
    return True


def _reduce_along_kept(f, a, o, axes, dtype, keepdims, kwargs, ax, bounds):
    """Cut non-reduced axis ``ax`` at ``bounds``; each piece reduces into its part of ``o``."""
    oax = ax if keepdims else ax - sum(1 for r in axes if r < ax)
    where = kwargs.get("where")
    sliced_where = isinstance(where, _ndarray) and where.ndim > 0
    if sliced_where:
        where = np.broadcast_to(where, a.shape)

    def piece(i):
        lo, hi = bounds[i], bounds[i + 1]
        part = (slice(None),) * ax + (slice(lo, hi),)
        kw = dict(kwargs, where=where[part]) if sliced_where else kwargs
        f.reduce(a[part], axis=axes, dtype=dtype, out=o[(slice(None),) * oax + (slice(lo, hi),)],
                 keepdims=keepdims, **kw)

    fpstatus.replay(parallel.run(piece, len(bounds) - 1), "reduce")


def _reduce_in_parts(f, a, axes, o, out_axes, dtype, keepdims, ax, bounds):
    """Cut reduced axis ``ax`` of ``a`` at ``bounds`` into partial results,
    then combine those in order with one more reduction."""
    count = len(bounds) - 1
    kept_shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    partials = np.empty((count,) + kept_shape, dtype=dtype if dtype is not None else o.dtype)
    lead = (slice(None),) * ax

    def piece(i):
        part = lead + (slice(bounds[i], bounds[i + 1]),)
        f.reduce(a[part], axis=axes, dtype=dtype, out=partials[i], keepdims=True)

    flags = parallel.run(piece, count)
    target = o if keepdims else np.expand_dims(o, out_axes)       # the result with kept dims
    partials = partials.reshape((count,) + target.shape)           # flat pieces: (count, 1) -> kept
    recorder = fpstatus.Recorder()
    with fpstatus.recording(recorder):
        wide = _WIDER.get(partials.dtype) if f is np.add else None
        if wide is None:
            f.reduce(partials, axis=0, dtype=dtype, out=target)
        else:   # partial sums are added in double precision, then rounded once
            np.copyto(target, f.reduce(partials, axis=0, dtype=wide), casting="unsafe")
    fpstatus.replay(flags | recorder.flags, "reduce")


# ---------------------------------------------------------------------------
# Other ufunc methods: one NumPy call each

def accumulate(out, name, array, axis, dtype) -> None:
    """``numpy.<name>.accumulate(array, axis=axis, dtype=dtype, out=out)``."""
    a, o = view(array), view(out)
    fold = name in STANDARD_VALUES and _folds(name, dtype or o.dtype, a)
    if not fold or np.isfinite(a).all():
        _UFUNCS[name][0].accumulate(a, axis=axis, dtype=dtype, out=o)
        if not fold or not np.isnan(o).any():
            return
    np.copyto(np.moveaxis(o, axis, 0), _standard_fold(name, dtype or o.dtype, a, axis),
              casting="unsafe")


# Reductions and accumulations of a binary ufunc with standard special values
# (floor_divide) are left folds: NumPy's when every operand is finite and
# NumPy's result has no NaN (a quotient that overflowed to inf, then divided
# by a finite number, leaves one), else one step at a time with the
# standard's values.

def _folds(name, dtype, a) -> bool:
    """Whether ``name``'s reductions of ``a`` in ``dtype`` may need the standard's values."""
    return (_UFUNCS[name][0].nin == 2 and np.dtype(dtype).char in STANDARD_VALUES[name][0]
            and a.size > 0)


def _standard_fold(name, dtype, a, axis, initial=None, where=None):
    """The running results of ``name``'s left fold of ``a`` along ``axis``
    (stacked along a new first axis), with the standard's special values."""
    f = _UFUNCS[name][0]
    loop = (np.dtype(dtype),) * 3
    items = np.moveaxis(a, axis, 0).astype(dtype)
    mask = None if where is None else np.moveaxis(np.broadcast_to(where, a.shape), axis, 0)
    steps = np.empty((len(items) + (initial is not None),) + items.shape[1:], dtype)
    if initial is None:          # (NumPy has refused ``where`` without ``initial``)
        steps[0], rest = items[0], items[1:]
    else:
        steps[0], rest = initial, items
    for k, item in enumerate(rest):
        acc, step = steps[k, ...], steps[k + 1, ...]        # 0-d arrays, not scalars
        if not _standard_call(f, 1, name, step, loop, [acc, item], None):
            f(acc, item, out=step, signature=loop, casting="unsafe")
        if mask is not None:
            np.copyto(step, acc, where=~mask[k])
    return steps if initial is None else steps[1:]


def reduceat(out, name, array, indices, axis, dtype) -> None:
    """``numpy.<name>.reduceat(array, indices, axis=axis, dtype=dtype, out=out)``."""
    _UFUNCS[name][0].reduceat(view(array), indices, axis=axis, dtype=dtype, out=view(out))


def outer(outs, name, loop, a, b) -> None:
    """``numpy.<name>.outer(a, b, out=outs, signature=loop, casting="unsafe")``."""
    _UFUNCS[name][0].outer(_native(a), _native(b), out=tuple(map(view, outs)),
                           signature=loop, casting="unsafe")


def at(target, name, indices, b) -> None:
    """``numpy.<name>.at(target, indices, b)`` in place (``b`` None: unary ufunc).

    ``indices``: an index or a tuple of them (asnumpy arrays, NumPy arrays,
    slices, ints).
    """
    f = _UFUNCS[name][0]
    if isinstance(indices, tuple):
        indices = tuple(map(_native, indices))
    else:
        indices = _native(indices)
    if b is None:
        f.at(view(target), indices)
    else:
        f.at(view(target), indices, _native(b))


# ---------------------------------------------------------------------------
# NumPy functions without a dedicated kernel

@functools.cache
def _numpy_attribute(name):
    return functools.reduce(getattr, name.split("."), np)


def numpy_function(outs, name, args, kwargs) -> None:
    """Write ``numpy.<name>(*args, **kwargs)`` into ``outs``.

    ``name`` is a dotted path under ``numpy`` ("nanmean", "linalg.norm");
    asnumpy arrays in ``args``/``kwargs`` (also inside tuples and lists) are
    replaced by their views.  A tuple result is copied into ``outs`` item by
    item, anything else into ``outs[0]`` (casting unsafely); a result that is
    the output's own view (the function was given ``out=`` that array) is
    not copied again.  With no ``outs`` the call runs for its side effects.
    """
    args = [_native_deep(x) for x in args]
    kwargs = {key: _native_deep(value) for key, value in kwargs.items()}
    own = CPU_FUNCTIONS.get(name)        # this back end's faster version of the function
    if own is not None:
        own(tuple(map(view, outs)), *args, **kwargs)
        return
    result = _numpy_attribute(name)(*args, **kwargs)
    if not outs:                         # run for its side effect on the arrays in ``args``
        return
    results = tuple(result) if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise ValueError(f"numpy.{name} returned {len(results)} results for {len(outs)} outputs")
    for out, value in zip(outs, results):
        target = view(out)
        if value is not target:          # an ``out=`` NumPy already wrote returns itself
            parallel.copyto(target, value)


MATH_KERNELS = {
    "ufunc": ufunc,
    "reduce": reduce,
    "accumulate": accumulate,
    "reduceat": reduceat,
    "outer": outer,
    "at": at,
    "numpy_function": numpy_function,
}
