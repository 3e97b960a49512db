"""ufunc.reduce, accumulate, reduceat, outer and at on device arrays.

Arguments are validated by running NumPy's own method on a *probe*: an
array of the operand's dtype whose every axis has length min(n, 1).  That
costs a few microseconds, touches no device data, and gives NumPy's result
dtype and NumPy's exact errors (bad axes, empty reductions without an
identity, non-reorderable multi-axis reductions, impossible casts).  The
work itself is a back-end kernel writing into a pool-allocated output.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..._dtypes import is_supported
from ..._errors import check_writeable
from .._launch import check_same_device, empty, launch
from .._layout import normalize_axis, shape_text
from ..ndarray import ndarray

__all__ = ["accumulate", "at", "outer", "reduce", "reduceat"]


def _device_array(value, func, device=None):
    if isinstance(value, ndarray):
        if device is not None:
            check_same_device(func, device, value)
        return value
    from ..transfer import asarray

    return asarray(value, device=device)


def _probe(shape):
    return tuple(min(n, 1) for n in shape)


@contextlib.contextmanager
def _probing(func):
    """Run a probe: floating-point flags ignored (it runs on ones, not the data), and
    NumPy's errors re-raised, same type, with a message naming ``asnumpy.<func>``."""
    with np.errstate(all="ignore"):
        try:
            yield
        except (ValueError, TypeError, IndexError, OverflowError) as error:
            try:
                renamed = type(error)(f"asnumpy.{func}: {error}")
            except TypeError:           # a class that needs other arguments: keep NumPy's
                raise error from None
            raise renamed from None


def _check_supported(func, *dtypes):
    """TypeError for a loop or result dtype asnumpy arrays cannot hold (object, longdouble)."""
    for dtype in dtypes:
        if dtype is not None and not is_supported(np.dtype(dtype)):
            raise TypeError(f"asnumpy.{func}: dtype {np.dtype(dtype)} is not supported; asnumpy "
                            "arrays hold bool, integer, float16-float64, complex64 and "
                            "complex128 numbers")


def _binary_only(ufunc, method):
    """NumPy's checks (and error types) for reduce, accumulate and reduceat."""
    if ufunc.signature is not None:
        raise RuntimeError(f"asnumpy.{ufunc.__name__}.{method}: reduction not defined on "
                           "ufunc with signature")
    if ufunc.nin != 2:
        raise ValueError(f"asnumpy.{ufunc.__name__}.{method}: {method} only supported for "
                         "binary functions")
    if ufunc.nout != 1:
        raise ValueError(f"asnumpy.{ufunc.__name__}.{method}: {method} only supported for "
                         "functions returning a single value")


def _single_axis(axis, func, method):
    """The one axis of accumulate/reduceat: an int, or NumPy's 1-tuple of one."""
    if axis is None or isinstance(axis, tuple):
        if axis is None or len(axis) != 1:
            raise ValueError(f"asnumpy.{func}: {method} does not allow multiple axes")
        return axis[0]
    return axis


def _reduced_axes(axis, ndim):
    """Axis numbers a reduction removes (already validated by the probe)."""
    if axis is None or ndim == 0:          # a 0-d array takes axis 0, -1 or () as None
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(normalize_axis(a, ndim, "reduce") for a in axes)


def _check_out(func, out, shape, device):
    if not isinstance(out, ndarray):
        raise TypeError(f"asnumpy.{func}: out must be an asnumpy.ndarray, got {type(out).__name__}")
    check_same_device(func, device, out)
    if out.shape != tuple(shape):
        raise ValueError(f"asnumpy.{func}: output parameter has shape {shape_text(out.shape)}, "
                         f"expected {shape_text(shape)}")
    check_writeable(out, func)


def _out_tuple(out, func):
    """``out=`` given as an array or a 1-tuple of one."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"asnumpy.{func}: out must be a tuple of 1 array, got {len(out)}")
        return out[0]
    return out


# Reductions planned before: (ufunc, operand and out signatures, keywords)
# -> (reduced axes, result shape, result dtype).  Calls with where= or initial=
# are always validated afresh.
_REDUCE_PLANS = {}
_REDUCE_PLAN_CACHE_SIZE = 1024


def _reduce_key(ufunc, array, axis, dtype, out, keepdims, initial, where):
    if where is not True or initial is not np._NoValue or type(array) is not ndarray:
        return None
    if out is not None:
        if type(out) is tuple and len(out) == 1:
            out = out[0]
        if type(out) is not ndarray or not out._writeable:
            return None
        out = (out._dtype, out._shape, out._device)
    key = (ufunc._kernel_key, array._dtype, array._shape, array._device, axis, dtype, keepdims, out)
    try:
        hash(key)
    except TypeError:                  # a list as axis, say: not cached
        return None
    return key


def reduce(ufunc, array, axis, dtype, out, keepdims, initial, where):
    """``ufunc.reduce`` on a device array (see :meth:`asnumpy.ufunc.reduce`)."""
    func = f"{ufunc.__name__}.reduce"
    key = _reduce_key(ufunc, array, axis, dtype, out, keepdims, initial, where)
    planned = None if key is None else _REDUCE_PLANS.get(key)
    if planned is not None:
        axes, shape, result_dtype = planned
        out = empty(shape, result_dtype, array._device, func=func) if out is None else \
            _out_tuple(out, func)
        launch("reduce", out, ufunc._kernel_key, array, axes,
               None if dtype is None else np.dtype(dtype), keepdims, None, None, func=func)
        return out
    _binary_only(ufunc, "reduce")
    out = _out_tuple(out, func)
    device = out._device if isinstance(out, ndarray) and not isinstance(array, ndarray) else None
    array = _device_array(array, func, device)
    device = array._device
    numpy_ufunc = ufunc._numpy
    where_array, where_probe = None, True
    if where is not True:
        where_array = _where_operand(where, array, func)
        where_probe = (where_array if isinstance(where_array, np.ndarray)
                       else np.ones(_probe(where_array.shape), bool))
    options = {} if initial is np._NoValue else {"initial": initial}
    probe = np.ones(_probe(array.shape), array.dtype)
    with _probing(func):
        result = numpy_ufunc.reduce(probe, axis=axis, dtype=dtype, keepdims=keepdims,
                                    where=where_probe, **options)
    _check_supported(func, np.asarray(result).dtype, dtype)
    axes = _reduced_axes(axis, array.ndim)
    shape = tuple(1 if i in axes else n for i, n in enumerate(array.shape)
                  if keepdims or i not in axes)
    if out is None:
        out = empty(shape, np.asarray(result).dtype, device, func=func)
    else:
        _check_out(func, out, shape, device)
        with _probing(func):
            numpy_ufunc.reduce(probe, axis=axis, dtype=dtype, keepdims=keepdims,
                               where=where_probe, out=np.empty(np.shape(result), out.dtype),
                               **options)
    if key is not None:
        if len(_REDUCE_PLANS) >= _REDUCE_PLAN_CACHE_SIZE:
            _REDUCE_PLANS.clear()
        _REDUCE_PLANS[key] = (axes, shape, out.dtype)
    # initial=None means none (the first element starts the reduction), as in NumPy
    initial_value = None if initial is np._NoValue or initial is None else np.asarray(initial)
    launch("reduce", out, ufunc._kernel_key, array, axes,
           None if dtype is None else np.dtype(dtype), keepdims, initial_value, where_array,
           func=func)
    return out


def _where_operand(where, array, func):
    if isinstance(where, (bool, np.bool_)):
        return np.asarray(where)
    where = _device_array(where, func, array._device)
    if where.dtype != np.dtype(bool):
        if not np.can_cast(where.dtype, bool):
            raise TypeError(f"asnumpy.{func}: Cannot cast array data from {where.dtype!r} to "
                            "dtype('bool') according to the rule 'safe'")
        where = where.astype(bool)
    try:
        fits = np.broadcast_shapes(where.shape, array.shape) == array.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"asnumpy.{func}: the where mask of shape {shape_text(where.shape)} "
                         f"does not broadcast to the operand's shape {shape_text(array.shape)}")
    return where


def accumulate(ufunc, array, axis, dtype, out):
    """``ufunc.accumulate`` on a device array."""
    func = f"{ufunc.__name__}.accumulate"
    _binary_only(ufunc, "accumulate")
    out = _out_tuple(out, func)
    array = _device_array(array, func)
    numpy_ufunc = ufunc._numpy
    probe = np.ones(_probe(array.shape), array.dtype)
    with _probing(func):
        result = numpy_ufunc.accumulate(probe, axis=axis, dtype=dtype)
    _check_supported(func, result.dtype, dtype)
    if out is None:
        out = empty(array.shape, result.dtype, array._device, func=func)
    else:
        _check_out(func, out, array.shape, array._device)
        with _probing(func):
            numpy_ufunc.accumulate(probe, axis=axis, dtype=dtype,
                                   out=np.empty(probe.shape, out.dtype))
    axis = normalize_axis(_single_axis(axis, func, "accumulate"), array.ndim, func)
    launch("accumulate", out, ufunc._kernel_key, array, axis,
           None if dtype is None else np.dtype(dtype), func=func)
    return out


def reduceat(ufunc, array, indices, axis, dtype, out):
    """``ufunc.reduceat`` on a device array."""
    func = f"{ufunc.__name__}.reduceat"
    _binary_only(ufunc, "reduceat")
    out = _out_tuple(out, func)
    array = _device_array(array, func)
    host_indices = indices.get() if isinstance(indices, ndarray) else indices
    axis = _single_axis(axis, func, "reduceat")
    if array.ndim == 0:
        axis = normalize_axis(axis, 1, func)   # NumPy's error for a 0-d operand, below
    else:
        axis = normalize_axis(axis, array.ndim, func)
    numpy_ufunc = ufunc._numpy
    # NumPy's conversion of the indices (lists by int(), arrays by safe casting), its
    # dtype rules and errors, from an operand of length 1 along ``axis``
    probe_shape = list(_probe(array.shape))
    if probe_shape:
        probe_shape[axis] = 1
    probe = np.ones(probe_shape, array.dtype)
    with _probing(func):
        try:
            result_dtype = numpy_ufunc.reduceat(probe, host_indices, axis=axis, dtype=dtype).dtype
        except IndexError:       # an index past 0: checked against the real length below
            result_dtype = numpy_ufunc.reduceat(probe, [0], axis=axis, dtype=dtype).dtype
    _check_supported(func, result_dtype, dtype)
    if isinstance(host_indices, np.ndarray):
        host_indices = host_indices.astype(np.intp, casting="safe")
    else:
        host_indices = np.asarray(host_indices, dtype=np.intp)
    length = array.shape[axis]
    bad = host_indices[(host_indices < 0) | (host_indices >= length)]
    if bad.size:
        raise IndexError(f"asnumpy.{func}: index {bad[0]} out-of-bounds in "
                         f"{ufunc.__name__}.reduceat [0, {length})")
    shape = array.shape[:axis] + (len(host_indices),) + array.shape[axis + 1:]
    if out is None:
        out = empty(shape, result_dtype, array._device, func=func)
    else:
        _check_out(func, out, shape, array._device)
        with _probing(func):
            numpy_ufunc.reduceat(probe, [0] * len(host_indices), axis=axis, dtype=dtype,
                                 out=np.empty(probe_shape[:axis] + [len(host_indices)]
                                              + probe_shape[axis + 1:], out.dtype))
    launch("reduceat", out, ufunc._kernel_key, array, host_indices, axis,
           None if dtype is None else np.dtype(dtype), func=func)
    return out


def outer(ufunc, A, B, kwargs):
    """``ufunc.outer``: the ufunc on ``A[..., None, ...]`` and ``B`` broadcast together."""
    func = f"{ufunc.__name__}.outer"
    if ufunc.signature is not None:
        raise TypeError(f"asnumpy.{func}: method outer is not allowed in ufunc with "
                        "non-trivial signature")
    if ufunc.nin != 2:
        raise ValueError(f"asnumpy.{func}: outer product only supported for binary functions")
    A = _device_array(A, func) if not isinstance(B, ndarray) else _device_array(A, func, B._device)
    B = _device_array(B, func, A._device)
    expanded = A.reshape(A.shape + (1,) * B.ndim)
    return ufunc(expanded, B, **kwargs)


def _host_index(index):
    """The index with device arrays brought to the host (ufunc.at indexes on the host side)."""
    if isinstance(index, tuple):
        return tuple(_host_index(i) for i in index)
    if isinstance(index, ndarray):
        return index.get()
    if isinstance(index, list) and any(isinstance(i, ndarray) for i in index):
        return [_host_index(i) for i in index]
    return index             # lists as NumPy reads them ([] is an empty integer index)


def at(ufunc, a, indices, b):
    """``ufunc.at``: unbuffered in place ``a[indices] = ufunc(a[indices], b)``."""
    func = f"{ufunc.__name__}.at"
    if not isinstance(a, ndarray):
        raise TypeError(f"asnumpy.{func}: first operand must be an asnumpy.ndarray, "
                        f"got {type(a).__name__}")
    check_writeable(a, func)
    if ufunc.nin == 2 and b is None:
        raise ValueError(f"asnumpy.{func}: second operand needed for ufunc")
    if ufunc.nin == 1 and b is not None:
        raise ValueError(f"asnumpy.{func}: second operand provided when ufunc is unary")
    if ufunc.signature is not None:
        raise TypeError(f"asnumpy.{func}: does not support ufunc with non-trivial signature")
    if ufunc.nout != 1:
        raise ValueError(f"asnumpy.{func}: Only single output ufuncs supported at this time")
    operand = b is not None and (
        isinstance(b, ndarray) or not isinstance(b, (int, float, complex, np.generic)))
    if operand:
        b = _device_array(b, func, a._device)
    # NumPy resolves the loop before it reads the indices (its TypeError
    # first), and converts a Python int's value after them (1 stands in)
    kind = (np.ones((), b.dtype),) if operand else () if b is None else (
        1 if type(b) is int else b,)
    with _probing(func):
        ufunc._numpy.at(np.ones(1, a.dtype), np.zeros(1, np.intp), *kind)
    index = _host_index(indices)
    # NumPy's IndexError for bad indices, and the selection's shape, from a
    # zero-strided stand-in of ``a``: no device data is read.
    selection = np.broadcast_to(np.zeros((), a.dtype), a.shape)[index]
    selected = np.shape(selection)
    if b is not None:
        if operand:
            try:
                fits = np.broadcast_shapes(b.shape, selected) == selected
            except ValueError:
                fits = False
            if not fits:
                raise ValueError(f"asnumpy.{func}: array is not broadcastable to correct shape "
                                 f"(the selection has shape {shape_text(selected)}, the "
                                 f"operand {shape_text(b.shape)})")
            probe_args = (np.ones(_probe(b.shape), b.dtype),)
        else:
            probe_args = (b,)
    else:
        probe_args = ()
    # NumPy's dtype rules and errors from a probe of at most one element per axis
    # (ones, not zeros: the probe must not divide by zero)
    with _probing(func):
        ufunc._numpy.at(np.ones(1, a.dtype), np.zeros(_probe(selected), np.intp), *probe_args)
    launch("at", a, ufunc._kernel_key, index, b, func=func)
