"""Applying functions over parts of an array: apply_along_axis, apply_over_axes, piecewise.

The user's functions receive asnumpy arrays (views of the input where NumPy
passes views) and may return asnumpy arrays, NumPy arrays or scalars; the
results are assembled on the device.
"""

from __future__ import annotations

import collections.abc

import numpy as np

from .._launch import launch
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import (
    as_array,
    axis_error,
    device_of,
    empty,
    normalize_axis,
    to_device,
)

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise"]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """Apply a function to 1-D slices along the given axis, as ``numpy.apply_along_axis``.

    Parameters
    ----------
    func1d : callable
        ``func1d(a, *args, **kwargs)`` where ``a`` is a 1-D slice of ``arr``
        along ``axis``.  Here ``a`` is a 1-D *asnumpy* view (NumPy passes a
        NumPy view); the function may return a scalar or an array of any
        shape (the same for every slice), as an asnumpy or NumPy value.
    axis : int
        Axis along which ``arr`` is sliced.
    arr : array_like
        Input array.
    *args, **kwargs
        Further arguments to ``func1d``.

    Returns
    -------
    asnumpy.ndarray
        The results, with ``axis`` replaced by the result's dimensions (a
        view of the assembled array, as in NumPy), of the first result's dtype.

    Raises
    ------
    ValueError
        When an iteration dimension is empty.
    AxisError
        For an axis out of range.
    """
    arr = as_array(arr, "apply_along_axis")
    nd = arr.ndim
    axis = normalize_axis(axis, nd, "apply_along_axis")
    order = [n for n in range(nd) if n != axis] + [axis]
    view = arr.transpose(order)
    indices = iter(np.ndindex(view.shape[:-1]))
    try:
        first = next(indices)
    except StopIteration:
        raise ValueError("asnumpy.apply_along_axis: Cannot apply_along_axis when any "
                         "iteration dimensions are 0") from None
    result = _as_result(func1d(view[first + (Ellipsis,)], *args, **kwargs), arr._device)
    buff = empty(view.shape[:-1] + result.shape, result.dtype, arr._device,
                 func="apply_along_axis")
    buff[first + (Ellipsis,)] = result
    for index in indices:
        buff[index + (Ellipsis,)] = _as_result(func1d(view[index + (Ellipsis,)], *args,
                                                      **kwargs), arr._device)
    dims = list(range(buff.ndim))
    permute = dims[:axis] + dims[buff.ndim - result.ndim:] + dims[axis:buff.ndim - result.ndim]
    return buff.transpose(permute)


def _as_result(value, device):
    """A function's result as a device array (NumPy's ``asanyarray`` dtype rules)."""
    if isinstance(value, ndarray):
        return value
    return to_device(np.asarray(value), device, "apply_along_axis")


def apply_over_axes(func, a, axes):
    """Apply a function repeatedly over several axes, as ``numpy.apply_over_axes``.

    Parameters
    ----------
    func : callable
        ``func(a, axis)`` returning an array of ``a``'s dimensions or one
        fewer (the axis is then re-inserted with length one), e.g.
        ``asnumpy.sum``.
    a : array_like
        Input array.
    axes : int or sequence of ints
        Axes over which ``func`` is applied, in order.

    Returns
    -------
    asnumpy.ndarray
        ``a``'s number of dimensions.

    Raises
    ------
    ValueError
        When ``func`` returns an array of the wrong number of dimensions.
    """
    val = as_array(a, "apply_over_axes")
    n = val.ndim
    if np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = n + axis
        result = func(val, axis)
        if not isinstance(result, ndarray):
            result = to_device(np.asarray(result), val._device, "apply_over_axes")
        if result.ndim == val.ndim:
            val = result
            continue
        if not -result.ndim - 1 <= axis <= result.ndim:
            raise axis_error(axis, result.ndim + 1, "apply_over_axes")
        axis %= result.ndim + 1
        result = result.reshape(result.shape[:axis] + (1,) + result.shape[axis:])
        if result.ndim != val.ndim:
            raise ValueError("asnumpy.apply_over_axes: function is not returning an array of "
                             "the correct shape")
        val = result
    return val


def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluate a piecewise-defined function, as ``numpy.piecewise``.

    Parameters
    ----------
    x : array_like
        The input domain.
    condlist : list of bool arrays or bool scalars
        Each marks where the matching entry of ``funclist`` applies (of
        ``x``'s shape); a single array stands for a one-element list.
    funclist : list of callables or scalars
        ``f(x[cond], *args, **kw)`` gives the values where ``cond`` holds
        (``x[cond]`` is a 1-D asnumpy array); a scalar is a constant.  One
        more function than conditions is the *otherwise* case.
    *args, **kw
        Further arguments to the functions.

    Returns
    -------
    asnumpy.ndarray
        ``x``'s shape and dtype (values are cast to it); zero where no
        condition holds.  Later conditions win where several hold.

    Raises
    ------
    ValueError
        When the number of functions is neither ``len(condlist)`` nor one more.
    """
    x = as_array(x, "piecewise", device_of(x, condlist))
    device = x._device
    n2 = len(funclist)
    if isinstance(condlist, ndarray):
        if condlist.ndim <= 1 and not (condlist.ndim == 1 and x.ndim == 0):
            condlist = [condlist]
        else:
            condlist = [condlist[i] for i in range(len(condlist))]
    elif np.isscalar(condlist) or (
            not isinstance(condlist[0], (list, np.ndarray, ndarray)) and x.ndim != 0):
        condlist = [condlist]
    conds = [_as_bool(c, device) for c in condlist]
    shapes = {c.shape for c in conds}
    if len(shapes) > 1:
        raise ValueError("asnumpy.piecewise: setting an array element with a sequence. The "
                         "requested array has an inhomogeneous shape after 1 dimensions.")
    n = len(conds)
    if n == n2 - 1:
        if n:
            condelse = conds[0]
            for c in conds[1:]:
                condelse = UFUNCS["logical_or"](condelse, c)
            condelse = UFUNCS["logical_not"](condelse)
        else:
            condelse = to_device(np.ones(x.shape if x.ndim else (), bool), device, "piecewise")
        conds.append(condelse)
    elif n != n2:
        raise ValueError(f"asnumpy.piecewise: with {n} condition(s), either {n} or {n + 1} "
                         "functions are expected")
    y = empty(x.shape, x.dtype, device, func="piecewise")
    y.fill(0)
    for cond, func in zip(conds, funclist):
        if cond.shape != x.shape:
            raise IndexError(f"asnumpy.piecewise: boolean index did not match indexed array; "
                             f"shape of array is {x.shape} but shape of boolean index is "
                             f"{cond.shape}")
        if not isinstance(func, collections.abc.Callable):
            _masked_fill(y, func, cond)
            continue
        count = int(UFUNCS["add"].reduce(cond, axis=None, dtype=np.intp).item())
        if count == 0:
            continue
        vals = empty((count,), x.dtype, device, func="piecewise")
        launch("numpy_function", (vals,), "extract", (cond, x), {}, func="piecewise")
        _masked_assign(y, func(vals, *args, **kw), cond, count)
    return y


def _as_bool(cond, device):
    """One condition as a boolean device array (NumPy's ``asarray(c, dtype=bool)``)."""
    if isinstance(cond, ndarray):
        return cond if cond.dtype == np.bool_ else UFUNCS["not_equal"](cond, 0)
    return to_device(np.asarray(cond, dtype=bool), device, "piecewise")


def _masked_fill(y, value, cond):
    """``y[cond] = value`` for a scalar ``value`` (NumPy's conversion on assignment)."""
    scalar = np.empty((), y.dtype)
    scalar[()] = value
    scalar = scalar[()]
    UFUNCS["maximum"](scalar, scalar, out=y, where=cond)


def _masked_assign(y, values, cond, count):
    """``y[cond] = values``: ``values`` is one value or ``count`` of them, in C order."""
    if not isinstance(values, ndarray):
        host = np.asarray(values)
        if host.size == 1:
            _masked_fill(y, host.reshape(()), cond)
            return
        values = to_device(host, y._device, "piecewise")
    if values.size == 1:
        _masked_fill(y, values.reshape(()).item(), cond)
        return
    if values.shape not in ((count,), (1,)):
        raise ValueError(f"asnumpy.piecewise: NumPy boolean array indexing assignment cannot "
                         f"assign {values.size} input values to the {count} output values "
                         "where the mask is true")
    values = values.astype(y.dtype, copy=False)
    # spread the values to the full shape: position i of cond takes values[cumsum(cond)[i] - 1]
    ranks = UFUNCS["add"].accumulate(cond.reshape(-1), dtype=np.intp)
    ranks = UFUNCS["subtract"](ranks, 1)
    spread = empty(ranks.shape, y.dtype, y._device, func="piecewise")
    launch("numpy_function", (spread,), "take", (values, ranks), {"mode": "clip"},
           func="piecewise")
    spread = spread.reshape(y.shape)
    UFUNCS["maximum"](spread, spread, out=y, where=cond)
