"""Planning a transform: NumPy's validation on a probe, result shape and dtype.

A plan is ``(kwargs, shape, dtype, direct)``: the keywords the ``fft``
kernel passes to ``numpy.fft.<func>`` (``n``/``s`` with NumPy's defaults
filled in, the axes, ``norm``), the result's shape and dtype, and whether
NumPy can write the result straight into it (not when an N-D transform's
intermediate steps have other shapes than the result).  Plans are cached in
:mod:`._plan` by everything they depend on.
"""

from __future__ import annotations

import types
import warnings

import numpy as np
from numpy.fft import _pocketfft

from .._core._launch import empty, launch
from .._core.creation._allocation import _target_device
from .._core.math_functions._operands import to_device
from .._core.ndarray import ndarray
from .._core.ufuncs.ufunc_methods import _check_out
from .._errors import user_stacklevel
from ._plan import get_plan_cache

__all__ = ["transform"]

# The kind of each transform: complex to complex, real to complex (half
# spectrum), complex to real.
KIND = {
    "fft": "c2c", "ifft": "c2c", "rfft": "r2c", "ihfft": "r2c", "irfft": "c2r", "hfft": "c2r",
    "fftn": "c2c", "ifftn": "c2c", "fft2": "c2c", "ifft2": "c2c",
    "rfftn": "r2c", "rfft2": "r2c", "irfftn": "c2r", "irfft2": "c2r",
}


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _probe_length(n):
    """A short stand-in for transform length ``n`` (invalid ones kept for NumPy to reject)."""
    return 2 if _is_int(n) and n > 2 else n


def _probe(func, dtype, shape, kwargs, out_dtype):
    """Run ``numpy.fft.<func>`` on a tiny host array; NumPy's errors propagate."""
    tiny = np.ones(tuple(min(k, 1) for k in shape), dtype)
    function = getattr(np.fft, func)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = function(tiny, **kwargs)
        if out_dtype is not None:
            function(tiny, **kwargs, out=np.empty(result.shape, out_dtype))
    return result.dtype


def _plan_1d(func, shape, dtype, n, axis, norm, out_dtype):
    if n is None:
        n = shape[axis]                            # NumPy's IndexError for a bad axis
        if KIND[func] == "c2r":
            n = (n - 1) * 2
    probe = {"n": _probe_length(n), "axis": axis, "norm": norm}
    result_dtype = _probe(func, dtype, shape, probe, out_dtype)
    axis = int(axis) % len(shape)
    length = n // 2 + 1 if KIND[func] == "r2c" else n
    result_shape = shape[:axis] + (int(length),) + shape[axis + 1:]
    return {"n": n, "axis": axis, "norm": norm}, result_shape, result_dtype, True


def _plan_nd(func, shape, dtype, s, axes, norm, out_dtype):
    kind = KIND[func]
    # NumPy's own argument handling: its errors, and its deprecation warnings
    # (recorded and re-issued by ``transform``)
    s, axes = _pocketfft._cook_nd_args(
        types.SimpleNamespace(shape=shape), s, axes, invreal=int(kind == "c2r"))
    axes = list(axes)
    if axes:
        s = list(s)
        for i, (length, axis) in enumerate(zip(s, axes)):
            if length is None:            # deprecated: the 1-D transform's default
                length = shape[axis]
                if kind == "c2r" and i == len(axes) - 1:
                    length = (length - 1) * 2
                s[i] = length
    probe = {"s": [_probe_length(n) for n in s], "axes": axes, "norm": norm}
    result_dtype = _probe(func, dtype, shape, probe, out_dtype)
    ndim = len(shape)
    axes = [int(axis) % ndim for axis in axes]
    # NumPy's steps, in order: (axis, output length, whether it writes ``out``)
    if kind == "c2c":
        steps = [(axes[i], s[i], True) for i in range(len(axes) - 1, -1, -1)]
    elif kind == "r2c":
        steps = [(axes[-1], s[-1] // 2 + 1, True)]
        steps += [(axes[i], s[i], True) for i in range(len(axes) - 2, -1, -1)]
    else:
        steps = [(axes[i], s[i], False) for i in range(len(axes) - 1)]
        steps += [(axes[-1], s[-1], True)] if axes else []
    current, shapes = list(shape), []
    for axis, length, writes_out in steps:
        current[axis] = int(length)
        if writes_out:
            shapes.append(tuple(current))
    result_shape = tuple(current)
    # NumPy writes every step into ``out``: possible only if no step changes the shape
    direct = all(step == result_shape for step in shapes)
    return ({"s": [int(n) for n in s], "axes": axes, "norm": norm},
            result_shape, result_dtype, direct)


def _key(func, a, length, axes, norm, out):
    key = (func, a.shape, a.dtype, length if not isinstance(length, list) else tuple(length),
           axes if not isinstance(axes, list) else tuple(axes), norm,
           None if out is None else getattr(out, "dtype", type(out)))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def transform(func, a, length, axes, norm, out, nd):
    """``numpy.fft.<func>`` of ``a`` on its device (``length`` is ``n`` or ``s``)."""
    device = _target_device(None, a, out)
    a = to_device(a, device, func)
    key = _key(func, a, length, axes, norm, out)
    cache = get_plan_cache()
    plan = cache.lookup(key) if key is not None else None
    if plan is None:
        planner = _plan_nd if nd else _plan_1d
        out_dtype = None
        if out is not None:
            if not isinstance(out, ndarray):
                raise TypeError(f"asnumpy.{func}: out must be an asnumpy.ndarray, "
                                f"got {type(out).__name__}")
            out_dtype = out.dtype
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            plan = planner(func, a.shape, a.dtype, length, axes, norm, out_dtype)
        for warning in caught:
            warnings.warn(warning.message, stacklevel=user_stacklevel())   # at the user's line
        if key is not None and not caught:
            cache.store(key, plan)
    kwargs, shape, dtype, direct = plan
    if nd and not kwargs["axes"] and KIND[func] == "c2c":
        return a            # NumPy's loop over no axes transforms nothing: ``a`` itself, not out
    if out is None:
        out = empty(shape, dtype, device, func=func)
    else:
        _check_out(func, out, shape, device)
        if not direct:
            raise ValueError(f"asnumpy.{func}: output array has wrong shape for the "
                             f"intermediate transforms (s changes more than one axis)")
    if out.size:
        launch("fft", out, func, a, kwargs, direct, func=func)
    return out

