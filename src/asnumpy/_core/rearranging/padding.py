"""Padding: pad, with every NumPy mode.

NumPy's own ``pad`` validates the call on a small host *probe* of the input
(each axis of length min(n, 1)), which yields NumPy's errors and the padding
added to each axis without touching device data.  Then:

* ``'constant'`` and ``'empty'`` are composed: a new array, the input copied
  into its centre, the pad areas filled axis by axis (later axes' values win
  in the corners, as in NumPy);
* a callable mode is NumPy's loop over 1-D views, run here on asnumpy views;
* the other modes (edge, linear_ramp, maximum, mean, median, minimum,
  reflect, symmetric, wrap) run NumPy's ``pad`` on the device data (the
  ``numpy_function`` kernel): its algorithm is the specification.
"""

from __future__ import annotations

import numpy as np

from .._launch import launch
from ._operands import as_array, empty, host_values

try:
    from numpy.lib._arraypad_impl import _as_pairs
except ImportError:  # pragma: no cover - NumPy moved it
    from numpy.lib.arraypad import _as_pairs

__all__ = ["pad"]

_COMPOSED = ("constant", "empty")


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array, as ``numpy.pad``.

    Parameters
    ----------
    array : array_like
        The array to pad (of rank N).
    pad_width : int or sequence
        Number of values padded to the edges of each axis:
        ``((before_1, after_1), ... (before_N, after_N))``, ``(before, after)``
        or ``int`` for all axes.
    mode : str or callable, optional
        One of ``'constant'`` (default), ``'edge'``, ``'linear_ramp'``,
        ``'maximum'``, ``'mean'``, ``'median'``, ``'minimum'``,
        ``'reflect'``, ``'symmetric'``, ``'wrap'``, ``'empty'``, or a function
        ``padding_func(vector, iaxis_pad_width, iaxis, kwargs)`` that fills
        the pad areas of ``vector`` in place.  Here ``vector`` is a 1-D
        *asnumpy* view of the result (NumPy passes NumPy views): write into
        it with indexing, e.g. ``vector[:iaxis_pad_width[0]] = value``.
    **kwargs
        ``stat_length`` (maximum, mean, median, minimum),
        ``constant_values`` (constant), ``end_values`` (linear_ramp),
        ``reflect_type`` ('even' or 'odd'; reflect, symmetric), or anything
        for a callable mode (passed to it as a dict).

    Returns
    -------
    asnumpy.ndarray
        The padded array, of ``array``'s dtype.

    Raises
    ------
    ValueError
        For an unknown mode, unsupported keyword arguments, negative or
        badly shaped widths, or padding an empty axis with a mode that reads
        the data (NumPy's errors).
    """
    array = as_array(array, "pad")
    pad_width = host_values(pad_width)
    host_kwargs = {key: host_values(value) for key, value in kwargs.items()}
    probe = np.ones(tuple(min(n, 1) for n in array.shape), array.dtype)
    try:
        if callable(mode):
            padded_probe = np.pad(probe, pad_width, "empty")
        else:
            padded_probe = np.pad(probe, pad_width, mode, **host_kwargs)
    except (ValueError, TypeError) as error:
        raise type(error)(f"asnumpy.pad: {error}") from None
    shape = tuple(p - q + n for p, q, n in zip(padded_probe.shape, probe.shape, array.shape))
    flags = array.flags
    order = "F" if flags.f_contiguous and not flags.c_contiguous else "C"
    out = empty(shape, array.dtype, array._device, order=order, func="pad")
    if not (callable(mode) or mode in _COMPOSED):
        launch("numpy_function", (out,), "pad", (array, pad_width),
               {"mode": mode, **host_kwargs}, func="pad")
        return out
    widths = _as_pairs(pad_width, array.ndim, as_index=True)
    if callable(mode):
        out.fill(0)
    centre = tuple(slice(before, before + n) for (before, _), n in zip(widths, array.shape))
    if array.size:
        out[centre] = array
    if callable(mode):
        _pad_with_function(out, widths, mode, kwargs)
    elif mode == "constant":
        values = _as_pairs(host_kwargs.get("constant_values", 0), array.ndim)
        for axis, ((before, after), pair) in enumerate(zip(widths, values)):
            for width, area, value in ((before, slice(None, before), pair[0]),
                                       (after, slice(shape[axis] - after, None), pair[1])):
                if width:
                    index = (slice(None),) * axis + (area,) + centre[axis + 1:]
                    out[index] = value
    return out


def _pad_with_function(out, widths, function, kwargs):
    """NumPy's callable mode: ``function`` on every 1-D view along every axis, in order."""
    for axis in range(out.ndim):
        order = [n for n in range(out.ndim) if n != axis] + [axis]
        view = out.transpose(order)
        for index in np.ndindex(view.shape[:-1]):
            function(view[index + (Ellipsis,)], widths[axis], axis, kwargs)
