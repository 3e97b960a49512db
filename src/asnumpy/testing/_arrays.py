"""Deterministic test arrays, made with NumPy and moved to the array module.

The values are those of CuPy's makers, so ported tests see the same data.
They are built on the host and handed to ``xp.asarray`` (``asnumpy.asarray``
when ``xp`` is None), so the device copy is an explicit transfer.
"""

from __future__ import annotations

import math
import operator

import numpy

from .._dtypes import SUPPORTED_DTYPES

__all__ = [
    "shaped_arange", "shaped_reverse_arange", "shaped_random", "generate_test_data",
    "TEST_SHAPES", "TEST_DTYPES", "TEST_ORDERS",
]


def _shape_tuple(shape) -> tuple[int, ...]:
    if isinstance(shape, (tuple, list)):
        return tuple(operator.index(d) for d in shape)
    return (operator.index(shape),)


def _module(xp):
    if xp is None:
        import asnumpy

        return asnumpy
    return xp


def _move(host: numpy.ndarray, xp, order, device):
    """``host`` as an array of ``xp`` (NumPy keeps it; ``device`` is then ignored)."""
    xp = _module(xp)
    if xp is numpy:
        return numpy.asarray(host, order=order)
    if device is None:
        return xp.asarray(host, order=order)
    return xp.asarray(host, order=order, device=device)


def _pattern(values: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """Integers 1..n as ``dtype``: bool as ``value % 2 == 0``, complex as ``v + v*1j``."""
    if dtype == numpy.bool_:
        return values % 2 == 0
    if dtype.kind == "c":
        return (values + values * 1j).astype(dtype)
    return values.astype(dtype)


# The parameters and result every maker shares, appended to its docstring.
_PLACEMENT_DOC = """order : {'C', 'F'}, optional
        Memory layout.
    device : str or Device, optional
        asnumpy device to place the array on (ignored for NumPy).

    Returns
    -------
    ndarray
        An array of ``xp``.
    """


def _placement_documented(maker):
    maker.__doc__ += _PLACEMENT_DOC
    return maker


@_placement_documented
def shaped_arange(shape, xp=None, dtype=numpy.float32, order="C", device=None):
    """An array holding ``1, 2, ..., n`` in the given shape.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array; ``n`` is its size.
    xp : module, optional
        ``numpy``, ``asnumpy`` (the default when None) or another array
        module with ``asarray``.
    dtype : data-type, optional
        dtype of the array.  bool gives ``value % 2 == 0`` (False, True,
        False ...); complex dtypes give ``v + v*1j``.  Integer dtypes wrap
        around as NumPy's ``astype`` does.
    """
    shape = _shape_tuple(shape)
    host = _pattern(numpy.arange(1, math.prod(shape) + 1), numpy.dtype(dtype)).reshape(shape)
    return _move(host, xp, order, device)


@_placement_documented
def shaped_reverse_arange(shape, xp=None, dtype=numpy.float32, order="C", device=None):
    """An array holding ``n, n-1, ..., 1`` in the given shape.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array; ``n`` is its size.
    xp : module, optional
        ``numpy``, ``asnumpy`` (the default when None) or another array module.
    dtype : data-type, optional
        dtype of the array; bool and complex as in :func:`shaped_arange`.
    """
    shape = _shape_tuple(shape)
    host = _pattern(numpy.arange(math.prod(shape), 0, -1), numpy.dtype(dtype)).reshape(shape)
    return _move(host, xp, order, device)


@_placement_documented
def shaped_random(shape, xp=None, dtype=numpy.float32, scale=10, seed=0, order="C",
                  device=None):
    """An array of uniform random values in ``[0, scale)``, the same for the same seed.

    The values come from a private ``numpy.random.RandomState(seed)`` (the
    global NumPy random state is left alone) and equal CuPy's
    ``shaped_random`` for the same arguments.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array.
    xp : module, optional
        ``numpy``, ``asnumpy`` (the default when None) or another array module.
    dtype : data-type, optional
        dtype of the array.  bool draws True and False with equal
        probability; complex dtypes get random real and imaginary parts, both
        scaled; integer dtypes truncate the scaled values.
    scale : float, optional
        Upper bound of the values.
    seed : int or None, optional
        Seed of the random state; None draws fresh entropy.
    """
    shape = _shape_tuple(shape)
    dtype = numpy.dtype(dtype)
    rng = numpy.random.RandomState(seed)
    if dtype == numpy.bool_:
        values = numpy.asarray(rng.randint(2, size=shape))
    elif dtype.kind == "c":
        values = rng.rand(*shape) + 1j * rng.rand(*shape)
        values = values * scale
    else:
        values = numpy.asarray(rng.rand(*shape)) * scale
    return _move(numpy.asarray(values).astype(dtype), xp, order, device)


def _integer_bounds(dtype, low, high):
    info = numpy.iinfo(dtype)
    low = (0 if info.min == 0 else -10) if low is None else low
    high = 10 if high is None else high
    if low < info.min or high - 1 > info.max or low >= high:
        raise ValueError(f"asnumpy.testing.generate_test_data: [{low}, {high}) is not a "
                         f"non-empty range of {dtype} values")
    return low, high


@_placement_documented
def generate_test_data(shape, dtype=numpy.float64, xp=None, *, low=None, high=None, seed=0,
                       order="C", device=None):
    """Random test data of ``dtype`` in ``[low, high)``, signs included, the same per seed.

    Unlike :func:`shaped_random` (values in ``[0, scale)``), the default
    range holds negative values wherever the dtype does, which is what
    tests of signs, absolute values and rounding need.  The values come from
    a private ``numpy.random.default_rng(seed)`` (the global NumPy random
    state is left alone).

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array.
    dtype : data-type, optional
        dtype of the array.  bool draws True and False with equal
        probability; integer dtypes draw integers; complex dtypes draw the
        real and imaginary parts separately from the range.
    xp : module, optional
        ``numpy``, ``asnumpy`` (the default when None) or another array module.
    low, high : number, optional
        The range; by default ``[-10, 10)``, and ``[0, 10)`` for unsigned
        dtypes.  Ignored for bool.  An integer range must fit the dtype
        (ValueError otherwise).
    seed : int or None, optional
        Seed of the random generator; None draws fresh entropy.
    """
    shape = _shape_tuple(shape)
    dtype = numpy.dtype(dtype)
    rng = numpy.random.default_rng(seed)
    if dtype == numpy.bool_:
        values = rng.integers(0, 2, size=shape).astype(bool)
    elif dtype.kind in "iu":
        values = rng.integers(*_integer_bounds(dtype, low, high), size=shape, dtype=dtype)
    else:
        low = -10.0 if low is None else low
        high = 10.0 if high is None else high
        values = rng.uniform(low, high, size=shape)
        if dtype.kind == "c":
            values = values + 1j * rng.uniform(low, high, size=shape)
    return _move(numpy.asarray(values).astype(dtype), xp, order, device)


#: Shapes worth running a test over: 0-d, empty, a length-1 axis, 1-d to 3-d.
TEST_SHAPES = ((), (0,), (1,), (5,), (2, 3), (2, 0, 3), (1, 3), (2, 3, 4))
#: Every dtype asnumpy supports, as NumPy scalar types (as the loops pass them).
TEST_DTYPES = tuple(d.type for d in SUPPORTED_DTYPES)
#: The memory orders of ``order=`` arguments.
TEST_ORDERS = ("C", "F")
