"""Reductions that ignore NaN: nansum, nanmean, nanvar, nanmin, nanargmin, ...

As in NumPy, NaNs are replaced by the reduction's identity in a copy (0 for
sums, 1 for products, +-inf for arg-searches) and the plain reduction runs
on the copy, so the summation order (and accuracy) is the plain one.
``nanmin``/``nanmax`` are ``fmin.reduce``/``fmax.reduce``.  Integer and
bool arrays hold no NaN and go straight to the plain reduction.  Warnings
and errors for all-NaN slices are NumPy's.
"""

from __future__ import annotations

import functools

import numpy as np

from ..ufuncs import UFUNCS
from ._operands import (
    INTP,
    NoValue,
    any_true,
    device_operand,
    divide_by_count,
    fill_where,
    given,
    scalar_axis,
    warn,
)
from ._signatures import (
    define,
    like_argmax,
    like_cumsum,
    like_max,
    like_mean,
    like_sum,
    like_var,
    square_root_of,
)
from .basic import prod, sum
from .cumulative import cumprod, cumsum
from .indices import argmax, argmin
from .statistics import _ddof, mean, var

__all__ = [
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanprod",
    "nanstd",
    "nansum",
    "nanvar",
]


def _replace_nan(a, value, out=None):
    """(copy of ``a`` with NaN replaced by ``value``, NaN mask), or (a, None) without NaNs."""
    a = device_operand(a, out)
    if a.dtype.kind not in "fc":
        return a, None
    mask = UFUNCS["isnan"](a)
    return fill_where(a.copy(), value, mask), mask


def _nan_as(value, plain):
    """A body: ``plain`` (sum, cumprod ...) of a copy of ``a`` whose NaNs are ``value``."""
    def body(a, out=None, **kwargs):
        a, _ = _replace_nan(a, value, out)
        return plain(a, out=out, **kwargs)
    return body


def _nan_extreme(name, a, axis=None, out=None, keepdims=NoValue, initial=NoValue,
                 where=NoValue):
    """``fmin``/``fmax`` reduction, warning where a slice held only NaN."""
    a = device_operand(a, out)
    kwargs = given(keepdims=keepdims, initial=initial, where=where)
    res = UFUNCS[name].reduce(a, axis=scalar_axis(a, axis), out=out, **kwargs)
    if res.dtype.kind in "fc" and any_true(UFUNCS["isnan"](res)):
        warn("All-NaN slice encountered")
    return res


def _nan_arg(search, value, a, axis=None, out=None, keepdims=NoValue):
    """``search`` (argmin/argmax) with NaN as ``value``; ValueError for all-NaN slices."""
    arr, mask = _replace_nan(a, value, out)
    if mask is not None and mask.size:
        all_nan = UFUNCS["logical_and"].reduce(mask, axis=scalar_axis(mask, axis),
                                               dtype=np.bool_)
        if any_true(all_nan):
            raise ValueError("All-NaN slice encountered")
    return search(arr, axis, out, keepdims=keepdims)


def _check_inexact(dtype, out):
    if dtype is not None:
        dtype = np.dtype(dtype)
        if dtype.kind not in "fc":
            raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and out.dtype.kind not in "fc":
        raise TypeError("If a is inexact, then out must be inexact")
    return dtype


def _not(mask):
    return UFUNCS["logical_not"](mask)


def _nanmean(a, axis=None, dtype=None, out=None, keepdims=NoValue, where=NoValue):
    """NumPy's ``nanmean``: the mean of the non-NaN values."""
    arr, mask = _replace_nan(a, 0, out)
    if mask is None:
        return mean(arr, axis, dtype, out, keepdims, where=where)
    dtype = _check_inexact(dtype, out)
    cnt = sum(_not(mask), axis, INTP, None, keepdims, where=where)
    tot = sum(arr, axis, dtype, out, keepdims, where=where)
    with np.errstate(invalid="ignore", divide="ignore"):
        avg = divide_by_count(tot, cnt, out)
    if any_true(UFUNCS["equal"](cnt, 0)):
        warn("Mean of empty slice")
    return avg


def _nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NoValue, where=NoValue,
            mean=NoValue, correction=NoValue):
    """NumPy's ``nanvar``: the variance of the non-NaN values."""
    arr, mask = _replace_nan(a, 0, out)
    if mask is None:
        return var(arr, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                   correction=correction)
    dtype = _check_inexact(dtype, out)
    ddof = _ddof(ddof, correction)
    where = True if where is NoValue else where
    cnt = sum(_not(mask), axis, INTP, None, True, where=where)
    if mean is not NoValue:
        avg = mean
    else:
        avg = sum(arr, axis, dtype, None, True, where=where)
        with np.errstate(invalid="ignore", divide="ignore"):
            avg = divide_by_count(avg, cnt)
    UFUNCS["subtract"](arr, avg, out=arr, casting="unsafe", where=where)
    fill_where(arr, 0, mask)
    if arr.dtype.kind == "c":
        sqr = UFUNCS["multiply"](arr, UFUNCS["conjugate"](arr), out=arr, where=where).real
    else:
        sqr = UFUNCS["multiply"](arr, arr, out=arr, where=where)
    result = sum(sqr, axis, dtype, out, keepdims, where=where)
    if result.ndim < cnt.ndim:
        cnt = cnt.reshape(result.shape)
    dof = UFUNCS["subtract"](cnt, ddof)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = divide_by_count(result, dof)
    isbad = UFUNCS["less_equal"](dof, 0)
    if any_true(isbad):
        warn("Degrees of freedom <= 0 for slice.")
        fill_where(result, np.nan, isbad)
    return result


_define = functools.partial(define, __name__)
_ALL_NAN = [("ValueError", 'If a slice holds only NaN ("All-NaN slice encountered").')]

nansum = _define(
    "nansum", like_sum, _nan_as(0, sum),
    summary="Sum over the given axes, treating NaN as zero.",
    like=":func:`asnumpy.sum`",
    returns="The sum (0 for all-NaN slices).")

nanprod = _define(
    "nanprod", like_sum, _nan_as(1, prod),
    summary="Product over the given axes, treating NaN as one.",
    like=":func:`asnumpy.prod`",
    returns="The product (1 for all-NaN slices).")

nancumsum = _define(
    "nancumsum", like_cumsum, _nan_as(0, cumsum),
    summary="Cumulative sum along an axis, treating NaN as zero.",
    like=":func:`asnumpy.cumsum`",
    returns="The running sums.")

nancumprod = _define(
    "nancumprod", like_cumsum, _nan_as(1, cumprod),
    summary="Cumulative product along an axis, treating NaN as one.",
    like=":func:`asnumpy.cumprod`",
    returns="The running products.")

nanmin = _define(
    "nanmin", like_max, functools.partial(_nan_extreme, "fmin"),
    summary="Minimum along the given axes, ignoring NaN (``fmin.reduce``).",
    like=":func:`asnumpy.min`",
    returns='The minimum; NaN, with a RuntimeWarning ("All-NaN slice encountered"), for '
            "slices that hold only NaN.")

nanmax = _define(
    "nanmax", like_max, functools.partial(_nan_extreme, "fmax"),
    summary="Maximum along the given axes, ignoring NaN (``fmax.reduce``).",
    like=":func:`asnumpy.max`",
    returns="The maximum; NaN, with a RuntimeWarning, for all-NaN slices.")

nanargmin = _define(
    "nanargmin", like_argmax, functools.partial(_nan_arg, argmin, np.inf),
    summary="Indices of the minimum values along an axis, ignoring NaN.",
    like=":func:`asnumpy.argmin`",
    returns="``intp`` indices.",
    raises=_ALL_NAN)

nanargmax = _define(
    "nanargmax", like_argmax, functools.partial(_nan_arg, argmax, -np.inf),
    summary="Indices of the maximum values along an axis, ignoring NaN.",
    like=":func:`asnumpy.argmax`",
    returns="``intp`` indices.",
    raises=_ALL_NAN)

nanmean = _define(
    "nanmean", like_mean, _nanmean,
    summary="Arithmetic mean along the given axes, ignoring NaN.",
    like=":func:`asnumpy.mean` (``dtype`` and ``out`` must be inexact for inexact input)",
    returns='The mean; NaN, with a RuntimeWarning ("Mean of empty slice"), for slices '
            "without a non-NaN value.")

nanvar = _define(
    "nanvar", like_var, _nanvar,
    summary="Variance along the given axes, ignoring NaN.",
    like=":func:`asnumpy.var`",
    returns="The variance of the non-NaN values; NaN, with a RuntimeWarning (\"Degrees of "
            'freedom <= 0 for slice."), where too few remain.')

nanstd = _define(
    "nanstd", like_var, square_root_of(_nanvar),
    summary="Standard deviation along the given axes, ignoring NaN.",
    like=":func:`asnumpy.var`",
    returns="The square root of :func:`nanvar`.")
