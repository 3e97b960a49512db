"""Editing an array's entries along an axis: append, insert, delete, trim_zeros.

Each result is a new array assembled from slices of the input (one copy per
contiguous run of kept entries) and the new values, as NumPy assembles it.
Index arguments (``obj``) are small host data: NumPy's index rules are
applied to them on the host.  When there are more runs than
``_MAX_RUNS``, NumPy's own ``insert``/``compress`` runs on the device data
(the ``numpy_function`` kernel) instead of one copy per run.
"""

from __future__ import annotations

import operator

import numpy as np

from .._launch import launch
from ..manipulation.joining import _join
from ..ndarray import ndarray
from ..ufuncs import UFUNCS
from ._operands import (
    along,
    as_array,
    broadcast_view,
    device_of,
    empty,
    fetch,
    host_values,
    normalize_axis,
    normalize_axis_tuple,
    ravel,
    to_device,
)

__all__ = ["append", "delete", "insert", "trim_zeros"]

#: Above this many copies, one ``numpy_function`` kernel does the work instead.
_MAX_RUNS = 32


def _order_of(array):
    """NumPy's ``'F' if arr.flags.fnc else 'C'``."""
    flags = array.flags
    return "F" if flags.f_contiguous and not flags.c_contiguous else "C"


def _flat_axis(arr, axis, func):
    """``(arr, axis)`` as NumPy's insert/delete see them: raveled for ``axis=None``."""
    if axis is None:
        if arr.ndim != 1:
            arr = ravel(arr)
        return arr, arr.ndim - 1
    return arr, normalize_axis(axis, arr.ndim, func)


def append(arr, values, axis=None):
    """Append values to the end of an array, as ``numpy.append``.

    Parameters
    ----------
    arr : array_like
        Values are appended to a copy of this array.
    values : array_like
        Appended values; with ``axis`` they must have ``arr``'s shape except
        along ``axis``, without it they are flattened.
    axis : int, optional
        Axis along which to append; None flattens both first.

    Returns
    -------
    asnumpy.ndarray
        A new array of the two inputs' ``result_type``.

    Raises
    ------
    ValueError
        For mismatched shapes or zero-dimensional inputs with an axis.
    AxisError
        For an axis out of range.
    """
    device = device_of(arr, values)
    arr = to_device(arr, device, "append")
    values = to_device(values, device, "append")
    if axis is None:
        if arr.ndim != 1:
            arr = ravel(arr)
        values = ravel(values)
        axis = arr.ndim - 1
    return _join((arr, values), axis, None, None, "same_kind", "append")


def _values_as(values, dtype, device, ndmin=0):
    """``numpy.array(values, dtype=dtype, ndmin=ndmin)`` on ``device`` (NumPy's conversion)."""
    if isinstance(values, ndarray):
        values = values.astype(dtype, copy=False)
    else:
        values = to_device(np.array(values, dtype=dtype), device, "insert")
    if values.ndim < ndmin:
        values = values.reshape((1,) * (ndmin - values.ndim) + values.shape)
    return values


def _copy_runs(out, arr, keep, axis):
    """Copy the entries of ``arr`` where the host mask ``keep`` is True, in order, into ``out``."""
    edges = np.flatnonzero(np.diff(np.concatenate(([False], keep, [False])).astype(np.int8)))
    written = 0
    for start, stop in zip(edges[::2], edges[1::2]):
        length = int(stop - start)
        out[along(out.ndim, axis, slice(written, written + length))] = \
            arr[along(arr.ndim, axis, slice(int(start), int(stop)))]
        written += length


def _runs(mask):
    """How many runs of True the host mask has."""
    return int(np.count_nonzero(np.diff(np.concatenate(([False], mask)).astype(np.int8)) == 1))


def insert(arr, obj, values, axis=None):
    """Insert values along the given axis before the given indices, as ``numpy.insert``.

    Parameters
    ----------
    arr : array_like
        Input array.
    obj : int, slice or sequence of ints (or a 1-D boolean array)
        Indices before which ``values`` are inserted; repeated indices insert
        several values at one place, in order.
    values : array_like
        Values to insert, converted to ``arr``'s dtype and broadcast to the
        inserted slots (one index: ``values`` may fill several slots).
    axis : int, optional
        Axis along which to insert; None flattens ``arr`` first.

    Returns
    -------
    asnumpy.ndarray
        A new array of ``arr``'s dtype.

    Raises
    ------
    IndexError
        For an index out of bounds.
    ValueError
        For a multi-dimensional ``obj`` or values that do not broadcast.
    """
    arr = as_array(arr, "insert", device_of(arr, values))
    arr, axis = _flat_axis(arr, axis, "insert")
    ndim = arr.ndim
    n = arr.shape[axis]
    order = _order_of(arr)
    obj = host_values(obj)
    if isinstance(obj, slice):
        indices = np.arange(*obj.indices(n), dtype=np.intp)
    else:
        indices = np.array(obj)
        if indices.dtype == bool:
            if indices.ndim != 1:
                raise ValueError("asnumpy.insert: boolean array argument obj to insert must be "
                                 "one dimensional")
            indices = np.flatnonzero(indices)
        elif indices.ndim > 1:
            raise ValueError("asnumpy.insert: index array argument obj to insert must be one "
                             "dimensional or scalar")
    if indices.size == 1:
        index = indices.item()
        try:
            operator.index(index)
        except TypeError:
            raise TypeError(f"asnumpy.insert: index {obj!r} is not an integer") from None
        if index < -n or index > n:
            raise IndexError(f"asnumpy.insert: index {obj} is out of bounds for axis {axis} "
                             f"with size {n}")
        index = operator.index(index) + (n if index < 0 else 0)
        values = _values_as(values, arr.dtype, arr._device, ndmin=ndim)
        if indices.ndim == 0:
            moved = list(range(1, values.ndim))
            moved.insert(axis, 0)
            values = values.transpose(moved)
        numnew = values.shape[axis]
        shape = arr.shape[:axis] + (n + numnew,) + arr.shape[axis + 1:]
        new = empty(shape, arr.dtype, arr._device, order=order, func="insert")
        new[along(ndim, axis, slice(None, index))] = arr[along(ndim, axis, slice(None, index))]
        slot = new[along(ndim, axis, slice(index, index + numnew))]
        slot[...] = _fitted(values, slot.shape)
        new[along(ndim, axis, slice(index + numnew, None))] = \
            arr[along(ndim, axis, slice(index, None))]
        return new
    if indices.size == 0 and not isinstance(obj, np.ndarray):
        indices = indices.astype(np.intp)
    if indices.dtype.kind not in "iu":
        raise IndexError("asnumpy.insert: arrays used as indices must be of integer (or "
                         "boolean) type")
    indices = indices.astype(np.intp)
    if indices.size and (indices.min() < -n or indices.max() > n):
        bad = indices[(indices < -n) | (indices > n)][0]
        raise IndexError(f"asnumpy.insert: index {bad} is out of bounds for axis {axis} with "
                         f"size {n + len(indices)}")
    indices[indices < 0] += n
    numnew = len(indices)
    requested = indices.copy()
    ranks = indices.argsort(kind="mergesort")
    indices[ranks] += np.arange(numnew)
    shape = arr.shape[:axis] + (n + numnew,) + arr.shape[axis + 1:]
    new = empty(shape, arr.dtype, arr._device, order=order, func="insert")
    slots_shape = arr.shape[:axis] + (numnew,) + arr.shape[axis + 1:]
    values = _fitted(_values_as(values, arr.dtype, arr._device), slots_shape)
    old_mask = np.ones(n + numnew, dtype=bool)
    old_mask[indices] = False
    if numnew + _runs(old_mask) > _MAX_RUNS:
        indices_device = to_device(requested, arr._device, "insert")
        launch("numpy_function", (new,), "insert", (arr, indices_device, values),
               {"axis": axis}, func="insert")
        return new
    for k, position in enumerate(indices):
        new[along(ndim, axis, int(position))] = values[along(ndim, axis, k)]
    kept = np.flatnonzero(old_mask)
    _place_runs(new, arr, kept, axis)
    return new


def _place_runs(new, arr, positions, axis):
    """Copy ``arr`` along ``axis`` into ``new`` at the increasing host ``positions``."""
    if positions.size == 0:
        return
    breaks = np.flatnonzero(np.diff(positions) != 1) + 1
    starts = np.concatenate(([0], breaks))
    stops = np.concatenate((breaks, [positions.size]))
    for start, stop in zip(starts, stops):
        target = int(positions[start])
        new[along(new.ndim, axis, slice(target, target + int(stop - start)))] = \
            arr[along(arr.ndim, axis, slice(int(start), int(stop)))]


def _fitted(values, shape):
    """``values`` as NumPy's ``target[...] = values`` sees them: broadcast to ``shape``."""
    source = values.shape
    while len(source) > len(shape) and source[0] == 1:
        source = source[1:]
    if source != values.shape:
        values = values.reshape(source)
    fits = len(source) <= len(shape) and all(
        s in (1, t) for s, t in zip(reversed(source), reversed(shape)))
    if not fits:
        raise ValueError(f"asnumpy.insert: could not broadcast input array from shape "
                         f"{tuple(values.shape)} into shape {tuple(shape)}")
    return broadcast_view(values, shape, "insert")


def delete(arr, obj, axis=None):
    """Return a new array with sub-arrays along an axis deleted, as ``numpy.delete``.

    Parameters
    ----------
    arr : array_like
        Input array.
    obj : int, slice, sequence of ints, or boolean array
        Entries to remove; a boolean array must have the axis' length and
        marks the entries removed.
    axis : int, optional
        Axis along which to delete; None flattens ``arr`` first.

    Returns
    -------
    asnumpy.ndarray
        A new array of ``arr``'s dtype without the entries named by ``obj``.

    Raises
    ------
    IndexError
        For an index out of bounds (or a non-integer index array).
    ValueError
        For a boolean ``obj`` of the wrong shape.
    AxisError
        For an axis out of range.
    """
    arr = as_array(arr, "delete")
    arr, axis = _flat_axis(arr, axis, "delete")
    n = arr.shape[axis]
    order = _order_of(arr)
    obj = host_values(obj)
    if isinstance(obj, slice):
        keep = np.ones(n, dtype=bool)
        keep[obj] = False
    else:
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
            single = True
        else:
            single = False
            original = obj
            obj = np.asarray(obj)
            if obj.size == 0 and not isinstance(original, np.ndarray):
                obj = obj.astype(np.intp)
            elif obj.size == 1 and obj.dtype.kind in "ui":
                obj = obj.item()
                single = True
        if single:
            if obj < -n or obj >= n:
                raise IndexError(f"asnumpy.delete: index {obj} is out of bounds for axis "
                                 f"{axis} with size {n}")
            keep = np.ones(n, dtype=bool)
            keep[obj] = False
        elif obj.dtype == bool:
            if obj.shape != (n,):
                raise ValueError("asnumpy.delete: boolean array argument obj to delete must "
                                 f"be one dimensional and match the axis length of {n}")
            keep = ~obj
        else:
            keep = np.ones(n, dtype=bool)
            try:
                keep[obj,] = False
            except IndexError as error:
                raise IndexError(f"asnumpy.delete: {error}") from None
    shape = arr.shape[:axis] + (int(np.count_nonzero(keep)),) + arr.shape[axis + 1:]
    new = empty(shape, arr.dtype, arr._device, order=order, func="delete")
    if new.size == 0:
        return new
    if _runs(keep) > _MAX_RUNS:
        launch("numpy_function", (new,), "compress",
               (to_device(keep, arr._device, "delete"), arr), {"axis": axis}, func="delete")
        return new
    _copy_runs(new, arr, keep, axis)
    return new


def trim_zeros(filt, trim="fb", axis=None):
    """Remove the leading and/or trailing zeros of an array, as ``numpy.trim_zeros``.

    Parameters
    ----------
    filt : array_like
        Input array (host data is copied to the device: the result is always
        an asnumpy array, where NumPy returns lists for lists).
    trim : {'fb', 'f', 'b'}, optional
        Trim from the front ('f'), the back ('b') or both.
    axis : int or sequence of ints, optional
        Axes to trim; None trims every axis to the smallest box holding all
        the non-zero values.

    Returns
    -------
    asnumpy.ndarray
        A view of ``filt`` (NaN counts as non-zero); empty along the trimmed
        axes when ``filt`` has no non-zero value.

    Raises
    ------
    ValueError
        For an unexpected ``trim`` string.
    AxisError
        For an axis out of range.
    """
    filt = as_array(filt, "trim_zeros")
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"asnumpy.trim_zeros: unexpected character(s) in `trim`: {trim!r}")
    if axis is None:
        axes = tuple(range(filt.ndim))
    else:
        axes = normalize_axis_tuple(axis, filt.ndim, "trim_zeros")
    if not axes:
        return filt
    nonzero = UFUNCS["not_equal"](filt, 0)
    index = [slice(None)] * filt.ndim
    found = {}
    for ax in axes:
        others = tuple(n for n in range(filt.ndim) if n != ax)
        line = UFUNCS["logical_or"].reduce(nonzero, axis=others) if others else nonzero
        found[ax] = np.flatnonzero(fetch(line))
    if any(hits.size == 0 for hits in found.values()) or filt.size == 0:
        for ax in axes:
            index[ax] = slice(0, 0)
        return filt[tuple(index)]
    for ax in axes:
        start = int(found[ax][0]) if "f" in trim else None
        stop = int(found[ax][-1]) + 1 if "b" in trim else None
        index[ax] = slice(start, stop)
    return filt[tuple(index)]
