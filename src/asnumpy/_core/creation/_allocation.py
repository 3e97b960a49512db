"""Shared pieces of the creation functions: argument checks, NumPy's result
layouts, allocation and filling."""

from __future__ import annotations

import collections
import contextlib
import operator
import string

import numpy as np

from ... import _dtypes
from ...runtime.device import Device, get_device
from .. import _launch, _layout, transfer
from ..ndarray import ndarray

_PYTHON_SCALARS = (bool, int, float, complex, np.generic)
_MAX_INTP = int(np.iinfo(np.intp).max)
_MAX_LENGTH = float(_MAX_INTP)

# A layout description that ``_launch.empty(..., like=...)`` accepts.
_Layout = collections.namedtuple("_Layout", "shape strides itemsize")


# -- argument helpers ---------------------------------------------------------

@contextlib.contextmanager
def _named_errors(func):
    """Re-raise NumPy's errors from host-side checks with the function's name."""
    try:
        yield
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as exc:
        message = str(exc)
        if message.startswith("asnumpy."):
            raise
        try:
            named = type(exc)(f"asnumpy.{func}: {message}")
        except Exception:  # noqa: BLE001 - keep the original error if it cannot be renamed
            raise exc from None
        raise named from None


def _target_device(device, *inputs) -> Device:
    """``device``, else the device of the first asnumpy input, else the current one."""
    if device is not None:
        return Device(device)
    found = _launch.nested_device(inputs)
    return get_device() if found is None else found


def _order_letter(order, func, default):
    return _layout.check_order(order, func, default)


def _creation_order(order, func) -> str:
    """'C' or 'F' for functions that create from nothing (NumPy's rule)."""
    letter = _order_letter(order, func, "C")
    if letter not in ("C", "F"):
        raise ValueError(f"asnumpy.{func}: only 'C' or 'F' order is permitted, got {order!r}")
    return letter


def _index(value, what, func) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"asnumpy.{func}: {what} must be an integer, got {type(value).__name__} {value!r}"
        ) from None


def _shape_of(value) -> tuple:
    if isinstance(value, ndarray):
        return value.shape
    return np.shape(value)


def _broadcast_shape(func, *values) -> tuple:
    with _named_errors(func):
        return np.broadcast_shapes(*(_shape_of(v) for v in values))


def _input_array(value, device, func) -> ndarray:
    """``value`` as an asnumpy array on ``device`` (default: where it already is)."""
    if isinstance(value, ndarray):
        if device is None:
            return value
        return transfer.to_device(value, Device(device), None, func)
    nested = set()
    with _named_errors(func):
        host = transfer.host_array(value, None, func, nested)
    if nested:                  # asnumpy arrays in a sequence: one device, the default target
        nested_device = transfer.sequence_device(nested, None, func)
        device = nested_device if device is None else device
    return transfer.from_host(host, _target_device(device), None, func)


def _gather_inputs(func, device, values, keep_scalars=False):
    """The target device and the inputs on it.

    Host inputs are transferred (host scalars stay kernel parameters when
    ``keep_scalars``).  asnumpy inputs move only to an explicit ``device``;
    without one they must share a device (ValueError otherwise).
    """
    target = _target_device(device, *values)
    gathered = []
    for value in values:
        if keep_scalars and isinstance(value, _PYTHON_SCALARS):
            gathered.append(value)
        elif isinstance(value, ndarray) and device is None:
            _launch.check_same_device(func, target, value)
            gathered.append(value)
        else:
            gathered.append(_input_array(value, target, func))
    return target, gathered


def _result_type(func, *values) -> np.dtype:
    """NumPy's promotion of the values (Python scalars weak, arrays by dtype)."""
    with _named_errors(func):
        return _dtypes.to_dtype(_dtypes.result_type(*values), func)


def _strong_dtype(value) -> np.dtype:
    """The dtype ``numpy.asanyarray(value)`` would have."""
    if isinstance(value, ndarray):
        return value.dtype
    return np.asarray(value).dtype


# -- NumPy's result layouts -----------------------------------------------------
#
# NumPy lays out a new result of an operation on arrays (order 'K') in the axis
# order its iterator picks from the operands' strides.  These helpers replay
# that choice on metadata, so results here get NumPy's strides.

def _nonzero_strides(shape, strides, target) -> tuple:
    """``strides`` broadcast to ``target``; axes of length 1 get stride 0 (NumPy's iterator)."""
    padded_shape = (1,) * (len(target) - len(shape)) + tuple(shape)
    padded = (0,) * (len(target) - len(strides)) + tuple(strides)
    return tuple(0 if n == 1 else s for n, s in zip(padded_shape, padded))


def _should_swap(operands, axis, earlier):
    """NumPy's iterator rule for two axes: None when no operand decides; C order wins ties."""
    verdict = None
    for strides in operands:
        this, other = abs(strides[axis]), abs(strides[earlier])
        if this and other:
            if other <= this:
                verdict = False
            elif verdict is None:
                verdict = True
    return verdict


def _keep_order_axes(ndim, operands) -> list:
    """Axes from fastest to slowest, as NumPy's iterator orders them for order='K'."""
    axes = list(range(ndim - 1, -1, -1))
    for position in range(1, ndim):
        axis, target = axes[position], position
        for earlier in range(position - 1, -1, -1):
            swap = _should_swap(operands, axis, axes[earlier])
            if swap is None:
                continue
            if not swap:
                break
            target = earlier
        axes.insert(target, axes.pop(position))
    return axes


def _iterator_layout(shape, itemsize, operands) -> _Layout:
    """The layout NumPy gives a new result of an operation on arrays with these strides."""
    strides, step = [0] * len(shape), itemsize
    for axis in _keep_order_axes(len(shape), operands):
        strides[axis] = step
        step *= max(shape[axis], 1)
    return _Layout(tuple(shape), tuple(strides), itemsize)


def _operand_strides(value, shape) -> tuple:
    """The strides the iterator sees for an operand broadcast to ``shape`` (scalars: zeros)."""
    if isinstance(value, (ndarray, _Layout)):
        return _nonzero_strides(value.shape, value.strides, shape)
    return (0,) * len(shape)


# -- allocation and filling ---------------------------------------------------

def _allocate(shape, dtype, order, device, func) -> ndarray:
    """A new uninitialised array for the ``empty``/``zeros``/``ones``/``full`` family."""
    shape = _layout.normalize_shape(shape, func)
    dtype = _dtypes.to_dtype(dtype, func, default=float)
    order = _creation_order(order, func)
    return _launch.empty(shape, dtype, device, order, func=func)


def _allocate_like(prototype, dtype, order, shape, device, func) -> ndarray:
    """A new uninitialised array shaped and laid out like ``prototype``."""
    if isinstance(prototype, ndarray):
        like = prototype
    else:
        with _named_errors(func):
            like = np.asarray(prototype)
    dtype = _dtypes.to_dtype(like.dtype if dtype is None else dtype, func)
    shape = like.shape if shape is None else _layout.normalize_shape(shape, func)
    order = _order_letter(order, func, "K")
    return _launch.empty(shape, dtype, _target_device(device, prototype), order, like=like,
                         func=func)


def _host_scalar(value, dtype, func) -> np.ndarray:
    """``value`` converted into ``dtype`` exactly as ``numpy.copyto(..., casting='unsafe')``."""
    scalar = np.empty((), dtype)
    with _named_errors(func):
        np.copyto(scalar, value, casting="unsafe")
    return scalar


def _fill_scalar(out, value, func) -> None:
    _launch.launch("fill", out, _host_scalar(value, out.dtype, func), func=func)


def _fill(out, value, func) -> None:
    """Fill ``out`` with a scalar, a host array (broadcast) or a device array (broadcast)."""
    if isinstance(value, ndarray):
        _layout.assignable_shape(value.shape, out.shape, func)
        _launch.launch("copy", out, value, func=func)
        return
    with _named_errors(func):
        host = value if isinstance(value, np.ndarray) else np.asarray(value)
    if host.ndim == 0:
        _fill_scalar(out, value, func)
        return
    _layout.assignable_shape(host.shape, out.shape, func)
    if host.dtype.kind not in "biufc":
        converted = np.empty(host.shape, out.dtype)
        with _named_errors(func):
            np.copyto(converted, host, casting="unsafe")
        host = converted
    transfer.copy_host_into(out, host, None, func)


def _value_dtype(value, func) -> np.dtype:
    """The dtype NumPy infers for a fill value (``numpy.array(value).dtype``)."""
    if isinstance(value, ndarray):
        return value.dtype
    with _named_errors(func):
        inferred = np.asarray(value).dtype
    return _dtypes.to_dtype(inferred, func)


def _append_doc(function, sections) -> None:
    """Complete a one-line docstring with sections shared by several functions."""
    if function.__doc__ is not None:  # docstrings are stripped under ``python -OO``
        function.__doc__ += sections


# Parameter descriptions several docstrings share, spliced in at ``$name``.
_DOC_PARTS = {
    "device_like": (
        "device : str or Device, optional\n"
        "        Where the array lives; by default ``like``'s device, else the current one.\n"
        "    like : array_like, optional\n"
        "        Reference object; when it is an asnumpy array its device is the default."),
    "shape_dtype_order": (
        "shape : int or tuple of int\n"
        "        Shape of the new array.\n"
        "    dtype : data-type, optional\n"
        "        Numeric dtype of the array (default float64).\n"
        "    order : {'C', 'F'}, optional\n"
        "        Row-major (C) or column-major (Fortran) memory layout."),
}


def _shared_doc(function):
    """Decorator: splice the shared ``$name`` parameter descriptions into the docstring."""
    if function.__doc__ is not None:  # docstrings are stripped under ``python -OO``
        function.__doc__ = string.Template(function.__doc__).safe_substitute(_DOC_PARTS)
    return function
