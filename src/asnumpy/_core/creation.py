"""Array creation: NumPy's creation functions, with the values made on the device.

Every function here works the same way: it settles the result's shape, dtype
and layout on the host (metadata only, by NumPy's rules), allocates the result
with :func:`._launch.empty` and produces the values by launching kernels on the
result's device (``fill``, ``copy``, ``arange``, ``linspace`` ...).  Structured
results are built from views of the output: ``eye`` fills the strided
diagonal of a zero-filled matrix, ``meshgrid`` and ``indices`` copy
zero-strided (broadcast) views.  Only ``frombuffer`` and ``fromiter``, whose
sources are host objects, transfer host data.

The ``device=`` keyword picks where the result lives: by default the device of
the input array (for ``*_like`` and functions of an array), else the current
device (:func:`asnumpy.get_device`).
"""

from __future__ import annotations

import collections
import contextlib
import math
import operator

import numpy as np

from .. import _dtypes
from ..runtime.device import Device, get_device
from . import _launch, _layout, transfer
from .ndarray import ndarray

__all__ = [
    "empty", "zeros", "ones", "full",
    "empty_like", "zeros_like", "ones_like", "full_like",
    "arange", "linspace", "logspace", "geomspace",
    "eye", "identity", "diag", "diagflat", "tri", "tril", "triu", "vander",
    "meshgrid", "indices", "fromfunction",
    "copy", "ascontiguousarray", "asfortranarray", "frombuffer", "fromiter",
]

_ORDERS = ("C", "F", "A", "K")
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
        except Exception:
            raise exc from None
        raise named from None


def _target_device(device, *inputs) -> Device:
    """``device``, else the device of the first asnumpy input, else the current one."""
    if device is not None:
        return Device(device)
    for value in inputs:
        if isinstance(value, ndarray):
            return value.device
    return get_device()


def _order_letter(order, func, default):
    if order is None:
        return default
    if not isinstance(order, str):
        raise TypeError(f"asnumpy.{func}: order must be str, not {type(order).__name__}")
    letter = order.upper()
    if letter not in _ORDERS:
        raise ValueError(
            f"asnumpy.{func}: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return letter


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


def _check_broadcast(source, target, func) -> None:
    """ValueError unless an array of shape ``source`` can be copied into ``target``."""
    trimmed = tuple(source)
    while len(trimmed) > len(target) and trimmed[0] == 1:
        trimmed = trimmed[1:]
    fits = len(trimmed) <= len(target) and all(
        s in (1, t) for s, t in zip(reversed(trimmed), reversed(target)))
    if not fits:
        raise ValueError(
            f"asnumpy.{func}: could not broadcast input array from shape {tuple(source)} "
            f"into shape {tuple(target)}"
        )


def _input_array(value, device, func) -> ndarray:
    """``value`` as an asnumpy array on ``device`` (default: where it already is)."""
    if isinstance(value, ndarray):
        if device is None:
            return value
        return transfer.to_device(value, Device(device), None, func)
    with _named_errors(func):
        host = transfer.host_array(value, None, func)
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
        _check_broadcast(value.shape, out.shape, func)
        _launch.launch("copy", out, value, func=func)
        return
    with _named_errors(func):
        host = value if isinstance(value, np.ndarray) else np.asarray(value)
    if host.ndim == 0:
        _fill_scalar(out, value, func)
        return
    _check_broadcast(host.shape, out.shape, func)
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


# -- from shape and value -----------------------------------------------------

def empty(shape, dtype=float, order="C", *, device=None, like=None):
    """Return a new array of given shape and type, without initializing entries.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the new array.
    dtype : data-type, optional
        Numeric dtype of the array (default float64).
    order : {'C', 'F'}, optional
        Row-major (C) or column-major (Fortran) memory layout.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        Array of uninitialized data.

    Raises
    ------
    ValueError
        For negative dimensions or an order other than 'C' or 'F'.
    TypeError
        For a non-numeric dtype.
    """
    return _allocate(shape, dtype, order, _target_device(device, like), "empty")


def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    """Return a new array of given shape and type, filled with zeros.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the new array.
    dtype : data-type, optional
        Numeric dtype of the array (default float64).
    order : {'C', 'F'}, optional
        Row-major (C) or column-major (Fortran) memory layout.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        Array of zeros.
    """
    out = _allocate(shape, dtype, order, _target_device(device, like), "zeros")
    _fill_scalar(out, 0, "zeros")
    return out


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    """Return a new array of given shape and type, filled with ones.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the new array.
    dtype : data-type, optional
        Numeric dtype of the array (default float64).
    order : {'C', 'F'}, optional
        Row-major (C) or column-major (Fortran) memory layout.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        Array of ones.
    """
    out = _allocate(shape, dtype, order, _target_device(device, like), "ones")
    _fill_scalar(out, 1, "ones")
    return out


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """Return a new array of given shape and type, filled with ``fill_value``.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the new array.
    fill_value : scalar or array_like
        Fill value: a scalar (converted as NumPy converts it, e.g. OverflowError
        for a Python int out of the dtype's range), a host array or sequence
        broadcast to ``shape``, or an asnumpy array broadcast on its device.
    dtype : data-type, optional
        Numeric dtype; by default the dtype of ``numpy.array(fill_value)``.
    order : {'C', 'F'}, optional
        Row-major (C) or column-major (Fortran) memory layout.
    device : str or Device, optional
        Where the array lives; by default the device of an asnumpy
        ``fill_value`` or ``like``, else the current device.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        Array of ``fill_value``.
    """
    func = "full"
    if dtype is None:
        dtype = _value_dtype(fill_value, func)
    out = _allocate(shape, dtype, order, _target_device(device, fill_value, like), func)
    _fill(out, fill_value, func)
    return out


# -- like another array -------------------------------------------------------

_LIKE_PARAMETERS = """
    dtype : data-type, optional
        Overrides the dtype of the result (must be numeric).
    order : {'C', 'F', 'A', 'K'}, optional
        Memory layout: 'K' (default) follows the prototype's layout as closely
        as possible, 'A' is 'F' when the prototype is Fortran-contiguous.
    subok : bool, optional
        Accepted for NumPy compatibility (asnumpy has no array subclasses).
    shape : int or tuple of int, optional
        Overrides the shape of the result.
    device : str or Device, optional
        Where the result lives; by default the prototype's device (the
        current device for host prototypes)."""


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Return a new array with the same shape and type as a given array."""
    return _allocate_like(prototype, dtype, order, shape, device, "empty_like")


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Return an array of zeros with the same shape and type as a given array."""
    out = _allocate_like(a, dtype, order, shape, device, "zeros_like")
    _fill_scalar(out, 0, "zeros_like")
    return out


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Return an array of ones with the same shape and type as a given array."""
    out = _allocate_like(a, dtype, order, shape, device, "ones_like")
    _fill_scalar(out, 1, "ones_like")
    return out


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Return a full array with the same shape and type as a given array."""
    out = _allocate_like(a, dtype, order, shape, device, "full_like")
    _fill(out, fill_value, "full_like")
    return out


def _append_doc(function, sections) -> None:
    """Complete a one-line docstring with sections shared by several functions."""
    if function.__doc__ is not None:  # docstrings are stripped under ``python -OO``
        function.__doc__ += sections


def _complete_like_docstring(function, first_parameter, returns, extra=""):
    """Append the Parameters and Returns sections the ``*_like`` functions share."""
    _append_doc(function, (
        f"\n\n    Parameters\n    ----------\n    {first_parameter} : array_like\n"
        f"        The prototype: an asnumpy array or a host array-like.{extra}"
        f"{_LIKE_PARAMETERS}\n\n    Returns\n    -------\n    ndarray\n        {returns}\n    "
    ))


_complete_like_docstring(empty_like, "prototype", "Array of uninitialized data.")
_complete_like_docstring(zeros_like, "a", "Array of zeros.")
_complete_like_docstring(ones_like, "a", "Array of ones.")
_complete_like_docstring(full_like, "a", "Array of ``fill_value``.",
                         "\n    fill_value : scalar or array_like\n        Fill value, converted"
                         " and broadcast as in :func:`full`.")


# -- numerical ranges ---------------------------------------------------------

def _ceil_length(value: float, func) -> int:
    if math.isnan(value):
        raise ValueError(f"asnumpy.{func}: arange: cannot compute length")
    if not -_MAX_LENGTH <= value <= _MAX_LENGTH:
        raise ValueError(f"asnumpy.{func}: Maximum allowed size exceeded")
    length = math.ceil(value)
    # 2**63 passes NumPy's check in floating point; its C cast then wraps negative.
    return length if length <= _MAX_INTP else -_MAX_INTP - 1


def _arange_length(start, stop, step, is_complex, func) -> int:
    """The number of values, computed as NumPy does (on the Python objects)."""
    try:
        with _named_errors(func):
            length = _arange_quotient_length(start, stop, step, is_complex, func)
    except OverflowError:
        raise ValueError(f"asnumpy.{func}: Maximum allowed size exceeded") from None
    return max(length, 0)


def _arange_quotient_length(start, stop, step, is_complex, func) -> int:
    try:
        delta = stop - start
    except TypeError:
        if isinstance(stop, tuple):
            raise TypeError("arange: scalar arguments expected instead of a tuple.") from None
        raise
    nonzero = delta != 0
    quotient = delta / step
    if not nonzero:
        return 0
    if is_complex and isinstance(quotient, complex):
        return min(_ceil_length(quotient.real, func), _ceil_length(quotient.imag, func))
    if quotient == 0:  # underflow, or a step of infinite size
        return 0 if math.copysign(1.0, float(quotient)) < 0 else 1
    return _ceil_length(float(quotient), func)


def _arange(start, stop, step, dtype, device, func) -> ndarray:
    if stop is None:
        if start is None:
            raise TypeError(f"asnumpy.{func}: arange() requires stop to be specified.")
        start, stop = 0, start
    elif start is None:
        start = 0
    step = 1 if step is None else step
    if dtype is None:
        with _named_errors(func):
            dtype = np.result_type(np.intp, *(_strong_dtype(v) for v in (start, stop, step)))
    dtype = _dtypes.to_dtype(dtype, func)
    length = _arange_length(start, stop, step, dtype.kind == "c", func)
    if dtype.kind == "b" and length > 2:
        raise TypeError(f"asnumpy.{func}: arange() is only supported for booleans when the "
                        "result has at most length 2.")
    out = _launch.empty((length,), dtype, device, func=func)
    _launch.launch("arange", out, start, stop, step, func=func)
    return out


def arange(start=None, stop=None, step=None, dtype=None, *, device=None, like=None):
    """Return evenly spaced values within a given interval.

    Called as ``arange(stop)``, ``arange(start, stop)`` or
    ``arange(start, stop, step)``, like NumPy's.

    Parameters
    ----------
    start : int or real or complex, optional
        Start of the interval (default 0).
    stop : int or real or complex
        End of the interval, not included (except through rounding, as NumPy).
    step : int or real or complex, optional
        Spacing between values (default 1).
    dtype : data-type, optional
        Numeric dtype; by default NumPy's choice from the arguments (at least
        the default integer).
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        1-D array of ``ceil((stop - start) / step)`` values.

    Raises
    ------
    ZeroDivisionError
        If ``step`` is zero.
    ValueError
        If the length cannot be computed (NaN) or is too large.
    TypeError
        For a boolean result longer than 2, or a non-numeric dtype.
    """
    return _arange(start, stop, step, dtype, _target_device(device, like), "arange")


def _sample_count(num, func) -> int:
    num = _index(num, "num", func)
    if num < 0:
        raise ValueError(f"asnumpy.{func}: Number of samples, {num}, must be non-negative.")
    return num


def _sample_layout(step_operands, rest, num, axis, itemsize, func) -> _Layout:
    """NumPy's layout of linspace samples.

    NumPy computes ``ramp * step`` into a new ``(num, *rest)`` array (its axis
    order follows the step, itself the result of an operation on
    ``step_operands``), then moves the sample axis to ``axis``.
    """
    axis = _layout.normalize_axis(axis, len(rest) + 1, func)
    rest = tuple(rest)
    step = _iterator_layout(rest, itemsize, [_operand_strides(v, rest) for v in step_operands])
    shape = (num,) + rest
    ramp = _nonzero_strides((num,) + (1,) * len(rest), (itemsize,) * len(shape), shape)
    samples = _iterator_layout(shape, itemsize, [ramp, (0,) + step.strides])
    order = [*range(1, axis + 1), 0, *range(axis + 1, len(shape))]
    return _Layout(tuple(shape[a] for a in order), tuple(samples.strides[a] for a in order),
                   itemsize)


def _new_samples(step_operands, rest, num, axis, dtype, device, func) -> ndarray:
    like = _sample_layout(step_operands, rest, num, axis, dtype.itemsize, func)
    return _launch.empty(like.shape, dtype, device, "K", like=like, func=func)


def _linspace_step(start, stop, num, endpoint, inexact, device, func):
    """NumPy's ``retstep`` value: a host scalar, or a device array for array bounds."""
    div = num - 1 if endpoint else num
    if div <= 0:
        return float("nan")
    if isinstance(start, _PYTHON_SCALARS) and isinstance(stop, _PYTHON_SCALARS):
        with _named_errors(func):
            return np.subtract(stop, start, dtype=inexact.type) / div
    rest = _broadcast_shape(func, start, stop)
    like = _iterator_layout(rest, inexact.itemsize, [_operand_strides(stop, rest),
                                                     _operand_strides(start, rest)])
    step = _launch.empty(rest, inexact, device, "K", like=like, func=func)
    _launch.launch("linspace_step", step, start, stop, div, func=func)
    return step


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """Return ``num`` evenly spaced samples over the interval [start, stop].

    Parameters
    ----------
    start, stop : array_like
        The interval's ends: scalars, or arrays (host or asnumpy) that
        broadcast together, giving one sequence per element.
    num : int, optional
        Number of samples (default 50); must be non-negative.
    endpoint : bool, optional
        Whether ``stop`` is the last sample (default True).
    retstep : bool, optional
        If True, return ``(samples, step)``.
    dtype : data-type, optional
        Numeric dtype; by default the inexact type NumPy infers from the bounds.
        Integer dtypes round towards minus infinity, as NumPy.
    axis : int, optional
        Axis of the result along which the samples are stored (default 0).
    device : str or Device, optional
        Where the result lives; by default the device of an asnumpy bound,
        else the current device.

    Returns
    -------
    samples : ndarray
        ``num`` samples along ``axis``.
    step : NumPy scalar or ndarray, optional
        The spacing (only with ``retstep``): a host scalar for scalar bounds,
        an asnumpy array for array bounds, ``nan`` for fewer than two intervals.

    Raises
    ------
    ValueError
        If ``num`` is negative or the bounds do not broadcast.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.
    """
    func = "linspace"
    num = _sample_count(num, func)
    device, (start, stop) = _gather_inputs(func, device, (start, stop), True)
    inexact = _result_type(func, start, stop, 0.0)
    dtype = _dtypes.to_dtype(dtype, func, default=inexact)
    out = _new_samples((stop, start), _broadcast_shape(func, start, stop), num, axis, dtype,
                       device, func)
    _launch.launch("linspace", out, start, stop, num=num, endpoint=endpoint, axis=axis, func=func)
    if not retstep:
        return out
    return out, _linspace_step(start, stop, num, endpoint, inexact, device, func)


def _logspace_layout(start, stop, base, num, axis, itemsize, func) -> _Layout:
    """NumPy's result layout of ``base ** samples``; an array ``base`` broadcasts with
    the samples, its axes padded and the sample axis inserted at ``axis``."""
    rest = _broadcast_shape(func, start, stop)
    if not _shape_of(base):
        return _sample_layout((stop, start), rest, num, axis, itemsize, func)
    ndim = len(_broadcast_shape(func, start, stop, base))
    rest = (1,) * (ndim - len(rest)) + rest
    samples = _sample_layout((stop, start), rest, num, axis, itemsize, func)
    base_axis = _layout.normalize_axis(axis, ndim + 1, func)
    pad = ndim - base.ndim
    base_shape, base_strides = (1,) * pad + base.shape, (0,) * pad + base.strides
    base_shape = base_shape[:base_axis] + (1,) + base_shape[base_axis:]
    base_strides = base_strides[:base_axis] + (0,) + base_strides[base_axis:]
    with _named_errors(func):
        shape = np.broadcast_shapes(samples.shape, base_shape)
    return _iterator_layout(shape, itemsize, [
        _nonzero_strides(base_shape, base_strides, shape),
        _nonzero_strides(samples.shape, samples.strides, shape),
    ])


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, *, device=None):
    """Return numbers spaced evenly on a log scale: ``base ** linspace(start, stop)``.

    Parameters
    ----------
    start, stop : array_like
        ``base ** start`` and ``base ** stop`` are the first and last values.
    num : int, optional
        Number of samples (default 50).
    endpoint : bool, optional
        Whether ``base ** stop`` is the last sample (default True).
    base : array_like, optional
        The base of the log space (default 10.0); an array broadcasts with
        the bounds, the sample axis inserted at ``axis``.
    dtype : data-type, optional
        Numeric dtype; by default the type of ``base ** samples``.
    axis : int, optional
        Axis of the result along which the samples are stored (default 0).
    device : str or Device, optional
        Where the result lives; by default the device of an asnumpy input,
        else the current device.

    Returns
    -------
    ndarray
        ``num`` samples, equally spaced on a log scale.
    """
    func = "logspace"
    num = _sample_count(num, func)
    device, (start, stop, base) = _gather_inputs(func, device, (start, stop, base), True)
    inexact = _result_type(func, start, stop, 0.0)
    dtype = _dtypes.to_dtype(dtype, func, default=_result_type(func, base, inexact))
    like = _logspace_layout(start, stop, base, num, axis, dtype.itemsize, func)
    out = _launch.empty(like.shape, dtype, device, "K", like=like, func=func)
    _launch.launch("logspace", out, start, stop, num, endpoint, base, axis=axis, func=func)
    return out


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0, *, device=None):
    """Return numbers spaced evenly on a log scale (a geometric progression).

    Parameters
    ----------
    start, stop : array_like
        First and last values of the sequence (non-zero; negative and complex
        values work as in NumPy).
    num : int, optional
        Number of samples (default 50).
    endpoint : bool, optional
        Whether ``stop`` is the last sample (default True).
    dtype : data-type, optional
        Numeric dtype; by default NumPy's (at least float64).
    axis : int, optional
        Axis of the result along which the samples are stored (default 0).
    device : str or Device, optional
        Where the result lives; by default the device of an asnumpy bound,
        else the current device.

    Returns
    -------
    ndarray
        ``num`` samples, equally spaced on a log scale.

    Raises
    ------
    ValueError
        If ``start`` or ``stop`` is zero.
    """
    func = "geomspace"
    num = _sample_count(num, func)
    device, (start, stop) = _gather_inputs(func, device, (start, stop), True)
    if any(isinstance(v, _PYTHON_SCALARS) and v == 0 for v in (start, stop)):
        raise ValueError(f"asnumpy.{func}: Geometric sequence cannot include zero")
    requested = None if dtype is None else _dtypes.to_dtype(dtype, func)
    with _named_errors(func):
        inexact = np.result_type(_strong_dtype(start), _strong_dtype(stop), float(num),
                                 np.float64 if requested is None else requested)
    dtype = _dtypes.to_dtype(inexact if requested is None else requested, func)
    # NumPy steps between log10(start) and log10(stop / sign(start)).
    rest = _broadcast_shape(func, start, stop)
    quotient = _iterator_layout(rest, dtype.itemsize, [_operand_strides(stop, rest),
                                                       _operand_strides(start, rest)])
    out = _new_samples((quotient, start), rest, num, axis, dtype, device, func)
    with _named_errors(func):  # zeros inside device arrays are found by the kernel
        _launch.launch("geomspace", out, start, stop, num=num, endpoint=endpoint, axis=axis,
                       func=func)
    return out


# -- matrices -----------------------------------------------------------------

def _diagonal_view(matrix, k) -> ndarray:
    """The ``k``-th diagonal of a 2-D array, as a strided view of its memory."""
    rows, cols = matrix.shape
    row_stride, col_stride = matrix.strides
    if k >= 0:
        length, offset = min(rows, cols - k), k * col_stride
    else:
        length, offset = min(rows + k, cols), -k * row_stride
    if length <= 0:
        length, offset = 0, 0
    return matrix._view((length,), (row_stride + col_stride,), matrix._offset + offset)


def _eye(N, M, k, dtype, order, device, func) -> ndarray:
    k = _index(k, "k", func)
    M = N if M is None else M
    out = _allocate((N, M), dtype, order, device, func)
    _fill_scalar(out, 0, func)
    _fill_scalar(_diagonal_view(out, k), 1, func)
    return out


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    """Return a 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns (default ``N``).
    k : int, optional
        Index of the diagonal: 0 the main one, positive above, negative below.
    dtype : data-type, optional
        Numeric dtype (default float64).
    order : {'C', 'F'}, optional
        Memory layout of the result.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        An ``(N, M)`` array, one on the chosen diagonal, zero elsewhere.
    """
    return _eye(N, M, k, dtype, order, _target_device(device, like), "eye")


def identity(n, dtype=None, *, device=None, like=None):
    """Return the identity array: a square array with ones on the main diagonal.

    Parameters
    ----------
    n : int
        Number of rows (and columns).
    dtype : data-type, optional
        Numeric dtype (default float64).
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        ``n`` x ``n`` array with ones on the main diagonal.
    """
    return _eye(n, None, 0, dtype, "C", _target_device(device, like), "identity")


def _diagonal_matrix(v, k, func) -> ndarray:
    """A zero matrix with the 1-D array ``v`` on its ``k``-th diagonal."""
    n = v.shape[0] + abs(k)
    out = _launch.empty((n, n), v.dtype, v.device, func=func)
    _fill_scalar(out, 0, func)
    _launch.launch("copy", _diagonal_view(out, k), v, func=func)
    return out


def diag(v, k=0, *, device=None):
    """Extract a diagonal or construct a diagonal array.

    Parameters
    ----------
    v : array_like
        A 1-D array gives a 2-D array with ``v`` on its ``k``-th diagonal;
        a 2-D array gives its ``k``-th diagonal.
    k : int, optional
        Diagonal in question: 0 the main one, positive above, negative below.
    device : str or Device, optional
        Where the result lives (default: ``v``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        The diagonal matrix, or for 2-D input a read-only view of its diagonal
        (as NumPy's).

    Raises
    ------
    ValueError
        If ``v`` is not 1-D or 2-D.
    """
    func = "diag"
    k = _index(k, "k", func)
    v = _input_array(v, device, func)
    if v.ndim == 1:
        return _diagonal_matrix(v, k, func)
    if v.ndim == 2:
        diagonal = _diagonal_view(v, k)
        diagonal.flags.writeable = False
        return diagonal
    raise ValueError(f"asnumpy.{func}: Input must be 1- or 2-d.")


def diagflat(v, k=0, *, device=None):
    """Create a 2-D array with the flattened input on the ``k``-th diagonal.

    Parameters
    ----------
    v : array_like
        Input data, flattened in C order.
    k : int, optional
        Diagonal to set: 0 the main one, positive above, negative below.
    device : str or Device, optional
        Where the result lives (default: ``v``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        A square array with ``v.size + abs(k)`` rows.
    """
    func = "diagflat"
    k = _index(k, "k", func)
    v = _input_array(v, device, func)
    return _diagonal_matrix(v.reshape((v.size,)), k, func)


def tri(N, M=None, k=0, dtype=float, *, device=None, like=None):
    """An array with ones at and below the given diagonal and zeros elsewhere.

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns (default ``N``).
    k : int, optional
        The sub-diagonal at and below which the array is filled: 0 the main
        diagonal, negative below it, positive above.
    dtype : data-type, optional
        Numeric dtype (default float64).
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        An ``(N, M)`` array with ``T[i, j] == 1`` for ``j <= i + k``.
    """
    func = "tri"
    N = _index(N, "N", func)
    M = N if M is None else _index(M, "M", func)
    dtype = _dtypes.to_dtype(dtype, func, default=float)
    out = _launch.empty((max(N, 0), max(M, 0)), dtype, _target_device(device, like), func=func)
    _launch.launch("tri", out, N, M, k, func=func)
    return out


def _triangle_layout(shape, m) -> _Layout:
    """The layout of NumPy's ``where(tri_mask, m, 0)``, which tril and triu return."""
    rows, cols = shape[-2:]
    return _iterator_layout(shape, m.itemsize, [_nonzero_strides((rows, cols), (cols, 1), shape),
                                                _nonzero_strides(m.shape, m.strides, shape)])


def _triangle(kernel, m, k, device, func) -> ndarray:
    m = _input_array(m, device, func)
    if m.ndim == 0:
        raise TypeError(f"asnumpy.{func}: the input must be at least 1-d, got a 0-d array")
    shape = m.shape if m.ndim >= 2 else m.shape * 2
    out = _launch.empty(shape, m.dtype, m.device, "K", like=_triangle_layout(shape, m), func=func)
    _launch.launch(kernel, out, m, k=k, func=func)
    return out


_TRIANGLE_SECTIONS = """

    Parameters
    ----------
    m : array_like, shape (..., M, N)
        Input array (a 1-D input is treated as a row repeated ``len(m)`` times).
    k : int, optional
        The diagonal that bounds the kept triangle: 0 the main diagonal,
        negative below it, positive above.
    device : str or Device, optional
        Where the result lives (default: ``m``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        Same shape and dtype as ``m``, laid out as NumPy lays it out.
    """


def tril(m, k=0, *, device=None):
    """Lower triangle of an array: a copy with the elements above the k-th diagonal zeroed."""
    return _triangle("tril", m, k, device, "tril")


def triu(m, k=0, *, device=None):
    """Upper triangle of an array: a copy with the elements below the k-th diagonal zeroed."""
    return _triangle("triu", m, k, device, "triu")


_append_doc(tril, _TRIANGLE_SECTIONS)
_append_doc(triu, _TRIANGLE_SECTIONS)


def vander(x, N=None, increasing=False, *, device=None):
    """Generate a Vandermonde matrix: columns are powers of ``x``.

    Parameters
    ----------
    x : array_like
        1-D input array.
    N : int, optional
        Number of columns (default ``len(x)``).
    increasing : bool, optional
        Powers increase left to right if True; decrease (default) otherwise.
    device : str or Device, optional
        Where the result lives (default: ``x``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        ``(len(x), N)`` array of dtype ``promote_types(x.dtype, int)``.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or ``N`` is negative.
    """
    func = "vander"
    x = _input_array(x, device, func)
    if x.ndim != 1:
        raise ValueError(f"asnumpy.{func}: x must be a one-dimensional array or sequence.")
    columns = x.shape[0] if N is None else _index(N, "N", func)
    shape = _layout.normalize_shape((x.shape[0], columns), func)
    out = _launch.empty(shape, np.promote_types(x.dtype, np.int_), x.device, func=func)
    _launch.launch("vander", out, x, N=columns, increasing=bool(increasing), func=func)
    return out


# -- grids --------------------------------------------------------------------

def _axis_view(vector, axis, shape) -> ndarray:
    """A 1-D array stretched along ``axis`` of ``shape`` (zero strides elsewhere)."""
    strides = [0] * len(shape)
    strides[axis] = vector.strides[0]
    return vector._view(tuple(shape), tuple(strides), vector._offset)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy", device=None):
    """Return a tuple of coordinate matrices from coordinate vectors.

    Parameters
    ----------
    x1, x2, ..., xn : array_like
        Coordinate vectors (flattened).
    copy : bool, optional
        If False, return views of the inputs (zero-strided, so that several
        elements share memory) instead of new arrays.
    sparse : bool, optional
        If True, each result keeps length 1 along the other axes.
    indexing : {'xy', 'ij'}, optional
        Cartesian ('xy', default) or matrix ('ij') indexing.
    device : str or Device, optional
        Where the results live.  By default the asnumpy inputs' device (they
        must share one), else the current device; an explicit device moves
        asnumpy inputs there.

    Returns
    -------
    tuple of ndarray
        For vectors of lengths ``Ni`` the shape is ``(N1, N2, N3, ...)`` with
        'ij' indexing and ``(N2, N1, N3, ...)`` with 'xy' indexing.
    """
    func = "meshgrid"
    if indexing not in ("xy", "ij"):
        raise ValueError(f"asnumpy.{func}: Valid values for `indexing` are 'xy' and 'ij'.")
    device, arrays = _gather_inputs(func, device, xi)
    vectors = [array.reshape((array.size,)) for array in arrays]
    axes = list(range(len(vectors)))
    if indexing == "xy" and len(axes) > 1:
        axes[0], axes[1] = 1, 0
    full_shape = [1] * len(vectors)
    for axis, vector in zip(axes, vectors):
        full_shape[axis] = vector.shape[0]
    grids = []
    for axis, vector in zip(axes, vectors):
        shape = [1] * len(vectors) if sparse else list(full_shape)
        shape[axis] = vector.shape[0]
        grid = _axis_view(vector, axis, shape)
        grids.append(grid.copy() if copy else grid)
    return tuple(grids)


def indices(dimensions, dtype=int, sparse=False, *, device=None):
    """Return an array representing the indices of a grid.

    Parameters
    ----------
    dimensions : sequence of ints
        The shape of the grid.
    dtype : data-type, optional
        Numeric dtype (default the default integer).
    sparse : bool, optional
        If True, return one array per axis, of length 1 along the other axes.
    device : str or Device, optional
        Where the result lives (default: the current device).

    Returns
    -------
    ndarray or tuple of ndarray
        An array of shape ``(len(dimensions),) + tuple(dimensions)`` whose
        ``i``-th subarray holds the indices along axis ``i``; with ``sparse``
        a tuple of arrays that broadcast to that.
    """
    func = "indices"
    with _named_errors(func):
        dimensions = tuple(_index(d, "dimension", func) for d in dimensions)
    dtype = _dtypes.to_dtype(dtype, func, default=int)
    device = _target_device(device)
    if not sparse:
        dimensions = _layout.normalize_shape(dimensions, func)
    elif any(d < -1 for d in dimensions):
        raise ValueError(f"asnumpy.{func}: negative dimensions are not allowed, got {dimensions}")
    lengths = [max(d, 0) for d in dimensions]
    ramps = [_arange(0, n, 1, dtype, device, func) for n in lengths]
    if sparse:
        return tuple(_axis_view(ramp, axis, [1] * axis + [n] + [1] * (len(lengths) - axis - 1))
                     for axis, (ramp, n) in enumerate(zip(ramps, lengths)))
    out = _launch.empty((len(lengths),) + tuple(lengths), dtype, device, func=func)
    for axis, ramp in enumerate(ramps):
        _launch.launch("copy", out[axis], _axis_view(ramp, axis, lengths), func=func)
    return out


def fromfunction(function, shape, *, dtype=float, like=None, device=None, **kwargs):
    """Construct an array by executing a function over each coordinate.

    ``function`` is called once, with one asnumpy array of coordinates per
    axis (as :func:`indices` gives them), and its result is returned.

    Parameters
    ----------
    function : callable
        Called as ``function(i0, i1, ..., **kwargs)``.
    shape : tuple of ints
        Shape of the coordinate arrays.
    dtype : data-type, optional
        Numeric dtype of the coordinate arrays (default float64).
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.
    device : str or Device, optional
        Where the coordinate arrays live (default: the current device).
    **kwargs
        Passed on to ``function``.

    Returns
    -------
    any
        Whatever ``function`` returns.
    """
    dtype = _dtypes.to_dtype(dtype, "fromfunction", default=float)
    coordinates = indices(shape, dtype=dtype, device=_target_device(device, like))
    return function(*coordinates, **kwargs)


# -- copies and layouts -------------------------------------------------------

def copy(a, order="K", subok=False, *, device=None):
    """Return an array copy of the given object.

    Parameters
    ----------
    a : array_like
        An asnumpy array, or a host array-like (transferred).
    order : {'C', 'F', 'A', 'K'}, optional
        Memory layout of the copy: 'K' (default) follows ``a``'s as closely
        as possible.
    subok : bool, optional
        Accepted for NumPy compatibility (asnumpy has no array subclasses).
    device : str or Device, optional
        Where the copy lives (default: ``a``'s device, the current device for
        host input).

    Returns
    -------
    ndarray
        A new array with ``a``'s values.
    """
    func = "copy"
    order = _order_letter(order, func, "K")
    if not isinstance(a, ndarray):
        with _named_errors(func):
            host = transfer.host_array(a, None, func)
        return transfer.from_host(host, _target_device(device), None, func, order=order)
    source = _input_array(a, device, func)
    out = _launch.empty(source.shape, source.dtype, source.device, order, like=source, func=func)
    _launch.launch("copy", out, source, func=func)
    return out


def _satisfies(array, order) -> bool:
    flags = array.flags
    return flags.c_contiguous if order == "C" else flags.f_contiguous


def _contiguous(a, dtype, order, device, func) -> ndarray:
    """``a`` with at least one dimension, contiguous in ``order``; copied only if needed."""
    dtype = None if dtype is None else _dtypes.to_dtype(dtype, func)
    if not isinstance(a, ndarray):
        with _named_errors(func):
            host = transfer.host_array(a, dtype, func)
        host = host.reshape(1) if host.ndim == 0 else host
        return transfer.from_host(host, _target_device(device), None, func, order=order)
    source = _input_array(a, device, func)
    if source.ndim == 0:
        source = source._view((1,), (source.itemsize,), source._offset)
    dtype = source.dtype if dtype is None else dtype
    if dtype == source.dtype and _satisfies(source, order):
        return source
    out = _launch.empty(source.shape, dtype, source.device, order, func=func)
    _launch.launch("copy", out, source, func=func)
    return out


def ascontiguousarray(a, dtype=None, *, like=None, device=None):
    """Return a contiguous array (ndim >= 1) in memory (C order).

    Parameters
    ----------
    a : array_like
        An asnumpy array or a host array-like (transferred).
    dtype : data-type, optional
        Numeric dtype of the result (default ``a``'s).
    like : array_like, optional
        Accepted for NumPy compatibility.
    device : str or Device, optional
        Where the result lives (default: ``a``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        ``a`` itself when it is already C-contiguous with that dtype and on
        that device (a 0-d array becomes a 1-element view), else a copy.
    """
    return _contiguous(a, dtype, "C", device, "ascontiguousarray")


def asfortranarray(a, dtype=None, *, like=None, device=None):
    """Return an array (ndim >= 1) laid out in Fortran order in memory.

    Parameters
    ----------
    a : array_like
        An asnumpy array or a host array-like (transferred).
    dtype : data-type, optional
        Numeric dtype of the result (default ``a``'s).
    like : array_like, optional
        Accepted for NumPy compatibility.
    device : str or Device, optional
        Where the result lives (default: ``a``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        ``a`` itself when it is already Fortran-contiguous with that dtype and
        on that device (a 0-d array becomes a 1-element view), else a copy.
    """
    return _contiguous(a, dtype, "F", device, "asfortranarray")


# -- from host objects --------------------------------------------------------

def _from_host_source(make_host, dtype, device, func) -> ndarray:
    """Run a NumPy reader on the host, then transfer its result to ``device``."""
    _dtypes.to_dtype(dtype, func)  # numeric dtypes only (any byte order)
    with _named_errors(func):
        host = make_host(np.dtype(dtype))
    return transfer.from_host(host, device, None, func)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None, device=None):
    """Interpret a host buffer as a 1-D array and copy it to the device.

    Parameters
    ----------
    buffer : buffer_like
        An object exposing the buffer interface (bytes, bytearray, memoryview ...).
    dtype : data-type, optional
        Numeric dtype of the data in the buffer (default float64); a
        non-native byte order is read correctly and stored natively.
    count : int, optional
        Number of items to read; -1 (default) reads the whole buffer.
    offset : int, optional
        Start reading from this byte offset (default 0).
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.

    Returns
    -------
    ndarray
        A new (writeable) array holding a copy of the buffer's data.
    """
    return _from_host_source(lambda dt: np.frombuffer(buffer, dt, count, offset),
                             dtype, _target_device(device, like), "frombuffer")


def fromiter(iter, dtype, count=-1, *, like=None, device=None):
    """Create a 1-D array from an iterable object, then copy it to the device.

    Parameters
    ----------
    iter : iterable
        An iterable of numbers.
    dtype : data-type
        Numeric dtype of the result.
    count : int, optional
        Number of items to read; -1 (default) reads all of them.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.
    device : str or Device, optional
        Where the array lives; by default ``like``'s device, else the current one.

    Returns
    -------
    ndarray
        A new 1-D array.
    """
    return _from_host_source(lambda dt: np.fromiter(iter, dt, count), dtype,
                             _target_device(device, like), "fromiter")
