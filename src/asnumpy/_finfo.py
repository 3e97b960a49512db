"""finfo: NumPy's machine limits of a floating-point type, in Python numbers.

The Array API standard asks that ``finfo(float32).eps`` & co. be Python
floats; NumPy's are scalars of the type itself (``numpy.float32`` is no
``float``).  :class:`finfo` holds the very same limits as ``numpy.finfo``,
exactly (every float16/32/64 value is a Python float), with NumPy's
arguments, errors and text.
"""

from __future__ import annotations

import numpy as np

__all__ = ["finfo"]

# NumPy's finfo attributes, by the Python type they are given as here
_FLOATS = ("eps", "epsneg", "max", "min", "resolution", "smallest_normal",
           "smallest_subnormal", "tiny")
_INTS = ("bits", "iexp", "machep", "maxexp", "minexp", "negep", "nexp", "nmant", "precision")


class finfo:
    """Machine limits for floating-point types, as ``numpy.finfo``.

    Parameters
    ----------
    dtype : dtype, type, instance or array (NumPy or asnumpy)
        A floating or complex type (complex types give their real part's limits).

    Attributes
    ----------
    bits, precision, iexp, machep, maxexp, minexp, negep, nexp, nmant : int
        As NumPy's.
    eps, epsneg, max, min, resolution, smallest_normal, smallest_subnormal, tiny : float
        NumPy's values as Python floats (the standard's requirement; NumPy gives
        scalars of ``dtype``).  ``longdouble`` keeps NumPy's scalars.
    dtype : numpy.dtype
        The real floating dtype described.

    Raises
    ------
    ValueError
        For a type that is not inexact (NumPy's error).
    """

    _cache: dict = {}

    def __new__(cls, dtype):
        limits = np.finfo(dtype)           # NumPy's argument handling and errors
        self = cls._cache.get(limits.dtype)
        if self is None:
            self = super().__new__(cls)
            self._numpy = limits
            exact = limits.dtype.itemsize <= 8         # else a Python float would round
            for name in _FLOATS:
                value = getattr(limits, name)
                setattr(self, name, float(value) if exact else value)
            for name in _INTS:
                setattr(self, name, int(getattr(limits, name)))
            self.dtype = limits.dtype
            cls._cache[limits.dtype] = self
        return self

    def __reduce__(self):
        return finfo, (self.dtype,)

    def __repr__(self):
        return repr(self._numpy)

    def __str__(self):
        return str(self._numpy)
