"""Signed-zero ties of maximum/minimum/fmax/fmin on cuda, against NumPy.

NumPy's float16 loops are scalar C (the first operand wins a -0.0/0.0 tie);
its float32/float64 loops are SIMD and which zero wins depends on the CPU's
dispatch target, so only values are compared there.
"""

import itertools

import numpy as np
import pytest

import asnumpy as ap


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_signed_zero_ties(cuda, dtype, name):
    values = np.array([0.0, -0.0, np.nan, 1.0, -np.inf], dtype)
    a, b = (np.array(p, dtype) for p in zip(*itertools.product(values, repeat=2)))
    want = getattr(np, name)(a, b)
    got = getattr(ap, name)(ap.asarray(a, device=cuda), ap.asarray(b, device=cuda)).get()
    np.testing.assert_array_equal(got, want)
    if dtype == np.float16:
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_clip_keeps_the_sign_of_a_zero_like_numpy(cuda):
    x = np.array([-0.0, 0.0, -1.0, 2.0], np.float16)
    for low, high in [(None, 0.0), (-0.0, None), (0.0, -0.0)]:
        want = np.clip(x, low, high)
        got = ap.clip(ap.asarray(x, device=cuda), low, high).get()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
