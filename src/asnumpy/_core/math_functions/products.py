"""Products of vectors and arrays: dot and cross."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._tracing import traceable
from .._launch import empty
from .._layout import shape_text
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import (axis_error, copyto, device_of, fetch, moveaxis, shape_mismatch,
                        to_device)
from ..._errors import check_writeable, user_stacklevel

__all__ = ["cross", "dot"]

_BAD_OUT = ("output array is not acceptable (must have the right datatype, number of "
            "dimensions, and be a C-Array)")


# The dtypes NumPy scales with BLAS's axpy when one operand of dot is 0-d and
# the other has more than one element (one element, or another dtype: multiply)
_BLAS_AXPY = frozenset(map(np.dtype, ("f4", "f8", "c8", "c16")))


def _scaled(scalar, array, out, dtype):
    """``scalar * array`` as BLAS's axpy computes it into zeros (``y = 0 + alpha * x``).

    axpy returns early for ``alpha == 0``: the result is +0.0 everywhere, even
    where ``array`` holds inf or NaN, with no floating-point error; otherwise
    each product is added to +0 (``dot(-1.0, [0.0, 1.0])`` is ``[0.0, -1.0]``).
    """
    alpha = np.asarray(scalar._host_copy()).astype(dtype)
    if alpha == 0:
        result = empty(array.shape, dtype, array._device, func="dot") if out is None else out
        return copyto(result, 0, True, "dot")
    result = UFUNCS["multiply"](scalar, array, out=out, dtype=dtype)
    return UFUNCS["add"](result, 0, out=result)


@traceable
def dot(a, b, out=None):
    """Dot product of two arrays, as ``numpy.dot``.

    * 0-d operands: elementwise multiplication.
    * 1-D and 1-D: the inner product (a 0-d array).
    * 2-D and 2-D: the matrix product.
    * N-D and 1-D: a sum product over the last axes.
    * N-D and M-D (M >= 2): a sum product over the last axis of ``a`` and
      the second-to-last of ``b``: ``dot(a, b)[i,j,k,m] = sum(a[i,j,:] * b[k,:,m])``.

    Parameters
    ----------
    a, b : array_like
        Operands; Python scalars count as arrays of their default dtype (as in NumPy).
    out : asnumpy.ndarray, optional
        C-contiguous, of exactly the result's shape and dtype (ValueError otherwise).

    Returns
    -------
    asnumpy.ndarray
    """
    device = device_of(a, b, out)
    a, b = to_device(a, device, "dot"), to_device(b, device, "dot")
    dtype = np.result_type(a.dtype, b.dtype)
    if a.ndim == 0 or b.ndim == 0:
        shape = a.shape if b.ndim == 0 else b.shape
        _check_out(out, shape, dtype)
        if dtype in _BLAS_AXPY and math.prod(shape) > 1:
            return _scaled(a if a.ndim == 0 else b, b if a.ndim == 0 else a, out, dtype)
        return UFUNCS["multiply"](a, b, out=out, dtype=dtype)
    k_axis = 0 if b.ndim == 1 else b.ndim - 2
    if a.shape[-1] != b.shape[k_axis]:
        raise ValueError(
            f"asnumpy.dot: shapes {shape_text(a.shape)} and {shape_text(b.shape)} not aligned: "
            f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[k_axis]} (dim {k_axis})")
    shape = a.shape[:-1] + b.shape[:k_axis] + b.shape[k_axis + 1:]
    _check_out(out, shape, dtype)
    if dtype in _BLAS_AXPY and a.ndim <= 2 and b.ndim <= 2:
        blas = _blas_shortcut(a, b, shape, out, dtype)
        if blas is not None:
            return blas
    matmul = UFUNCS["matmul"]
    if dtype.kind == "c":
        # a kernel may choose how to sum (BLAS, or a loop of its own: their
        # infinities and NaNs differ) by the layout: one layout, one answer
        a, b = (x if x.flags.c_contiguous else x.copy() for x in (a, b))
    if out is None:
        # in dot's result dtype: matmul has no loop for ml_dtypes' bfloat16 and float8
        # types and would answer in float32 (NumPy's dot rounds into bfloat16)
        out = empty(shape, dtype, device, func="dot")
    if a.ndim == 1 or b.ndim <= 2:
        # matmul's broadcasting agrees with dot here
        return matmul(a, b, out=out)
    # (P, k) @ (Q, k, m) -> (Q, P, m), written into out viewed as (P, Q, m)
    rows = _size(a.shape[:-1])
    stacks = _size(b.shape[:-2])
    left = a.reshape(rows, a.shape[-1])
    right = b.reshape(stacks, b.shape[-2], b.shape[-1])
    target = out.reshape(rows, stacks, b.shape[-1]).transpose(1, 0, 2)
    if dtype.kind != "c":
        matmul(left, right, out=target)
    else:                       # a contiguous result too (see above)
        UFUNCS["positive"](matmul(left, right, dtype=dtype), out=target)
    return out


def _blas_shortcut(a, b, shape, out, dtype):
    """``dot`` of operands of at most 2 dimensions where NumPy's BLAS path leaves matmul's sums.

    NumPy (``cblas_matrixproduct``) treats a one-element operand as a
    scalar: a one-element result is the plain product (``dot([-0.0], [1.0])``
    is -0.0), a longer one BLAS's axpy (:func:`_scaled`). A complex outer
    product (``(m, 1)`` by ``(1, n)``) goes to gemm, whose kernels differ by
    CPU and by size (OpenBLAS has small-matrix ones): in whether the products
    are scaled by ``alpha = 1+0j`` (an infinite part then makes the other
    NaN) and summed into zeros (-0 becomes +0). Such a product is NumPy's own,
    computed on the host from the column and the row. None when matmul
    computes what NumPy does.
    """
    if a.size == 1 or b.size == 1:
        scalar, other = (a, b) if a.size == 1 else (b, a)
        scalar, other = scalar.reshape(()), other.reshape(shape)
        if math.prod(shape) > 1:
            return _scaled(scalar, other, out, dtype)
        return UFUNCS["multiply"](scalar, other, out=out, dtype=dtype)
    if dtype.kind == "c" and a.ndim == b.ndim == 2 and a.shape[1] == 1:
        with np.errstate(all="ignore"):       # (gemm raises no floating-point error)
            host = np.dot(fetch(a), fetch(b))
        if out is None:
            return to_device(host, a._device, "dot")
        out[...] = host
        return out
    return None


def _size(shape):
    size = 1
    for n in shape:
        size *= n
    return size


def _check_out(out, shape, dtype):
    if out is None:
        return
    if not isinstance(out, ndarray):
        raise TypeError(f"asnumpy.dot: out must be an asnumpy.ndarray, got {type(out).__name__}")
    if out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous:
        raise ValueError(f"asnumpy.dot: {_BAD_OUT}")
    check_writeable(out, "dot")


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of two (arrays of) vectors, as ``numpy.cross``.

    Parameters
    ----------
    a, b : array_like
        Vectors of length 2 or 3 along ``axisa`` / ``axisb`` (other axes broadcast).
        2-vectors are deprecated since NumPy 2.0 and warn as there.
    axisa, axisb, axisc : int, optional
        The vector axes of ``a``, ``b`` and the result.
    axis : int, optional
        Overrides all three.

    Returns
    -------
    asnumpy.ndarray
        The cross products (a scalar per pair when both are 2-vectors), in
        ``promote_types(a.dtype, b.dtype)``.
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    device = device_of(a, b)
    a, b = to_device(a, device, "cross"), to_device(b, device, "cross")
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("asnumpy.cross: At least one array has zero dimension")
    axisa = _vector_axis(axisa, a.ndim, "axisa")
    axisb = _vector_axis(axisb, b.ndim, "axisb")
    a = moveaxis(a, axisa, -1, "cross")
    b = moveaxis(b, axisb, -1, "cross")
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("asnumpy.cross: incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=user_stacklevel())
    try:
        shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError:
        raise shape_mismatch("cross", a.shape[:-1], b.shape[:-1]) from None
    if na == 3 or nb == 3:
        shape += (3,)
        axisc = _vector_axis(axisc, len(shape), "axisc")
    dtype = np.promote_types(a.dtype, b.dtype)
    result = empty(shape, dtype, device, func="cross")
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    multiply, subtract = UFUNCS["multiply"], UFUNCS["subtract"]
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    if na == 2 and nb == 2:
        multiply(a0, b1, out=result)
        subtract(result, multiply(a1, b0), out=result)
        return result
    c0, c1, c2 = result[..., 0], result[..., 1], result[..., 2]
    if na == 2:
        b2 = b[..., 2]
        multiply(a1, b2, out=c0)
        multiply(a0, b2, out=c1)
        UFUNCS["negative"](c1, out=c1)
    elif nb == 2:
        a2 = a[..., 2]
        multiply(a2, b1, out=c0)
        UFUNCS["negative"](c0, out=c0)
        multiply(a2, b0, out=c1)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        multiply(a1, b2, out=c0)
        subtract(c0, multiply(a2, b1), out=c0)
        multiply(a2, b0, out=c1)
        subtract(c1, multiply(a0, b2), out=c1)
    multiply(a0, b1, out=c2)
    subtract(c2, multiply(a1, b0), out=c2)
    return moveaxis(result, -1, axisc, "cross")


def _vector_axis(axis, ndim, name):
    import operator

    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise axis_error(axis, ndim, "cross", name)
    return axis % ndim


def _ndarray_dot(self, b, out=None):
    """``a.dot(b, out=None)``: see :func:`asnumpy.dot`."""
    return dot(self, b, out=out)


METHODS = {"dot": _ndarray_dot}
