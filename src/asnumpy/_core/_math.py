"""Elementwise arithmetic and sums: the first entries of the op catalog.

Each universal function is one table entry naming the NumPy ufunc that
specifies it.  Type resolution is NumPy's own (``ufunc.resolve_dtypes``,
NEP 50: Python scalars are weak), so result dtypes and errors match NumPy's.
The front end broadcasts, allocates and launches the back end's ``ufunc`` or
``reduce`` kernel; the module functions and ndarray methods are generated
from the tables.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from ..runtime.device import get_device
from ._launch import check_same_device, empty, launch
from ._layout import normalize_axis
from .ndarray import ndarray

__all__ = ["add", "multiply", "sum"]

# name -> the NumPy ufunc whose loops and type rules this entry follows
BINARY_UFUNCS = {
    "add": np.add,
    "multiply": np.multiply,
}
# reduction name -> (ufunc it reduces with, NumPy's default-accumulator rule)
REDUCTIONS = {
    "sum": np.add,
}

_WEAK_SCALARS = (int, float, complex)


def _operand(value, device, func):
    """(operand, dtype-for-resolution): device arrays stay, host data moves."""
    if isinstance(value, ndarray):
        check_same_device(func, device, value)
        return value, value.dtype
    if type(value) in _WEAK_SCALARS:
        return value, type(value)
    from .transfer import asarray

    array = asarray(value, device=device)
    return array, array.dtype


def _elementwise(numpy_ufunc, inputs, out, dtype, func):
    devices = [x.device for x in inputs if isinstance(x, ndarray)]
    device = devices[0] if devices else (out.device if isinstance(out, ndarray) else get_device())
    operands, dtypes = zip(*(_operand(x, device, func) for x in inputs))
    if dtype is None:
        loop = numpy_ufunc.resolve_dtypes(dtypes + (None,))
    else:
        signature = (None,) * len(inputs) + (_dtypes.to_dtype(dtype, func),)
        loop = numpy_ufunc.resolve_dtypes(dtypes + (None,), signature=signature)
    shape = np.broadcast_shapes(*(x.shape for x in operands if isinstance(x, ndarray)))
    if out is None:
        out = empty(shape, loop[-1], device, func=func)
    else:
        out = _check_out(out, shape, loop[-1], numpy_ufunc, device, func)
    # Weak Python scalars become 0-d host values of their loop dtype; NumPy's
    # conversion raises OverflowError for out-of-range integers, as ufuncs do.
    operands = [np.asarray(x, dtype=loop[i]) if type(x) in _WEAK_SCALARS else x
                for i, x in enumerate(operands)]
    launch("ufunc", out, numpy_ufunc.__name__, loop, *operands, func=func)
    return out


def _check_out(out, shape, result_dtype, numpy_ufunc, device, func):
    """``out`` (or the one array of an ``out`` tuple), checked against the result."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"asnumpy.{func}: out must be a tuple of 1 array, got {len(out)}")
        out = out[0]
    if not isinstance(out, ndarray):
        raise TypeError(f"asnumpy.{func}: out must be an asnumpy.ndarray, got {type(out).__name__}")
    check_same_device(func, device, out)
    if out.shape != tuple(shape):
        raise ValueError(
            f"asnumpy.{func}: non-broadcastable output operand with shape {out.shape} "
            f"doesn't match the broadcast shape {tuple(shape)}"
        )
    if not np.can_cast(result_dtype, out.dtype, casting="same_kind"):
        raise TypeError(
            f"Cannot cast ufunc '{numpy_ufunc.__name__}' output from {result_dtype!r} to "
            f"{out.dtype!r} with casting rule 'same_kind'"
        )
    if not out.flags.writeable:
        raise ValueError("output array is read-only")
    return out


def _make_binary(name, numpy_ufunc):
    def binary(x1, x2, /, out=None, *, dtype=None):
        return _elementwise(numpy_ufunc, (x1, x2), out, dtype, name)

    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = f"""{name.capitalize()} arguments elementwise, as ``numpy.{name}``.

    Parameters
    ----------
    x1, x2 : ndarray or scalar
        Input arrays (broadcast together) or Python scalars (weak, NEP 50).
        Host arrays are moved to the device of the asnumpy operands.
    out : ndarray, optional
        Array of the broadcast shape to write into.
    dtype : data-type, optional
        The loop's output dtype (inputs are cast to suit).

    Returns
    -------
    ndarray
    """
    return binary


def _reduced_axes(axis, ndim, func):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    normalized = tuple(normalize_axis(a, ndim, func) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"asnumpy.{func}: duplicate value in 'axis'")
    return normalized


def _accumulator_dtype(dtype: np.dtype) -> np.dtype:
    """NumPy's default for sums: small integers and bools accumulate in intp."""
    if dtype.kind in "bi" and dtype.itemsize < np.dtype(np.intp).itemsize:
        return np.dtype(np.intp)
    if dtype.kind == "u" and dtype.itemsize < np.dtype(np.uintp).itemsize:
        return np.dtype(np.uintp)
    return dtype


def _make_reduction(name, numpy_ufunc):
    def reduction(a, axis=None, dtype=None, out=None, keepdims=False):
        if not isinstance(a, ndarray):
            from .transfer import asarray

            a = asarray(a)
        axes = _reduced_axes(axis, a.ndim, name)
        dtype = _accumulator_dtype(a.dtype) if dtype is None else _dtypes.to_dtype(dtype, name)
        shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape) if keepdims or i not in axes)
        if out is None:
            out = empty(shape, dtype, a.device, func=name)
        elif not isinstance(out, ndarray) or out.shape != shape:
            raise ValueError(f"asnumpy.{name}: out must be an asnumpy array of shape {shape}")
        launch("reduce", out, numpy_ufunc.__name__, a, axes, dtype, keepdims, func=name)
        return out

    reduction.__name__ = reduction.__qualname__ = name
    reduction.__doc__ = f"""{name.capitalize()} of array elements over the given axes, as ``numpy.{name}``.

    Parameters
    ----------
    a : ndarray or array_like
        Input array.
    axis : None, int or tuple of int, optional
        Axes to reduce over; all of them by default.
    dtype : data-type, optional
        Accumulator and result dtype (NumPy's default: small integers and
        bools accumulate in the platform integer).
    out : ndarray, optional
        Array of the result's shape to write into.
    keepdims : bool, optional
        Keep reduced axes as length-1 dimensions.

    Returns
    -------
    ndarray
        A 0-d array when every axis is reduced.
    """
    return reduction


_functions = {name: _make_binary(name, ufunc) for name, ufunc in BINARY_UFUNCS.items()}
_functions.update({name: _make_reduction(name, ufunc) for name, ufunc in REDUCTIONS.items()})
add, multiply, sum = (_functions[name] for name in __all__)

# Methods generated from the same tables: a.sum(...) is asnumpy.sum(a, ...).
for _name in REDUCTIONS:
    setattr(ndarray, _name, _functions[_name])
del _name
