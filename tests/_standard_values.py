"""NumPy's ufuncs with the Array API standard's special values asnumpy follows.

asnumpy deviates from NumPy where the standard's special cases say so
(``floor_divide`` with one infinite operand, complex ``expm1`` and ``tanh``:
docs/interop.md); differential tests compare asnumpy with
:func:`following_the_standard` instead of the bare NumPy ufunc.  The
deviations themselves -- the cpu back end's table -- are checked row by row
against the standard's text in tests/core/ufuncs/test_array_api_special_cases.py.
"""

from __future__ import annotations

import warnings

import numpy as np

from asnumpy.backends.cpu.math_kernels import STANDARD_VALUES

__all__ = ["following_the_standard", "ufunc_following_the_standard"]


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


class _UfuncFollowingTheStandard:
    """``numpy.<name>`` whose call, ``reduce``, ``accumulate`` and ``outer`` give the
    standard's special values: the methods are folds (and a broadcast) of the call.

    NumPy computes each method first, so its result dtypes, shapes and errors
    (an empty reduction without identity, several axes of a non-reorderable
    ufunc) stay the reference; keyword forms other than ``axis``/``keepdims``
    are NumPy's own.
    """

    def __init__(self, name):
        self._ufunc = getattr(np, name)
        self._call = following_the_standard(name)
        self._chars = STANDARD_VALUES[name][0]

    def __getattr__(self, attribute):
        return getattr(self._ufunc, attribute)

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def outer(self, a, b, **kwargs):
        if kwargs:
            return self._ufunc.outer(a, b, **kwargs)
        a, b = np.asarray(a), np.asarray(b)
        return self._call(a.reshape(a.shape + (1,) * b.ndim), b)

    def accumulate(self, a, axis=0, **kwargs):
        expected = self._ufunc.accumulate(a, axis=axis, **kwargs)
        if kwargs or expected.dtype.char not in self._chars:
            return expected
        steps = np.moveaxis(np.asarray(a, dtype=expected.dtype), axis, 0)
        folded = np.moveaxis(expected.copy(), axis, 0)
        with warnings.catch_warnings():     # the warnings are NumPy's method's, raised above
            warnings.simplefilter("ignore")
            for i in range(1, len(steps)):
                folded[i] = self._call(folded[i - 1], steps[i])
        return np.moveaxis(folded, 0, axis)

    def reduce(self, a, axis=0, keepdims=False, **kwargs):
        expected = self._ufunc.reduce(a, axis=axis, keepdims=keepdims, **kwargs)
        a = np.asarray(a)
        axes = tuple(range(a.ndim)) if axis is None else np.atleast_1d(axis).tolist()
        if kwargs or len(axes) != 1 or np.asarray(expected).dtype.char not in self._chars:
            return expected
        folded = np.take(self.accumulate(a, axis=axes[0]), -1, axis=axes[0])
        return np.expand_dims(folded, axes[0]) if keepdims else folded


def ufunc_following_the_standard(name):
    """``numpy.<name>``, or its methods with the standard's special values (see above)."""
    return _UfuncFollowingTheStandard(name) if name in STANDARD_VALUES else getattr(np, name)
