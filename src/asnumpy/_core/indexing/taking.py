"""Taking and putting elements by index: take, put, take_along_axis,
put_along_axis, choose, compress, extract, place and putmask.

Each validates on a host probe (see :mod:`._probes`) and runs NumPy's own
function on the device memory, so index modes ('raise', 'wrap', 'clip'),
casting and repeated-index rules are NumPy's.
"""

from __future__ import annotations

import numpy as np

from .._tracing import traceable
from .._launch import check_same_device, empty
from .._layout import normalize_axis
from ..ndarray import ndarray
from ._probes import (
    check_out,
    device_of,
    device_operand,
    in_bounds_mode,
    index_to_device,
    launch_inplace,
    launch_into,
    named,
    probe_index,
    standin,
    to_device,
    writable_standin,
    writable_target,
)

__all__ = [
    "choose",
    "compress",
    "extract",
    "place",
    "put",
    "put_along_axis",
    "putmask",
    "take",
    "take_along_axis",
]


def _launch_put(func, a, *values, **kwargs):
    """Run NumPy's in-place ``func`` on ``a`` with ``values`` moved to its device."""
    d = a._device
    launch_inplace(d, func, (a, *(to_device(v, d, func) for v in values)), kwargs, func)


def _result(func, probe_call, device, launch_args, launch_kwargs, out=None):
    """Probe for the result's shape and dtype, then compute it into ``out`` or a new array."""
    probe = np.asarray(probe_call())
    if out is None:
        out = empty(probe.shape, probe.dtype, device, func=func)
    else:
        check_out(out, probe.shape, func)
    launch_into((out,), func, launch_args, launch_kwargs, func)
    return out


def _probe_out(out):
    return None if out is None else np.empty(out.shape, out.dtype)


@named("take")
@traceable
def take(a, indices, axis=None, out=None, mode="raise"):
    """Take elements from an array along an axis.

    Parameters
    ----------
    a : array_like
        Source array.
    indices : array_like of int
        Indices of the values to take.
    axis : int, optional
        Axis to take along; the flattened array if None.
    out : asnumpy.ndarray, optional
        Array of the result's shape to write into.
    mode : {'raise', 'wrap', 'clip'}, optional
        How out-of-bounds indices behave.

    Returns
    -------
    asnumpy.ndarray
        A new array (NumPy's shape rules).

    See Also
    --------
    numpy.take
    """
    a = device_operand(a)
    if out is not None and not isinstance(out, ndarray):
        raise TypeError(f"out must be an asnumpy.ndarray, got {type(out).__name__}")
    if out is None and isinstance(indices, ndarray) and indices.dtype.kind in "iu":
        # A device index array is not read on the host: the probe takes a
        # min(n, 1)-shaped index of its dtype (NumPy's axis, mode, dtype and
        # empty-axis errors); out-of-bounds indices raise in the kernel, with
        # NumPy's text (take buffers ``out`` then, so nothing is half-written).
        stand_in = np.zeros(tuple(min(n, 1) for n in indices.shape), indices.dtype)
        np.take(standin(a), stand_in, axis=axis, mode=mode)
        if a.ndim == 0 and axis is not None:
            a = a.reshape(1)            # NumPy takes along axis 0 (or -1) of a 0-d array as 1-d
        if axis is None:
            shape = indices.shape
        else:
            ax = normalize_axis(axis, a.ndim, "take")
            shape = a.shape[:ax] + indices.shape + a.shape[ax + 1:]
        check_same_device("take", a._device, indices)
        if mode == "raise":
            mode = in_bounds_mode(indices, a.size if axis is None else a.shape[ax])
            if mode == "raise" and indices.size and 0 in shape:
                # an empty result skips the kernel: the host probe checks the bounds
                np.take(standin(a), indices.get(), axis=axis, mode=mode)
    else:
        shape = np.shape(np.take(standin(a), probe_index(indices), axis=axis, mode=mode,
                                 out=_probe_out(out)))
        indices = index_to_device(indices, a._device, "take")
    if out is None:
        out = empty(shape, a.dtype, a._device, func="take")
    else:
        check_out(out, shape, "take")
    launch_into((out,), "take", (a, indices), {"axis": axis, "mode": mode, "out": out}, "take")
    return out


@named("put")
def put(a, ind, v, mode="raise"):
    """Replace the elements of ``a`` at flat indices ``ind`` by ``v`` (in place).

    Parameters
    ----------
    a : asnumpy.ndarray
        Target array.
    ind : array_like of int
        Flat indices.
    v : array_like
        Values, repeated if shorter than ``ind``.
    mode : {'raise', 'wrap', 'clip'}, optional
        How out-of-bounds indices behave.

    See Also
    --------
    numpy.put
    """
    a = writable_target(a, "put")
    np.put(writable_standin(a), probe_index(ind), standin(v), mode=mode)
    launch_inplace(a._device, "put", (a, index_to_device(ind, a._device, "put"),
                                      to_device(v, a._device, "put")), {"mode": mode}, "put")


@named("take_along_axis")
@traceable
def take_along_axis(arr, indices, axis=-1):
    """Take values from ``arr`` at the matching 1-d ``indices`` along ``axis``.

    Parameters
    ----------
    arr : array_like
        Source array.
    indices : array_like of int
        Indices, with ``arr``'s number of dimensions (broadcast against it).
    axis : int or None, optional
        Axis to take along; None works on the flattened array.

    Returns
    -------
    asnumpy.ndarray

    See Also
    --------
    numpy.take_along_axis
    """
    arr = device_operand(arr)
    return _result("take_along_axis",
                   lambda: np.take_along_axis(standin(arr), probe_index(indices), axis=axis),
                   arr._device, (arr, to_device(indices, arr._device, "take_along_axis")),
                   {"axis": axis})


@named("put_along_axis")
def put_along_axis(arr, indices, values, axis):
    """Put ``values`` into ``arr`` at the matching 1-d ``indices`` along ``axis`` (in place).

    Parameters
    ----------
    arr : asnumpy.ndarray
        Target array.
    indices : array_like of int
        Indices, with ``arr``'s number of dimensions.
    values : array_like
        Values, broadcast against ``indices``.
    axis : int or None
        Axis to put along; None works on the flattened array.

    See Also
    --------
    numpy.put_along_axis
    """
    arr = writable_target(arr, "put_along_axis")
    host_indices = probe_index(indices)
    if axis is None and getattr(host_indices, "ndim", 1) == 1:
        # NumPy writes through ``arr.flat``: probe on a 1-d stand-in
        flat = np.lib.stride_tricks.as_strided(np.zeros((), arr.dtype), (arr.size,), (0,))
        np.put_along_axis(flat, host_indices, standin(values), 0)
    else:
        np.put_along_axis(writable_standin(arr), host_indices, standin(values), axis)
    _launch_put("put_along_axis", arr, indices, values, axis=axis)


@named("choose")
def choose(a, choices, out=None, mode="raise"):
    """Build an array choosing, element by element, from one of ``choices``.

    Parameters
    ----------
    a : array_like of int
        Which choice each element takes.
    choices : sequence of array_like
        The arrays to choose from (broadcast together with ``a``).
    out : asnumpy.ndarray, optional
        Array of the result's shape to write into.
    mode : {'raise', 'wrap', 'clip'}, optional
        How out-of-range choices behave.

    Returns
    -------
    asnumpy.ndarray

    See Also
    --------
    numpy.choose
    """
    device = device_of(a, choices)
    if isinstance(choices, ndarray):
        host_choices, dev_choices = standin(choices), choices
    else:
        host_choices = [standin(c) for c in choices]
        dev_choices = [to_device(c, device, "choose") for c in choices]
    return _result("choose", lambda: np.choose(probe_index(a), host_choices, mode=mode,
                                               out=_probe_out(out)),
                   device, (to_device(a, device, "choose"), dev_choices), {"mode": mode}, out)


@named("compress")
def compress(condition, a, axis=None, out=None):
    """Select slices of ``a`` along ``axis`` where ``condition`` is true.

    Parameters
    ----------
    condition : 1-d array_like of bool
        Which slices to keep (a shorter condition counts as false beyond its end).
    a : array_like
        Source array.
    axis : int, optional
        Axis to select along; the flattened array if None.
    out : asnumpy.ndarray, optional
        Array of the result's shape to write into.

    Returns
    -------
    asnumpy.ndarray

    See Also
    --------
    numpy.compress
    """
    a = device_operand(a)
    return _result("compress", lambda: np.compress(probe_index(condition), standin(a), axis=axis,
                                                   out=_probe_out(out)),
                   a._device, (to_device(condition, a._device, "compress"), a), {"axis": axis},
                   out)


@named("extract")
def extract(condition, arr):
    """The elements of ``arr`` (flattened) where ``condition`` is true.

    Parameters
    ----------
    condition : array_like
        Non-zero where an element is taken (its size must cover ``arr``'s).
    arr : array_like
        Source array.

    Returns
    -------
    asnumpy.ndarray
        1-d.

    See Also
    --------
    numpy.extract
    """
    arr = device_operand(arr)
    return _result("extract", lambda: np.extract(probe_index(condition), standin(arr)),
                   arr._device, (to_device(condition, arr._device, "extract"), arr), {})


@named("place")
def place(arr, mask, vals):
    """Put ``vals`` (cycled) into ``arr`` where ``mask`` is true, in place.

    Parameters
    ----------
    arr : asnumpy.ndarray
        Target array.
    mask : array_like of bool
        Of ``arr``'s size.
    vals : 1-d array_like
        Values, used in turn and repeated as needed.

    See Also
    --------
    numpy.place
    """
    arr = writable_target(arr, "place")
    np.place(writable_standin(arr), probe_index(mask), probe_index(vals))
    _launch_put("place", arr, mask, vals)


@named("putmask")
def putmask(a, mask, values):
    """Set ``a.flat[n] = values[n % len(values)]`` where ``mask.flat[n]`` is true (in place).

    Parameters
    ----------
    a : asnumpy.ndarray
        Target array.
    mask : array_like of bool
        Of ``a``'s shape.
    values : array_like
        Values, repeated as needed.

    See Also
    --------
    numpy.putmask
    """
    a = writable_target(a, "putmask")
    np.putmask(writable_standin(a), standin(mask), standin(values))
    _launch_put("putmask", a, mask, values)
