"""The catalog's operators against NumPy on npu:0: every dtype, layouts, empty and 0-d.

Each body runs once with ``xp=numpy`` and once with ``xp=asnumpy`` on npu:0
(``on_npu``): dtypes the catalog sends to aclnn run there, the rest through the
host fallback; both must give NumPy's values, dtype and shape.
"""

import numpy as np
import pytest

from asnumpy import testing
from asnumpy.backends.npu import catalog

UNARY = sorted(n for n, e in catalog.UFUNCS.items() if e.form in ("unary", "square"))
BINARY = sorted(n for n, e in catalog.UFUNCS.items() if e.form in ("binary", "alpha"))
LAYOUTS = ["contiguous", "strided", "reversed", "empty", "0-d"]
# transcendental floats: within float32/float16 tolerance (the hardware's, not bit-exact)
TOLERANCE = {np.float16: 2e-3, np.float32: 2e-6, "default": 1e-12}
# keep the operands in every function's domain (log, arccos, arccosh, power, ...)
DOMAIN = {"arccosh": (1.0, 4.0), "arcsin": (-0.9, 0.9), "arccos": (-0.9, 0.9),
          "arctanh": (-0.9, 0.9), "log": (0.1, 4.0), "log2": (0.1, 4.0), "log10": (0.1, 4.0),
          "log1p": (0.1, 4.0), "sqrt": (0.0, 9.0), "reciprocal": (0.5, 3.0),
          "power": (0.5, 2.0), "floor_divide": (0.5, 5.0), "remainder": (0.5, 5.0),
          "divide": (0.5, 5.0)}


def operand(xp, name, dtype, layout, shape=(6, 8), seed=0):
    low, high = DOMAIN.get(name, (-4.0, 4.0))
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        host = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        lowest = 1 if name in ("power", "floor_divide", "remainder", "divide") else (
            0 if dtype.kind == "u" else -5)
        host = rng.integers(lowest, 6, size=shape).astype(dtype)
    else:
        host = rng.uniform(low, high, shape).astype(dtype)
        if dtype.kind == "c":
            host = host + 1j * host[::-1]
    a = xp.asarray(host)
    if layout == "strided":
        return a[:, ::2]
    if layout == "reversed":
        return a[::-1, ::-2]
    if layout == "empty":
        return a[:0]
    if layout == "0-d":
        return a[2, 3]
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", UNARY)
@testing.for_all_dtypes()
@testing.numpy_asnumpy_allclose(rtol=TOLERANCE, atol=1e-6, accept_error=TypeError)
def test_unary(xp, name, layout, dtype, on_npu):
    with np.errstate(all="ignore"):
        return getattr(xp, name)(operand(xp, name, dtype, layout))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", BINARY)
@testing.for_all_dtypes()
@testing.numpy_asnumpy_allclose(rtol=TOLERANCE, atol=1e-6, accept_error=TypeError)
def test_binary(xp, name, layout, dtype, on_npu):
    a = operand(xp, name, dtype, layout, seed=1)
    b = operand(xp, name, dtype, layout, seed=2)
    with np.errstate(all="ignore"):
        return getattr(xp, name)(a, b)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "less", "divide"])
@testing.for_all_dtypes(no_complex=True)
@testing.numpy_asnumpy_allclose(rtol=TOLERANCE, atol=1e-6, accept_error=TypeError)
def test_binary_with_scalars_and_broadcasting(xp, name, dtype, on_npu):
    a = operand(xp, name, dtype, "contiguous")
    scalar = True if np.dtype(dtype) == np.bool_ else 3
    with np.errstate(all="ignore"):
        return (getattr(xp, name)(a, scalar), getattr(xp, name)(a[:1], a),
                getattr(xp, name)(a[:, :1], a[2]))


@pytest.mark.parametrize("method", ["sum", "max", "min", "prod"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@testing.for_all_dtypes(no_complex=True)
@testing.numpy_asnumpy_allclose(rtol={np.float16: 5e-3, np.float32: 1e-5, "default": 1e-12})
def test_reductions(xp, method, axis, dtype, on_npu):
    a = operand(xp, "reduce", dtype, "strided", shape=(5, 8))
    if method == "prod" and np.dtype(dtype).kind == "f":
        a = a / 4
    return (getattr(a, method)(axis=axis), getattr(a, method)(axis=axis, keepdims=True))


@pytest.mark.parametrize("function", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, -1])
@testing.for_all_dtypes(no_complex=True)
@testing.numpy_asnumpy_array_equal()
def test_arg_reductions(xp, function, axis, dtype, on_npu):
    a = operand(xp, function, dtype, "contiguous", shape=(4, 7))
    return getattr(xp, function)(a, axis=axis), getattr(xp, function)(a[:, ::2], axis=axis)


@pytest.mark.parametrize("axis", [0, 1])
@testing.for_all_dtypes(no_complex=True)
@testing.numpy_asnumpy_allclose(rtol={np.float16: 5e-3, np.float32: 1e-5, "default": 1e-12})
def test_cumsum(xp, axis, dtype, on_npu):
    return xp.cumsum(operand(xp, "cumsum", dtype, "contiguous", shape=(4, 6)), axis=axis)


@pytest.mark.parametrize("axis", [0, -1])
@testing.for_all_dtypes(no_complex=True)
@testing.numpy_asnumpy_array_equal()
def test_sort_and_stable_argsort(xp, axis, dtype, on_npu):
    a = operand(xp, "sort", dtype, "strided", shape=(5, 12))
    inplace = a.copy()
    inplace.sort(axis=axis)
    return xp.sort(a, axis=axis), xp.argsort(a, axis=axis, kind="stable"), inplace


@testing.for_dtypes([np.float16, np.float32, np.float64, np.int32])
@testing.numpy_asnumpy_allclose(rtol={np.float16: 2e-2, np.float32: 1e-5, "default": 1e-12})
def test_matmul(xp, dtype, on_npu):
    a = operand(xp, "matmul", dtype, "contiguous", shape=(5, 7))
    b = operand(xp, "matmul", dtype, "contiguous", shape=(7, 3), seed=3)
    return xp.matmul(a, b), a.T @ a[:, :3] if np.dtype(dtype).kind == "f" else a @ b


@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal()
def test_copies_casts_and_fills(xp, dtype, on_npu):
    a = operand(xp, "copy", dtype, "strided")
    out = xp.zeros((6, 4), dtype)
    out[...] = a
    filled = xp.full((3, 5), 2, dtype)
    widened = a.astype(np.float64) if np.dtype(dtype).kind != "c" else a.astype(np.complex128)
    return out, filled, widened, a.astype(np.float32) if np.dtype(dtype).kind != "c" else a
