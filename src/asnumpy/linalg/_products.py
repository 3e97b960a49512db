"""Products: tensordot, multi_dot, inner, outer, vdot, kron, einsum, and the
array-API variants ``numpy.linalg`` exports (cross, diagonal, trace, vecdot, outer).

All are composed of views, reshapes and ``matmul``/``multiply`` on the device,
except ``einsum``, which runs NumPy's own on the device data.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._core.math_functions import cross as _cross
from .._core.math_functions import dot
from .._core.indexing import diagonal as _diagonal
from .._core.indexing import trace as _trace
from .._core.ufuncs import UFUNCS
from ._probes import named, operands, probe, run

__all__ = [
    "einsum", "einsum_path", "inner", "kron", "linalg_cross", "linalg_diagonal",
    "linalg_outer", "linalg_trace", "linalg_vecdot", "multi_dot", "outer", "tensordot", "vdot",
]


@named("tensordot")
def tensordot(a, b, axes=2):
    """Tensor dot product over ``axes``, as ``numpy.tensordot``.

    Parameters
    ----------
    a, b : array_like
    axes : int or (2,) array_like
        ``N``: the last N axes of ``a`` with the first N of ``b``; or two
        sequences of axes summed pairwise.

    Returns
    -------
    asnumpy.ndarray
    """
    _, (a, b) = operands("tensordot", a, b)
    try:
        iter(axes)
    except TypeError:
        axes_a = list(range(-axes, 0))
        axes_b = list(range(axes))
    else:
        axes_a, axes_b = axes
    axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
    na, nb = len(axes_a), len(axes_b)
    as_, nda, bs, ndb = a.shape, a.ndim, b.shape, b.ndim
    equal = na == nb
    if equal:
        for k in range(na):
            if as_[axes_a[k]] != bs[axes_b[k]]:
                equal = False
                break
            if axes_a[k] < 0:
                axes_a[k] += nda
            if axes_b[k] < 0:
                axes_b[k] += ndb
    if not equal:
        raise ValueError("shape-mismatch for sum")
    notin = [k for k in range(nda) if k not in axes_a]
    newaxes_a = notin + axes_a
    n2 = math.prod(as_[ax] for ax in axes_a)
    newshape_a = (math.prod(as_[ax] for ax in notin), n2)
    olda = [as_[axis] for axis in notin]
    notin = [k for k in range(ndb) if k not in axes_b]
    newaxes_b = axes_b + notin
    newshape_b = (n2, math.prod(bs[ax] for ax in notin))
    oldb = [bs[axis] for axis in notin]
    at = a.transpose(newaxes_a).reshape(newshape_a)
    bt = b.transpose(newaxes_b).reshape(newshape_b)
    return dot(at, bt).reshape(tuple(olda + oldb))


@named("linalg.multi_dot")
def multi_dot(arrays, *, out=None):
    """Dot product of two or more arrays in the cheapest order, as ``numpy.linalg.multi_dot``.

    Parameters
    ----------
    arrays : sequence of array_like
        The first may be 1-D (a row vector), the last 1-D (a column vector),
        the others 2-D.
    out : asnumpy.ndarray, optional
        C-contiguous, of the result's shape and dtype.

    Returns
    -------
    asnumpy.ndarray
    """
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    _, arrays = operands("linalg.multi_dot", *arrays)
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    ndim_first, ndim_last = arrays[0].ndim, arrays[-1].ndim
    if ndim_first == 1:
        arrays[0] = arrays[0].reshape(1, -1)
    if ndim_last == 1:
        arrays[-1] = arrays[-1].reshape(-1, 1)
    for a in arrays:
        if a.ndim != 2:
            raise np.linalg.LinAlgError(
                f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    from numpy.linalg._linalg import _multi_dot_matrix_chain_order

    order = _multi_dot_matrix_chain_order(arrays)

    def chain(i, j):
        if i == j:
            return arrays[i]
        return dot(chain(i, order[i, j]), chain(order[i, j] + 1, j))

    result = chain(0, n - 1)
    if ndim_first == 1 and ndim_last == 1:
        result = result.reshape(())
    elif ndim_first == 1 or ndim_last == 1:
        result = result.reshape(-1)
    if out is not None:
        UFUNCS["positive" if result.dtype.kind != "b" else "logical_or"](
            *((result,) if result.dtype.kind != "b" else (result, result)), out=out)
        return out
    return result


@named("vdot")
def vdot(a, b, /):
    """Dot product of the flattened arrays, conjugating the first, as ``numpy.vdot``.

    Parameters
    ----------
    a, b : array_like
        Of equal size.

    Returns
    -------
    asnumpy.ndarray
        0-d.
    """
    _, (a, b) = operands("vdot", a, b)
    if a.size != b.size:
        raise ValueError("vectors have different lengths")
    a, b = a.reshape(-1), b.reshape(-1)
    if a.dtype.kind == "c":
        a = UFUNCS["conjugate"](a)
    # numpy.vdot never reports floating-point errors (its BLAS and dot loops
    # leave the status unchecked), so its overflow to inf must not raise here
    with np.errstate(all="ignore"):
        result = dot(a, b)
        if a.size == 1 and result.dtype.kind in "fc":
            # numpy.vdot sums from +0 (its dot loops): not dot's one-element product
            UFUNCS["add"](result, 0, out=result)
        return result


@named("inner")
def inner(a, b, /):
    """Inner product over the last axes, as ``numpy.inner``.

    Parameters
    ----------
    a, b : array_like
        Last axes of equal length (scalars multiply).

    Returns
    -------
    asnumpy.ndarray
        Shape ``a.shape[:-1] + b.shape[:-1]``.
    """
    _, (a, b) = operands("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return dot(a, b)                 # a scaled copy, with dot's signed zeros
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"shapes {a.shape} and {b.shape} not aligned: "
                         f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[-1]} (dim {b.ndim - 1})")
    return tensordot(a, b, axes=([-1], [-1]))


@named("outer")
def outer(a, b, out=None):
    """Outer product of the flattened arrays, as ``numpy.outer``.

    Parameters
    ----------
    a : (M,) array_like
    b : (N,) array_like
    out : asnumpy.ndarray, optional
        ``(M, N)``.

    Returns
    -------
    asnumpy.ndarray
    """
    _, (a, b) = operands("outer", a, b)
    return UFUNCS["multiply"](a.reshape(-1, 1), b.reshape(1, -1), out=out)


@named("linalg.outer")
def linalg_outer(x1, x2, /):
    """Outer product of two 1-D vectors, as ``numpy.linalg.outer``.

    Parameters
    ----------
    x1 : (M,) array_like
    x2 : (N,) array_like

    Returns
    -------
    asnumpy.ndarray
        ``(M, N)``.
    """
    _, (x1, x2) = operands("linalg.outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={x1.ndim} and x2.ndim={x2.ndim}.")
    return outer(x1, x2)


@named("kron")
def kron(a, b):
    """Kronecker product, as ``numpy.kron``.

    Parameters
    ----------
    a, b : array_like

    Returns
    -------
    asnumpy.ndarray
        Shape: the elementwise product of the shapes (the shorter padded with 1s).
    """
    _, (a, b) = operands("kron", a, b)
    ndim = max(a.ndim, b.ndim)
    sa = (1,) * (ndim - a.ndim) + a.shape
    sb = (1,) * (ndim - b.ndim) + b.shape
    left = a.reshape(tuple(x for n in sa for x in (n, 1)))
    right = b.reshape(tuple(x for n in sb for x in (1, n)))
    return UFUNCS["multiply"](left, right).reshape(tuple(map(operator.mul, sa, sb)))


def _einsum_split(operands_):
    """(arrays, rebuild(arrays) -> args) of einsum's two call forms."""
    if isinstance(operands_[0], str):
        return list(operands_[1:]), lambda arrays: (operands_[0], *arrays)
    count = len(operands_) // 2
    subs = list(operands_[1::2])[:count]
    tail = tuple(operands_[2 * count:])

    def rebuild(arrays):
        args = []
        for array, sub in zip(arrays, subs):
            args += [array, sub]
        return tuple(args) + tail

    return list(operands_[0:2 * count:2]), rebuild


@named("einsum")
def einsum(*operands_, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """Einstein summation, as ``numpy.einsum`` (NumPy's own on the device data).

    Parameters
    ----------
    subscripts : str
        Subscript labels (``'ij,jk->ik'``), or the interleaved
        ``einsum(op0, sublist0, op1, sublist1, ..., [sublistout])`` form.
    *operands : array_like
    out : asnumpy.ndarray, optional
    dtype, order, casting : optional
        As ``numpy.einsum``.
    optimize : {False, True, 'greedy', 'optimal'} or list, optional
        Contraction order (``einsum_path``).

    Returns
    -------
    asnumpy.ndarray
    """
    if not operands_:
        raise ValueError("No input operands")
    arrays, rebuild = _einsum_split(operands_)
    if not arrays:                          # NumPy's own checks, before any operand is read
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand" if isinstance(operands_[0], str) else
                         "must provide at least an operand and a subscripts list to einsum")
    device, arrays = operands("einsum", *arrays)
    args = rebuild(arrays)
    kwargs = {"dtype": dtype, "order": order, "casting": casting, "optimize": optimize}
    if out is None:
        result = run("einsum", "einsum", args, kwargs)[0]
        return result
    results, backward = probe("einsum", args, kwargs)
    shape = tuple(backward[n] for n in results[0].shape)
    from .._core._launch import launch
    from .._core.ufuncs.ufunc_methods import _check_out

    _check_out("einsum", out, shape, device)
    probe("einsum", args, dict(kwargs, out=np.empty(results[0].shape, out.dtype)))
    launch("numpy_function", (out,), "einsum", args, dict(kwargs, out=out), func="einsum")
    return out


@named("einsum_path")
def einsum_path(*operands_, optimize="greedy", einsum_call=False):
    """Cheapest contraction order of an ``einsum``, as ``numpy.einsum_path``.

    Only the operands' shapes are used (no data is read).

    Returns
    -------
    path : list
    string : str
        NumPy's report.
    """
    arrays, rebuild = _einsum_split(operands_)
    stand_ins = []
    for a in arrays:
        host = a if hasattr(a, "shape") and hasattr(a, "dtype") else np.asarray(a)
        stand_ins.append(np.broadcast_to(np.zeros((), host.dtype), host.shape))
    return np.einsum_path(*rebuild(stand_ins), optimize=optimize, einsum_call=einsum_call)


@named("linalg.cross")
def linalg_cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors, as ``numpy.linalg.cross``.

    Parameters
    ----------
    x1, x2 : array_like
        Of length 3 along ``axis``; other axes broadcast.
    axis : int, optional

    Returns
    -------
    asnumpy.ndarray
    """
    _, (x1, x2) = operands("linalg.cross", x1, x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they are {x1.shape[axis]} and {x2.shape[axis]} "
            "dimensional instead.")
    return _cross(x1, x2, axis=axis)


@named("linalg.diagonal")
def linalg_diagonal(x, /, *, offset=0):
    """Diagonals of the last two axes, as ``numpy.linalg.diagonal`` (a view).

    Parameters
    ----------
    x : (..., M, N) array_like
    offset : int, optional

    Returns
    -------
    asnumpy.ndarray
    """
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


@named("linalg.trace")
def linalg_trace(x, /, *, offset=0, dtype=None):
    """Sums along the diagonals of the last two axes, as ``numpy.linalg.trace``.

    Parameters
    ----------
    x : (..., M, N) array_like
    offset : int, optional
    dtype : data-type, optional

    Returns
    -------
    asnumpy.ndarray
    """
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


@named("linalg.vecdot")
def linalg_vecdot(x1, x2, /, *, axis=-1):
    """Vector dot product along ``axis`` (conjugating ``x1``), as ``numpy.linalg.vecdot``.

    Parameters
    ----------
    x1, x2 : array_like
    axis : int, optional

    Returns
    -------
    asnumpy.ndarray
    """
    return UFUNCS["vecdot"](x1, x2, axis=axis)
