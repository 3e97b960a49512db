"""Rounding: around/round (to a number of decimals) and fix (towards zero)."""

from __future__ import annotations

import operator

import numpy as np

from .._layout import shape_text
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import device_of, to_device

__all__ = ["around", "fix", "round"]


def _is_fortran(array) -> bool:
    flags = array.flags
    return flags.f_contiguous and not flags.c_contiguous and array.ndim > 1


def _round(a, decimals, out, func):
    """NumPy's rounding algorithm (``PyArray_Round``) composed from ufuncs."""
    if a.dtype.kind == "c":
        target = out if out is not None else a.copy(order="K")
        target.real = _round(a.real, decimals, None, func)
        target.imag = _round(a.imag, decimals, None, func)
        return target
    integer = a.dtype.kind in "iu"
    if decimals >= 0:
        if integer:                         # already exact
            if out is None:
                return a.copy(order="K")
            if not np.can_cast(a.dtype, out.dtype, casting="same_kind"):
                raise TypeError(f"asnumpy.{func}: Cannot cast array data from {a.dtype!r} to "
                                f"{out.dtype!r} according to the rule 'same_kind'")
            out[...] = a
            return out
        if decimals == 0:
            return UFUNCS["rint"](a, out=out)
        scale_up, scale_down = UFUNCS["multiply"], UFUNCS["divide"]
    else:
        scale_up, scale_down = UFUNCS["divide"], UFUNCS["multiply"]
        decimals = -decimals
    result = out
    if result is None:
        from .._launch import empty

        dtype = np.dtype(np.float64) if integer else a.dtype
        result = empty(a.shape, dtype, a._device, order="F" if _is_fortran(a) else "C",
                       func=func)
    factor = _power_of_ten(decimals)
    scale_up(a, factor, out=result)
    UFUNCS["rint"](result, out=result)
    scale_down(result, factor, out=result)
    if integer and out is None:
        return result.astype(a.dtype, order="F" if _is_fortran(a) else "C")
    return result


def _power_of_ten(n):
    """``10.0**n`` computed as NumPy does (exact to 1e22, then repeated products)."""
    if n < 9:
        return float(10 ** n)
    factor = 1e9
    for _ in range(n - 9):
        factor *= 10.0
        if factor == float("inf"):
            break
    return factor


def around(a, decimals=0, out=None):
    """Round to the given number of decimals, as ``numpy.around``.

    Parameters
    ----------
    a : array_like
        Input data.
    decimals : int, optional
        Number of decimal places (negative: positions left of the decimal point).
    out : asnumpy.ndarray, optional
        Where to put the result (same number of elements as ``a``).

    Returns
    -------
    asnumpy.ndarray
        Halves round to the nearest even value (1.5 and 2.5 both give 2.0).
        Floats are scaled by ``10**decimals``, rounded with ``rint`` and
        scaled back, exactly as NumPy does; integers stay exact for
        ``decimals >= 0`` and go through float64 otherwise (as in NumPy).
        Complex values have their real and imaginary parts rounded separately.
    """
    return _round_entry(a, decimals, out, "around")


def round(a, decimals=0, out=None):
    """Round to the given number of decimals, as ``numpy.round`` (see :func:`around`)."""
    return _round_entry(a, decimals, out, "round")


def _round_entry(a, decimals, out, func):
    decimals = operator.index(decimals)
    if out is not None and not isinstance(out, ndarray):
        raise TypeError(f"asnumpy.{func}: out must be an asnumpy.ndarray, got {type(out).__name__}")
    a = to_device(a, device_of(a, out), func)
    if out is not None and out.size != a.size:
        raise ValueError(f"asnumpy.{func}: invalid output shape: out has shape "
                         f"{shape_text(out.shape)}, the input {shape_text(a.shape)}")
    return _round(a, decimals, out, func)


def fix(x, out=None):
    """Round towards zero, as ``numpy.fix`` (``trunc``: integers and bools keep their dtype).

    Parameters
    ----------
    x : array_like
        Input data.
    out : asnumpy.ndarray, optional
        Where to put the result.

    Returns
    -------
    asnumpy.ndarray
    """
    return UFUNCS["trunc"](x, out=out)


def _ndarray_round(self, decimals=0, out=None):
    """``a.round(decimals=0, out=None)``: see :func:`asnumpy.around`."""
    return _round_entry(self, decimals, out, "ndarray.round")


METHODS = {"round": _ndarray_round}
