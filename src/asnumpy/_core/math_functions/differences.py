"""Differences and integrals along an axis: diff, ediff1d, gradient, trapezoid, unwrap.

All are views (slices) of the input combined by ufuncs, as NumPy computes them.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._launch import empty
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import (
    all_true,
    concatenate,
    copyto,
    device_of,
    empty_like,
    normalize_axis,
    normalize_axis_tuple,
    to_device,
)

__all__ = ["diff", "ediff1d", "gradient", "trapezoid", "unwrap"]

_NO_VALUE = np._NoValue


def _along(ndim, axis, item):
    """An index selecting ``item`` on ``axis`` and everything on the other axes."""
    index = [slice(None)] * ndim
    index[axis] = item
    return tuple(index)


def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    """The n-th discrete difference along an axis, as ``numpy.diff``.

    Parameters
    ----------
    a : array_like
        Input (at least one dimension).
    n : int, optional
        Number of times values are differenced (0 returns ``a``).
    axis : int, optional
        The axis (default the last).
    prepend, append : array_like, optional
        Values joined to ``a`` along ``axis`` first (scalars are broadcast).

    Returns
    -------
    asnumpy.ndarray
        ``a[1:] - a[:-1]`` applied ``n`` times (``!=`` for bools); the axis
        shrinks by ``n``.
    """
    if n == 0:
        return a if isinstance(a, ndarray) else to_device(a, device_of(a), "diff")
    if n < 0:
        raise ValueError(f"asnumpy.diff: order must be non-negative but got {n!r}")
    device = device_of(a, prepend, append)
    a = to_device(a, device, "diff")
    if a.ndim == 0:
        raise ValueError("asnumpy.diff: diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, a.ndim, "diff")
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            parts.append((a, a.shape))
        elif extra is not _NO_VALUE:
            extra = to_device(extra, device, "diff")
            shape = extra.shape
            if extra.ndim == 0:
                shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
            parts.append((extra, shape))
    if len(parts) > 1:
        a = concatenate(parts, axis, "diff")
    later, earlier = _along(a.ndim, axis, slice(1, None)), _along(a.ndim, axis, slice(None, -1))
    op = UFUNCS["not_equal"] if a.dtype == np.bool_ else UFUNCS["subtract"]
    for _ in range(operator.index(n)):
        a = op(a[later], a[earlier])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array, as ``numpy.ediff1d``.

    Parameters
    ----------
    ary : array_like
        Input (flattened).
    to_end, to_begin : array_like, optional
        Values appended / prepended to the differences; they must cast to
        ``ary``'s dtype under the 'same_kind' rule (TypeError otherwise).

    Returns
    -------
    asnumpy.ndarray
        1-D, of ``ary``'s dtype when ``to_end`` or ``to_begin`` is given.
    """
    device = device_of(ary, to_end, to_begin)
    ary = to_device(ary, device, "ediff1d").reshape(-1)
    subtract = UFUNCS["subtract"]
    if to_begin is None and to_end is None:
        return subtract(ary[1:], ary[:-1])
    extras = []
    for name, value in (("to_begin", to_begin), ("to_end", to_end)):
        if value is None:
            extras.append(None)
            continue
        value = to_device(value, device, "ediff1d")
        if not np.can_cast(value.dtype, ary.dtype, casting="same_kind"):
            raise TypeError(f"asnumpy.ediff1d: dtype of `{name}` must be compatible with "
                            "input `ary` under the `same_kind` rule.")
        extras.append(value.reshape(-1))
    begin, end = extras
    n_begin = 0 if begin is None else begin.size
    n_end = 0 if end is None else end.size
    n_diff = max(ary.size - 1, 0)
    result = empty((n_begin + n_diff + n_end,), ary.dtype, device, func="ediff1d")
    if n_begin:
        result[:n_begin] = begin
    if n_end:
        result[n_begin + n_diff:] = end
    subtract(ary[1:], ary[:-1], out=result[n_begin:n_begin + n_diff])
    return result


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of an N-dimensional array, as ``numpy.gradient``.

    Second-order central differences inside, first- or second-order
    one-sided differences at the boundaries.

    Parameters
    ----------
    f : array_like
        Samples of a function.
    *varargs : scalars or 1-D arrays, optional
        Spacing: none (1 everywhere), one scalar for every axis, or one
        scalar or coordinate array per axis (coordinates of length
        ``f.shape[axis]``; uneven spacing is handled).
    axis : None, int or tuple of ints, optional
        Axes to differentiate along (default all).
    edge_order : {1, 2}, optional
        Accuracy of the boundary differences.

    Returns
    -------
    asnumpy.ndarray or tuple of asnumpy.ndarray
        One array per axis (a tuple when there are several); integers give
        float64.
    """
    device = device_of(f, *varargs)
    f = to_device(f, device, "gradient")
    ndim = f.ndim
    axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim, "gradient")
    spacing = _spacings(f, varargs, axes, device)
    if edge_order > 2:
        raise ValueError("asnumpy.gradient: 'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = f.astype(np.float64)
        otype = np.dtype(np.float64)
    results = []
    for ax, dx in zip(axes, spacing):
        if f.shape[ax] < edge_order + 1:
            raise ValueError(
                "asnumpy.gradient: Shape of array too small to calculate a numerical gradient, "
                "at least (edge_order + 1) elements are required.")
        results.append(_gradient_axis(f, ax, dx, edge_order, otype))
    return results[0] if len(axes) == 1 else tuple(results)


def _spacings(f, varargs, axes, device):
    """The spacing per axis: a Python/NumPy scalar, a 0-d device array or 1-D differences."""
    count = len(varargs)
    if count == 0:
        return [1.0] * len(axes)
    if count == 1 and _ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if count != len(axes):
        raise TypeError("asnumpy.gradient: invalid number of arguments")
    spacing = list(varargs)
    for index, distances in enumerate(spacing):
        if _ndim(distances) == 0:
            continue
        distances = to_device(distances, device, "gradient")
        if distances.ndim != 1:
            raise ValueError("asnumpy.gradient: distances must be either scalars or 1d")
        if len(distances) != f.shape[axes[index]]:
            raise ValueError("asnumpy.gradient: when 1d, distances must match the length of "
                             "the corresponding dimension")
        if distances.dtype.kind in "iu":
            distances = distances.astype(np.float64)
        steps = diff(distances)
        if all_true(UFUNCS["equal"](steps, steps[0])):
            steps = steps[0]
        spacing[index] = steps
    return spacing


def _ndim(value):
    return value.ndim if isinstance(value, ndarray) else np.ndim(value)


def _gradient_axis(f, ax, dx, edge_order, otype):
    """``numpy.gradient`` along one axis, with spacing ``dx``."""
    ndim = f.ndim
    out = empty_like(f, otype)
    uniform = not isinstance(dx, ndarray) or dx.ndim == 0

    def at(item):
        return _along(ndim, ax, item)

    if uniform:
        out[at(slice(1, -1))] = (f[at(slice(2, None))] - f[at(slice(None, -2))]) / (2.0 * dx)
    else:
        dx1, dx2 = dx[0:-1], dx[1:]
        shape = tuple(-1 if n == ax else 1 for n in range(ndim))
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        out[at(slice(1, -1))] = (a * f[at(slice(None, -2))] + b * f[at(slice(1, -1))]
                                 + c * f[at(slice(2, None))])
    if edge_order == 1:
        first = dx if uniform else dx[0]
        out[at(0)] = (f[at(1)] - f[at(0)]) / first
        last = dx if uniform else dx[-1]
        out[at(-1)] = (f[at(-1)] - f[at(-2)]) / last
        return out
    if uniform:
        a, b, c = -1.5 / dx, 2.0 / dx, -0.5 / dx
    else:
        dx1, dx2 = dx[0], dx[1]
        a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = -dx1 / (dx2 * (dx1 + dx2))
    out[at(0)] = a * f[at(0)] + b * f[at(1)] + c * f[at(2)]
    if uniform:
        a, b, c = 0.5 / dx, -2.0 / dx, 1.5 / dx
    else:
        dx1, dx2 = dx[-2], dx[-1]
        a = dx2 / (dx1 * (dx1 + dx2))
        b = -(dx2 + dx1) / (dx1 * dx2)
        c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
    out[at(-1)] = a * f[at(-3)] + b * f[at(-2)] + c * f[at(-1)]
    return out


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate along an axis with the composite trapezoidal rule, as ``numpy.trapezoid``.

    Parameters
    ----------
    y : array_like
        Values to integrate.
    x : array_like, optional
        Sample points (1-D along ``axis``, or the shape of ``y``); default
        evenly spaced by ``dx``.
    dx : scalar, optional
        Spacing when ``x`` is None.
    axis : int, optional
        The axis to integrate along.

    Returns
    -------
    asnumpy.ndarray
        ``y`` integrated along ``axis`` (0-d for 1-D input).  An axis out of
        range raises IndexError, as in NumPy.
    """
    device = device_of(y, x, dx)
    y = to_device(y, device, "trapezoid")
    if x is None:
        d = dx
    else:
        x = to_device(x, device, "trapezoid")
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(tuple(shape))
        else:
            d = diff(x, axis=axis)
    later, earlier = [slice(None)] * y.ndim, [slice(None)] * y.ndim
    later[axis], earlier[axis] = slice(1, None), slice(None, -1)
    terms = d * (y[tuple(later)] + y[tuple(earlier)]) / 2.0
    return UFUNCS["add"].reduce(terms, axis=axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """Unwrap by taking the complement of large deltas with respect to the period,
    as ``numpy.unwrap``.

    Parameters
    ----------
    p : array_like
        Input.
    discont : float, optional
        Maximum discontinuity between values (default ``period/2``).
    axis : int, optional
        The axis to unwrap along.
    period : float, optional
        Size of the range over which the input wraps (default ``2 pi``).

    Returns
    -------
    asnumpy.ndarray
        In ``result_type(diff(p), period)``; integer periods keep integer arithmetic.
    """
    device = device_of(p, period)
    p = to_device(p, device, "unwrap")
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    later = _along(p.ndim, normalize_axis(axis, p.ndim, "unwrap"), slice(1, None))
    period_type = period.dtype if isinstance(period, ndarray) else period
    dtype = np.result_type(dd.dtype, period_type)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high = period / 2
        ambiguous = True
    low = -high
    ddmod = UFUNCS["remainder"](dd - low, period) + low
    if ambiguous:
        mask = UFUNCS["logical_and"](UFUNCS["equal"](ddmod, low), UFUNCS["greater"](dd, 0))
        _copy_value(ddmod, high, mask)
    correction = ddmod - dd
    _copy_value(correction, 0, UFUNCS["less"](UFUNCS["absolute"](dd), discont))
    up = p.astype(dtype)
    up[later] = p[later] + UFUNCS["add"].accumulate(correction, axis=axis)
    return up


def _copy_value(dst, value, mask):
    if isinstance(value, ndarray):
        UFUNCS["maximum"](value, value, out=dst, where=mask)
    else:
        copyto(dst, value, mask, "unwrap")
