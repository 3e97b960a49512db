"""``power`` edge cases on cuda against NumPy: negative integer exponents raise its
ValueError; a complex zero base follows its rules."""

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


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_complex_zero_base(cuda, dtype):
    exponents = np.array([1 + 1j, 1 - 1j, 2, 0.5, -1 + 1j, 1j, -2, 0, complex(np.inf, 1)], dtype)
    base = np.array([complex(0.0, 0.0), complex(-0.0, 0.0)], dtype)[:, None]
    with np.errstate(all="ignore"):
        want = base ** exponents
    got = (ap.asarray(base, device=cuda) ** ap.asarray(exponents, device=cuda)).get()
    np.testing.assert_array_equal(got, want)
