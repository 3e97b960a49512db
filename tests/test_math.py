"""The first op-catalog entries: add, multiply and sum, against NumPy."""

import numpy as np
import pytest
from numpy.exceptions import AxisError

import asnumpy as ap
from _inputs import random_data

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("name", ["add", "multiply"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_matches_numpy_with_broadcasting(name, dtype):
    rng = np.random.default_rng()
    x, y = random_data(rng, (4, 1, 5), dtype), random_data(rng, (3, 1), dtype)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x, y)
    result = getattr(ap, name)(ap.asarray(x), ap.asarray(y)).get()
    assert result.dtype == expected.dtype and result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)   # integer overflow wraps as NumPy's


@pytest.mark.parametrize("scalar", [3, -2, 2.5, 1j, True])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float16, np.float32, np.complex64])
def test_python_scalars_are_weak(scalar, dtype):
    rng = np.random.default_rng()
    x = random_data(rng, (7,), dtype)
    try:
        with np.errstate(all="ignore"):
            expected = np.multiply(x, scalar)
    except (OverflowError, TypeError) as error:
        with pytest.raises(type(error)):
            ap.multiply(ap.asarray(x), scalar)
        return
    with np.errstate(all="ignore"):
        result = ap.multiply(ap.asarray(x), scalar).get()
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def test_errors_follow_numpy():
    a = ap.asarray(np.arange(6, dtype=np.int8))
    with pytest.raises(OverflowError):
        ap.add(a, 300)
    with pytest.raises(ValueError):
        ap.add(a, ap.asarray(np.ones(4, np.int8)))
    with pytest.raises(TypeError, match="same_kind"):
        ap.add(ap.asarray(np.ones(6)), 1.5, out=a)
    with pytest.raises(ValueError, match="different devices"):
        ap.add(a, ap.asarray(np.ones(6, np.int8), device="cpu:1"))


def test_out_and_dtype_arguments():
    rng = np.random.default_rng()
    x = rng.random((3, 4)).astype(np.float32)
    out = ap.asarray(np.empty((3, 4), np.float64))
    result = ap.multiply(ap.asarray(x), ap.asarray(x), out=out)
    assert result is out
    np.testing.assert_array_equal(out.get(), np.multiply(x, x, out=np.empty((3, 4))))
    assert ap.add(ap.asarray(x), 1, dtype=np.float64).dtype == np.float64
    in_tuple = ap.empty((3, 4), np.float32)
    assert ap.add(ap.asarray(x), ap.asarray(x), out=(in_tuple,)) is in_tuple
    np.testing.assert_array_equal(in_tuple.get(), x + x)


def test_host_operands_move_to_the_array_device():
    a = ap.asarray(np.ones(3), device="cpu:1")
    result = ap.add(a, np.array([1.0, 2.0, 3.0]))
    assert result.device == "cpu:1"
    assert result.get().tolist() == [2.0, 3.0, 4.0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_matches_numpy(dtype, axis, keepdims):
    rng = np.random.default_rng()
    x = random_data(rng, (3, 4, 5), dtype)[:, ::-1]
    with np.errstate(all="ignore"):
        expected = np.sum(x, axis=axis, keepdims=keepdims)
        result = ap.sum(ap.asarray(x), axis=axis, keepdims=keepdims).get()
    assert result.dtype == expected.dtype and result.shape == expected.shape
    if np.dtype(dtype).kind in "fc":
        np.testing.assert_allclose(result, expected, rtol=1e-2 if dtype == np.float16 else 1e-6)
    else:
        np.testing.assert_array_equal(result, expected)


def test_sum_arguments_and_errors():
    x = np.random.default_rng().random((4, 0, 3))
    a = ap.asarray(x)
    assert ap.sum(a).get() == np.sum(x) == 0
    assert a.sum(axis=1).shape == (4, 3)
    assert ap.sum(ap.asarray(np.ones(3, np.int8)), dtype=np.int8).dtype == np.int8
    with pytest.raises(AxisError, match="asnumpy.sum"):
        ap.sum(a, axis=3)
    with pytest.raises(ValueError, match="duplicate"):
        ap.sum(a, axis=(0, -3))


def test_float_sum_is_as_accurate_as_numpy_pairwise():
    import math

    x = np.random.default_rng().random(1_000_003).astype(np.float32)
    exact = math.fsum(x.astype(np.float64))
    ours = float(ap.sum(ap.asarray(x)).get())
    theirs = float(np.sum(x))
    assert abs(ours - exact) <= abs(theirs - exact) + 1e-6 * abs(exact)
