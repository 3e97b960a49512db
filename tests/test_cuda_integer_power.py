"""Integer ``power`` with a negative exponent raises NumPy's ValueError on cuda too."""

import numpy as np
import pytest

import asnumpy as ap


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
@pytest.mark.parametrize("exponent", [-1, [2, 1, 0, -3, 1, 2], [2, 1, 0, 3, 1, 2], 4])
def test_negative_integer_exponents_raise_like_numpy(cuda, dtype, exponent):
    base = np.arange(1, 7, dtype=dtype)
    exponent = np.array(exponent, dtype) if isinstance(exponent, list) else exponent
    on_device = ap.asarray(exponent, device=cuda) if isinstance(exponent, np.ndarray) \
        else exponent
    try:
        want = base ** exponent
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            ap.asarray(base, device=cuda) ** on_device
        return
    got = ap.asarray(base, device=cuda) ** on_device
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


def test_an_empty_exponent_is_not_negative(cuda):
    empty = ap.asarray(np.zeros(0, np.int32), device=cuda)
    assert (empty ** empty).shape == (0,)
