"""Helpers of ``asnumpy.polynomial``: coefficient series, trimming, domains, as NumPy's.

``as_series`` makes 1-D device arrays of one common inexact type (NumPy's
``common_type``: integers become float64, float32 stays float32);
``trimseq``/``trimcoef`` drop trailing (highest-degree) coefficients, which
needs the position of the last nonzero one on the host (one small read-back,
as every data-dependent result shape does); ``getdomain`` reduces on the
device; ``mapparms`` and ``mapdomain`` are the affine map between two
intervals.  Domains and windows of the series classes are two host numbers
(the map's parameters, as in NumPy); ``mapdomain`` applies the map to device
data.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core.creation import arange
from .._core.math_functions._operands import PY_SCALARS, device_of, to_device
from .._core.indexing import where
from .._core.manipulation import stack
from .._core.ndarray import ndarray
from .._core.reductions import max as amax
from .._core.reductions import min as amin
from .._core.reductions._operands import named

__all__ = ["as_series", "format_float", "getdomain", "mapdomain", "mapparms", "trimcoef",
           "trimseq"]


def as_int(value, what: str) -> int:
    """``value`` as a Python int (``operator.index``), TypeError naming `what` otherwise."""
    try:
        return operator.index(value)
    except TypeError as exc:
        raise TypeError(f"{what} must be an integer, received {value}") from exc


def is_series(value) -> bool:
    """Whether `value` is one of the series classes (``Polynomial``, ``Chebyshev``, ...).

    Their base sets ``__asnumpy_series__``; the test needs no import of it (it sits
    above this module).
    """
    return getattr(type(value), "__asnumpy_series__", False)


def device_array(value, device, func, ndmin=0) -> ndarray:
    """`value` (device or host data) as a device array on `device`, at least `ndmin`-D."""
    a = to_device(value, device, func)
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def last_nonzero(a: ndarray) -> int:
    """Index of the last nonzero element of 1-D device array `a`, -1 if there is none.

    One reduction on the device, one number read back.
    """
    if a.shape[0] == 0:
        return -1
    return int(amax(where(a != 0, arange(a.shape[0], device=a.device), -1)).item())


def _trimmed(a: ndarray) -> ndarray:
    return a[:max(last_nonzero(a), 0) + 1]


@named("polynomial.polyutils.as_series")
def as_series(alist, trim=True):
    """Coefficient sequences as 1-D device arrays of one common inexact type.

    Parameters
    ----------
    alist : array_like
        A sequence of coefficient arrays (device or host), or a 2-D array (its rows).
    trim : bool, optional
        Whether trailing zeros are removed (at least one coefficient stays).

    Returns
    -------
    list of asnumpy.ndarray
        Copies, 1-D, of NumPy's ``common_type`` of the inputs.

    Raises
    ------
    ValueError
        For an empty or multidimensional coefficient array, or types with no common
        inexact type.

    See Also
    --------
    numpy.polynomial.polyutils.as_series
    """
    device = device_of(alist)
    arrays = [device_array(a, device, "polynomial.polyutils.as_series", ndmin=1) for a in alist]
    for a in arrays:
        if a.size == 0:
            raise ValueError("Coefficient array is empty")
        if a.ndim != 1:
            raise ValueError("Coefficient array is not 1-d")
    if trim:
        arrays = [_trimmed(a) for a in arrays]
    try:
        dtype = np.dtype(np.common_type(*(np.empty(0, a.dtype) for a in arrays)))
    except TypeError as exc:
        raise ValueError("Coefficient arrays have no common type") from exc
    return [a.astype(dtype, copy=True) for a in arrays]


@named("polynomial.polyutils.trimseq")
def trimseq(seq):
    """`seq` without its trailing zeros (the first element always stays).

    Parameters
    ----------
    seq : sequence or 1-D asnumpy.ndarray
        Coefficients, lowest degree first.

    Returns
    -------
    same type as `seq`
        A slice of `seq`.

    See Also
    --------
    numpy.polynomial.polyutils.trimseq
    """
    if isinstance(seq, ndarray):
        return _trimmed(seq) if seq.ndim == 1 and seq.shape[0] else seq
    if len(seq) == 0 or seq[-1] != 0:
        return seq
    last = max((i for i, v in enumerate(seq) if v != 0), default=0)
    return seq[:last + 1]


@named("polynomial.polyutils.trimcoef")
def trimcoef(c, tol=0):
    """Drop trailing coefficients whose magnitude is at most `tol`.

    Parameters
    ----------
    c : array_like
        1-D coefficients, lowest degree first.
    tol : number, optional
        Trailing coefficients with ``abs(c) <= tol`` are removed.

    Returns
    -------
    asnumpy.ndarray
        The trimmed coefficients (``[0]`` of c's type when none is left).

    Raises
    ------
    ValueError
        If `tol` is negative.

    See Also
    --------
    numpy.polynomial.polyutils.trimcoef
    """
    if tol < 0:
        raise ValueError("tol must be non-negative")
    [c] = as_series([c])
    last = last_nonzero(abs(c) > tol)
    return c[:1] * 0 if last < 0 else c[:last + 1].copy()


@named("polynomial.polyutils.getdomain")
def getdomain(x):
    """The smallest interval (a rectangle for complex data) that holds `x`.

    Parameters
    ----------
    x : array_like
        1-D points.

    Returns
    -------
    asnumpy.ndarray
        ``[min, max]`` of `x` (complex: the corners ``min.real + 1j*min.imag`` and
        ``max.real + 1j*max.imag``), on `x`'s device.

    See Also
    --------
    numpy.polynomial.polyutils.getdomain
    """
    [x] = as_series([x], trim=False)
    if x.dtype.kind == "c":
        low = amin(x.real) + 1j * amin(x.imag)
        high = amax(x.real) + 1j * amax(x.imag)
        return stack([low, high]).astype(np.complex128)
    return stack([amin(x), amax(x)])


def _pair(value):
    """A domain or window as its two ends (host or device scalars)."""
    if isinstance(value, (ndarray, np.ndarray, list, tuple)):
        return value[0], value[1]          # Python numbers stay Python numbers, as NumPy's
    value = np.asarray(value)
    return value[0], value[1]


@named("polynomial.polyutils.mapparms")
def mapparms(old, new):
    """Offset and scale of the linear map from interval `old` to interval `new`.

    Parameters
    ----------
    old, new : array_like
        Two ends each.

    Returns
    -------
    off, scl : scalar
        ``new = off + scl*old`` (host scalars for host intervals, 0-d device arrays
        for device ones).

    See Also
    --------
    numpy.polynomial.polyutils.mapparms
    """
    (old0, old1), (new0, new1) = _pair(old), _pair(new)
    oldlen, newlen = old1 - old0, new1 - new0
    return (old1 * new0 - old0 * new1) / oldlen, newlen / oldlen


@named("polynomial.polyutils.mapdomain")
def mapdomain(x, old, new):
    """Apply the linear map from interval `old` to interval `new` to `x`.

    Parameters
    ----------
    x : array_like or scalar
        Points (host data is moved to the device of the asnumpy operands).
    old, new : array_like
        Two ends each.

    Returns
    -------
    asnumpy.ndarray or scalar
        ``off + scl*x``.

    See Also
    --------
    numpy.polynomial.polyutils.mapdomain
    """
    if not (isinstance(x, PY_SCALARS) or isinstance(x, np.generic) or is_series(x)):
        x = device_array(x, device_of(x, old, new), "polynomial.polyutils.mapdomain")
    off, scl = mapparms(old, new)
    return off + scl * x


def format_float(x, parens=False):
    """A coefficient as the series classes print it (NumPy's print options).

    Parameters
    ----------
    x : scalar
        A number (a 0-d device array is read back).
    parens : bool, optional
        Whether a number printed in scientific notation (or a nan/inf) is put in
        parentheses, as inside a printed series.

    Returns
    -------
    str

    See Also
    --------
    numpy.polynomial.polyutils.format_float
    """
    if isinstance(x, ndarray):
        x = x.get()[()]
    return np.polynomial.polyutils.format_float(x, parens)


def host_interval(value, what: str) -> np.ndarray:
    """A domain or window as a host array of two numbers (NumPy's ``as_series`` type)."""
    if isinstance(value, ndarray):
        value = value.get()
    value = np.array(value, ndmin=1)
    if value.size == 0 or value.ndim != 1:
        raise ValueError(f"{what} has wrong number of elements.")
    try:
        value = value.astype(np.common_type(value))
    except TypeError as exc:
        raise ValueError("Coefficient arrays have no common type") from exc
    if len(value) != 2:
        raise ValueError(f"{what} has wrong number of elements.")
    return value
