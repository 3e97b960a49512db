"""Medians, percentiles and quantiles, plain and NaN-ignoring.

Each function runs NumPy's own algorithm on the device data (the
``numpy_function`` kernel), so every ``method`` is NumPy's exactly.  Before
the launch, NumPy's function is called on a *probe* (see ``_probes``), which
raises NumPy's errors (q out of range, unknown method, AxisError, complex
input ...) and gives the result dtype; the result shape is ``q.shape``
followed by the unreduced axes of ``a`` (kept as length one with
``keepdims``).  ``q`` given as an asnumpy array is copied to the host.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from .._launch import check_same_device, launch
from ..reductions._operands import NoValue, any_true, device_operand
from ..sorting._numpy_calls import public
from ..ufuncs import UFUNCS
from ._probes import host_value, output, probe_array, quiet, to_device

__all__ = ["median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]


def _result_shape(shape, axis, keepdims, q_shape):
    axes = tuple(range(len(shape))) if axis is None else normalize_axis_tuple(axis, len(shape))
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape)
                 if keepdims or i not in axes)
    return tuple(q_shape) + kept


def _check_weights(a, weights, axis):
    """NumPy's ``_weights_are_valid`` shape rules, and its non-negativity check."""
    if weights.shape != a.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = normalize_axis_tuple(axis, a.ndim)
        if weights.shape != tuple(a.shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
    if weights.size and any_true(UFUNCS["less"](weights, 0)):
        raise ValueError("Weights must be non-negative.")


def _order_statistic(name, a, q, axis, out, overwrite_input, method, keepdims, weights):
    """``numpy.<name>`` on device array ``a``, into ``out`` or a new array."""
    a = device_operand(a, out)
    has_q = q is not None
    check_same_device(name, a._device, q)        # q as a device array: a's device
    args = (a, host_value(q)) if has_q else (a,)
    options = {"axis": axis, "overwrite_input": overwrite_input}
    if keepdims is not NoValue:
        options["keepdims"] = keepdims
    if has_q:
        options["method"] = method
        if weights is not None:
            weights = to_device(weights, a._device, name)
            options["weights"] = weights
    function = getattr(np, name)

    def probe(out_dtype=None, shape=None):
        probe_options = dict(options)
        if weights is not None:
            probe_options["weights"] = probe_array(weights)
        if out_dtype is not None:
            probe_options["out"] = np.empty(shape, out_dtype)
        return np.asarray(quiet(function, probe_array(a), *args[1:], **probe_options))

    result = probe()
    if weights is not None:
        _check_weights(a, weights, axis)
    keep = False if keepdims is NoValue else bool(keepdims)
    if name.startswith("nan") and has_q and np.ndim(args[1]) > 1 and axis is not None:
        # NumPy's nan* functions place a multi-dimensional q's axes unusually here
        # (apply_along_axis, then only the first moved to the front): ask NumPy, on a
        # probe keeping the unreduced axes' lengths (as big as the result, no bigger)
        axes = normalize_axis_tuple(axis, a.ndim)
        full = tuple(min(n, 1) if i in axes else n for i, n in enumerate(a.shape))
        probe_options = {k: v for k, v in options.items() if k != "weights"}
        shape = np.shape(quiet(function, np.ones(full, a.dtype), args[1], **probe_options))
    elif name.startswith("nan") and a.size == 0:
        # NumPy's nan* order statistics return nanmean(a, axis) for empty input:
        # q's axes do not appear (nanquantile([], [0.1, 0.5]) is a 0-d NaN)
        shape = _result_shape(a.shape, axis, keep, ())
    else:
        shape = _result_shape(a.shape, axis, keep, np.shape(args[1]) if has_q else ())
    result_out = output(out, shape, result.dtype, a._device, name,
                        lambda dtype: probe(dtype, result.shape))
    if out is not None:
        options["out"] = result_out
    launch("numpy_function", (result_out,), name, args, options, func=name)
    return result_out


_MEDIAN_DOC = """{summary}

    Runs NumPy's ``{name}`` on the device data.

    Parameters
    ----------
    a : array_like
        Input data (asnumpy arrays stay on their device; host data moves to the
        device of ``out`` or the current device).
    axis : int, tuple of ints or None, optional
        Axes along which the median is computed; None uses the flattened array.
    out : asnumpy.ndarray, optional
        Array of the result's shape to write into.
    overwrite_input : bool, optional
        Allow the input's memory to be used as scratch (its contents are then undefined).
    keepdims : bool, optional
        Keep the reduced axes with length one.

    Returns
    -------
    asnumpy.ndarray
        The median (0-d where NumPy returns a scalar); float64 for integer and bool
        input, else the input's dtype.{extra}

    See Also
    --------
    numpy.{name}
    """

_QUANTILE_DOC = """{summary}

    Runs NumPy's ``{name}`` on the device data, so every ``method`` gives
    NumPy's values.

    Parameters
    ----------
    a : array_like
        Real input data.
    q : array_like of float
        {q_text}  An asnumpy array is copied to the host.
    axis : int, tuple of ints or None, optional
        Axes to compute along; None uses the flattened array.
    out : asnumpy.ndarray, optional
        Array of the result's shape to write into.
    overwrite_input : bool, optional
        Allow the input's memory to be used as scratch.
    method : str, optional
        One of 'inverted_cdf', 'averaged_inverted_cdf', 'closest_observation',
        'interpolated_inverted_cdf', 'hazen', 'weibull', 'linear' (default),
        'median_unbiased', 'normal_unbiased', 'lower', 'higher', 'midpoint', 'nearest'.
    keepdims : bool, optional
        Keep the reduced axes with length one.
    weights : array_like, optional
        Non-negative weights, of ``a``'s shape or of the shape of the reduced axes
        (``method='inverted_cdf'`` only).

    Returns
    -------
    asnumpy.ndarray
        Shape ``q.shape`` followed by the unreduced axes; a 0-d array for a scalar ``q``
        and ``axis=None``.{extra}

    Raises
    ------
    ValueError
        For ``q`` out of range, an unknown method, weights with another method.
    TypeError
        For complex input.
    numpy.exceptions.AxisError
        For an axis out of range.

    See Also
    --------
    numpy.{name}
    """

_NAN_NOTE = ("\n        NaNs are ignored; an all-NaN slice gives NaN and a RuntimeWarning "
             '("All-NaN slice encountered").')


def _median_function(name, keepdims, summary, extra):
    """``numpy.<name>(a, axis, out, overwrite_input, keepdims)`` on the device."""

    def function(a, axis=None, out=None, overwrite_input=False, keepdims=keepdims):
        return _order_statistic(name, a, None, axis, out, overwrite_input, None, keepdims,
                                None)

    return public(name, function, _MEDIAN_DOC.format(name=name, summary=summary, extra=extra))


def _quantile_function(name, keepdims, summary, q_text, extra):
    """``numpy.<name>(a, q, ...)``, a quantile or percentile, on the device."""

    def function(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                 keepdims=keepdims, *, weights=None):
        return _order_statistic(name, a, q, axis, out, overwrite_input, method, keepdims,
                                weights)

    return public(name, function, _QUANTILE_DOC.format(name=name, summary=summary,
                                                       q_text=q_text, extra=extra))


_Q01 = "Quantiles, in [0, 1]."
_Q100 = "Percentiles, in [0, 100]."

median = _median_function("median", False, "Median along the given axes.", "")
nanmedian = _median_function("nanmedian", NoValue, "Median along the given axes, ignoring NaNs.",
                             _NAN_NOTE)
quantile = _quantile_function("quantile", False, "The q-th quantiles along the given axes.",
                              _Q01, "")
percentile = _quantile_function("percentile", False,
                                "The q-th percentiles along the given axes.", _Q100, "")
nanquantile = _quantile_function(
    "nanquantile", NoValue, "The q-th quantiles along the given axes, ignoring NaNs.", _Q01,
    _NAN_NOTE)
nanpercentile = _quantile_function(
    "nanpercentile", NoValue, "The q-th percentiles along the given axes, ignoring NaNs.",
    _Q100, _NAN_NOTE)
