"""Limiting values: clip and nan_to_num."""

from __future__ import annotations

import numpy as np

from .._tracing import traceable
from ..._errors import check_writeable
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import copyto, device_of, probe, to_device

__all__ = ["clip", "nan_to_num"]

_NO_VALUE = np._NoValue
_UFUNC_KEYWORDS = frozenset(("where", "casting", "order", "dtype", "signature", "subok"))


@traceable
def clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE, max=_NO_VALUE,
         **kwargs):
    """Clip (limit) the values of an array to ``[a_min, a_max]``, as ``numpy.clip``.

    NumPy's signature: ``clip(a, 1, 2)`` and ``clip(a, a_min=1, a_max=2)``
    give both bounds (either may be None), the Array API standard's
    keywords ``min=``/``max=`` one or both; one positional bound alone
    (``clip(a, 1)``) is NumPy's TypeError (``a.clip(1)``, the method, is the
    lower bound alone, as in NumPy).

    Parameters
    ----------
    a : array_like
        Values to clip.
    a_min, a_max : array_like or None
        Lower and upper bounds (broadcast against ``a``); None leaves that
        side unbounded.  Python integers beyond an integer array's range are
        ignored (NEP 50), as in NumPy.
    out : asnumpy.ndarray, optional
        Where to put the result.
    min, max : array_like or None, optional
        The standard's names of the bounds, keywords only, instead of
        ``a_min`` and ``a_max``.
    **kwargs
        ufunc keywords: ``where``, ``casting``, ``order``, ``dtype``, ``signature``.

    Returns
    -------
    asnumpy.ndarray
        ``minimum(maximum(a, a_min), a_max)`` in the dtype NumPy's ``clip``
        ufunc resolves; NaN in ``a`` or in a real bound propagates.  Where
        ``a_min > a_max`` every element is ``a_max``.

    Raises
    ------
    TypeError
        When one of ``a_min`` and ``a_max`` is given without the other.
    ValueError
        When ``min`` or ``max`` is given with both ``a_min`` and ``a_max``.
    """
    if a_min is _NO_VALUE and a_max is _NO_VALUE:
        low = None if min is _NO_VALUE else min
        high = None if max is _NO_VALUE else max
    elif a_min is _NO_VALUE:
        raise TypeError("asnumpy.clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NO_VALUE:
        raise TypeError("asnumpy.clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NO_VALUE or max is not _NO_VALUE:
        raise ValueError("asnumpy.clip: Passing `min` or `max` keyword argument when "
                         "`a_min` and `a_max` are provided is forbidden.")
    else:
        low, high = a_min, a_max
    return _clip(a, low, high, out, kwargs, "clip")


def _clip(a, low, high, out, kwargs, func):
    unknown = kwargs.keys() - _UFUNC_KEYWORDS
    if unknown:
        raise TypeError(f"asnumpy.{func}() got an unexpected keyword argument {min(unknown)!r}")
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if out is not None and not isinstance(out, ndarray):
        raise TypeError(f"asnumpy.{func}: out must be an asnumpy.ndarray, got {type(out).__name__}")
    if out is not None:
        check_writeable(out, func)     # before the ufuncs below: the error names clip
    a = to_device(a, device_of(a, out, low, high), func)
    if a.dtype.kind in "iu":
        # Python ints beyond the range bound nothing (NumPy's NEP 50 handling)
        info = np.iinfo(a.dtype)
        if type(low) is int and low <= info.min:
            low = None
        if type(high) is int and high >= info.max:
            high = None
    if low is None and high is None:
        return UFUNCS["positive"](a, out=out, **kwargs)
    if low is None:
        return UFUNCS["minimum"](a, high, out=out, **kwargs)
    if high is None:
        return UFUNCS["maximum"](a, low, out=out, **kwargs)
    loop_dtype = _clip_loop_dtype(a, low, high, out, kwargs, func)
    where = kwargs.pop("where", True)
    options = {k: v for k, v in kwargs.items() if k in ("order", "subok")}
    # maximum, then minimum: NaN-propagating like NumPy's clip loop
    if out is not None and out.dtype == loop_dtype and where is True:
        first = UFUNCS["maximum"](a, low, out=out, dtype=loop_dtype, casting="unsafe", **options)
    else:
        first = UFUNCS["maximum"](a, low, dtype=loop_dtype, casting="unsafe", **options)
    if where is True:
        result = UFUNCS["minimum"](first, high, out=out, dtype=loop_dtype, casting="unsafe",
                                   **options)
    else:
        # without ``out`` the masked-off elements are unspecified (NumPy: uninitialised);
        # here they hold ``maximum(a, a_min)``
        result = UFUNCS["minimum"](first, high, out=first if out is None else out,
                                   dtype=loop_dtype, casting="unsafe", where=where, **options)
    # the fix-ups below are internal work: they must not trip the user's errstate
    with np.errstate(all="ignore"):
        if loop_dtype.kind == "f" and result.dtype.kind == "f":
            _scalar_bounds_zeros(result, a, low, high, where)
        elif loop_dtype.kind == "c" and result.dtype.kind == "c":
            _ties_to_bounds(result, a, low, high, where)
    return result


def _ties_to_bounds(result, a, low, high, where):
    """Complex results as NumPy's clip loop gives them.

    Its complex loop orders by real part, then imaginary part
    (``PyArray_CGT``), tests only ``a`` for NaN and keeps it only when
    strictly between the bounds: ``t = a if isnan(a) or a > low else low``,
    then ``t if isnan(t) or t < high else high``.  maximum/minimum instead
    propagate a NaN bound (``clip(1+1j, nanj, 5)`` is ``1+1j`` in NumPy)
    and keep ``a`` on ties (``clip(-0+0j, 0, 2)`` is ``0j``): redone here.
    """
    logical_and, logical_not, positive = (UFUNCS[name] for name in
                                          ("logical_and", "logical_not", "positive"))
    a, low, high = (_in_dtype(x, result.dtype) for x in (a, low, high))
    t = positive(result)                                    # the shape of the result
    keep = _lexicographic(a, low, "greater")
    positive(low, out=t, where=logical_not(keep))
    positive(a, out=t, where=keep)
    keep = _lexicographic(t, high, "less")
    to_high = logical_not(keep)
    if where is not True:
        keep, to_high = logical_and(keep, where), logical_and(to_high, where)
    positive(high, out=result, where=to_high)
    positive(t, out=result, where=keep)


def _lexicographic(x, bound, compare):
    """``isnan(x) or x <compare> bound``, ordering complex numbers as NumPy's clip loop does."""
    equal, logical_and, logical_or = UFUNCS["equal"], UFUNCS["logical_and"], UFUNCS["logical_or"]
    compare = UFUNCS[compare]
    same_real = equal(x.real, bound.real)
    by_imag = logical_and(same_real, compare(x.imag, bound.imag))
    by_real = logical_and(UFUNCS["logical_not"](same_real), compare(x.real, bound.real))
    return logical_or(UFUNCS["isnan"](x), logical_or(by_imag, by_real))


def _single_value(bound):
    """A bound of one element as a host scalar, else None."""
    if isinstance(bound, ndarray):
        return bound._host_copy().reshape(()) if bound.size == 1 else None
    host = np.asarray(bound)
    return host.reshape(()) if host.size == 1 else None


def _in_dtype(bound, dtype):
    """A bound (device array or host value) converted to ``dtype``."""
    if isinstance(bound, ndarray):
        return bound if bound.dtype == dtype else bound.astype(dtype)
    return np.asarray(bound).astype(dtype)


def _scalar_bounds_zeros(result, a, low, high, where):
    """Signed zeros as NumPy's scalar clip loop gives them.

    NumPy runs it for bounds of one element (constant along its inner loop)
    and for float16 always: ``t = low if a < low else a; high if t > high
    else t``, which keeps ``a`` when it equals a bound: ``clip(-0.0, 0.0,
    0.0)`` is -0.0, where ``minimum(maximum(a, low), high)`` (NumPy's loop for
    float32/64 array bounds, and the computation above) gives 0.0.  The two
    differ only in the sign of zero results, which are redone here.
    """
    single_low, single_high = _single_value(low), _single_value(high)
    if single_low is None or single_high is None:
        if result.dtype != np.float16:
            return
    else:
        single_low = single_low.astype(result.dtype)
        single_high = single_high.astype(result.dtype)
        if np.isnan(single_low) or np.isnan(single_high):
            return                               # every result is NaN
        if single_low != 0 and single_high != 0:
            return                               # zeros come from ``a`` alone: kept by both
    low, high = _in_dtype(low, result.dtype), _in_dtype(high, result.dtype)
    logical_and, logical_not = UFUNCS["logical_and"], UFUNCS["logical_not"]
    zero = UFUNCS["equal"](result, 0)
    if where is not True:
        zero = logical_and(zero, where)
    below, above = UFUNCS["less"](a, low), UFUNCS["greater"](a, high)
    inside = logical_and(zero, logical_not(UFUNCS["logical_or"](below, above)))
    # low > high: every clipped value is high (host bounds compare on the host: a
    # ufunc on host values alone would answer on the current device, not a's)
    if isinstance(low, ndarray) or isinstance(high, ndarray):
        crossed = UFUNCS["greater"](low, high)
    else:
        crossed = to_device(np.greater(low, high), result._device, "clip")
    to_low = logical_and(logical_and(zero, below), logical_not(crossed))
    to_high = logical_and(zero, _clipped_to_high(above, below, crossed))
    positive = UFUNCS["positive"]
    positive(a, out=result, where=inside, dtype=result.dtype, casting="unsafe")
    positive(low, out=result, where=to_low)
    positive(high, out=result, where=to_high)


def _clipped_to_high(above, below, crossed):
    """``(above and not below) or (below and crossed)``: where NumPy's loop gives high."""
    logical_and, logical_not = UFUNCS["logical_and"], UFUNCS["logical_not"]
    return UFUNCS["logical_or"](logical_and(above, logical_not(below)),
                                logical_and(below, crossed))


def _clip_loop_dtype(a, low, high, out, kwargs, func):
    """The dtype NumPy's clip loop computes in; NumPy's own casting/type errors on a probe."""
    options = {k: v for k, v in kwargs.items() if k in ("casting", "dtype", "signature")}
    p_a, p_low, p_high = probe(a), probe(low), probe(high)
    try:
        with np.errstate(all="ignore"):
            result = np.clip(p_a, p_low, p_high, **options)
            if out is not None:
                shape = np.broadcast_shapes(*(np.shape(p) for p in (p_a, p_low, p_high)))
                np.clip(p_a, p_low, p_high, out=np.ones(shape, out.dtype), **options)
    except (TypeError, ValueError, OverflowError) as error:
        raise type(error)(f"asnumpy.{func}: {error}") from None
    return np.asarray(result).dtype


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and infinities by large finite numbers, as ``numpy.nan_to_num``.

    Parameters
    ----------
    x : array_like
        Input data.
    copy : bool, optional
        Whether to work on a copy (True) or in place on ``x`` (False; an
        asnumpy array is then modified and returned).
    nan : int, float or array_like, optional
        Value for NaN (default 0.0); an array gives one per element
        (broadcast to ``x``).
    posinf, neginf : int, float or array_like, optional
        Values for +inf and -inf (default: the dtype's largest and most
        negative finite values).

    Returns
    -------
    asnumpy.ndarray
        ``x`` with the replacements; real and imaginary parts of complex
        values are treated separately.  Integer and bool arrays come back
        unchanged.
    """
    if isinstance(x, ndarray):
        if copy:
            x = x.copy(order="K")
    else:
        x = to_device(x, device_of(x), "nan_to_num")
    if x.dtype.kind not in "fc":
        return x
    parts = (x.real, x.imag) if x.dtype.kind == "c" else (x,)
    info = np.finfo(x.real.dtype)
    largest = info.max if posinf is None else posinf
    smallest = info.min if neginf is None else neginf
    for part in parts:
        is_nan = UFUNCS["isnan"](part)
        is_inf = UFUNCS["isinf"](part)
        negative = UFUNCS["signbit"](part)
        is_posinf = UFUNCS["logical_and"](is_inf, UFUNCS["logical_not"](negative))
        is_neginf = UFUNCS["logical_and"](is_inf, negative)
        _replace(part, nan, is_nan)
        _replace(part, largest, is_posinf)
        _replace(part, smallest, is_neginf)
    return x


def _replace(part, value, where):
    """``numpy.copyto(part, value, where=where)`` as nan_to_num calls it.

    A scalar goes through :func:`copyto` (NumPy converts it); an array of
    replacements (``nan=[...]``) is broadcast to ``part`` by a masked ufunc
    with copyto's 'same_kind' casting (``maximum(v, v)`` is ``v``).
    """
    if (value.ndim if isinstance(value, ndarray) else np.ndim(value)) == 0:
        copyto(part, value, where, "nan_to_num")
        return
    value = to_device(value, part._device, "nan_to_num")
    if not np.can_cast(value.dtype, part.dtype, "same_kind"):
        raise TypeError(f"asnumpy.nan_to_num: Cannot cast array data from {value.dtype!r} to "
                        f"{part.dtype!r} according to the rule 'same_kind'")
    try:
        if np.broadcast_shapes(value.shape, part.shape) == part.shape:
            UFUNCS["maximum"](value, value, out=part, where=where, casting="same_kind")
            return
    except ValueError:
        pass
    raise ValueError(f"asnumpy.nan_to_num: could not broadcast input array from shape "
                     f"{value.shape} into shape {part.shape}")


def _ndarray_clip(self, min=None, max=None, out=None, **kwargs):
    """``a.clip(min=None, max=None, out=None, **kwargs)``: see :func:`asnumpy.clip`."""
    return _clip(self, min, max, out, kwargs, "ndarray.clip")


METHODS = {"clip": _ndarray_clip}
