"""Pseudo-inverse, rank, condition number, least squares, powers and norms.

``pinv``, ``matrix_rank``, ``cond``, ``matrix_power`` and the norms run
NumPy's own routines on the device data; ``lstsq``'s residuals (whose shape
depends on the computed rank) are formed on the device from the solution;
``tensorinv``/``tensorsolve`` reshape onto ``inv``/``solve`` as NumPy does.
"""

from __future__ import annotations

import math

import numpy as np

from .._core._launch import empty, launch
from .._core.reductions._operands import NoValue
from ._probes import LinAlgError, fetch, named, operands, probe, run
from ._lapack import inv, solve

__all__ = [
    "cond", "lstsq", "matrix_norm", "matrix_power", "matrix_rank", "norm", "pinv",
    "tensorinv", "tensorsolve", "vector_norm",
]


def _with_arrays(func, a, **kwargs):
    """``a`` and array-valued keyword arguments moved to ``a``'s device."""
    arrays = {k: v for k, v in kwargs.items()
              if v is not None and v is not NoValue and not np.isscalar(v)}
    _, moved = operands(func, a, *arrays.values())
    kwargs.update(dict(zip(arrays, moved[1:])))
    return moved[0], {k: v for k, v in kwargs.items() if v is not NoValue}


@named("linalg.pinv")
def pinv(a, rcond=None, hermitian=False, *, rtol=NoValue):
    """Moore-Penrose pseudo-inverse of (stacks of) matrices, as ``numpy.linalg.pinv``.

    Parameters
    ----------
    a : (..., M, N) array_like
    rcond, rtol : float or array_like, optional
        Cutoff for small singular values, relative to the largest (give one of them).
    hermitian : bool, optional

    Returns
    -------
    asnumpy.ndarray
        ``(..., N, M)``.
    """
    a, kwargs = _with_arrays("linalg.pinv", a, rcond=rcond, rtol=rtol)
    kwargs["hermitian"] = hermitian
    return run("linalg.pinv", "linalg.pinv", (a,), kwargs)[0]


@named("linalg.matrix_rank")
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """Rank of (stacks of) matrices by SVD, as ``numpy.linalg.matrix_rank``.

    Parameters
    ----------
    A : (..., M, N) or (M,) array_like
    tol, rtol : float or array_like, optional
        Absolute or relative threshold below which singular values count as zero.
    hermitian : bool, optional

    Returns
    -------
    asnumpy.ndarray
        Integer, ``(...)``.
    """
    A, kwargs = _with_arrays("linalg.matrix_rank", A, tol=tol, rtol=rtol)
    kwargs["hermitian"] = hermitian
    return run("linalg.matrix_rank", "linalg.matrix_rank", (A,), kwargs)[0]


@named("linalg.cond")
def cond(x, p=None):
    """Condition number of (stacks of) matrices, as ``numpy.linalg.cond``.

    Parameters
    ----------
    x : (..., M, N) array_like
    p : {None, 1, -1, 2, -2, inf, -inf, 'fro'}, optional
        The norm (``None``: 2-norm by SVD).

    Returns
    -------
    asnumpy.ndarray
        Real, ``(...)``; ``inf`` for singular matrices.
    """
    _, (x,) = operands("linalg.cond", x)
    return run("linalg.cond", "linalg.cond", (x,), {"p": p})[0]


@named("linalg.matrix_power")
def matrix_power(a, n):
    """``a`` raised to the integer power ``n`` (stacks of square matrices), as NumPy.

    Parameters
    ----------
    a : (..., M, M) array_like
    n : int
        Negative powers invert ``a`` first (``LinAlgError`` if singular).

    Returns
    -------
    asnumpy.ndarray
    """
    _, (a,) = operands("linalg.matrix_power", a)
    return run("linalg.matrix_power", "linalg.matrix_power", (a,), {"n": n})[0]


@named("linalg.lstsq")
def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b``, as ``numpy.linalg.lstsq``.

    Parameters
    ----------
    a : (M, N) array_like
    b : (M,) or (M, K) array_like
    rcond : float, optional
        Cutoff for small singular values, relative to the largest.

    Returns
    -------
    tuple
        ``(x, residuals, rank, singular_values)``, a plain tuple as NumPy
        2.4's.  ``residuals`` are the squared 2-norms of ``b - a @ x`` per
        column (shape ``(K,)``, or ``(1,)`` for 1-D ``b``) when
        ``rank == N < M``, else empty.
    """
    func = "linalg.lstsq"
    device, (a, b) = operands(func, a, b)
    results, backward = probe(func, (a, b), {"rcond": rcond})
    x, residuals, rank, s = (
        empty(tuple(backward[n] for n in r.shape), r.dtype, device, func=func) for r in results)
    k = 1 if b.ndim == 1 else b.shape[-1]
    residuals = empty((k,), residuals.dtype, device, func=func)
    count = empty((), np.dtype(np.intp), device, func=func)
    launch("lstsq", (x, residuals, rank, s, count), a, b, rcond, func=func)
    return x, residuals[:int(fetch(count))], rank, s


def _norm_args(func, x, kwargs):
    _, (x,) = operands(func, x)
    return run(func, func, (x,), kwargs)[0]


@named("linalg.norm")
def norm(x, ord=None, axis=None, keepdims=False):
    """Matrix or vector norm, as ``numpy.linalg.norm``.

    Parameters
    ----------
    x : array_like
    ord : {int, float, inf, -inf, 'fro', 'nuc'}, optional
    axis : int or 2-tuple of ints, optional
        Vector norm over one axis, matrix norm over two (default: the whole
        array's 2-norm, or the matrix norm of a 2-D ``x`` when ``ord`` is given).
    keepdims : bool, optional

    Returns
    -------
    asnumpy.ndarray
        Floating, 0-d when every axis is reduced.
    """
    return _norm_args("linalg.norm", x, {"ord": ord, "axis": axis, "keepdims": keepdims})


@named("linalg.matrix_norm")
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Matrix norm of (stacks of) matrices over the last two axes, as NumPy.

    Parameters
    ----------
    x : (..., M, N) array_like
    keepdims : bool, optional
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}, optional

    Returns
    -------
    asnumpy.ndarray
    """
    return _norm_args("linalg.matrix_norm", x, {"keepdims": keepdims, "ord": ord})


@named("linalg.vector_norm")
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm over ``axis`` (all axes by default), as ``numpy.linalg.vector_norm``.

    Parameters
    ----------
    x : array_like
    axis : int or tuple of ints, optional
    keepdims : bool, optional
    ord : {int, float, inf, -inf}, optional

    Returns
    -------
    asnumpy.ndarray
    """
    return _norm_args("linalg.vector_norm", x,
                      {"axis": axis, "keepdims": keepdims, "ord": ord})


@named("linalg.tensorinv")
def tensorinv(a, ind=2):
    """Inverse of an N-d array with respect to ``tensordot``, as ``numpy.linalg.tensorinv``.

    Parameters
    ----------
    a : array_like
        ``prod(a.shape[:ind]) == prod(a.shape[ind:])``.
    ind : int, optional
        Number of leading indices of the inverse's input.

    Returns
    -------
    asnumpy.ndarray
        Shape ``a.shape[ind:] + a.shape[:ind]``.
    """
    _, (a,) = operands("linalg.tensorinv", a)
    oldshape = a.shape
    if ind > 0:
        invshape = oldshape[ind:] + oldshape[:ind]
        prod = math.prod(oldshape[ind:])
    else:
        raise ValueError("Invalid ind argument.")
    a = a.reshape(prod, -1)
    return inv(a).reshape(*invshape)


@named("linalg.tensorsolve")
def tensorsolve(a, b, axes=None):
    """Solve ``tensordot(a, x, axes=x.ndim) = b`` for ``x``, as ``numpy.linalg.tensorsolve``.

    Parameters
    ----------
    a : array_like
        Coefficients; ``prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])``.
    b : array_like
    axes : tuple of ints, optional
        Axes of ``a`` moved to the end first.

    Returns
    -------
    asnumpy.ndarray
        Shape ``a.shape[b.ndim:]``.
    """
    _, (a, b) = operands("linalg.tensorsolve", a, b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = a.transpose(allaxes)
    oldshape = a.shape[-(an - b.ndim):]
    prod = math.prod(oldshape)
    if math.prod(a.shape) != prod ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(a.reshape(prod, prod), b.reshape(-1)).reshape(oldshape)
