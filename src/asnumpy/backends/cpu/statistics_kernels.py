"""cpu versions of NumPy functions that one NumPy call runs slower than need be.

The ``numpy_function`` kernel runs these instead of ``numpy.<name>`` (the
table :data:`CPU_FUNCTIONS`, by name).  Each is called as
``function(outs, *args, **kwargs)`` with NumPy views of the device arrays
and writes NumPy's result into ``outs`` (NumPy views too):

* ``var``: NumPy's two-pass algorithm (mean, then the sum of squared
  deviations), one cache-sized piece of the operand at a time, so the data
  is read from memory once instead of five times, pieces spread over the
  threads.  Pieces cut along a kept axis are ``numpy.var`` of the piece, the
  very result NumPy gives; pieces cut along a reduced axis are combined with
  Chan's formula in double precision (``M2 = sum M2_i + sum n_i (mean_i -
  mean)**2``), which rounds differently from NumPy (more accurately).
* ``argmax`` / ``argmin``: the first extreme of each piece, then NumPy's own
  argmax of those candidates picks the first extreme (a NaN first), as one
  call would.
* ``where``: ``where(cond, x, y)`` selecting bit patterns, ``((x ^ y) & m) ^ y``
  with ``m`` all ones where ``cond`` holds: branch-free and exact (signed
  zeros and NaN payloads kept), in cache-sized blocks.  NumPy's own loop
  branches on every element, which random conditions make slow.

Whatever does not fit a fast shape is one NumPy call.  Floating-point errors
of pieces run on worker threads are recorded; if any was raised, the whole
call is run again as one NumPy call under the caller's ``numpy.errstate``, so
warnings and errors are NumPy's exactly.
"""

from __future__ import annotations

import numpy as np

from . import parallel

__all__ = ["ARG_SPLIT_MIN_BYTES", "CPU_FUNCTIONS", "VAR_PIECE", "WHERE_BLOCK"]

# ---------------------------------------------------------------------------
# Sizes, measured on the 2-core AMD EPYC (KVM) development machine (see the
# comments above REDUCE_SPLIT_MIN in math_kernels for how).
#
# var: elements per piece.  2**18 float32 (1 MiB: a piece, its deviations
# and NumPy's buffers stay in the 1 MiB L2 cache) ran a (3000, 3000) float32
# std(axis=0) in 5.6 ms on one thread against 7-8 ms for 2**16 and 2**17 and
# NumPy's 13-16 ms; on two threads at load 0.6, 4.1 ms against NumPy's 12.1
# (axis=1 4.6 ms, axis=None 3.3 ms; one thread 7.1, 7.1, 5.4 ms).  Operands
# of at most one piece are one ``numpy.var`` call.
VAR_PIECE = 1 << 18
# argmax/argmin: from this many bytes the search is split (a default: the
# calibration replaces it by the bytes from which a streaming sum splits here).  NumPy's SIMD
# search streams near the memory bandwidth on one thread (2**23 float32, 32
# MiB, in ~1.1 ms), so a second core adds little: at load 0.5, float32 split
# in 4 MiB pieces ran 1.03x one call at 2**21 elements, 1.26x at 2**22, 1.14x
# at 2**23 and 2**24; under load (3-5) 0.22x-1.14x.
ARG_SPLIT_MIN_BYTES = 16 << 20
_ARG_PIECE_BYTES = 4 << 20      # a split search's pieces
# where: elements per block, whose mask and operands stay in the 1 MiB L2
# cache (832 KiB for float32).  2**23 float32 on one thread: 6.6 ms in blocks
# of 2**14, 5.6 ms of 2**15, 4.4-5.2 ms of 2**16-2**17 (fewer NumPy calls),
# against NumPy's where at 34-38 ms; two threads at load 0.6: 3.6 ms against
# 5.0 on one (1.4x from 2**20 elements, 1.2x at 2**18).
WHERE_BLOCK = 1 << 16
# Below this many elements NumPy's where is as fast (the bit selection's few
# calls cost ~7 us: 2**12 float32 in 11 us against 8 us, 2**14 in 18 against 26).
_WHERE_BITS_MIN = 1 << 13
_WHERE_PIECE = 1 << 20          # elements per piece handed to a thread (calibrated per CPU)
_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _run_or_redo(task, count, redo) -> None:
    """Run ``task(i)`` for the pieces; if any raised a floating-point flag,
    call ``redo()`` (one NumPy call under the caller's errstate) instead."""
    if parallel.run(task, count):
        redo()


def _cut(a, piece):
    """(axis, bounds) cutting ``a`` into pieces of about ``piece`` elements
    along the axis outermost in memory, or None when it is one piece."""
    if a.size <= piece:
        return None
    order = sorted((ax for ax in range(a.ndim) if a.shape[ax] > 1),
                   key=lambda ax: -abs(a.strides[ax]))
    if not order:
        return None
    ax = order[0]
    inner = a.size // a.shape[ax]
    step = max(1, piece // max(inner, 1))
    n = a.shape[ax]
    if step >= n:
        return None
    return ax, [*range(0, n, step), n]


# ---------------------------------------------------------------------------
# var (std is its square root, taken by the front end)

def var(outs, a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``numpy.var(a, axis, dtype, out=outs[0], ddof, keepdims)`` in cache-sized pieces."""
    (o,) = outs
    axes = tuple(range(a.ndim)) if axis is None else tuple(axis)

    def whole():
        np.var(a, axis=axis, dtype=dtype, out=o, ddof=ddof, keepdims=keepdims)

    # Chan's combination runs in double precision: float16 sums that overflow
    # in NumPy would not, so those cut along kept axes only (NumPy's result).
    combine = np.dtype(dtype if dtype is not None else a.dtype).itemsize >= 4
    dense = a.flags.c_contiguous or a.flags.f_contiguous
    if combine and a.ndim and len(axes) == a.ndim and dense:
        flat = a.reshape(-1) if a.flags.c_contiguous else a.T.reshape(-1)
        cut = _cut(flat, VAR_PIECE)
        if cut is not None:
            _var_across(flat, (0,), cut, o.reshape((1,)), dtype, ddof, whole)
            return
    cut = _cut(a, VAR_PIECE)
    if cut is None or (cut[0] in axes and not combine):
        whole()
    elif cut[0] in axes:
        target = o if keepdims else np.expand_dims(o, axes)
        _var_across(a, axes, cut, target, dtype, ddof, whole)
    else:
        _var_along_kept(a, axes, cut, o, dtype, ddof, keepdims, whole)


def _var_along_kept(a, axes, cut, o, dtype, ddof, keepdims, whole):
    """Pieces cut along kept axis ``ax``: each is ``numpy.var`` of the piece."""
    ax, bounds = cut
    oax = ax if keepdims else ax - sum(1 for r in axes if r < ax)

    def piece(i):
        part = (slice(None),) * ax + (slice(bounds[i], bounds[i + 1]),)
        opart = (slice(None),) * oax + (slice(bounds[i], bounds[i + 1]),)
        np.var(a[part], axis=axes, dtype=dtype, out=o[opart], ddof=ddof, keepdims=keepdims)

    _run_or_redo(piece, len(bounds) - 1, whole)


def _var_across(a, axes, cut, target, dtype, ddof, whole):
    """Pieces cut along reduced axis ``ax``, combined with Chan's formula.

    ``target`` is the result with the reduced axes kept (length one).
    """
    ax, bounds = cut
    count = len(bounds) - 1
    kept = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    # elements each result sees in each piece
    counts = np.diff(bounds) * (a.size // a.shape[ax] // max(1, int(np.prod(kept))))
    means = np.empty((count,) + kept)
    squares = np.empty((count,) + kept)

    def piece(i):
        x = a[(slice(None),) * ax + (slice(bounds[i], bounds[i + 1]),)]
        n = np.intp(counts[i])
        # NumPy's _var on the piece: the mean in the accumulator dtype, the
        # squared deviations from it, summed
        mean = np.add.reduce(x, axis=axes, dtype=dtype, keepdims=True)
        np.true_divide(mean, n, out=mean, casting="unsafe")
        deviation = np.subtract(x, mean)
        np.square(deviation, out=deviation)
        means[i] = mean
        # (summed in the piece's dtype as NumPy does; a float64 out= would
        # make NumPy convert every float32 element through its buffers)
        squares[i] = np.add.reduce(deviation, axis=axes, dtype=dtype, keepdims=True)

    if parallel.run(piece, count):        # a flag was raised: NumPy's own call reports it
        whole()
        return
    weights = counts.astype(np.float64).reshape((count,) + (1,) * a.ndim)
    total = weights.sum()
    mean = (weights * means).sum(axis=0) / total
    spread = squares.sum(axis=0) + (weights * np.square(means - mean)).sum(axis=0)
    np.copyto(target, spread / max(total - ddof, 0), casting="unsafe")


# ---------------------------------------------------------------------------
# argmax / argmin

def _arg_extreme(name):
    search = getattr(np, name)

    def arg(outs, a, axis=None, keepdims=False):
        (o,) = outs
        if axis is None and a.flags.c_contiguous and a.nbytes >= ARG_SPLIT_MIN_BYTES:
            flat = a.reshape(-1)
            count = max(2, min(64, a.nbytes // _ARG_PIECE_BYTES))
            bounds = [flat.size * i // count for i in range(count + 1)]
            found = np.empty(count, np.intp)

            def piece(i):
                found[i] = bounds[i] + search(flat[bounds[i]:bounds[i + 1]])

            parallel.run(piece, count)        # comparisons raise no floating-point flags
            best = found[search(flat[found])]
            o[...] = best
            return
        search(a, axis=axis, out=o, keepdims=keepdims)

    arg.__name__ = name
    arg.__doc__ = f"``numpy.{name}(a, axis, out=outs[0], keepdims)``, large searches split."
    return arg


# ---------------------------------------------------------------------------
# where

def where(outs, condition, x, y):
    """``numpy.where(condition, x, y)`` into ``outs[0]``; bitwise selection when
    ``x`` and ``y`` already have the result's dtype and every array is
    C-contiguous of the result's shape (a 0-d ``y`` or scalar is broadcast)."""
    (o,) = outs
    bits = _BITS.get(o.dtype.itemsize)
    xa, ya = np.asarray(x), np.asarray(y)
    fits = (bits is not None and o.flags.c_contiguous and o.dtype.kind in "biuf"
            and isinstance(condition, np.ndarray) and condition.dtype == np.bool_
            and condition.shape == o.shape and condition.flags.c_contiguous
            and xa.dtype == o.dtype and xa.shape == o.shape and xa.flags.c_contiguous
            and (ya.shape == () and _same_kind_scalar(y, o.dtype)
                 or ya.dtype == o.dtype and ya.shape == o.shape and ya.flags.c_contiguous))
    if not fits or o.size < _WHERE_BITS_MIN:
        np.copyto(o, np.where(condition, x, y), casting="unsafe")
        return
    out_bits = o.reshape(-1).view(bits)
    cond = condition.reshape(-1).view(np.uint8)
    x_bits = xa.reshape(-1).view(bits)
    y_bits = (np.asarray(y, o.dtype).view(bits) if ya.shape == ()
              else ya.reshape(-1).view(bits))
    n = o.size
    pieces = -(-n // _WHERE_PIECE)

    def piece(i):
        mask = np.empty(WHERE_BLOCK, bits)
        for lo in range(i * _WHERE_PIECE, min(n, (i + 1) * _WHERE_PIECE), WHERE_BLOCK):
            hi = min(n, lo + WHERE_BLOCK)
            m, out = mask[:hi - lo], out_bits[lo:hi]
            np.copyto(m, cond[lo:hi], casting="unsafe")      # 0 / 1
            np.negative(m, out=m)                             # 0 / all ones
            yb = y_bits if y_bits.ndim == 0 else y_bits[lo:hi]
            if y_bits.ndim == 0 and not y_bits:
                np.bitwise_and(x_bits[lo:hi], m, out=out)     # y's bits are all zero
            else:
                np.bitwise_xor(x_bits[lo:hi], yb, out=out)
                np.bitwise_and(out, m, out=out)
                np.bitwise_xor(out, yb, out=out)

    if pieces == 1:
        piece(0)                    # (bit operations raise no floating-point flags)
    else:
        parallel.run(piece, pieces)


def _same_kind_scalar(y, dtype) -> bool:
    """Whether scalar ``y`` becomes ``dtype`` exactly as ``numpy.where`` converts it."""
    if isinstance(y, np.ndarray) or isinstance(y, np.generic):
        return np.asarray(y).dtype == dtype
    return isinstance(y, (bool, int, float)) and not (dtype.kind in "biu" and isinstance(y, float))


CPU_FUNCTIONS = {
    "var": var,
    "argmax": _arg_extreme("argmax"),
    "argmin": _arg_extreme("argmin"),
    "where": where,
}
"""NumPy functions (by ``numpy_function`` name) the cpu back end runs itself."""
