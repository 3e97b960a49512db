"""Selection by condition: where, select, copyto, argwhere and flatnonzero."""

from __future__ import annotations

import warnings

import numpy as np

from .._tracing import traceable
from .. import compiled
from .._launch import empty
from ..ndarray import ndarray
from ..reductions import count_nonzero, nonzero
from ._probes import (
    INTP,
    device_of,
    device_operand,
    launch_inplace,
    launch_into,
    named,
    standin,
    to_device,
    writable_standin,
    writable_target,
)

__all__ = ["argwhere", "copyto", "flatnonzero", "select", "where"]

_MISSING = object()


@named("where")
@traceable
def where(condition, x=_MISSING, y=_MISSING):
    """Elements of ``x`` where ``condition`` is true, else of ``y``; or ``nonzero(condition)``.

    Parameters
    ----------
    condition : array_like of bool
        Where true, take from ``x``, else from ``y``.
    x, y : array_like, optional
        Values to choose from, broadcast with ``condition``; give both or neither.

    Returns
    -------
    asnumpy.ndarray or tuple of asnumpy.ndarray
        The result, of ``numpy.result_type(x, y)`` (NumPy's promotion, Python
        scalars weak); with one argument, the tuple ``nonzero(condition)``.

    See Also
    --------
    numpy.where
    """
    if x is _MISSING and y is _MISSING:
        return nonzero(device_operand(condition))
    if x is _MISSING or y is _MISSING:
        raise ValueError("either both or neither of x and y should be given")
    device = device_of(condition, x, y)
    shape, dtype = _where_result(standin(condition), standin(x), standin(y))
    out = empty(shape, dtype, device, func="where")
    launch_into((out,), "where", tuple(to_device(v, device, "where") for v in (condition, x, y)),
                {}, "where")
    return out


def _where_result(*standins):
    """The shape and dtype of ``numpy.where`` of the host stand-ins, without
    computing it at full size (NumPy's errors when the shapes don't broadcast)."""
    try:
        shape = np.broadcast_shapes(*map(np.shape, standins))
    except ValueError:
        np.where(*standins)                   # raises NumPy's own broadcasting error
        raise
    tiny = [np.zeros((), v.dtype) if isinstance(v, np.ndarray) else v for v in standins]
    return shape, np.where(*tiny).dtype


@named("select")
def select(condlist, choicelist, default=0):
    """Elements from ``choicelist`` by the first true condition of ``condlist``.

    Parameters
    ----------
    condlist : list of array_like of bool
        Conditions, checked in order.
    choicelist : list of array_like
        Values, one per condition.
    default : scalar or array_like, optional
        Where no condition holds.

    Returns
    -------
    asnumpy.ndarray

    See Also
    --------
    numpy.select
    """
    device = device_of(condlist, choicelist, default)
    probe = np.select([standin(c) for c in condlist], [standin(c) for c in choicelist],
                      standin(default))
    out = empty(probe.shape, probe.dtype, device, func="select")
    launch_into((out,), "select", ([to_device(c, device, "select") for c in condlist],
                                   [to_device(c, device, "select") for c in choicelist],
                                   to_device(default, device, "select")), {}, "select")
    return out


@named("copyto")
def copyto(dst, src, casting="same_kind", where=True):
    """Copy ``src`` into ``dst`` (broadcast), casting by ``casting``, where ``where`` holds.

    Parameters
    ----------
    dst : asnumpy.ndarray
        Destination.
    src : array_like
        Values, broadcast to ``dst``'s shape.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        Which casts are allowed.
    where : array_like of bool, optional
        Where to copy.

    See Also
    --------
    numpy.copyto
    """
    writable_target(dst, "copyto")
    if _may_refuse(dst, src, casting, where):
        # NumPy's own checks and errors, on stand-ins, before anything is written (a probe
        # loops over every element: skipped for the calls that cannot fail)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # the device run warns (ComplexWarning)
            np.copyto(writable_standin(dst), standin(src), casting=casting,
                      where=standin(where))
    d = dst._device
    launch_inplace(d, "copyto", (dst, to_device(src, d, "copyto")),
                   {"casting": casting, "where": to_device(where, d, "copyto")}, "copyto")


def _may_refuse(dst, src, casting, where) -> bool:
    """Whether ``numpy.copyto(dst, src, casting=casting, where=where)`` could raise: False
    only for an array ``src`` whose dtype casts and whose shape broadcasts to ``dst``'s,
    without a mask (anything else is left to NumPy's probe)."""
    if where is not True or not isinstance(src, ndarray | np.ndarray):
        return True
    try:
        if not np.can_cast(src.dtype, dst.dtype, casting):
            return True
    except (TypeError, ValueError):           # no such casting: the probe says so, as NumPy
        return True
    if src.ndim > dst.ndim:
        return True
    return any(n != m and n != 1 for n, m in zip(reversed(src.shape), reversed(dst.shape)))


@named("argwhere")
def argwhere(a):
    """Indices of the non-zero elements, one row per element (shape ``(N, a.ndim)``).

    Parameters
    ----------
    a : array_like
        Input data.

    Returns
    -------
    asnumpy.ndarray
        ``intp`` indices.

    See Also
    --------
    numpy.argwhere
    """
    a = device_operand(a)
    count = int(count_nonzero(a).item())
    out = empty((count, a.ndim), INTP, a._device, func="argwhere")
    launch_into((out,), "argwhere", (a,), {}, "argwhere")
    return out


@named("flatnonzero")
def flatnonzero(a):
    """Flat indices of the non-zero elements of ``a`` (flattened).

    Parameters
    ----------
    a : array_like
        Input data.

    Returns
    -------
    asnumpy.ndarray
        1-d ``intp`` indices.

    See Also
    --------
    numpy.flatnonzero
    """
    a = device_operand(a)
    return nonzero(a.reshape(-1))[0]


# a small where(condition, x, y) (arrays, Python or NumPy scalars, no keywords) made by NumPy on
# the views (compiled.py)
where = compiled.numpy_call(np.where, where, "where", nargs=(3, 3), scalars=True)
