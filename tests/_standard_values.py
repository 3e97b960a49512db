"""NumPy's ufuncs with the Array API standard's special values asnumpy follows.

asnumpy deviates from NumPy where the standard's special cases say so
(``floor_divide`` with one infinite operand, complex ``expm1`` and ``tanh``:
docs/interop.md); differential tests compare asnumpy with
:func:`following_the_standard` instead of the bare NumPy ufunc.  The
deviations themselves -- the cpu back end's table -- are checked row by row
against the standard's text in tests/test_array_api_special_cases.py.
"""

from __future__ import annotations

import numpy as np

from asnumpy.backends.cpu.math_kernels import STANDARD_VALUES

__all__ = ["following_the_standard"]


def following_the_standard(name):
    """``numpy.<name>``, or a function giving its results with the standard's special
    values (and NumPy's warnings for the other elements only) for positional calls."""
    ufunc = getattr(np, name)
    if name not in STANDARD_VALUES:
        return ufunc
    chars, select, value = STANDARD_VALUES[name]

    def call(*args, **kwargs):
        with np.errstate(all="ignore"):
            numpys = ufunc(*args, **kwargs)                    # NumPy's dtype, shape, errors
        if kwargs or np.asarray(numpys).dtype.char not in chars:
            return ufunc(*args, **kwargs)
        result = np.array(numpys)
        inputs = [np.broadcast_to(np.asarray(x, dtype=result.dtype), result.shape) for x in args]
        with np.errstate(all="ignore"):
            special = select(*inputs)
        if special is None or not special.any():
            return ufunc(*args)
        ufunc(*args, out=result, where=~special)              # warns for the others only
        with np.errstate(all="ignore"):
            result[special] = value(*(x[special] for x in inputs))
        return result if isinstance(numpys, np.ndarray) else result[()]

    return call
