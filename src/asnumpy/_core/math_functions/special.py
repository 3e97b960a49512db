"""Special functions: sinc and i0."""

from __future__ import annotations

import math

import numpy as np

from .._launch import empty, launch
from ..ufuncs import UFUNCS
from ._operands import copyto, device_of, probe, to_device

__all__ = ["i0", "sinc"]


def sinc(x):
    """The normalized sinc function ``sin(pi x) / (pi x)``, as ``numpy.sinc``.

    Returns
    -------
    asnumpy.ndarray
        1 where ``x == 0`` (NumPy evaluates ``sin(eps)/eps`` there);
        integers and bools give float64.
    """
    x = to_device(x, device_of(x), "sinc")
    y = UFUNCS["multiply"](math.pi, x)
    eps = np.finfo(y.dtype).eps if y.dtype.kind == "f" else 1e-20
    copyto(y, eps, UFUNCS["equal"](y, 0), "sinc")
    return UFUNCS["divide"](UFUNCS["sin"](y), y)


def i0(x):
    """The modified Bessel function of the first kind, order 0, as ``numpy.i0``.

    Computed by NumPy's own Chebyshev series on the device's kernel library
    (the ``numpy_function`` kernel).  Complex input raises TypeError.

    Returns
    -------
    asnumpy.ndarray
        Float input keeps its dtype; integers and bools give float64.
    """
    x = to_device(x, device_of(x), "i0")
    try:
        dtype = np.asarray(np.i0(probe(x))).dtype
    except TypeError as error:
        raise TypeError(f"asnumpy.i0: {error}") from None
    out = empty(x.shape, dtype, x._device, func="i0")
    launch("numpy_function", (out,), "i0", (x,), {}, func="i0")
    return out
