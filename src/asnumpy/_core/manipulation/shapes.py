"""Changing shapes and axes: reshape, ravel, transpose, squeeze, broadcast_to, resize, ...

Everything returns a view of its operand when NumPy does (``reshape`` and
``ravel`` when the layout allows, ``transpose``, ``squeeze``,
``expand_dims``, ``broadcast_to`` ...) and a new array from the device pool
otherwise, filled by the back end's ``copy`` kernel.
"""

from __future__ import annotations

import math
import operator

import numpy as np
from numpy.exceptions import AxisError

from .._tracing import traceable
from .. import _layout
from .._launch import empty, launch
from ..ndarray import ndarray
from ._operands import (
    as_array,
    named_errors,
    normalize_axis,
    normalize_axis_tuple,
    operands,
)

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "expand_dims",
    "matrix_transpose",
    "moveaxis",
    "ndim",
    "permute_dims",
    "ravel",
    "require",
    "reshape",
    "resize",
    "rollaxis",
    "shape",
    "size",
    "squeeze",
    "swapaxes",
    "transpose",
]


# -- reshape and flattening -----------------------------------------------------

@traceable
def reshape(a, /, shape, order="C", *, copy=None):
    """Give a new shape to an array without changing its data.

    Parameters
    ----------
    a : array_like
        Array to be reshaped (host data is copied to the current device).
    shape : int or tuple of ints
        The new shape, compatible with the original one; one entry may be
        -1, inferred from the size.
    order : {'C', 'F', 'A'}, optional
        Index order in which elements are read from ``a`` and placed in the
        result.
    copy : bool, optional
        True always copies; False raises ValueError when a view is
        impossible; None (default) copies only when needed.

    Returns
    -------
    ndarray
        A view of ``a`` when its layout allows, else a copy.
    """
    a = as_array(a, "reshape")
    with named_errors("reshape"):
        return a.reshape(shape, order=order, copy=copy)


def _order(order, func):
    return _layout.check_order(order, func, "C")


def _is_fortran(a) -> bool:
    flags = a.flags
    return flags.f_contiguous and not flags.c_contiguous


def _keep_order_axes(a):
    """Axes of ``a`` from the largest |stride| to the smallest (stable): its memory order."""
    return sorted(range(a.ndim), key=lambda ax: -abs(a._strides[ax]))


def _flat_view(a):
    """A 1-d view of ``a`` when its elements are packed in its memory order ('K'), else None."""
    perm = _keep_order_axes(a)
    stride = a.itemsize
    for ax in reversed(perm):
        if a._shape[ax] == 1:
            continue
        if a._strides[ax] != stride:
            return None
        stride *= a._shape[ax]
    return a._view((a.size,), (a.itemsize,), a._offset)


def _flat_copy(a, order):
    """A new 1-d array with ``a``'s elements read in ``order`` ('C', 'F' or 'K')."""
    if order == "F":
        source = a.transpose()
    elif order == "K":
        # NumPy copies through its iterator, whose 'K' axis order lets a
        # zero (broadcast) stride compare with nothing: not the stride sort
        # that decides whether a view will do
        table = [[s if n != 1 else 0 for n, s in zip(a._shape, a._strides)]]
        source = a.transpose(_layout.iterator_axis_order(a.ndim, table)[::-1])
    else:
        source = a
    out = empty((a.size,), a.dtype, a._device, func="ravel")
    if a.size:
        target = out._view(source.shape,
                           _layout.contiguous_view_strides(source.shape, a.itemsize), 0)
        launch("copy", target, source, func="ravel")
    return out


def _resolve_flat_order(a, order):
    if order == "A":
        return "F" if _is_fortran(a) else "C"
    if order == "K":
        flags = a.flags
        if flags.c_contiguous:
            return "C"
        if flags.f_contiguous:
            return "F"
    return order


def ravel(a, order="C"):
    """Return a contiguous flattened array.

    Parameters
    ----------
    a : array_like
        Input array (host data is copied to the current device).
    order : {'C', 'F', 'A', 'K'}, optional
        The order elements are read in: 'C' row-major, 'F' column-major,
        'A' Fortran order if ``a`` is Fortran-contiguous, 'K' the order
        they lie in memory.

    Returns
    -------
    ndarray
        A 1-d view of ``a`` when its elements are contiguous in that order
        (NumPy's rule), else a 1-d copy.
    """
    a = as_array(a, "ravel")
    order = _resolve_flat_order(a, _order(order, "ravel"))
    flags = a.flags
    if order == "C" and flags.c_contiguous:
        return a._view((a.size,), (a.itemsize,), a._offset)
    if order == "F" and flags.f_contiguous:
        return a._view((a.size,), (a.itemsize,), a._offset)
    if order == "K":
        view = _flat_view(a)
        if view is not None:
            return view
    return _flat_copy(a, order)


def flatten(a, order="C"):
    """A copy of the array collapsed into one dimension (``ndarray.flatten``).

    Parameters
    ----------
    a : ndarray
        The array.
    order : {'C', 'F', 'A', 'K'}, optional
        The order elements are read in (as :func:`ravel`).

    Returns
    -------
    ndarray
        A new 1-d array, always a copy.
    """
    a = as_array(a, "ndarray.flatten")
    return _flat_copy(a, _resolve_flat_order(a, _order(order, "ndarray.flatten")))


# -- axes ----------------------------------------------------------------------------

def _transposed(a, axes, func):
    """``a`` viewed with its axes permuted by ``axes`` (reversed when None)."""
    a = as_array(a, func)
    with named_errors(func):
        if axes is None:
            return a.transpose()
        return a.transpose(tuple(axes) if isinstance(axes, (list, tuple)) else (axes,))


@traceable
def transpose(a, axes=None):
    """Returns an array with axes transposed.

    Parameters
    ----------
    a : array_like
        Input array.
    axes : tuple or list of ints, optional
        A permutation of ``range(a.ndim)`` (negative axes allowed); the
        default reverses the axes.

    Returns
    -------
    ndarray
        A view of ``a`` with its axes permuted.
    """
    return _transposed(a, axes, "transpose")


def permute_dims(a, axes=None):
    """Returns an array with axes transposed (the array API's name of :func:`transpose`).

    Parameters
    ----------
    a : array_like
        Input array.
    axes : tuple or list of ints, optional
        A permutation of the axes; the default reverses them.

    Returns
    -------
    ndarray
        A view of ``a`` with its axes permuted.
    """
    return _transposed(a, axes, "permute_dims")


def matrix_transpose(x, /):
    """Transposes a matrix (or a stack of matrices): swaps the last two axes.

    Parameters
    ----------
    x : array_like
        Input array with at least two dimensions.

    Returns
    -------
    ndarray
        A view of ``x`` with its last two axes swapped.
    """
    x = as_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError("asnumpy.matrix_transpose: Input array must be at least "
                         f"2-dimensional, but it is {x.ndim}")
    return x.swapaxes(-1, -2)


@traceable
def swapaxes(a, axis1, axis2):
    """Interchange two axes of an array.

    Parameters
    ----------
    a : array_like
        Input array.
    axis1, axis2 : int
        The axes to swap.

    Returns
    -------
    ndarray
        A view of ``a``.
    """
    a = as_array(a, "swapaxes")
    order = list(range(a.ndim))
    i = normalize_axis(axis1, a.ndim, "swapaxes")
    j = normalize_axis(axis2, a.ndim, "swapaxes")
    order[i], order[j] = order[j], order[i]
    return a.transpose(order)


@traceable
def moveaxis(a, source, destination):
    """Move axes of an array to new positions; the others keep their order.

    Parameters
    ----------
    a : array_like
        The array whose axes should be reordered.
    source : int or sequence of int
        Original positions of the axes to move (unique).
    destination : int or sequence of int
        Destination positions for each of the original axes (unique).

    Returns
    -------
    ndarray
        A view of ``a`` with moved axes.
    """
    a = as_array(a, "moveaxis")
    source = normalize_axis_tuple(source, a.ndim, "moveaxis", "source")
    destination = normalize_axis_tuple(destination, a.ndim, "moveaxis", "destination")
    if len(source) != len(destination):
        raise ValueError("asnumpy.moveaxis: `source` and `destination` arguments must have "
                         "the same number of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.transpose(order)


def rollaxis(a, axis, start=0):
    """Roll the specified axis backwards, until it lies in a given position.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int
        The axis to be rolled.
    start : int, optional
        The axis is rolled until it lies before this position (NumPy's rule,
        ``-ndim <= start <= ndim``).

    Returns
    -------
    ndarray
        A view of ``a``.
    """
    a = as_array(a, "rollaxis")
    n = a.ndim
    axis = normalize_axis(axis, n, "rollaxis")
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise AxisError(f"asnumpy.rollaxis: 'start' arg requires {-n} <= start < {n + 1}, "
                        f"but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


@traceable
def squeeze(a, axis=None):
    """Remove axes of length one from ``a``.

    Parameters
    ----------
    a : array_like
        Input data.
    axis : None or int or tuple of ints, optional
        The length-one axes to remove (all of them by default); ValueError
        if one of them is longer.

    Returns
    -------
    ndarray
        A view of ``a``; ``a`` itself when there is no axis to remove (as NumPy).
    """
    a = as_array(a, "squeeze")
    if axis is None:
        axes = tuple(i for i, n in enumerate(a._shape) if n == 1)
    elif (a.ndim == 0 and isinstance(axis, (int, np.integer))
          and not isinstance(axis, bool) and axis in (0, -1)):
        # NumPy's legacy rule: a single axis 0 or -1 of a 0-d array names no axis
        # (a tuple such as (0,) is out of bounds, as for any other array)
        axes = ()
    else:
        axes = normalize_axis_tuple(axis, a.ndim, "squeeze")
        if any(a._shape[i] != 1 for i in axes):
            raise ValueError("asnumpy.squeeze: cannot select an axis to squeeze out which has "
                             "size not equal to one")
    if not axes:
        return a            # nothing to squeeze: NumPy returns the array itself, not a view
    keep = [i for i in range(a.ndim) if i not in axes]
    return a._view(tuple(a._shape[i] for i in keep), tuple(a._strides[i] for i in keep),
                   a._offset)


@traceable
def expand_dims(a, axis):
    """Expand the shape of an array: insert axes of length one.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of ints
        Positions in the expanded shape where the new axes are placed.

    Returns
    -------
    ndarray
        A view of ``a`` with ``ndim`` increased by the number of axes.
    """
    a = as_array(a, "expand_dims")
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    out_ndim = len(axis) + a.ndim
    axes = normalize_axis_tuple(axis, out_ndim, "expand_dims")
    _layout.check_ndim(out_ndim, "expand_dims")
    dims = iter(zip(a._shape, a._strides))
    shape, strides = [], []
    for ax in range(out_ndim):
        if ax in axes:
            shape.append(1)
            strides.append(0)
        else:
            n, s = next(dims)
            shape.append(n)
            strides.append(s)
    # an inserted axis takes the stride a reshape would give it (NumPy's)
    for i in range(out_ndim - 1, -1, -1):
        if i in axes:
            strides[i] = (strides[i + 1] * max(shape[i + 1], 1) if i + 1 < out_ndim
                          else a.itemsize)
    return a._view(tuple(shape), tuple(strides), a._offset)


# -- broadcasting ---------------------------------------------------------------------

def _broadcast_view(a, shape, writeable):
    # NumPy's (its iterator's): every axis of length 1, broadcast or not, gets stride 0,
    # which 'K'-order layouts of results made like this view then follow
    extra = len(shape) - a.ndim
    strides = [0] * extra
    for n, s, target in zip(a._shape, a._strides, shape[extra:]):
        strides.append(s if n == target and n != 1 else 0)
    view = a._view(tuple(shape), tuple(strides), a._offset)
    view._writeable = writeable and a._writeable
    return view


@traceable
def broadcast_to(array, shape, subok=False):
    """Broadcast an array to a new shape.

    Parameters
    ----------
    array : array_like
        The array to broadcast.
    shape : int or tuple of ints
        The shape of the desired array.
    subok : bool, optional
        Accepted for NumPy compatibility.

    Returns
    -------
    ndarray
        A read-only view of ``array`` with the given shape (repeated
        elements share memory: zero strides).
    """
    array = as_array(array, "broadcast_to")
    stand_in = np.broadcast_to(np.empty((), array.dtype), array.shape)
    with named_errors("broadcast_to"):
        result_shape = np.broadcast_to(stand_in, shape).shape
    return _broadcast_view(array, result_shape, writeable=False)


def broadcast_shapes(*args):
    """Broadcast the input shapes into a single shape.

    Parameters
    ----------
    *args : tuples of ints, or ints
        The shapes to be broadcast against each other.

    Returns
    -------
    tuple
        Broadcasted shape.
    """
    with named_errors("broadcast_shapes"):
        return np.broadcast_shapes(*args)


def broadcast_arrays(*args, subok=False):
    """Broadcast any number of arrays against each other.

    Parameters
    ----------
    *args : array_likes
        The arrays to broadcast (host data is moved to the device of the
        first asnumpy array).
    subok : bool, optional
        Accepted for NumPy compatibility.

    Returns
    -------
    tuple of ndarray
        The arrays themselves when their shapes already agree; else views
        of the original arrays (writeable as NumPy's, but several elements
        may share one memory location: write with care).
    """
    arrays = operands(args, "broadcast_arrays")
    with named_errors("broadcast_arrays"):
        result_shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a if a.shape == result_shape else _broadcast_view(a, result_shape, True)
                 for a in arrays)


# -- at least n dimensions --------------------------------------------------------------

def _atleast(arys, func, make):
    arrays = [make(a) for a in operands(arys, func)]
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def atleast_1d(*arys):
    """Convert inputs to arrays with at least one dimension.

    Parameters
    ----------
    *arys : array_like
        One or more arrays.

    Returns
    -------
    ndarray or tuple of ndarray
        An array (a view where possible) with ``ndim >= 1``; a tuple for
        several inputs.
    """
    return _atleast(arys, "atleast_1d", lambda a: a.reshape(1) if a.ndim == 0 else a)


def atleast_2d(*arys):
    """View inputs as arrays with at least two dimensions.

    Parameters
    ----------
    *arys : array_like
        One or more arrays.

    Returns
    -------
    ndarray or tuple of ndarray
        An array with ``ndim >= 2`` (a 1-d array of length N becomes 1xN);
        a tuple for several inputs.
    """
    def make(a):
        if a.ndim == 0:
            return a.reshape(1, 1)
        if a.ndim == 1:
            return a[None, :]
        return a
    return _atleast(arys, "atleast_2d", make)


def atleast_3d(*arys):
    """View inputs as arrays with at least three dimensions.

    Parameters
    ----------
    *arys : array_like
        One or more arrays.

    Returns
    -------
    ndarray or tuple of ndarray
        An array with ``ndim >= 3``: a 1-d array of length N becomes
        (1, N, 1), a 2-d array of shape (M, N) becomes (M, N, 1); a tuple
        for several inputs.
    """
    def make(a):
        if a.ndim == 0:
            return a.reshape(1, 1, 1)
        if a.ndim == 1:
            return a[None, :, None]
        if a.ndim == 2:
            return a[:, :, None]
        return a
    return _atleast(arys, "atleast_3d", make)


# -- metadata ---------------------------------------------------------------------------

def shape(a):
    """Return the shape of an array (an asnumpy array, or any array-like on the host).

    Returns
    -------
    tuple of ints
    """
    if isinstance(a, ndarray):
        return a.shape
    return np.shape(a)


def ndim(a):
    """Return the number of dimensions of an array or array-like.

    Returns
    -------
    int
    """
    if isinstance(a, ndarray):
        return a.ndim
    return np.ndim(a)


def size(a, axis=None):
    """Return the number of elements along given axes (all by default).

    Parameters
    ----------
    a : array_like
        Input data.
    axis : None or int or tuple of ints, optional
        Axes along which the elements are counted.

    Returns
    -------
    int
    """
    dims = shape(a)
    if axis is None:
        return math.prod(dims)
    axes = normalize_axis_tuple(axis, len(dims), "size")
    return math.prod(dims[ax] for ax in axes)


_REQUIREMENTS = {
    "C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
    "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O",
    "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E",
}


def require(a, dtype=None, requirements=None, *, like=None):
    """Return an array of the given dtype that satisfies the requirements.

    Parameters
    ----------
    a : array_like
        The object to be converted (host data is copied to the current device).
    dtype : data-type, optional
        The required data-type.
    requirements : str or sequence of str, optional
        Any of 'C'/'C_CONTIGUOUS'/'CONTIGUOUS', 'F'/'F_CONTIGUOUS'/'FORTRAN',
        'A'/'ALIGNED', 'W'/'WRITEABLE', 'O'/'OWNDATA', 'E'/'ENSUREARRAY'
        (asnumpy arrays are always base-class arrays and aligned).
    like : array_like, optional
        Accepted for NumPy compatibility.

    Returns
    -------
    ndarray
        ``a`` itself when it already satisfies everything, else a copy.
    """
    from ..transfer import array as make_array

    if not requirements:
        from ..transfer import asarray

        with named_errors("require"):
            return asarray(a, dtype=dtype)
    wanted = {_REQUIREMENTS[r.upper()] for r in requirements}
    wanted.discard("E")
    order = "A"
    if {"C", "F"} <= wanted:
        raise ValueError('asnumpy.require: Cannot specify both "C" and "F" order')
    if "C" in wanted:
        order = "C"
        wanted.remove("C")
    elif "F" in wanted:
        order = "F"
        wanted.remove("F")
    with named_errors("require"):
        result = make_array(a, dtype=dtype, order=order, copy=None)
    flags = result.flags
    for prop in wanted:
        if not flags[prop]:
            return result.copy(order)
    return result


# -- resize -------------------------------------------------------------------------------

def _new_shape(new_shape, func):
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (new_shape,)
    dims = tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"asnumpy.{func}: all elements of `new_shape` must be non-negative")
    return dims


def resize(a, new_shape):
    """Return a new array with the specified shape, repeating ``a``'s data as needed.

    Parameters
    ----------
    a : array_like
        Array to be resized.
    new_shape : int or tuple of int
        Shape of the resized array.

    Returns
    -------
    ndarray
        A new C-ordered array filled with ``a``'s elements (read in C order)
        repeated to fill it; zeros when ``a`` or the result is empty.
    """
    a = as_array(a, "resize")
    dims = _new_shape(new_shape, "resize")
    out = empty(dims, a.dtype, a._device, func="resize")
    total = _layout.size_of(dims)
    if total == 0:
        return out
    flat = out._view((total,), (a.itemsize,), 0)
    if a.size == 0:
        launch("fill", flat, np.zeros((), a.dtype), func="resize")
        return out
    source = ravel(a)
    first = min(a.size, total)
    launch("copy", flat[:first], source[:first], func="resize")
    filled = first
    while filled < total:                 # double the filled prefix: log2 launches
        step = min(filled, total - filled)
        launch("copy", flat[filled:filled + step], flat[:step], func="resize")
        filled += step
    return out


def resize_method(self, *new_shape, refcheck=True):
    """Change the shape and size of the array in place (``ndarray.resize``).

    New elements are zero; existing ones keep their C-order positions.  The
    array must own its memory and be C-contiguous (ValueError otherwise).
    Unlike NumPy, ``refcheck`` is not enforced by reference counting: the
    array gets new memory, and views taken before the resize keep seeing the
    old data (they are not invalidated).
    """
    if not new_shape or (len(new_shape) == 1 and new_shape[0] is None):
        return
    if len(new_shape) == 1 and not isinstance(new_shape[0], (int, np.integer)):
        new_shape = new_shape[0]
    dims = _new_shape(new_shape, "ndarray.resize")
    if self._base is not None:
        raise ValueError("asnumpy.ndarray.resize: cannot resize this array: it does not own "
                         "its data")
    if not self.flags.c_contiguous:
        raise ValueError("asnumpy.ndarray.resize: resize only works on single-segment arrays")
    if not self._writeable:
        raise ValueError("asnumpy.ndarray.resize: cannot resize a read-only array")
    total = _layout.size_of(dims)
    out = empty(dims, self.dtype, self._device, func="ndarray.resize")
    if total:
        flat = out._view((total,), (self.itemsize,), 0)
        keep = min(total, self.size)
        if keep < total:
            launch("fill", flat[keep:], np.zeros((), self.dtype), func="ndarray.resize")
        if keep:
            launch("copy", flat[:keep], ravel(self)[:keep], func="ndarray.resize")
    self._buffer = out._buffer
    self._shape = out._shape
    self._strides = out._strides
    self._offset = 0
    self._native = None
    return
