"""Coordinate grids: meshgrid, indices, fromfunction."""

from __future__ import annotations

from ... import _dtypes
from .. import _launch, _layout
from ..ndarray import ndarray
from ._allocation import _gather_inputs, _index, _named_errors, _target_device
from .ranges import _arange

__all__ = ["fromfunction", "indices", "meshgrid"]


# -- grids --------------------------------------------------------------------

def _axis_view(vector, axis, shape) -> ndarray:
    """A 1-D array stretched along ``axis`` of ``shape`` (zero strides elsewhere)."""
    strides = [0] * len(shape)
    strides[axis] = vector.strides[0]
    return vector._view(tuple(shape), tuple(strides), vector._offset)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy", device=None):
    """Return a tuple of coordinate matrices from coordinate vectors.

    Parameters
    ----------
    x1, x2, ..., xn : array_like
        Coordinate vectors (flattened).
    copy : bool, optional
        If False, return views of the inputs (zero-strided, so that several
        elements share memory) instead of new arrays.
    sparse : bool, optional
        If True, each result keeps length 1 along the other axes.
    indexing : {'xy', 'ij'}, optional
        Cartesian ('xy', default) or matrix ('ij') indexing.
    device : str or Device, optional
        Where the results live.  By default the asnumpy inputs' device (they
        must share one), else the current device; an explicit device moves
        asnumpy inputs there.

    Returns
    -------
    tuple of ndarray
        For vectors of lengths ``Ni`` the shape is ``(N1, N2, N3, ...)`` with
        'ij' indexing and ``(N2, N1, N3, ...)`` with 'xy' indexing.
    """
    func = "meshgrid"
    if indexing not in ("xy", "ij"):
        raise ValueError(f"asnumpy.{func}: Valid values for `indexing` are 'xy' and 'ij'.")
    device, arrays = _gather_inputs(func, device, xi)
    vectors = [array.reshape((array.size,)) for array in arrays]
    axes = list(range(len(vectors)))
    if indexing == "xy" and len(axes) > 1:
        axes[0], axes[1] = 1, 0
    full_shape = [1] * len(vectors)
    for axis, vector in zip(axes, vectors):
        full_shape[axis] = vector.shape[0]
    grids = []
    for axis, vector in zip(axes, vectors):
        shape = [1] * len(vectors) if sparse else list(full_shape)
        shape[axis] = vector.shape[0]
        grid = _axis_view(vector, axis, shape)
        grids.append(grid.copy() if copy else grid)
    return tuple(grids)


def indices(dimensions, dtype=int, sparse=False, *, device=None):
    """Return an array representing the indices of a grid.

    Parameters
    ----------
    dimensions : sequence of ints
        The shape of the grid.
    dtype : data-type, optional
        Numeric dtype (default the default integer).
    sparse : bool, optional
        If True, return one array per axis, of length 1 along the other axes.
    device : str or Device, optional
        Where the result lives (default: the current device).

    Returns
    -------
    ndarray or tuple of ndarray
        An array of shape ``(len(dimensions),) + tuple(dimensions)`` whose
        ``i``-th subarray holds the indices along axis ``i``; with ``sparse``
        a tuple of arrays that broadcast to that.
    """
    func = "indices"
    with _named_errors(func):
        dimensions = tuple(_index(d, "dimension", func) for d in dimensions)
    dtype = _dtypes.to_dtype(dtype, func, default=int)
    device = _target_device(device)
    if not sparse:
        dimensions = _layout.normalize_shape(dimensions, func)
    elif any(d < -1 for d in dimensions):
        raise ValueError(f"asnumpy.{func}: negative dimensions are not allowed, got {dimensions}")
    lengths = [max(d, 0) for d in dimensions]
    ramps = [_arange(0, n, 1, dtype, device, func) for n in lengths]
    if sparse:
        return tuple(_axis_view(ramp, axis, [1] * axis + [n] + [1] * (len(lengths) - axis - 1))
                     for axis, (ramp, n) in enumerate(zip(ramps, lengths)))
    out = _launch.empty((len(lengths),) + tuple(lengths), dtype, device, func=func)
    for axis, ramp in enumerate(ramps):
        _launch.launch("copy", out[axis], _axis_view(ramp, axis, lengths), func=func)
    return out


def fromfunction(function, shape, *, dtype=float, like=None, device=None, **kwargs):
    """Construct an array by executing a function over each coordinate.

    ``function`` is called once, with one asnumpy array of coordinates per
    axis (as :func:`indices` gives them), and its result is returned.

    Parameters
    ----------
    function : callable
        Called as ``function(i0, i1, ..., **kwargs)``.
    shape : tuple of ints
        Shape of the coordinate arrays.
    dtype : data-type, optional
        Numeric dtype of the coordinate arrays (default float64).
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.
    device : str or Device, optional
        Where the coordinate arrays live (default: the current device).
    **kwargs
        Passed on to ``function``.

    Returns
    -------
    any
        Whatever ``function`` returns.
    """
    dtype = _dtypes.to_dtype(dtype, "fromfunction", default=float)
    coordinates = indices(shape, dtype=dtype, device=_target_device(device, like))
    return function(*coordinates, **kwargs)
