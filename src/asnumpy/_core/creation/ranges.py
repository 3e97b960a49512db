"""Numerical ranges: arange, linspace, logspace, geomspace."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtypes
from .. import _launch, _layout
from ..ndarray import ndarray
from ._allocation import (
    _MAX_INTP,
    _MAX_LENGTH,
    _PYTHON_SCALARS,
    _broadcast_shape,
    _gather_inputs,
    _index,
    _iterator_layout,
    _Layout,
    _named_errors,
    _nonzero_strides,
    _operand_strides,
    _result_type,
    _shape_of,
    _shared_doc,
    _strong_dtype,
    _target_device,
)

__all__ = ["arange", "geomspace", "linspace", "logspace"]


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


@_shared_doc
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
    $device_like

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
