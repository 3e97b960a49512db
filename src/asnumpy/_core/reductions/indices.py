"""Index-valued reductions: argmin, argmax and nonzero.

These run NumPy's own function on the device data (the ``numpy_function``
kernel): the first-occurrence and NaN rules of argmin/argmax are NumPy's
exactly.  Shapes, dtypes and errors are settled beforehand on a small host
*probe* of the operand (each axis of length min(n, 1)), so no device data is
read to validate a call.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .. import compiled
from ..._errors import check_writeable
from .._launch import check_same_device, empty, launch
from .._tracing import traceable
from .._layout import shape_text
from ..ndarray import ndarray
from ._operands import INTP, NoValue, device_operand, named
from ._docs import ONE_AXIS
from ._signatures import define, like_argmax
from .basic import count_nonzero

__all__ = ["argmax", "argmin", "nonzero"]


def _probe(shape):
    return tuple(min(1, n) for n in shape)


def _arg_reduce(name, a, axis=None, out=None, keepdims=NoValue):
    """``numpy.<name>`` (argmin/argmax) on a device array, into ``out`` or a new intp array."""
    keepdims = False if keepdims is NoValue else bool(keepdims)
    a = device_operand(a, out)
    if axis is not None:
        axis = operator.index(axis)
    probe = np.zeros(_probe(a.shape), a.dtype)
    probe_result = getattr(np, name)(probe, axis=axis, keepdims=keepdims)
    if axis is None or a.ndim == 0:
        shape = (1,) * a.ndim if keepdims else ()
    else:
        ax = axis % a.ndim
        shape = tuple(1 if i == ax else n for i, n in enumerate(a.shape)
                      if keepdims or i != ax)
    if out is None:
        out = empty(shape, INTP, a._device, func=name)
    else:
        if not isinstance(out, ndarray):
            raise TypeError(f"out must be an asnumpy.ndarray, got {type(out).__name__}")
        check_same_device(name, a._device, out)
        if out.shape != shape:
            raise ValueError(f"output array does not match result of np.{name} (shape "
                             f"{shape_text(out.shape)}, expected {shape_text(shape)}).")
        # NumPy's order: the shape, then the cast into out's dtype (the probe), then
        # writeability
        getattr(np, name)(probe, axis=axis, keepdims=keepdims,
                          out=np.empty(np.shape(probe_result), out.dtype))
        check_writeable(out, name)
    launch("numpy_function", (out,), name, (a,), {"axis": axis, "keepdims": keepdims},
           func=name)
    return out


_define = functools.partial(define, __name__)

argmax = traceable(_define(
    "argmax", like_argmax, functools.partial(_arg_reduce, "argmax"),
    summary="Indices of the maximum values along an axis (the first one; NaN counts as "
            "maximal).",
    described={
        "axis": (ONE_AXIS, "Axis to search; None searches the flattened array."),
        "out": "``intp`` array of the result's shape to write into.",
        "keepdims": "Keep the searched axis with length one.",
    },
    returns="``intp`` indices; 0-d for ``axis=None`` (NumPy returns a scalar).",
    raises=[("ValueError",
             'For an empty search ("attempt to get argmax of an empty sequence").')]))

argmin = traceable(_define(
    "argmin", like_argmax, functools.partial(_arg_reduce, "argmin"),
    summary="Indices of the minimum values along an axis (the first one; NaN counts as "
            "minimal).",
    like=":func:`argmax`",
    returns="``intp`` indices; 0-d for ``axis=None``."))


@named("nonzero")
def nonzero(a):
    """Indices of the non-zero elements, one ``intp`` array per axis (C order).

    The count is computed first (and brought to the host), then the index
    arrays are allocated and filled on the device.

    Parameters
    ----------
    a : array_like
        Input data, at least 1-d.

    Returns
    -------
    tuple of asnumpy.ndarray
        ``a.ndim`` arrays of indices.

    Raises
    ------
    ValueError
        For a 0-d array, as NumPy 2.

    See Also
    --------
    numpy.nonzero
    """
    a = device_operand(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead. If the context of this "
                         "error is of the form `arr[nonzero(cond)]`, just use `arr[cond]`.")
    count = count_nonzero(a).item()
    outs = tuple(empty((count,), INTP, a._device, func="nonzero") for _ in range(a.ndim))
    if count:
        launch("numpy_function", outs, "nonzero", (a,), {}, func="nonzero")
    return outs


# small plain calls (one array, no keywords) made by NumPy on the view (compiled.py):
# the array's own method, which numpy.argmax calls (without its Python wrapper)
argmax = compiled.numpy_call(np.ndarray.argmax, argmax, "argmax", reduces=True)
argmin = compiled.numpy_call(np.ndarray.argmin, argmin, "argmin", reduces=True)
