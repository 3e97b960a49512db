"""Statistics: mean, var, std and average, computed as NumPy computes them.

``mean`` is one ``add.reduce`` and a divide of the (small) result by the
element count; ``var`` subtracts the mean, squares (``|x|**2`` for complex
values, whose variance is real), sums and divides by ``n - ddof``.  The
accumulator dtypes are NumPy's: float64 for bool and integers, float32 for
a float16 mean.  Divisions by the count happen in the promoted type of the
result and an ``intp``, then cast back, exactly as NumPy's ``_methods``.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import compiled
from ...runtime import observer as _observer
from ...runtime._state import lean_gate, open_stream_blocks
from .._launch import empty, launch
from .._tracing import lazy_recording
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import (
    NoValue,
    any_true,
    count_items,
    device_operand,
    divide_by_count,
    named,
    reduced_axes,
    warn,
    where_operand,
)
from ._signatures import define, like_mean, like_var, square_root_of

__all__ = ["average", "mean", "std", "var"]

_F8 = np.dtype(np.float64)
_F4 = np.dtype(np.float32)
_F2 = np.dtype(np.float16)


def _options(arr, keepdims, where):
    keepdims = False if keepdims is NoValue else keepdims
    return keepdims, where_operand(where, arr._device)


def _ddof(ddof, correction):
    if correction is not NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return correction
    return ddof


def _mean(a, axis=None, dtype=None, out=None, keepdims=NoValue, where=NoValue):
    """NumPy's ``_methods._mean`` (host data is moved to the device first)."""
    arr = device_operand(a, out)
    if axis is None and out is None and (where is NoValue or where is True):
        now = _mean_now(arr, dtype, False if keepdims is NoValue else keepdims)
        if now is not None:
            return now
    keepdims, where = _options(arr, keepdims, where)
    rcount = count_items(arr, axis, keepdims, where)
    empty_slice = rcount == 0 if where is True else any_true(UFUNCS["equal"](rcount, 0))
    if empty_slice:
        warn("Mean of empty slice")
    float16_result = False
    if dtype is None:
        if arr.dtype.kind in "biu":
            dtype = _F8
        elif arr.dtype == _F2:
            dtype, float16_result = _F4, True
    ret = UFUNCS["add"].reduce(arr, axis, dtype, out, keepdims, where=where)
    ret = divide_by_count(ret, rcount)
    if float16_result and out is None:
        ret = ret.astype(_F2)
    return ret


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NoValue, where=NoValue,
         mean=NoValue, correction=NoValue):
    """NumPy's ``_methods._var`` (host data is moved to the device first)."""
    ddof = _ddof(ddof, correction)
    arr = device_operand(a, out)
    keepdims, where = _options(arr, keepdims, where)
    rcount = count_items(arr, axis, keepdims, where)
    if where is True:
        too_few = ddof >= rcount
    else:
        too_few = any_true(UFUNCS["less_equal"](rcount, ddof))
    if too_few:
        warn("Degrees of freedom <= 0 for slice")
    if dtype is None and arr.dtype.kind in "biu":
        dtype = _F8
    if ((mean is NoValue or mean is None) and out is None and where is True and not too_few
            and _one_kernel(arr, dtype)):
        return _var_kernel(arr, axis, dtype, ddof, keepdims)
    if mean is not NoValue and mean is not None:
        arrmean = mean
    else:
        arrmean = UFUNCS["add"].reduce(arr, axis, dtype, None, True, where=where)
        div = rcount if where is True else rcount.reshape(arrmean.shape)
        arrmean = divide_by_count(arrmean, div)
    x = UFUNCS["subtract"](arr, arrmean)
    if arr.dtype.kind in "fiu":
        x = UFUNCS["square"](x, out=x)
    elif x.dtype.kind == "c":
        # |x|**2 = re**2 + im**2, computed on the two float views of x
        re = x.real
        if x.size:
            im = x.imag
            UFUNCS["square"](re, out=re)
            UFUNCS["square"](im, out=im)
            UFUNCS["add"](re, im, out=re)
        x = re
    else:
        x = UFUNCS["multiply"](x, UFUNCS["conjugate"](x), out=x).real
    ret = UFUNCS["add"].reduce(x, axis, dtype, out, keepdims, where=where)
    if where is True:
        rcount = np.maximum(rcount - ddof, 0)
    else:
        rcount = UFUNCS["maximum"](UFUNCS["subtract"](rcount, ddof), 0)
    return divide_by_count(ret, rcount)


def _mean_now(arr, dtype, keepdims):
    """``numpy.mean`` of all of ``arr``, on a device that runs NumPy's loops,
    computed at once on the caller's thread (None: take the launch path).

    As the fast lane (ufuncs/fast.py) does for ``a.sum()``: when the sum
    would not be split, the launched kernels would make these very NumPy
    calls on this thread, unless a ``with stream:`` block is open somewhere
    (then the work is queued in stream order instead).
    """
    if type(arr) is not ndarray:          # a value traced by asnumpy.fuse
        return None
    loops = arr._device.numpy_loops
    if loops is None or arr.size == 0:
        return None
    if lean_gate[0]:      # a stream block open somewhere, or a profiler observing it
        observer = _observer.observer
        if observer is None or open_stream_blocks[0] or lazy_recording():
            return None
        return observer.called("mean", "lane", _mean_at_once, (arr, loops, dtype, keepdims))
    return _mean_at_once(arr, loops, dtype, keepdims)


def _mean_at_once(arr, loops, dtype, keepdims):
    """:func:`_mean_now`'s NumPy calls, on this thread (None: the launch path)."""
    if dtype is None:
        computed = _F8 if arr.dtype.kind in "biu" else _F4 if arr.dtype == _F2 else arr.dtype
    elif np.dtype(dtype).kind in "fc":
        computed = np.dtype(dtype)
    else:
        return None
    if arr.size >= loops.reduce_split_min(arr.dtype, computed):
        return None
    if keepdims:
        result = np.mean(loops.view(arr), dtype=dtype, keepdims=True)
    else:
        # NumPy's _methods._mean for a scalar sum, without its Python layers
        # (3 of 21 us for 10**5 float64): the sum in the accumulator dtype,
        # divided by the intp count in their promoted type, cast back
        total = np.add.reduce(loops.view(arr), axis=None,
                              dtype=None if computed == arr.dtype else computed)
        kind = arr.dtype.type if dtype is None and arr.dtype == _F2 else total.dtype.type
        result = kind(total / np.intp(arr.size))
    return ndarray._adopt_native(np.asarray(result), arr._device)


def _one_kernel(arr, dtype) -> bool:
    """Whether ``var`` of real ``arr`` runs as one ``var`` kernel: on back ends
    that run NumPy's loops, which have one (the cpu's reads the data once,
    in cache-sized pieces); other back ends compose it from ufunc calls."""
    return (type(arr) is ndarray and arr._device.numpy_loops is not None and arr.size > 0
            and arr.dtype.kind in "biuf" and (dtype is None or np.dtype(dtype).kind == "f"))


def _var_kernel(arr, axis, dtype, ddof, keepdims):
    """``numpy.var`` of ``arr`` by one kernel launch into a new array."""
    axes = reduced_axes(axis, arr.ndim)
    shape = tuple(1 if i in axes else n for i, n in enumerate(arr.shape)
                  if keepdims or i not in axes)
    out = empty(shape, np.dtype(dtype) if dtype is not None else arr.dtype, arr._device,
                func="var")
    # (NumPy takes a slower path for a tuple naming every axis: np.mean of a
    # 3000 x 3000 float32 with axis=(0, 1) ran 6 ms against 1.6 ms with None)
    launch("numpy_function", (out,), "var", (arr,),
           {"axis": None if len(axes) == arr.ndim else axes, "dtype": dtype, "ddof": ddof,
            "keepdims": keepdims}, func="var")
    return out


_define = functools.partial(define, __name__)

mean = _define(
    "mean", like_mean, _mean,
    summary="Arithmetic mean along the given axes.",
    details="One summation pass (parallel and deterministic on the cpu device) and a "
            "division of its result by the element count.",
    described={
        "axis": "Axes to average over; None averages all elements.",
        "dtype": "Accumulator dtype.  By default float64 for bool and integer input, float32 "
                 "for float16 input (the result is float16 again), else the input's dtype.",
    },
    returns="The mean; 0-d when all axes are reduced.  An empty slice gives NaN and a "
            'RuntimeWarning ("Mean of empty slice").')

var = _define(
    "var", like_var, _var,
    summary="Variance along the given axes: ``sum(|x - x.mean()|**2) / (n - ddof)``.",
    described={
        "axis": "Axes to compute over; None uses all elements.",
        "dtype": "Accumulator dtype (float64 for bool and integer input by default).",
        "ddof": ("int or float, optional",
                 "Delta degrees of freedom: the divisor is ``n - ddof``."),
        "mean": ("array_like, optional",
                 "A precomputed mean (with ``keepdims=True`` shape) to use."),
        "correction": ("int or float, optional",
                       "The array API's name for ``ddof`` (give only one of them)."),
    },
    returns="The variance; real for complex input.  ``n - ddof <= 0`` gives a RuntimeWarning "
            '("Degrees of freedom <= 0 for slice").')

std = _define(
    "std", like_var, square_root_of(_var),
    summary="Standard deviation along the given axes: the square root of :func:`var`.",
    like=":func:`var`",
    returns="The standard deviation; real for complex input.")


def _filled(shape, value):
    """A new device array of ``shape`` holding ``value`` (a device array broadcast, or scalar)."""
    result = empty(shape, value.dtype, value._device, func="average")
    launch("copy", result, value, func="average")
    return result


@named("average")
def average(a, axis=None, weights=None, returned=False, *, keepdims=NoValue):
    """Weighted average along the given axes.

    Parameters
    ----------
    a : array_like
        Data to average.
    axis : None, int or tuple of int, optional
        Axes to average over; None averages all elements.
    weights : array_like, optional
        Weights, of ``a``'s shape or (with ``axis``) of the shape of the
        averaged axes.  None weighs every element equally.
    returned : bool, optional
        Also return the sum of the weights.
    keepdims : bool, optional
        Keep the reduced axes with length one.

    Returns
    -------
    asnumpy.ndarray or tuple of two asnumpy.ndarray
        The average, and with ``returned`` the sum of weights broadcast to
        its shape.  Integer and bool data average in float64.

    Raises
    ------
    ZeroDivisionError
        When the weights along an axis sum to zero.
    TypeError
        When the shapes differ and no axis is given.
    ValueError
        When the weights don't fit the averaged axes.

    See Also
    --------
    numpy.average
    """
    a = device_operand(a)
    if axis is not None:
        axis = reduced_axes(axis, a.ndim)
    keepdims_kw = {} if keepdims is NoValue else {"keepdims": keepdims}
    if weights is None:
        avg = mean(a, axis, **keepdims_kw)
        scl = avg.dtype.type(a.size / avg.size)
    else:
        wgt = device_operand(weights, a)
        if a.dtype.kind in "biu":
            result_dtype = np.result_type(a.dtype, wgt.dtype, "f8")
        else:
            result_dtype = np.result_type(a.dtype, wgt.dtype)
        if a.shape != wgt.shape:
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if wgt.shape != tuple(a.shape[ax] for ax in axis):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            wgt = wgt.transpose(tuple(int(i) for i in np.argsort(axis)))
            wgt = wgt.reshape(tuple(s if ax in axis else 1 for ax, s in enumerate(a.shape)))
        scl = UFUNCS["add"].reduce(wgt, axis, result_dtype, None,
                                   keepdims_kw.get("keepdims", False))
        if any_true(UFUNCS["equal"](scl, 0.0)):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        total = UFUNCS["multiply"](a, wgt, dtype=result_dtype)
        total = UFUNCS["add"].reduce(total, axis, None, None, keepdims_kw.get("keepdims", False))
        avg = UFUNCS["divide"](total, scl)
    if not returned:
        return avg
    if not isinstance(scl, ndarray):
        scl = device_operand(np.asarray(scl), avg)
    if scl.shape != avg.shape:
        scl = _filled(avg.shape, scl)
    return avg, scl


# a small plain call (one array, no keywords) made by NumPy on the view (compiled.py)
mean = compiled.numpy_call(np.mean, mean, "mean", reduces=True)
