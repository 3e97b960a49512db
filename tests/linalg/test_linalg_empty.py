"""asnumpy.linalg on empty matrices (0x0, batches of 0x0, empty batches of matrices):
values, dtypes and shapes are NumPy 2.4's, errors are NumPy's types (AsNumpy compat)."""

import numpy
import pytest

import asnumpy
import asnumpy.linalg
from asnumpy import testing

SQUARE_SHAPES = [(0, 0), (3, 0, 0), (0, 2, 2), (2, 3, 0, 0), (0, 0, 0)]
RECT_SHAPES = [(0, 3), (3, 0), (0, 0)]
DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128, numpy.int64]

SQUARE_CALLS = [
    ("det", (), {}), ("slogdet", (), {}), ("inv", (), {}), ("pinv", (), {}),
    ("pinv", (), {"hermitian": True}), ("matrix_rank", (), {}),
    ("matrix_rank", (), {"hermitian": True}), ("cond", (), {}),
    ("eig", (), {}), ("eigvals", (), {}), ("eigh", (), {}), ("eigvalsh", (), {"UPLO": "U"}),
    ("svd", (), {}), ("svd", (), {"full_matrices": False}), ("svd", (), {"compute_uv": False}),
    ("svd", (), {"hermitian": True}), ("svdvals", (), {}),
    ("qr", (), {}), ("qr", (), {"mode": "complete"}), ("qr", (), {"mode": "r"}),
    ("qr", (), {"mode": "raw"}), ("cholesky", (), {}), ("cholesky", (), {"upper": True}),
    ("matrix_power", (0,), {}), ("matrix_power", (3,), {}), ("matrix_power", (-1,), {}),
    ("norm", (), {}), ("matrix_norm", (), {}), ("matrix_norm", (), {"ord": "nuc"}),
    ("matrix_norm", (), {"ord": 1}), ("matrix_norm", (), {"ord": 2}),
    ("matrix_norm", (), {"ord": numpy.inf}), ("matrix_norm", (), {"ord": -2}),
    ("vector_norm", (), {}), ("trace", (), {}), ("diagonal", (), {}),
]


def empty(xp, shape, dtype):
    return xp.asarray(numpy.zeros(shape, dtype))


def _id(call):
    name, args, kwargs = call
    return name + "".join(f"-{v}" for v in (*args, *kwargs.values()))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SQUARE_SHAPES, ids=str)
@pytest.mark.parametrize("call", SQUARE_CALLS, ids=_id)
@testing.numpy_asnumpy_array_equal(accept_error=True)
def test_square_empty(xp, call, shape, dtype):
    name, args, kwargs = call
    return getattr(xp.linalg, name)(empty(xp, shape, dtype), *args, **kwargs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SQUARE_SHAPES, ids=str)
@pytest.mark.parametrize("columns", [None, 2])
@testing.numpy_asnumpy_array_equal(accept_error=True)
def test_solve_empty(xp, shape, dtype, columns):
    b_shape = shape[:-1] + ((shape[-1],) if columns is None else (columns,))
    return xp.linalg.solve(empty(xp, shape, dtype), empty(xp, b_shape, dtype))


RECT_CALLS = [("pinv", {}), ("svd", {}), ("svd", {"full_matrices": False}), ("qr", {}),
              ("matrix_rank", {}), ("norm", {"ord": "fro"}), ("norm", {"ord": 2}),
              ("norm", {"ord": 1}), ("svdvals", {}), ("matrix_norm", {"ord": "nuc"})]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", RECT_SHAPES, ids=str)
@pytest.mark.parametrize("call", RECT_CALLS, ids=lambda c: c[0] + str(list(c[1].values())))
@testing.numpy_asnumpy_array_equal(accept_error=True)
def test_rectangular_empty(xp, call, shape, dtype):
    name, kwargs = call
    return getattr(xp.linalg, name)(empty(xp, shape, dtype), **kwargs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", RECT_SHAPES, ids=str)
@pytest.mark.parametrize("rhs_columns", [None, 2])
@testing.numpy_asnumpy_array_equal(accept_error=True)
def test_lstsq_empty(xp, shape, dtype, rhs_columns):
    b_shape = shape[:1] + (() if rhs_columns is None else (rhs_columns,))
    # asnumpy names the result's fields (LstsqResult); NumPy 2.4 returns a plain tuple
    return tuple(xp.linalg.lstsq(empty(xp, shape, dtype), empty(xp, b_shape, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
@testing.numpy_asnumpy_array_equal(accept_error=True)
def test_products_of_empty_matrices(xp, dtype):
    return (xp.linalg.multi_dot([empty(xp, (0, 3), dtype), empty(xp, (3, 4), dtype),
                                 empty(xp, (4, 0), dtype)]),
            xp.linalg.multi_dot([empty(xp, (2, 0), dtype), empty(xp, (0, 3), dtype)]),
            xp.linalg.tensorinv(empty(xp, (0, 0), dtype), ind=1),
            xp.linalg.tensorsolve(empty(xp, (0, 0), dtype), empty(xp, (0,), dtype)),
            xp.linalg.matmul(empty(xp, (3, 0, 0), dtype), empty(xp, (3, 0, 0), dtype)))


def test_det_of_0x0_is_one_in_numpys_dtype():
    for dtype in DTYPES:
        got = asnumpy.linalg.det(asnumpy.zeros((0, 0), dtype))
        expected = numpy.linalg.det(numpy.zeros((0, 0), dtype))
        assert got.dtype == numpy.asarray(expected).dtype and float(abs(got)) == 1.0
