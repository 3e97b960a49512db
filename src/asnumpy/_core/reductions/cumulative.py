"""Running reductions: cumsum, cumprod, cumulative_sum, cumulative_prod.

All are ``add.accumulate`` / ``multiply.accumulate`` with NumPy's rules:
``cumsum`` flattens (C order) when ``axis`` is None, small integers
accumulate in the platform integer, and the array API's ``cumulative_*``
functions can prepend the identity (``include_initial``).
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._launch import empty
from .._layout import normalize_axis
from ..ufuncs import UFUNCS
from ._operands import device_operand
from ._docs import ONE_AXIS
from ._signatures import define, like_cumsum, like_cumulative_sum

__all__ = ["cumprod", "cumsum", "cumulative_prod", "cumulative_sum"]


def _accumulate(name, a, axis=None, dtype=None, out=None):
    """NumPy's ``ndarray.cumsum``/``cumprod``: flatten for axis None; 0-d acts as 1-d."""
    a = device_operand(a, out)
    if axis is None:
        a, axis = a.reshape(-1), 0
    else:
        axis = operator.index(axis)
        if a.ndim == 0:
            a = a.reshape(1)
    return UFUNCS[name].accumulate(a, axis, dtype, out)


_define = functools.partial(define, __name__)

cumsum = _define(
    "cumsum", like_cumsum, functools.partial(_accumulate, "add"),
    summary="Cumulative sum of the elements along an axis.",
    described={
        "axis": (ONE_AXIS, "Axis to accumulate along; None accumulates the flattened array."),
        "dtype": "Accumulator and result dtype (bool and small integers accumulate in the "
                 "platform integer by default).",
    },
    returns="The running sums, of ``a``'s shape (1-d for ``axis=None``).")

cumprod = _define(
    "cumprod", like_cumsum, functools.partial(_accumulate, "multiply"),
    summary="Cumulative product of the elements along an axis.",
    like=":func:`cumsum`",
    returns="The running products.")


def _cumulative(name, func, x, axis=None, dtype=None, out=None, include_initial=False):
    """NumPy's ``_cumulative_func`` (``func`` is the public name, for errors)."""
    ufunc = UFUNCS[name]
    x = device_operand(x, out)
    if x.ndim == 0:
        x = x.reshape(1)
    if axis is None:
        if x.ndim >= 2:
            raise ValueError("For arrays which have more than one dimension ``axis`` "
                             "argument is required.")
        axis = 0
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]                   # ufunc.accumulate accepts a 1-tuple
    if not include_initial:
        return ufunc.accumulate(x, axis=axis, dtype=dtype, out=out)
    axis = normalize_axis(axis, x.ndim, func)
    item = [slice(None)] * x.ndim
    if out is None:
        probe = np.ones(tuple(min(n, 1) for n in x.shape), x.dtype)
        result_dtype = ufunc._numpy.accumulate(probe, axis=axis, dtype=dtype).dtype
        shape = list(x.shape)
        shape[axis] += 1
        out = empty(tuple(shape), result_dtype, x._device, func=name)
    item[axis] = slice(1, None)
    ufunc.accumulate(x, axis=axis, dtype=dtype, out=out[tuple(item)])
    item[axis] = 0
    out[tuple(item)] = ufunc.identity
    return out


cumulative_sum = _define(
    "cumulative_sum", like_cumulative_sum,
    functools.partial(_cumulative, "add", "cumulative_sum"),
    summary="Cumulative sum along an axis (the array API's function).",
    described={
        "x": ("array_like", "Input data; 0-d input is treated as 1-d."),
        "axis": (ONE_AXIS, "Axis to accumulate along; required unless ``x`` is 1-d."),
        "include_initial": ("bool, optional",
                            ("Start with the identity (0): the result is one longer along "
                             "``axis``.")),
    },
    returns="The running sums.")

cumulative_prod = _define(
    "cumulative_prod", like_cumulative_sum,
    functools.partial(_cumulative, "multiply", "cumulative_prod"),
    summary="Cumulative product along an axis (the array API's function).",
    like=":func:`cumulative_sum`; the identity is 1",
    returns="The running products.")
