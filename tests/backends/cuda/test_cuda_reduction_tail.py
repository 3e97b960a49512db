"""cuda reductions whose length is not a multiple of the block (the tail).

Lengths around the block sizes (1, 31, 33, 255, 257, 1023, 1025) and past
the split threshold (several blocks' worth per output, a last chunk shorter
than the others), axis=None and per axis, against NumPy on ``cuda:0`` (the
emulated driver without a GPU).  Integer data makes sums exact, so a
dropped or doubled element shows.
"""

import numpy as np
import pytest

import asnumpy as ap

LENGTHS = [1, 31, 33, 255, 257, 1023, 1025, 2049, 4097, 70001]
NAMES = ["sum", "prod", "max", "min", "argmax", "argmin"]


def _data(rng, shape, name):
    if name == "prod":               # mostly ones: a product over thousands stays finite
        values = np.where(rng.random(shape) < 0.01, 2.0, 1.0)
        return values * np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    return rng.integers(-1000, 1000, shape).astype(np.float64)


def _place_extreme_at_the_end(values):
    flat = values.reshape(-1)
    flat[-1] = 1e6                     # the last element decides max/argmax/sum
    flat[0] = -1e6 if flat.size > 1 else flat[0]


def _check(got, want):
    got = ap.asnumpy(got)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", LENGTHS)
def test_whole_array_reductions_at_tail_lengths(cuda, rng, n, name):
    host = _data(rng, n, name)
    if name != "prod":
        _place_extreme_at_the_end(host)
    _check(getattr(ap, name)(ap.asarray(host, device=cuda)), getattr(np, name)(host))


@pytest.mark.parametrize("n", [31, 33, 257, 1025, 4097])
def test_per_axis_reductions_at_tail_lengths(cuda, rng, n):
    for shape, axes in (((3, n), (1, -1, None)), ((n, 2), (0, -2)), ((2, n, 3), (1, (0, 1)))):
        host = _data(rng, shape, "sum")
        d = ap.asarray(host, device=cuda)
        for axis in axes:
            _check(ap.sum(d, axis=axis), np.sum(host, axis=axis))
            _check(ap.max(d, axis=axis), np.max(host, axis=axis))
        _check(ap.argmax(d, axis=1), np.argmax(host, axis=1))


@pytest.mark.parametrize("n", [255, 257, 1025, 8193])
def test_tail_of_strided_and_integer_reductions(cuda, rng, n):
    host = rng.integers(-50, 50, 2 * n).astype(np.int64)
    d = ap.asarray(host, device=cuda)
    _check(ap.sum(d[::2]), np.sum(host[::2]))
    _check(ap.sum(d[::-1][:n]), np.sum(host[::-1][:n]))
    _check(ap.min(d[1::2]), np.min(host[1::2]))
    ones = np.ones(n, dtype=np.int32)
    _check(ap.sum(ap.asarray(ones, device=cuda)), np.sum(ones))   # the count itself
