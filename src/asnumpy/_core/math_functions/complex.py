"""Complex parts: real, imag, angle and real_if_close."""

from __future__ import annotations

import math

import numpy as np

from ..ufuncs import UFUNCS
from ._operands import all_true, device_of, to_device

__all__ = ["angle", "imag", "real", "real_if_close"]


def real(val):
    """The real part of the elements, as ``numpy.real``.

    Returns
    -------
    asnumpy.ndarray
        A view of the real parts for complex input; the array itself otherwise.
    """
    return to_device(val, device_of(val), "real").real


def imag(val):
    """The imaginary part of the elements, as ``numpy.imag``.

    Returns
    -------
    asnumpy.ndarray
        A view of the imaginary parts for complex input; a read-only array
        of zeros (of the input's dtype) otherwise.
    """
    return to_device(val, device_of(val), "imag").imag


def angle(z, deg=False):
    """The counterclockwise angle from the positive real axis, as ``numpy.angle``.

    Parameters
    ----------
    z : array_like
        Complex (or real) numbers.
    deg : bool, optional
        Degrees instead of radians.

    Returns
    -------
    asnumpy.ndarray
        ``arctan2(z.imag, z.real)`` (``arctan2(0, z)`` for real input), in
        NumPy's result dtype.
    """
    z = to_device(z, device_of(z), "angle")
    if z.dtype.kind == "c":
        result = UFUNCS["arctan2"](z.imag, z.real)
    else:
        result = UFUNCS["arctan2"](0, z)
    if deg:
        UFUNCS["multiply"](result, 180 / math.pi, out=result)
    return result


def real_if_close(a, tol=100):
    """The real parts if every imaginary part is within ``tol``, as ``numpy.real_if_close``.

    Parameters
    ----------
    a : array_like
        Input data.
    tol : float, optional
        Tolerance: in machine epsilons of ``a``'s dtype when above 1, else absolute.

    Returns
    -------
    asnumpy.ndarray
        ``a.real`` (a view) when all ``|a.imag| < tol``, else ``a``.  One
        boolean crosses to the host to decide.
    """
    a = to_device(a, device_of(a), "real_if_close")
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    if all_true(UFUNCS["less"](UFUNCS["absolute"](a.imag), tol)):
        return a.real
    return a
