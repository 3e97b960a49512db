"""Joining arrays: concatenate, stack, hstack, vstack, dstack, column_stack, block.

A join allocates its result from the device pool once and copies every
piece into a slice view of it with the back end's ``copy`` kernel (which
casts, and on cpu splits large copies across threads).  Result dtypes and
casting errors are NumPy's, read off a probe: ``numpy.concatenate`` on
one-element host arrays of the pieces' dtypes.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._tracing import traceable
from .._launch import check_same_device, empty, launch
from ..ndarray import ndarray
from ._operands import named_errors, normalize_axis, operands
from .shapes import atleast_1d, atleast_2d, atleast_3d, expand_dims, ravel
from ..._errors import check_writeable, user_stacklevel

__all__ = [
    "block",
    "column_stack",
    "concat",
    "concatenate",
    "dstack",
    "hstack",
    "row_stack",
    "stack",
    "vstack",
]


def _sequence(arrays, func, what="concatenate"):
    if isinstance(arrays, ndarray):
        # NumPy iterates an array's first axis
        return [arrays[i] for i in range(len(arrays))] if arrays.ndim else arrays
    try:
        items = list(arrays)
    except TypeError:
        raise TypeError(f"asnumpy.{func}: The first input argument needs to be a sequence") \
            from None
    if not items:
        raise ValueError(f"asnumpy.{func}: need at least one array to {what}")
    return items


def _result_dtype(arrays, out, dtype, casting, func):
    """NumPy's result dtype (and casting errors) for joining ``arrays``."""
    probes = [np.zeros(1, a.dtype) for a in arrays]
    probe_out = None if out is None else np.zeros(len(probes), out.dtype)
    with named_errors(func):
        return np.concatenate(probes, out=probe_out, dtype=dtype, casting=casting).dtype


def _multi_sorted_stride_perm(arrays, ndim):
    """NumPy's ``PyArray_CreateMultiSortedStridePerm``: axes from slowest to fastest in memory.

    An insertion sort where axis j goes before axis i when some array (not
    length 1 on either) has a larger |stride| on j; conflicts keep C order.
    """
    perm = list(range(ndim))
    for i0 in range(1, ndim):
        ipos = i0
        ax_j0 = perm[i0]
        for i1 in range(i0 - 1, -1, -1):
            ambiguous, swap = True, False
            ax_j1 = perm[i1]
            for a in arrays:
                if a.shape[ax_j0] != 1 and a.shape[ax_j1] != 1:
                    if abs(a.strides[ax_j0]) <= abs(a.strides[ax_j1]):
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if swap:
                    ipos = i1
                else:
                    break
        if ipos != i0:
            perm[ipos + 1:i0 + 1] = perm[ipos:i0]
            perm[ipos] = ax_j0
    return perm


def _allocate_like(arrays, shape, dtype, func):
    """A new array for a join, laid out in the memory order the pieces share (NumPy's rule)."""
    out = empty(shape, dtype, arrays[0]._device, func=func)
    if out.size == 0 or len(shape) < 2:
        return out
    strides = [0] * len(shape)
    step = dtype.itemsize
    for axis in reversed(_multi_sorted_stride_perm(arrays, len(shape))):
        strides[axis] = step
        step *= shape[axis]
    strides = tuple(strides)
    if strides == out.strides:
        return out
    return ndarray._from_buffer(out._buffer, shape, dtype, strides, 0, out._device)


def _join(arrays, axis, out, dtype, casting, func):
    """Concatenate the asnumpy ``arrays`` (validated here) along ``axis`` into a new array or ``out``."""
    first = arrays[0]
    ndim = first.ndim
    if ndim == 0:
        raise ValueError(f"asnumpy.{func}: zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis(axis, ndim, func)
    for index, a in enumerate(arrays):
        if a.ndim != ndim:
            raise ValueError(
                f"asnumpy.{func}: all the input arrays must have same number of dimensions, "
                f"but the array at index 0 has {ndim} dimension(s) and the array at index "
                f"{index} has {a.ndim} dimension(s)")
        for dim in range(ndim):
            if dim != axis and a.shape[dim] != first.shape[dim]:
                raise ValueError(
                    f"asnumpy.{func}: all the input array dimensions except for the "
                    f"concatenation axis must match exactly, but along dimension {dim}, the "
                    f"array at index 0 has size {first.shape[dim]} and the array at index "
                    f"{index} has size {a.shape[dim]}")
    if out is not None and not isinstance(out, ndarray):
        raise TypeError(f"asnumpy.{func}: out must be an asnumpy.ndarray, got "
                        f"{type(out).__name__}")
    result_dtype = _result_dtype(arrays, out, dtype, casting, func)
    total = sum(a.shape[axis] for a in arrays)
    shape = first.shape[:axis] + (total,) + first.shape[axis + 1:]
    if out is None:
        out = _allocate_like(arrays, shape, result_dtype, func)
    else:
        check_same_device(func, first._device, out)
        if out.shape != shape:
            raise ValueError(f"asnumpy.{func}: Output array is the wrong shape")
        check_writeable(out, func, "assignment destination")       # NumPy's words
    start = 0
    lead = (slice(None),) * axis
    for a in arrays:
        stop = start + a.shape[axis]
        if a.size:
            launch("copy", out[lead + (slice(start, stop),)], a, func=func)
        start = stop
    return out


def _concatenate(arrays, axis, out, dtype, casting, func):
    """:func:`concatenate` under the name ``func``: axis None joins the flattened arrays."""
    arrays = operands(_sequence(arrays, func), func)
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    return _join(arrays, axis, out, dtype, casting, func)


@traceable
def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join a sequence of arrays along an existing axis.

    Parameters
    ----------
    arrays : sequence of array_like
        The arrays must have the same shape, except in the dimension of
        ``axis``.  Host data is moved to the device of the first asnumpy array.
    axis : int or None, optional
        The axis along which the arrays are joined; None flattens them first.
    out : ndarray, optional
        Destination of the right shape (excludes ``dtype``).
    dtype : data-type, optional
        The result's dtype (excludes ``out``).
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        Which casts of the inputs are allowed.

    Returns
    -------
    ndarray
        The concatenated array (``out`` when given).
    """
    return _concatenate(arrays, axis, out, dtype, casting, "concatenate")


def concat(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join a sequence of arrays along an existing axis (the array API's :func:`concatenate`).

    Parameters
    ----------
    arrays : sequence of array_like
        The arrays to join.
    axis : int or None, optional
        The joining axis; None flattens the arrays first.
    out : ndarray, optional
        Destination of the right shape.
    dtype : data-type, optional
        The result's dtype.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        Which casts of the inputs are allowed.

    Returns
    -------
    ndarray
    """
    return _concatenate(arrays, axis, out, dtype, casting, "concat")


@traceable
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join a sequence of arrays along a new axis.

    Parameters
    ----------
    arrays : sequence of array_like
        Arrays of the same shape.
    axis : int, optional
        The axis in the result along which the arrays are stacked.
    out : ndarray, optional
        Destination of the right shape.
    dtype : data-type, optional
        The result's dtype (excludes ``out``).
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        Which casts of the inputs are allowed.

    Returns
    -------
    ndarray
        An array with one more dimension than the inputs.
    """
    arrays = operands(_sequence(arrays, "stack", "stack"), "stack")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("asnumpy.stack: all input arrays must have the same shape")
    result_ndim = arrays[0].ndim + 1
    axis = normalize_axis(axis, result_ndim, "stack")
    expanded = [expand_dims(a, axis) for a in arrays]
    return _join(expanded, axis, out, dtype, casting, "stack")


def _tuple_of_arrays(tup, func):
    if not isinstance(tup, (list, tuple, ndarray)):
        raise TypeError(f'asnumpy.{func}: arrays to stack must be passed as a "sequence" type '
                        "such as list or tuple.")
    return operands(_sequence(tup, func), func)


@traceable
def hstack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays in sequence horizontally (column wise).

    Parameters
    ----------
    tup : sequence of array_like
        1-d arrays are joined along their only axis, others along the second.
    dtype : data-type, optional
        The result's dtype.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        Which casts of the inputs are allowed.

    Returns
    -------
    ndarray
    """
    arrays = [atleast_1d(a) for a in _tuple_of_arrays(tup, "hstack")]
    axis = 0 if arrays[0].ndim == 1 else 1
    return _join(arrays, axis, None, dtype, casting, "hstack")


@traceable
def vstack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays in sequence vertically (row wise).

    Parameters
    ----------
    tup : sequence of array_like
        1-d arrays of length N are made rows of shape (1, N) first.
    dtype : data-type, optional
        The result's dtype.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        Which casts of the inputs are allowed.

    Returns
    -------
    ndarray
        At least 2-d.
    """
    arrays = [atleast_2d(a) for a in _tuple_of_arrays(tup, "vstack")]
    return _join(arrays, 0, None, dtype, casting, "vstack")


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays in sequence vertically: a deprecated alias of :func:`vstack`.

    NumPy 2 deprecates it (DeprecationWarning); so does asnumpy.

    Returns
    -------
    ndarray
    """
    warnings.warn("`row_stack` alias is deprecated. Use `asnumpy.vstack` directly.",
                  DeprecationWarning, stacklevel=user_stacklevel())
    arrays = [atleast_2d(a) for a in _tuple_of_arrays(tup, "row_stack")]
    return _join(arrays, 0, None, dtype, casting, "row_stack")


def dstack(tup):
    """Stack arrays in sequence depth wise (along the third axis).

    Parameters
    ----------
    tup : sequence of array_like
        Arrays are made at least 3-d first ((N,) -> (1, N, 1), (M, N) -> (M, N, 1)).

    Returns
    -------
    ndarray
        At least 3-d.
    """
    arrays = [atleast_3d(a) for a in _tuple_of_arrays(tup, "dstack")]
    return _join(arrays, 2, None, None, "same_kind", "dstack")


def column_stack(tup):
    """Stack 1-d arrays as columns into a 2-d array (2-d arrays are stacked as they are).

    Parameters
    ----------
    tup : sequence of array_like
        Arrays with the same first dimension.

    Returns
    -------
    ndarray
        The 2-d (or more) array formed by stacking the columns.
    """
    arrays = []
    for a in _tuple_of_arrays(tup, "column_stack"):
        if a.ndim < 2:
            a = atleast_2d(a).T if a.ndim == 1 else a.reshape(1, 1)
        arrays.append(a)
    return _join(arrays, 1, None, None, "same_kind", "column_stack")


# -- block ------------------------------------------------------------------------------

def _format_index(index):
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _check_depths(arrays, parent_index):
    """NumPy's ``_block_check_depths_match``: (index of the first leaf, max leaf ndim)."""
    if type(arrays) is tuple:
        raise TypeError(
            f"asnumpy.block: {_format_index(parent_index)} is a tuple. Only lists can be used "
            "to arrange blocks, and np.block does not allow implicit conversion from tuple "
            "to ndarray.")
    if type(arrays) is list and arrays:
        results = [_check_depths(a, parent_index + [i]) for i, a in enumerate(arrays)]
        first_index, max_ndim = results[0]
        for index, nd in results[1:]:
            max_ndim = max(max_ndim, nd)
            if len(index) != len(first_index):
                raise ValueError(
                    "asnumpy.block: List depths are mismatched. First element was at depth "
                    f"{len(first_index)}, but there is an element at depth {len(index)} "
                    f"({_format_index(index)})")
            if index[-1] is None:
                first_index = index
        return first_index, max_ndim
    if type(arrays) is list:
        return parent_index + [None], 0
    return parent_index, np.ndim(arrays) if not isinstance(arrays, ndarray) else arrays.ndim


def _leaves(arrays):
    if type(arrays) is list:
        for a in arrays:
            yield from _leaves(a)
    else:
        yield arrays


def _convert(arrays, converted):
    if type(arrays) is list:
        return [_convert(a, converted) for a in arrays]
    return next(converted)


def _block(arrays, depth, list_ndim, result_ndim):
    if depth < list_ndim:
        parts = [_block(a, depth + 1, list_ndim, result_ndim) for a in arrays]
        return _join(parts, result_ndim - (list_ndim - depth), None, None, "same_kind",
                     "block")
    a = arrays
    if a.ndim < result_ndim:
        a = a.reshape((1,) * (result_ndim - a.ndim) + a.shape)
    return a


def block(arrays):
    """Assemble an array from nested lists of blocks.

    Parameters
    ----------
    arrays : nested list of array_like or scalars
        The innermost lists are joined along the last axis, the next ones
        along the second-last, and so on; blocks are given leading axes of
        length one up to the result's ndim (NumPy's rules and errors).

    Returns
    -------
    ndarray
        A new array (a copy even for a single array).
    """
    bottom_index, arr_ndim = _check_depths(arrays, [])
    list_ndim = len(bottom_index)
    if bottom_index and bottom_index[-1] is None:
        raise ValueError(f"asnumpy.block: List at {_format_index(bottom_index)} cannot be empty")
    result_ndim = max(arr_ndim, list_ndim)
    leaves = operands(_leaves(arrays), "block")
    tree = _convert(arrays, iter(leaves))
    result = _block(tree, 0, list_ndim, result_ndim)
    if list_ndim == 0:
        result = result.copy()
    return result

