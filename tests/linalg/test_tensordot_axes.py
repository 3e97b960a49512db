"""``tensordot`` with non-default ``axes`` against NumPy: an int, pairs of
lists in any order, negative axes, non-square operands (a missing transpose
only shows when the contracted axes are not already last / first or the
shapes are not square)."""

import numpy as np
import pytest

import asnumpy as ap

CASES = [
    ((3, 4, 5), (4, 5, 6), 2),
    ((3, 4, 5), (5, 6), 1),
    ((2, 3), (4, 5), 0),
    ((3, 4, 5), (3, 4, 5), 3),
    ((3, 4), (4, 3), ([1, 0], [0, 1])),
    ((3, 4, 5), (5, 3, 7), ([0, 2], [1, 0])),
    ((3, 4, 5), (5, 3, 7), ([2, 0], [0, 1])),
    ((2, 3, 4), (4, 2), ([-1, 0], [0, -1])),
    ((2, 3, 4), (3, 6), (-2, 0)),
    ((2, 3, 4), (5, 3), ([1], [-1])),
    ((6, 2), (6, 3), ([0], [0])),
    ((4, 7, 2), (2, 4), ((0, 2), (1, 0))),
    ((5,), (5,), 1),
    ((5,), (3, 5), ([0], [1])),
    ((3, 2, 5), (5, 2, 3), ([0, 1, 2], [2, 1, 0])),
]


@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128"])
@pytest.mark.parametrize("a_shape, b_shape, axes", CASES, ids=str)
def test_tensordot_axes_against_numpy(rng, a_shape, b_shape, axes, dtype):
    a = rng.integers(-5, 6, a_shape).astype(dtype)
    b = rng.integers(-5, 6, b_shape).astype(dtype)
    if dtype == "complex128":
        a = a + 1j * rng.integers(-3, 4, a_shape)
        b = b - 1j * rng.integers(-3, 4, b_shape)
    want = np.tensordot(a, b, axes=axes)
    got = ap.tensordot(ap.asarray(a), ap.asarray(b), axes=axes)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(ap.asnumpy(got), want, rtol=1e-12)


def test_tensordot_of_transposed_views(rng):
    a = rng.standard_normal((4, 3, 5))
    b = rng.standard_normal((5, 4, 2))
    for av, bv, axes in [(a.transpose(2, 0, 1), b, ([0, 1], [0, 1])),
                         (a[:, ::-1], b.transpose(1, 0, 2), ([0, 2], [0, 1]))]:
        want = np.tensordot(av, bv, axes=axes)
        got = ap.tensordot(ap.asarray(av), ap.asarray(bv), axes=axes)
        np.testing.assert_allclose(ap.asnumpy(got), want, rtol=1e-12)


def test_tensordot_mismatched_axes_raise_as_numpy(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    for axes in (([0], [1]), ([0, 1], [0])):
        with pytest.raises(ValueError):
            np.tensordot(a, b, axes=axes)
        with pytest.raises(ValueError):
            ap.tensordot(ap.asarray(a), ap.asarray(b), axes=axes)
