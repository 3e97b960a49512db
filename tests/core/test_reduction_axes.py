"""Negative axes in reductions and zero-length axes in broadcasting, against NumPy.

Fresh random inputs per test (the ``rng`` fixture); every reduction with
``axis=-1``, ``-2``, tuples holding negatives, and ``keepdims``; ufuncs and
reductions over operands that broadcast with zero-length axes.
"""

import numpy as np
import pytest

import asnumpy as ap

REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all"]
ARG = ["argmax", "argmin"]
CUMULATIVE = ["cumsum", "cumprod"]
AXES = [-1, -2, -3, (-1, 0), (-2, -1), (0, -1), (-3, -1), (-1, -2, -3)]


def _close(got, want):
    got = ap.asnumpy(got)
    assert got.shape == np.shape(want)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.fixture
def values(rng):
    return rng.uniform(0.5, 1.5, (3, 4, 5))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_negative_axes_of_reductions(values, name, axis, keepdims):
    a = values if name not in ("any", "all") else values > 1
    _close(getattr(ap, name)(ap.asarray(a), axis=axis, keepdims=keepdims),
           getattr(np, name)(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("axis", [-1, -2, -3])
@pytest.mark.parametrize("name", ARG + CUMULATIVE)
def test_negative_axes_of_arg_and_cumulative_reductions(values, name, axis):
    _close(getattr(ap, name)(ap.asarray(values), axis=axis), getattr(np, name)(values, axis=axis))


@pytest.mark.parametrize("axis", [-1, -2])
def test_negative_axes_of_methods_and_ufunc_reduce(values, axis):
    d = ap.asarray(values)
    _close(d.sum(axis=axis), values.sum(axis=axis))
    _close(d.max(axis=axis, keepdims=True), values.max(axis=axis, keepdims=True))
    _close(d.argmax(axis=axis), values.argmax(axis=axis))
    _close(ap.add.reduce(d, axis=axis), np.add.reduce(values, axis=axis))
    _close(ap.multiply.accumulate(d, axis=axis), np.multiply.accumulate(values, axis=axis))


def test_out_of_range_negative_axes_raise_as_numpy(values):
    d = ap.asarray(values)
    for axis in (-4, (0, -4), (-1, 2)):
        with pytest.raises((ValueError, np.exceptions.AxisError)):
            np.sum(values, axis=axis)
        with pytest.raises((ValueError, np.exceptions.AxisError)):
            ap.sum(d, axis=axis)


ZERO_PAIRS = [((0, 3), (3,)), ((2, 0), (2, 1)), ((0,), ()), ((0, 1), (1, 4)), ((3, 0, 2), (1, 2)),
              ((1, 0), (5, 1)), ((0, 3), (0, 1)), ((4, 1, 0), (4, 3, 1))]


@pytest.mark.parametrize("shapes", ZERO_PAIRS, ids=str)
def test_ufuncs_broadcast_zero_length_axes(rng, shapes):
    a, b = (rng.standard_normal(s) for s in shapes)
    for f in (np.add, np.subtract, np.multiply, np.maximum, np.less):
        got = getattr(ap, f.__name__)(ap.asarray(a), ap.asarray(b))
        want = f(a, b)
        assert got.shape == want.shape and got.dtype == want.dtype
        got_swapped = getattr(ap, f.__name__)(ap.asarray(b), ap.asarray(a))
        assert got_swapped.shape == f(b, a).shape
    assert (ap.asarray(a) + ap.asarray(b)).shape == (a + b).shape


ZERO_MISMATCHES = [((0, 3), (0, 4)), ((2, 0), (3, 1)), ((0,), (2,)), ((2,), (0,)), ((2, 0), (2, 3)),
                   ((3, 0), (0, 3)), ((2, 0, 3), (5, 3)), ((4, 0, 1), (5, 1))]


@pytest.mark.parametrize("shapes", ZERO_MISMATCHES, ids=str)
def test_incompatible_shapes_with_zero_length_axes_raise(rng, shapes):
    """A zero-length axis broadcasts only against 1: asnumpy's own shape check says so."""
    a, b = (rng.standard_normal(s) for s in shapes)
    with pytest.raises(ValueError):
        a + b
    for name in ("add", "subtract", "less"):
        with pytest.raises(ValueError, match=f"asnumpy.{name}: .*broadcast"):
            getattr(ap, name)(ap.asarray(a), ap.asarray(b))
    with pytest.raises(ValueError):
        ap.broadcast_shapes(a.shape, b.shape)


@pytest.mark.parametrize("shapes", ZERO_PAIRS, ids=str)
def test_reductions_of_zero_length_broadcasts(rng, shapes):
    a, b = (rng.standard_normal(s) for s in shapes)
    host = a + b
    d = ap.asarray(a) + ap.asarray(b)
    for axis in [None] + list(range(-host.ndim, host.ndim)):
        _close(ap.sum(d, axis=axis), np.sum(host, axis=axis))
        _close(ap.prod(d, axis=axis, keepdims=True), np.prod(host, axis=axis, keepdims=True))
        if axis is not None and host.shape[axis] and host.size == 0:
            _close(ap.max(d, axis=axis), np.max(host, axis=axis))


def test_broadcast_to_and_arrays_with_zero_length_axes(rng):
    b = rng.standard_normal(3)
    for shape in [(0, 3), (2, 0, 3), (0, 0, 3)]:
        got = ap.broadcast_to(ap.asarray(b), shape)
        assert got.shape == np.broadcast_to(b, shape).shape
    x, y = ap.broadcast_arrays(ap.zeros((0, 1)), ap.ones((1, 4)))
    assert x.shape == y.shape == (0, 4)
    assert ap.broadcast_shapes((0, 1), (1, 4), (4,)) == np.broadcast_shapes((0, 1), (1, 4), (4,))
