"""asnumpy.emath: mathematical functions whose results go complex when needed.

As ``numpy.emath`` (``numpy.lib.scimath``): for real input whose result would
be outside the real domain (the square root or logarithm of a negative
number, ``arcsin`` of 2 ...), the input is first converted to complex — to
complex64 from float32, int8, int16, uint8 and uint16, else to complex128,
NumPy's rule — and the principal complex value is returned.  Otherwise the
result is the ordinary function's, in the ordinary dtype.  Deciding needs
one reduction read back to the host per argument.
"""

from __future__ import annotations

import numpy as np

from ._core.reductions import any as any_
from ._core.transfer import asarray
from ._core.ufuncs import absolute, arccos as _arccos, arcsin as _arcsin
from ._core.ufuncs import arctanh as _arctanh, divide, greater, less, multiply
from ._core.ufuncs import log as _log, log10 as _log10, log2 as _log2, power as _power
from ._core.ufuncs import sqrt as _sqrt

__all__ = ["sqrt", "log", "log2", "log10", "logn", "power", "arccos", "arcsin", "arctanh"]

# NumPy's _tocomplex: these become complex64, every other real dtype complex128.
_TO_SINGLE_COMPLEX = frozenset(np.dtype(t) for t in ("f4", "i1", "i2", "u1", "u2", "c8"))


def _to_complex(x):
    return x.astype(np.complex64 if x.dtype in _TO_SINGLE_COMPLEX else np.complex128)


def _real_where(x, condition) -> bool:
    """True if ``x`` is real and ``condition(x)`` holds somewhere."""
    return x.dtype.kind != "c" and bool(any_(condition(x)))


def _fix_real_lt_zero(x):
    x = asarray(x)
    return _to_complex(x) if _real_where(x, lambda v: less(v, 0)) else x


def _fix_real_abs_gt_1(x):
    x = asarray(x)
    return _to_complex(x) if _real_where(x, lambda v: greater(absolute(v), 1)) else x


def _fix_int_lt_zero(x):
    x = asarray(x)
    return multiply(x, 1.0) if _real_where(x, lambda v: less(v, 0)) else x


def sqrt(x):
    """Square root, complex for negative real input (``numpy.emath.sqrt``)."""
    return _sqrt(_fix_real_lt_zero(x))


def log(x):
    """Natural logarithm, complex for negative real input (``numpy.emath.log``)."""
    return _log(_fix_real_lt_zero(x))


def log2(x):
    """Base-2 logarithm, complex for negative real input (``numpy.emath.log2``)."""
    return _log2(_fix_real_lt_zero(x))


def log10(x):
    """Base-10 logarithm, complex for negative real input (``numpy.emath.log10``)."""
    return _log10(_fix_real_lt_zero(x))


def logn(n, x):
    """Logarithm of ``x`` to base ``n``, complex where needed (``numpy.emath.logn``)."""
    return divide(_log(_fix_real_lt_zero(x)), _log(_fix_real_lt_zero(n)))


def power(x, p):
    """``x**p``, complex for negative real ``x``; negative integer ``p`` gives floats
    (``numpy.emath.power``)."""
    return _power(_fix_real_lt_zero(x), _fix_int_lt_zero(p))


def arccos(x):
    """Inverse cosine, complex where ``abs(x) > 1`` for real ``x`` (``numpy.emath.arccos``)."""
    return _arccos(_fix_real_abs_gt_1(x))


def arcsin(x):
    """Inverse sine, complex where ``abs(x) > 1`` for real ``x`` (``numpy.emath.arcsin``)."""
    return _arcsin(_fix_real_abs_gt_1(x))


def arctanh(x):
    """Inverse hyperbolic tangent, complex where ``abs(x) > 1`` for real ``x``
    (``numpy.emath.arctanh``)."""
    return _arctanh(_fix_real_abs_gt_1(x))
