"""Decompositions, eigenvalues, inverses and solvers: NumPy's LAPACK on device memory.

Each function validates and sizes its results with a probe (see
``_probes``), allocates them from the pool and runs ``numpy.linalg.<name>``
on the device data.  Errors NumPy raises (``LinAlgError`` for singular or
non-positive-definite input, non-square matrices, unsupported dtypes) keep
their type and name the asnumpy function.
"""

from __future__ import annotations

import numpy as np

from .._core.ufuncs import UFUNCS
from ._probes import (
    EighResult,
    EigResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    fetch,
    named,
    operands,
    probe,
    run,
)

__all__ = [
    "cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "qr", "slogdet", "solve",
    "svd", "svdvals",
]


def _results(name, *args, **kwargs):
    """``numpy.<name>(*args, **kwargs)`` on the device of the operands: a tuple of results."""
    _, args = operands(name, *args)
    return run(name, name, tuple(args), kwargs)


#: Docstring sections shared by the functions below, filled in by ``_doc``.
_SECTIONS = {
    "square": "Parameters\n    ----------\n    a : (..., M, M) array_like",
    "matrix": "Parameters\n    ----------\n    a : (..., M, N) array_like",
    "array": "Returns\n    -------\n    asnumpy.ndarray",
    "linalgerror": "Raises\n    ------\n    LinAlgError",
}


def _doc(function):
    """Fill the ``{section}`` markers of ``function``'s docstring from ``_SECTIONS``."""
    for key, text in _SECTIONS.items():
        function.__doc__ = function.__doc__.replace("{" + key + "}", text)
    return function


@named("linalg.cholesky")
@_doc
def cholesky(a, /, *, upper=False):
    """Cholesky factor of (stacks of) Hermitian positive-definite matrices, as NumPy.

    {square}
    upper : bool, optional
        Return the upper-triangular factor ``U`` (``a = U^H U``) instead of ``L``.

    {array}

    {linalgerror}
        If a matrix is not positive-definite or not square.
    """
    return _results("linalg.cholesky", a, upper=upper)[0]


@named("linalg.det")
@_doc
def det(a):
    """Determinant of (stacks of) square matrices, as ``numpy.linalg.det``.

    {square}

    {array}
        Shape ``(...)`` (0-d for one matrix).
    """
    return _results("linalg.det", a)[0]


@named("linalg.slogdet")
@_doc
def slogdet(a):
    """Sign and natural log of the absolute determinant, as ``numpy.linalg.slogdet``.

    {square}

    Returns
    -------
    SlogdetResult
        ``(sign, logabsdet)``, each of shape ``(...)``.
    """
    return SlogdetResult(*_results("linalg.slogdet", a))


@named("linalg.inv")
@_doc
def inv(a):
    """Inverse of (stacks of) square matrices, as ``numpy.linalg.inv``.

    {square}

    {array}

    {linalgerror}
        If a matrix is singular or not square.
    """
    return _results("linalg.inv", a)[0]


@named("linalg.solve")
@_doc
def solve(a, b):
    """Solve ``a @ x = b`` for (stacks of) square ``a``, as ``numpy.linalg.solve``.

    {square}
    b : (M,) or (..., M, K) array_like
        Treated as a vector only when 1-D; batch axes broadcast.

    {array}

    {linalgerror}
        If ``a`` is singular or not square.
    """
    return _results("linalg.solve", a, b)[0]


def _real_if_real(func, results, complex_input):
    """NumPy's eig rule: real results when every eigenvalue has zero imaginary part."""
    if complex_input:
        return results
    w = results[0]
    if w.size and bool(fetch(UFUNCS["not_equal"](w.imag, 0).any())):
        return results
    real = np.empty(0, w.dtype).real.dtype
    return tuple(r.real.astype(real) for r in results)


def _eig(func, a, name):
    _, (a,) = operands(func, a)
    complex_input = a.dtype.kind == "c"
    if complex_input:
        return run(func, name, (a,), {})
    probed = probe(name, (a,), {})[0]
    dtypes = [np.result_type(r.dtype, np.complex64) for r in probed]
    return _real_if_real(func, run(func, name, (a,), {}, dtypes=dtypes), complex_input)


@named("linalg.eig")
@_doc
def eig(a):
    """Eigenvalues and right eigenvectors of (stacks of) square matrices, as NumPy.

    Real input gives real results when every eigenvalue is real, complex
    ones otherwise (as ``numpy.linalg.eig``).

    {square}

    Returns
    -------
    EigResult
        ``(eigenvalues (..., M), eigenvectors (..., M, M))``.

    {linalgerror}
        If the computation does not converge or a matrix is not square.
    """
    return EigResult(*_eig("linalg.eig", a, "linalg.eig"))


@named("linalg.eigvals")
@_doc
def eigvals(a):
    """Eigenvalues of (stacks of) square matrices, as ``numpy.linalg.eigvals``.

    {square}

    {array}
        ``(..., M)``; real when every eigenvalue of real input is real.
    """
    return _eig("linalg.eigvals", a, "linalg.eigvals")[0]


@named("linalg.eigh")
@_doc
def eigh(a, UPLO="L"):
    """Eigen-decomposition of (stacks of) Hermitian matrices, as ``numpy.linalg.eigh``.

    {square}
    UPLO : {'L', 'U'}, optional
        Which triangle of ``a`` is used.

    Returns
    -------
    EighResult
        ``(eigenvalues (..., M) ascending and real, eigenvectors (..., M, M))``.
    """
    return EighResult(*_results("linalg.eigh", a, UPLO=UPLO))


@named("linalg.eigvalsh")
@_doc
def eigvalsh(a, UPLO="L"):
    """Eigenvalues of (stacks of) Hermitian matrices, ascending, as NumPy.

    {square}
    UPLO : {'L', 'U'}, optional

    {array}
        Real, ``(..., M)``.
    """
    return _results("linalg.eigvalsh", a, UPLO=UPLO)[0]


@named("linalg.qr")
@_doc
def qr(a, mode="reduced"):
    """QR decomposition of (stacks of) matrices, as ``numpy.linalg.qr``.

    {matrix}
    mode : {'reduced', 'complete', 'r', 'raw'}, optional
        ``'reduced'``/``'complete'`` return ``QRResult(Q, R)``; ``'r'`` only
        ``R``; ``'raw'`` the tuple ``(h, tau)`` of LAPACK's factorization.

    Returns
    -------
    QRResult, asnumpy.ndarray or tuple
    """
    results = _results("linalg.qr", a, mode=mode)
    if mode == "r":
        return results[0]
    if mode == "raw":
        return results
    return QRResult(*results)


@named("linalg.svd")
@_doc
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition of (stacks of) matrices, as ``numpy.linalg.svd``.

    {matrix}
    full_matrices : bool, optional
        ``U`` and ``Vh`` square (``(..., M, M)``, ``(..., N, N)``) or reduced.
    compute_uv : bool, optional
        Return only the singular values when False.
    hermitian : bool, optional
        ``a`` is Hermitian (uses an eigen-decomposition).

    Returns
    -------
    SVDResult or asnumpy.ndarray
        ``(U, S, Vh)`` with ``a = U @ (S[..., None] * Vh)``; ``S`` descending.
    """
    results = _results("linalg.svd", a, full_matrices=full_matrices,
                       compute_uv=compute_uv, hermitian=hermitian)
    return SVDResult(*results) if compute_uv else results[0]


@named("linalg.svdvals")
@_doc
def svdvals(x, /):
    """Singular values of (stacks of) matrices, descending, as ``numpy.linalg.svdvals``.

    Parameters
    ----------
    x : (..., M, N) array_like

    {array}
        ``(..., min(M, N))``, real.
    """
    return _results("linalg.svdvals", x)[0]
