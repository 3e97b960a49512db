"""Covariance and correlation coefficients: cov, corrcoef.

NumPy's own functions run on the device data (the ``numpy_function``
kernel).  The shape rules (variables by rows or columns, ``y`` stacked
under ``m``, the squeezed ``(N, N)`` result) and the weight checks (data
checks run as device reductions) are settled before the launch; dtypes and
NumPy's remaining errors come from a call on small host probes.
"""

from __future__ import annotations

import numpy as np

from .._launch import empty, launch
from ..reductions._operands import any_true
from ..sorting._numpy_calls import fill_doc
from ..ufuncs import UFUNCS
from ._probes import device_of, named, probe_array, quiet, to_device

__all__ = ["corrcoef", "cov"]

_F8 = np.dtype(np.float64)

_VARIABLES = """{x} : array_like
        1-D or 2-D: each row a variable, each column an observation (``rowvar``).
    y : array_like, optional
        More variables, laid out like ``{x}``.
    rowvar : bool, optional
        True: variables are rows; False: variables are columns."""


def _variables(x, rowvar):
    """(rows, observations) of ``x`` as NumPy lays it out (``array(x, ndmin=2)``, maybe .T)."""
    shape = (1,) * (2 - x.ndim) + x.shape
    return shape[::-1] if not rowvar and x.ndim == 2 else shape


def _y_variables(y, rowvar):
    shape = (1,) * (2 - y.ndim) + y.shape
    return shape[::-1] if not rowvar and shape[0] != 1 else shape


def _weights(weights, name, observations, device, func, integral):
    """``weights`` as a float64 device array, checked as ``numpy.cov`` checks it."""
    weights = to_device(weights, device, func)
    if weights.dtype != _F8:
        weights = weights.astype(_F8)
    if integral and weights.size:
        rounded = UFUNCS["rint"](weights)          # numpy.around with 0 decimals
        if any_true(UFUNCS["not_equal"](weights, rounded)):
            raise TypeError("fweights must be integer")
    if weights.ndim > 1:
        raise RuntimeError(f"asnumpy.{func}: cannot handle multidimensional {name}")
    if weights.ndim == 0:
        raise IndexError("tuple index out of range")
    if weights.shape[0] != observations:
        raise RuntimeError(f"asnumpy.{func}: incompatible numbers of samples and {name}")
    if weights.size and any_true(UFUNCS["less"](weights, 0)):
        raise ValueError(f"{name} cannot be negative")
    return weights


def _run(func, m, y, rowvar, options, fweights=None, aweights=None):
    """Validate, allocate and launch ``numpy.<func>(m, y, rowvar, **options)``."""
    device = device_of(m, y, fweights, aweights)
    m = to_device(m, device, func)
    y = None if y is None else to_device(y, device, func)
    numpy_function = getattr(np, func)
    quiet(numpy_function, probe_array(m), None, rowvar, **options)   # ddof, m.ndim, dtype
    if y is not None and y.ndim > 2:
        raise ValueError("y has more than 2 dimensions")
    rows, observations = _variables(m, rowvar)
    if rows == 0:
        out = empty((0, 0), _F8, device, func=func)
        return out
    if y is not None:
        y_rows, y_observations = _y_variables(y, rowvar)
        if y_observations != observations:
            raise ValueError(
                "all the input array dimensions except for the concatenation axis must match "
                f"exactly, but along dimension 1, the array at index 0 has size {observations} "
                f"and the array at index 1 has size {y_observations}")
        rows += y_rows
    weights = {}
    if fweights is not None:
        weights["fweights"] = _weights(fweights, "fweights", observations, device, func, True)
    if aweights is not None:
        weights["aweights"] = _weights(aweights, "aweights", observations, device, func, False)
    probe_weights = {key: probe_array(value) for key, value in weights.items()}
    probe_y = None if y is None else probe_array(y)
    dtype = np.asarray(quiet(numpy_function, probe_array(m), probe_y, rowvar,
                             **options, **probe_weights)).dtype
    shape = () if rows == 1 else (rows, rows)
    out = empty(shape, dtype, device, func=func)
    launch("numpy_function", (out,), func, (m, y, rowvar), {**options, **weights}, func=func)
    return out


@named("cov")
@fill_doc(variables=_VARIABLES.format(x="m"))
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """Covariance matrix of the variables in ``m`` (and ``y``), as ``numpy.cov``.

    Parameters
    ----------
    {variables}
    bias : bool, optional
        Normalize by ``N`` instead of ``N - 1`` (overridden by ``ddof``).
    ddof : int, optional
        Delta degrees of freedom.
    fweights : array_like of int, optional
        Integer frequency weights, one per observation.
    aweights : array_like, optional
        Observation weights.
    dtype : dtype, optional
        Computation and result dtype (by default at least float64).

    Returns
    -------
    asnumpy.ndarray
        ``(N, N)``; 0-d for a single variable, ``(0, 0)`` float64 for no variables.

    Raises
    ------
    ValueError
        For more than 2 dimensions, non-integer ``ddof``, negative weights.
    RuntimeError
        For weights of the wrong shape (as NumPy).
    TypeError
        For non-integer ``fweights``.

    See Also
    --------
    numpy.cov
    """
    options = {"bias": bias, "ddof": ddof, "dtype": dtype}
    return _run("cov", m, y, rowvar, options, fweights, aweights)


@named("corrcoef")
@fill_doc(variables=_VARIABLES.format(x="x"))
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients, as ``numpy.corrcoef``.

    Parameters
    ----------
    {variables}
    dtype : dtype, optional
        Computation and result dtype (by default at least float64).

    Returns
    -------
    asnumpy.ndarray
        ``(N, N)``, values clipped to [-1, 1] (real and imaginary parts for complex
        input); 0-d for a single variable.

    See Also
    --------
    numpy.corrcoef
    """
    return _run("corrcoef", x, y, rowvar, {"dtype": dtype})
