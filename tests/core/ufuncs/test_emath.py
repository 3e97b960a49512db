"""asnumpy.emath against numpy.emath: complex results exactly where NumPy gives them,
in NumPy's dtypes (complex64 from float32/int8/int16/uint8/uint16, else complex128)."""

import warnings

import numpy
import pytest

import asnumpy
import asnumpy.emath
from asnumpy import testing

UNARY = ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"]
DTYPES = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]
VALUES = {"in_domain": [1, 0.5, 0, 0.25], "negative": [-1, 2, 0.5, -4],
          "beyond_one": [3, 4, 0.5, 0], "nan": [numpy.nan, 0.5, -0.5, 1]}


def values(kind, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return numpy.array(VALUES[kind]).astype(dtype)


@pytest.mark.parametrize("func", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", list(VALUES))
@testing.numpy_asnumpy_allclose(rtol=1e-3, atol=1e-6)
def test_unary(xp, func, dtype, kind):
    x = xp.asarray(values(kind, dtype))
    with numpy.errstate(all="ignore"):
        return getattr(xp.emath, func)(x)


@pytest.mark.parametrize("func", UNARY)
@testing.numpy_asnumpy_allclose()
def test_python_scalars(xp, func):
    with numpy.errstate(all="ignore"):
        return xp.asarray(getattr(xp.emath, func)(-0.5))


@pytest.mark.parametrize("dtype", ["i1", "i8", "f4", "f8", "u2"])
@pytest.mark.parametrize("p", [2, -2, 0.5, [2, -1]], ids=str)
@testing.numpy_asnumpy_allclose(rtol=1e-5)
def test_power(xp, dtype, p):
    x = xp.asarray(numpy.array([3, 2]).astype(dtype) * (1 if dtype[0] == "u" else -1))
    p = xp.asarray(numpy.array(p)) if isinstance(p, list) else p
    return xp.emath.power(x, p)


@pytest.mark.parametrize("n, x", [(2, [-4.0, 8.0]), (10, [100, 1000]), (-2, [4.0]),
                                  (numpy.float32(3), [9.0])], ids=str)
@testing.numpy_asnumpy_allclose(rtol=1e-6)
def test_logn(xp, n, x):
    return xp.emath.logn(n, xp.asarray(numpy.array(x)))


@testing.numpy_asnumpy_allclose()
def test_empty_and_non_contiguous(xp):
    x = xp.asarray(numpy.linspace(-2, 2, 12).reshape(3, 4))[::-1, ::2]
    return xp.emath.sqrt(x), xp.emath.arcsin(x), xp.emath.sqrt(xp.zeros((0, 2)))


def test_results_stay_on_the_input_device():
    x = asnumpy.asarray([-1.0, 4.0], device="cpu:1")
    result = asnumpy.emath.sqrt(x)
    assert result.device == x.device and result.dtype == numpy.complex128
    assert asnumpy.emath is asnumpy.emath and "sqrt" in asnumpy.emath.__all__
