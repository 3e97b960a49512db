"""Matrices: eye, identity, diag, diagflat, tri, tril, triu, vander."""

from __future__ import annotations

import numpy as np

from ... import _dtypes
from .. import _launch, _layout
from ..ndarray import ndarray
from ._allocation import (
    _allocate,
    _append_doc,
    _fill_scalar,
    _index,
    _input_array,
    _iterator_layout,
    _Layout,
    _nonzero_strides,
    _shared_doc,
    _target_device,
)

__all__ = ["diag", "diagflat", "eye", "identity", "tri", "tril", "triu", "vander"]


# -- matrices -----------------------------------------------------------------

def _diagonal_view(matrix, k) -> ndarray:
    """The ``k``-th diagonal of a 2-D array, as a strided view of its memory."""
    rows, cols = matrix.shape
    row_stride, col_stride = matrix.strides
    if k >= 0:
        length, offset = min(rows, cols - k), k * col_stride
    else:
        length, offset = min(rows + k, cols), -k * row_stride
    if length <= 0:
        length, offset = 0, 0
    return matrix._view((length,), (row_stride + col_stride,), matrix._offset + offset)


def _eye(N, M, k, dtype, order, device, func) -> ndarray:
    k = _index(k, "k", func)
    M = N if M is None else M
    out = _allocate((N, M), dtype, order, device, func)
    _fill_scalar(out, 0, func)
    _fill_scalar(_diagonal_view(out, k), 1, func)
    return out


@_shared_doc
def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    """Return a 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns (default ``N``).
    k : int, optional
        Index of the diagonal: 0 the main one, positive above, negative below.
    dtype : data-type, optional
        Numeric dtype (default float64).
    order : {'C', 'F'}, optional
        Memory layout of the result.
    $device_like

    Returns
    -------
    ndarray
        An ``(N, M)`` array, one on the chosen diagonal, zero elsewhere.
    """
    return _eye(N, M, k, dtype, order, _target_device(device, like), "eye")


@_shared_doc
def identity(n, dtype=None, *, device=None, like=None):
    """Return the identity array: a square array with ones on the main diagonal.

    Parameters
    ----------
    n : int
        Number of rows (and columns).
    dtype : data-type, optional
        Numeric dtype (default float64).
    $device_like

    Returns
    -------
    ndarray
        ``n`` x ``n`` array with ones on the main diagonal.
    """
    return _eye(n, None, 0, dtype, "C", _target_device(device, like), "identity")


def _diagonal_matrix(v, k, func) -> ndarray:
    """A zero matrix with the 1-D array ``v`` on its ``k``-th diagonal."""
    n = v.shape[0] + abs(k)
    out = _launch.empty((n, n), v.dtype, v.device, func=func)
    _fill_scalar(out, 0, func)
    _launch.launch("copy", _diagonal_view(out, k), v, func=func)
    return out


def diag(v, k=0, *, device=None):
    """Extract a diagonal or construct a diagonal array.

    Parameters
    ----------
    v : array_like
        A 1-D array gives a 2-D array with ``v`` on its ``k``-th diagonal;
        a 2-D array gives its ``k``-th diagonal.
    k : int, optional
        Diagonal in question: 0 the main one, positive above, negative below.
    device : str or Device, optional
        Where the result lives (default: ``v``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        The diagonal matrix, or for 2-D input a read-only view of its diagonal
        (as NumPy's).

    Raises
    ------
    ValueError
        If ``v`` is not 1-D or 2-D.
    """
    func = "diag"
    k = _index(k, "k", func)
    v = _input_array(v, device, func)
    if v.ndim == 1:
        return _diagonal_matrix(v, k, func)
    if v.ndim == 2:
        diagonal = _diagonal_view(v, k)
        diagonal.flags.writeable = False
        return diagonal
    raise ValueError(f"asnumpy.{func}: Input must be 1- or 2-d.")


def diagflat(v, k=0, *, device=None):
    """Create a 2-D array with the flattened input on the ``k``-th diagonal.

    Parameters
    ----------
    v : array_like
        Input data, flattened in C order.
    k : int, optional
        Diagonal to set: 0 the main one, positive above, negative below.
    device : str or Device, optional
        Where the result lives (default: ``v``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        A square array with ``v.size + abs(k)`` rows.
    """
    func = "diagflat"
    k = _index(k, "k", func)
    v = _input_array(v, device, func)
    return _diagonal_matrix(v.reshape((v.size,)), k, func)


@_shared_doc
def tri(N, M=None, k=0, dtype=float, *, device=None, like=None):
    """An array with ones at and below the given diagonal and zeros elsewhere.

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns (default ``N``).
    k : int, optional
        The sub-diagonal at and below which the array is filled: 0 the main
        diagonal, negative below it, positive above.
    dtype : data-type, optional
        Numeric dtype (default float64).
    $device_like

    Returns
    -------
    ndarray
        An ``(N, M)`` array with ``T[i, j] == 1`` for ``j <= i + k``.
    """
    func = "tri"
    N = _index(N, "N", func)
    M = N if M is None else _index(M, "M", func)
    dtype = _dtypes.to_dtype(dtype, func, default=float)
    out = _launch.empty((max(N, 0), max(M, 0)), dtype, _target_device(device, like), func=func)
    _launch.launch("tri", out, N, M, k, func=func)
    return out


def _triangle_layout(shape, m) -> _Layout:
    """The layout of NumPy's ``where(tri_mask, m, 0)``, which tril and triu return."""
    rows, cols = shape[-2:]
    return _iterator_layout(shape, m.itemsize, [_nonzero_strides((rows, cols), (cols, 1), shape),
                                                _nonzero_strides(m.shape, m.strides, shape)])


def _triangle(kernel, m, k, device, func) -> ndarray:
    m = _input_array(m, device, func)
    if m.ndim == 0:
        raise TypeError(f"asnumpy.{func}: the input must be at least 1-d, got a 0-d array")
    shape = m.shape if m.ndim >= 2 else m.shape * 2
    out = _launch.empty(shape, m.dtype, m.device, "K", like=_triangle_layout(shape, m), func=func)
    _launch.launch(kernel, out, m, k=k, func=func)
    return out


_TRIANGLE_SECTIONS = """

    Parameters
    ----------
    m : array_like, shape (..., M, N)
        Input array (a 1-D input is treated as a row repeated ``len(m)`` times).
    k : int, optional
        The diagonal that bounds the kept triangle: 0 the main diagonal,
        negative below it, positive above.
    device : str or Device, optional
        Where the result lives (default: ``m``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        Same shape and dtype as ``m``, laid out as NumPy lays it out.
    """


def tril(m, k=0, *, device=None):
    """Lower triangle of an array: a copy with the elements above the k-th diagonal zeroed."""
    return _triangle("tril", m, k, device, "tril")


def triu(m, k=0, *, device=None):
    """Upper triangle of an array: a copy with the elements below the k-th diagonal zeroed."""
    return _triangle("triu", m, k, device, "triu")


_append_doc(tril, _TRIANGLE_SECTIONS)
_append_doc(triu, _TRIANGLE_SECTIONS)


def vander(x, N=None, increasing=False, *, device=None):
    """Generate a Vandermonde matrix: columns are powers of ``x``.

    Parameters
    ----------
    x : array_like
        1-D input array.
    N : int, optional
        Number of columns (default ``len(x)``).
    increasing : bool, optional
        Powers increase left to right if True; decrease (default) otherwise.
    device : str or Device, optional
        Where the result lives (default: ``x``'s device, the current device
        for host input).

    Returns
    -------
    ndarray
        ``(len(x), N)`` array of dtype ``promote_types(x.dtype, int)``.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or ``N`` is negative.
    """
    func = "vander"
    x = _input_array(x, device, func)
    if x.ndim != 1:
        raise ValueError(f"asnumpy.{func}: x must be a one-dimensional array or sequence.")
    columns = x.shape[0] if N is None else _index(N, "N", func)
    shape = _layout.normalize_shape((x.shape[0], columns), func)
    out = _launch.empty(shape, np.promote_types(x.dtype, np.int_), x.device, func=func)
    _launch.launch("vander", out, x, N=columns, increasing=bool(increasing), func=func)
    return out
