"""Discrete Fourier transforms on cpu device memory: NumPy's or SciPy's pocketfft.

The ``fft`` kernel calls ``numpy.fft.<name>`` on the operand's view with
``out=`` the output's view, so the result is written once, in place.  Large
batched transforms are cut along their largest *batch* axis (an axis that is
not transformed) and the slabs run on the cpu threads; every row is
transformed independently by pocketfft, so the result is bit-identical to a
single NumPy call.

A large transform with no batch to cut (one long signal, or an N-D
transform over every axis) runs on ``scipy.fft`` when SciPy is installed
(the optional ``fft`` extra): its pocketfft is several times faster than
NumPy's on long transforms and takes ``workers=``.  A long 1-D complex
transform is split further by the *four-step* method (``n = rows * cols``:
``rows``-point transforms down the columns, a twiddle factor per element,
``cols``-point transforms along the rows), whose short transforms fit in
cache and run on every thread.  Both round differently from NumPy's single
call: the results agree with ``numpy.fft`` within the precision's tolerance
(tested), not bit for bit.  Without SciPy everything runs on NumPy.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import fpstatus, parallel
from .kernels import view

__all__ = ["FFT_KERNELS"]

PARALLEL_MIN_BYTES = 1 << 20        # smaller transforms run on the caller
SCIPY_MIN_BYTES = 1 << 16           # smaller unbatched transforms stay on NumPy's pocketfft
FOUR_STEP_MIN = 1 << 16             # points: shorter 1-D transforms run as one SciPy call
FOUR_STEP_SIDE_MIN = 16             # the four-step grid's shorter side, at least

# input dtypes SciPy transforms in NumPy 2's precision (complex64/float32 stay single)
_SCIPY_DTYPES = frozenset(np.dtype(c) for c in "fdFD")


def _transformed(kwargs, ndim):
    """The (normalised) axes the transform runs along."""
    if "axis" in kwargs:
        axes = (kwargs["axis"],)
    else:
        axes = tuple(kwargs["axes"])
    return {int(axis) % ndim for axis in axes} if ndim else set()


def _call(function, a, out, kwargs, direct):
    result = function(a, out=out, **kwargs) if direct else function(a, **kwargs)
    if result is not out:           # fftn over no axes returns its input
        np.copyto(out, result, casting="unsafe")


@functools.cache
def scipy_fft():
    """``scipy.fft`` when SciPy is installed, else None (imported on first use)."""
    try:
        import scipy.fft
    except ImportError:
        return None
    return scipy.fft


def _grid(n):
    """``(rows, cols)`` with ``rows * cols == n``, ``rows <= cols`` as close as can be; or None."""
    for rows in range(math.isqrt(n), FOUR_STEP_SIDE_MIN - 1, -1):
        if n % rows == 0:
            return rows, n // rows
    return None


def _make_twiddles(rows, cols, dtype, inverse):
    """``exp(-+2 pi i k j / n)`` for row ``k`` and column ``j`` (computed in double precision)."""
    n = rows * cols
    k_times_j = np.multiply.outer(np.arange(rows, dtype=np.int64), np.arange(cols)) % n
    angle = k_times_j * ((2 if inverse else -2) * np.pi / n)
    table = np.empty((rows, cols), dtype)
    np.cos(angle, out=table.real)
    np.sin(angle, out=table.imag)
    table.flags.writeable = False           # shared by every call that finds it cached
    return table


# the last two tables (a transform and its inverse) are kept, up to this size each
TWIDDLE_CACHE_MAX_BYTES = 1 << 27
_cached_twiddles = functools.lru_cache(maxsize=2)(_make_twiddles)


def _twiddles(rows, cols, dtype, inverse):
    if rows * cols * dtype.itemsize <= TWIDDLE_CACHE_MAX_BYTES:
        return _cached_twiddles(rows, cols, dtype, inverse)
    return _make_twiddles(rows, cols, dtype, inverse)


def _four_step(module, name, source, target, norm, workers):
    """1-D ``fft``/``ifft`` of ``source`` into ``target``, both of length ``rows * cols``.

    With ``x[j] = grid[j1, j2]`` (``j = j1 * cols + j2``), the transform
    ``X[k1 + rows * k2]`` is the ``cols``-point transform over ``j2`` of the
    ``rows``-point transforms over ``j1``, times the twiddle factors.  Each
    short transform scales by ``norm`` for its own length, and the scales
    multiply up to the full length's.
    """
    rows, cols = _grid(source.shape[0])
    function = getattr(module, name)
    # NumPy 2's precision (single for float32/complex64 input), whatever ``out``'s dtype
    precision = np.result_type(source.dtype, np.complex64)
    grid = np.empty((rows, cols), precision)
    np.copyto(grid, source.reshape(rows, cols))
    grid = function(grid, axis=0, norm=norm, overwrite_x=True, workers=workers)
    np.multiply(grid, _twiddles(rows, cols, precision, name == "ifft"), out=grid)
    spectrum = function(grid.T, axis=0, norm=norm, overwrite_x=True, workers=workers)
    np.copyto(target.reshape(cols, rows), spectrum)     # spectrum[k2, k1] = X[k1 + rows * k2]


def _scipy_transform(module, name, source, target, kwargs) -> None:
    """``target[...] = scipy.fft.<name>(source, **kwargs)`` on every cpu thread."""
    workers = parallel.thread_count()
    if (name in ("fft", "ifft") and source.ndim == 1 and kwargs["n"] == source.shape[0]
            and source.shape[0] >= FOUR_STEP_MIN and _grid(source.shape[0]) is not None):
        _four_step(module, name, source, target, kwargs["norm"], workers)
        return
    result = getattr(module, name)(source, **kwargs, workers=workers)
    parallel.copyto(target, result)


def fft(out, name, a, kwargs, direct=True) -> None:
    """Write ``numpy.fft.<name>(a, **kwargs)`` into ``out``.

    ``direct``: NumPy writes into ``out`` itself (``out=``); otherwise (an
    N-D transform whose intermediate steps have other shapes) the result is
    copied.
    """
    function = getattr(np.fft, name)
    source, target = view(a), view(out)
    batch = [axis for axis in range(target.ndim) if axis not in _transformed(kwargs, target.ndim)]
    axis = max(batch, key=lambda k: target.shape[k]) if batch else None
    count = min(target.shape[axis], 4 * parallel.thread_count()) if batch else 1
    if count < 2 and target.nbytes >= SCIPY_MIN_BYTES and source.dtype in _SCIPY_DTYPES:
        module = scipy_fft()          # nothing to cut: SciPy's transform, on every thread
        if module is not None:
            _scipy_transform(module, name, source, target, kwargs)
            return
    if count < 2 or target.nbytes < PARALLEL_MIN_BYTES or parallel.thread_count() < 2:
        _call(function, source, target, kwargs, direct)
        return
    length = target.shape[axis]
    bounds = [length * i // count for i in range(count + 1)]
    index = [slice(None)] * target.ndim

    def piece(i):
        where = list(index)
        where[axis] = slice(bounds[i], bounds[i + 1])
        where = tuple(where)
        _call(function, source[where], target[where], kwargs, direct)

    fpstatus.replay(parallel.run(piece, count), name)


FFT_KERNELS = {"fft": fft}
