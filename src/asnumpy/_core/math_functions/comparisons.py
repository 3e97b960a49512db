"""Closeness, equality and type tests: isclose, allclose, array_equal, array_equiv,
isreal, iscomplex, isrealobj, iscomplexobj, isneginf, isposinf.
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .._launch import check_same_device, empty, launch
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import PY_SCALARS, all_true, device_of, to_device
from ..._errors import user_stacklevel

__all__ = [
    "allclose",
    "array_equal",
    "array_equiv",
    "isclose",
    "iscomplex",
    "iscomplexobj",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
]

_PY_NUMBERS = (int, float, complex)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|``, as ``numpy.isclose`` (NumPy 2).

    Parameters
    ----------
    a, b : array_like
        Values to compare (broadcast together).
    rtol, atol : array_like, optional
        Relative and absolute tolerances; Python scalars stay weak (NEP 50),
        so float32 inputs are compared in float32.
    equal_nan : bool, optional
        Whether NaNs in the same place compare equal.

    Returns
    -------
    asnumpy.ndarray
        Booleans (0-d for scalar inputs).  Infinities are close only to the
        same infinity.  A non-finite tolerance is reported per
        ``numpy.geterr()['invalid']``, as in NumPy.
    """
    device = device_of(a, b, rtol, atol)
    x, y, atol, rtol = (v if isinstance(v, _PY_NUMBERS) else to_device(v, device, "isclose")
                        for v in (a, b, atol, rtol))
    if isinstance(y, ndarray):
        dtype = np.result_type(y.dtype, 1.0)
        if dtype != y.dtype:
            y = y.astype(dtype)
    elif isinstance(y, int):
        y = float(y)
    if not (_all_finite(atol) and _all_finite(rtol)):
        _report_invalid(f"One of rtol or atol is not valid, atol: {atol}, rtol: {rtol}")
    with np.errstate(invalid="ignore"):
        bound = _weak("add", atol, _weak("multiply", rtol, _weak("absolute", y)))
        within = UFUNCS["less_equal"](_weak("absolute", _weak("subtract", x, y)), bound)
        result = UFUNCS["logical_or"](UFUNCS["logical_and"](within, UFUNCS["isfinite"](y)),
                                      UFUNCS["equal"](x, y))
        if equal_nan:
            both_nan = UFUNCS["logical_and"](UFUNCS["isnan"](x), UFUNCS["isnan"](y))
            UFUNCS["logical_or"](result, both_nan, out=result)
    return result


_PYTHON_OPS = {"add": operator.add, "multiply": operator.mul, "subtract": operator.sub,
               "absolute": abs}


def _weak(name, *args):
    """The ufunc ``name`` of ``args``; of Python numbers alone, Python's operator, as in
    NumPy's isclose (``rtol * abs(y)`` of Python floats stays a weak Python float)."""
    if all(isinstance(a, _PY_NUMBERS) for a in args):
        return _PYTHON_OPS[name](*args)
    return UFUNCS[name](*args)


def _all_finite(value) -> bool:
    if isinstance(value, ndarray):
        return all_true(UFUNCS["isfinite"](value))
    if isinstance(value, complex):
        return math.isfinite(value.real) and math.isfinite(value.imag)
    if type(value) is int and not -2**63 <= value < 2**64:
        # NumPy's isfinite sees an object array, before any broadcasting
        raise TypeError("asnumpy.isclose: ufunc 'isfinite' not supported for the input types, "
                        "and the inputs could not be safely coerced to any supported types "
                        f"according to the casting rule ''safe'' (a tolerance of {value})")
    return math.isfinite(value)


def _report_invalid(message):
    mode = np.geterr()["invalid"]
    if mode == "warn":
        warnings.warn(message, RuntimeWarning, stacklevel=user_stacklevel())
    elif mode == "raise":
        raise FloatingPointError(message)
    elif mode == "print":
        print(message)
    elif mode == "call":
        call = np.geterrcall()
        if call is not None:
            call(message, 0)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are close (see :func:`isclose`), as ``numpy.allclose``.

    Returns
    -------
    bool
        A Python bool.
    """
    return all_true(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _both(a1, a2, func):
    """Both operands on one device, or None where NumPy's conversion would fail.

    Two asnumpy arrays on different devices are an error (the mixing rule), not
    a False answer.
    """
    device = device_of(a1, a2)
    check_same_device(func, device, a1, a2)
    try:
        return to_device(a1, device, func), to_device(a2, device, func)
    except (TypeError, ValueError, OverflowError):
        return None


def array_equal(a1, a2, equal_nan=False):
    """Whether two arrays have the same shape and elements, as ``numpy.array_equal``.

    Parameters
    ----------
    a1, a2 : array_like
        Inputs.
    equal_nan : bool, optional
        Whether NaNs compare equal (complex values count as NaN when either part is).

    Returns
    -------
    bool
        A Python bool; inputs NumPy cannot turn into arrays give False.
    """
    pair = _both(a1, a2, "array_equal")
    if pair is None:
        return False
    x, y = pair
    if x.shape != y.shape:
        return False
    if equal_nan and x is y:
        return True                 # NaN compares equal to itself here
    same = UFUNCS["equal"](x, y)
    if equal_nan and (x.dtype.kind in "fc" or y.dtype.kind in "fc"):
        both_nan = UFUNCS["logical_and"](UFUNCS["isnan"](x), UFUNCS["isnan"](y))
        UFUNCS["logical_or"](same, both_nan, out=same)
    return all_true(same)


def array_equiv(a1, a2):
    """Whether two arrays broadcast to one shape with equal elements, as ``numpy.array_equiv``.

    Returns
    -------
    bool
        A Python bool.
    """
    pair = _both(a1, a2, "array_equiv")
    if pair is None:
        return False
    x, y = pair
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return all_true(UFUNCS["equal"](x, y))


def _imaginary_test(name, compare, real_answer):
    """``isreal``/``iscomplex``: ``compare(x.imag, 0)``; ``real_answer`` everywhere for real x."""
    def function(x):
        x = to_device(x, device_of(x), name)
        if x.dtype.kind != "c":
            out = empty(x.shape, np.dtype(bool), x._device, func=name)
            launch("fill", out, np.asarray(real_answer), func=name)
            return out
        return UFUNCS[compare](x.imag, 0)

    part = "zero" if real_answer else "nonzero"
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"""Elementwise: whether the imaginary part is {part}, as ``numpy.{name}``.

    Returns
    -------
    asnumpy.ndarray
        Booleans; all {real_answer} for real input.
    """
    return function


isreal = _imaginary_test("isreal", "equal", True)
iscomplex = _imaginary_test("iscomplex", "not_equal", False)


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (or holds complex numbers), as ``numpy.iscomplexobj``.

    Returns
    -------
    bool
        A Python bool; no data is read.
    """
    return _dtype_of(x).kind == "c"


def isrealobj(x):
    """Whether ``x`` does not have a complex dtype, as ``numpy.isrealobj``.

    Returns
    -------
    bool
        A Python bool; no data is read.
    """
    return not iscomplexobj(x)


def _dtype_of(x):
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, np.dtype):
        return dtype
    from ..transfer import host_value

    return host_value(x).dtype


def _signed_infinity_test(name, negative):
    """``isneginf``/``isposinf``: ``isinf(x) & (signbit(x) == negative)``."""
    def function(x, out=None):
        return _isinf_with_sign(x, out, negative, name)

    sign = "negative" if negative else "positive"
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"""Elementwise: whether ``x`` is {sign} infinity, as ``numpy.{name}``.

    Parameters
    ----------
    x : array_like
        Real input (complex raises TypeError, as in NumPy).
    out : asnumpy.ndarray, optional
        Where to put the booleans.

    Returns
    -------
    asnumpy.ndarray
    """
    return function


isneginf = _signed_infinity_test("isneginf", True)
isposinf = _signed_infinity_test("isposinf", False)


def _isinf_with_sign(x, out, negative, func):
    if not isinstance(x, (ndarray,) + PY_SCALARS):
        x = to_device(x, device_of(out), func)
    is_inf = UFUNCS["isinf"](x)
    try:
        sign = UFUNCS["signbit"](x)
    except TypeError:
        dtype = x.dtype if isinstance(x, ndarray) else np.asarray(x).dtype
        raise TypeError(f"asnumpy.{func}: This operation is not supported for {dtype} values "
                        "because it would be ambiguous.") from None
    if not negative:
        sign = UFUNCS["logical_not"](sign)
    return UFUNCS["logical_and"](is_inf, sign, out=out)

