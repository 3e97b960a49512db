"""Shared pieces of the order statistics: operands, probes, outputs and errors.

Validation follows one pattern: NumPy's own function is called on a *probe*
(a tiny host array of the operand's dtype whose axes have length
``min(n, 1)``), which raises NumPy's errors and yields NumPy's result dtype
without reading device data.  Errors are re-raised with their public type
and a message naming ``asnumpy.<func>``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._launch import empty
from ..math_functions._operands import device_of, fetch, to_device
from ..ndarray import ndarray
from ..reductions._operands import named
from ..ufuncs.ufunc_methods import _check_out as check_out

__all__ = [
    "device_of",
    "fetch",
    "host_value",
    "named",
    "output",
    "probe_array",
    "quiet",
    "to_device",
]


def probe_array(x, dtype=None):
    """A host array of ``x``'s dtype (or ``dtype``) with each axis of length ``min(n, 1)``."""
    shape = tuple(min(n, 1) for n in x.shape)
    return np.ones(shape, x.dtype if dtype is None else dtype)


def quiet(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with warnings and floating-point errors silenced.

    Probes compute on stand-in data (ones), so their warnings and errors say
    nothing about the user's data: under ``errstate(all="raise")`` a probe of
    ``cov`` would otherwise divide by zero for a single observation.
    """
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def host_value(value):
    """A small operand (``q``) on the host: device arrays are copied back, the rest kept."""
    if isinstance(value, ndarray):
        return fetch(value)
    return value


def output(out, shape, dtype, device, func, probe_call=None):
    """The result array: a new one from the pool, or a checked ``out``.

    ``probe_call(host_out)`` reruns the probe with an output of ``out``'s
    dtype, so NumPy's casting errors are raised for it.
    """
    if out is None:
        return empty(shape, dtype, device, func=func)
    check_out(func, out, shape, device)
    if probe_call is not None:
        probe_call(out.dtype)
    return out
