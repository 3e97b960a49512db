"""Plain reductions: sum, prod, min, max, all, any, ptp, count_nonzero.

Each is one ufunc reduction (``add.reduce``, ``maximum.reduce`` ...) with
NumPy's defaults, so result dtypes (small integers sum in the platform
integer), errors (empty ``max`` without ``initial``) and the handling of
``out``, ``initial`` and ``where`` are the ufunc layer's, which are NumPy's.
"""

from __future__ import annotations

import functools

import numpy as np

from ..ufuncs import UFUNCS
from ._operands import INTP, NoValue, device_operand, named, scalar_axis
from ._signatures import define, like_all, like_max, like_sum

__all__ = ["all", "amax", "amin", "any", "count_nonzero", "max", "min", "prod", "ptp", "sum"]

_BOOL = np.dtype(bool)


def _reduce(ufunc, a, axis=None, dtype=None, out=None, keepdims=NoValue, initial=NoValue,
            where=NoValue, *, default_dtype=None):
    """``UFUNCS[ufunc].reduce`` with NumPy's function defaults for unpassed arguments."""
    if (axis is None and dtype is None and out is None and keepdims is NoValue
            and initial is NoValue and where is NoValue and default_dtype is None):
        result = UFUNCS[ufunc]._reduce_lane(a)          # ufuncs/fast.py
        if result is not None:
            return result
    a = device_operand(a, out)
    return UFUNCS[ufunc].reduce(
        a, axis=scalar_axis(a, axis), dtype=default_dtype if dtype is None else dtype,
        out=out, keepdims=False if keepdims is NoValue else keepdims, initial=initial,
        where=True if where is NoValue else where)


_define = functools.partial(define, __name__)
_all = functools.partial(_reduce, "logical_and", default_dtype=_BOOL)
_any = functools.partial(_reduce, "logical_or", default_dtype=_BOOL)

sum = _define(
    "sum", like_sum, functools.partial(_reduce, "add"),
    summary="Sum of array elements over the given axes.",
    described={
        "a": "Elements to sum (host data is moved to the current device).",
        "axis": "Axes to sum over; None sums all elements.",
        "dtype": "Accumulator and result dtype.  By default that of ``a``, except that bool "
                 "and integers narrower than the platform integer sum in it.",
        "initial": "Starting value of the sum.",
    },
    returns="The sum; 0-d when all axes are reduced (NumPy returns a scalar).")

prod = _define(
    "prod", like_sum, functools.partial(_reduce, "multiply"),
    summary="Product of array elements over the given axes.",
    like=":func:`sum`; the empty product is 1",
    returns="The product; 0-d when all axes are reduced.")

max = _define(
    "max", like_max, functools.partial(_reduce, "maximum"),
    summary="Maximum of an array or maximum along axes (NaN propagates).",
    described={
        "initial": "Minimum value of an output element; required for empty reductions.",
        "where": "Elements to compare (``initial`` is then required).",
    },
    returns="The maximum, of ``a``'s dtype.",
    raises=[("ValueError", "For an empty reduction without ``initial``.")])

min = _define(
    "min", like_max, functools.partial(_reduce, "minimum"),
    summary="Minimum of an array or minimum along axes (NaN propagates).",
    like=":func:`max`",
    returns="The minimum, of ``a``'s dtype.")

amax = max
amin = min

all = _define(
    "all", like_all, _all,
    summary="Whether all elements along the given axes are true.",
    described={
        "a": "Input data (NaN counts as true).",
        "out": "Array to write into (its dtype is kept: True is 1).",
        "where": "Elements to test.",
    },
    returns="Boolean result; 0-d when all axes are reduced.")

any = _define(
    "any", like_all, _any,
    summary="Whether any element along the given axes is true.",
    like=":func:`all`",
    returns="Boolean result; 0-d when all axes are reduced.")

# ``ndarray.all``/``any`` also take NumPy's (undocumented) ``dtype``; their
# arguments are checked by the method (see .ndarray_methods).
all_method = named("all")(_all)
any_method = named("any")(_any)


@named("ptp")
def ptp(a, axis=None, out=None, keepdims=NoValue):
    """Range of values (maximum - minimum) along the given axes.

    Computed in ``a``'s dtype, as NumPy does (integer ranges wrap around).

    Parameters
    ----------
    a : array_like
        Input data.
    axis : None, int or tuple of int, optional
        Axes to reduce; None reduces all.
    out : asnumpy.ndarray, optional
        Array of the result's shape to write into.
    keepdims : bool, optional
        Keep the reduced axes with length one.

    Returns
    -------
    asnumpy.ndarray
        The range; 0-d when all axes are reduced.

    See Also
    --------
    numpy.ptp
    """
    a = device_operand(a, out)
    keepdims = False if keepdims is NoValue else keepdims
    axis = scalar_axis(a, axis)
    high = UFUNCS["maximum"].reduce(a, axis, None, out, keepdims)
    low = UFUNCS["minimum"].reduce(a, axis, None, None, keepdims)
    return UFUNCS["subtract"](high, low, out=out)


@named("count_nonzero")
def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of non-zero values along the given axes.

    Parameters
    ----------
    a : array_like
        Input data (NaN is non-zero).
    axis : None, int or tuple of int, optional
        Axes to count along; None counts all.
    keepdims : bool, optional
        Keep the counted axes with length one.

    Returns
    -------
    asnumpy.ndarray
        ``intp`` counts; 0-d when all axes are counted (NumPy returns an int).

    See Also
    --------
    numpy.count_nonzero
    """
    a = device_operand(a)
    nonzero = a if a.dtype == _BOOL else a.astype(_BOOL)
    return UFUNCS["add"].reduce(nonzero, axis=scalar_axis(a, axis), dtype=INTP, keepdims=keepdims)
