"""Sorting: sort, argsort, lexsort, partition, argpartition, sort_complex.

``sort``/``argsort`` run the back end's sort kernels (NumPy's own sort on
the cpu device, split across threads for large inputs with results identical
to one NumPy call); the others run NumPy's function on device memory.
Arguments are validated first on a small host *probe* of the operand's dtype,
so errors are NumPy's.
"""

from __future__ import annotations

import numpy as np

from .. import compiled
from .._launch import empty, launch
from ..reductions._operands import device_operand
from ._numpy_calls import (
    INTP,
    call_held,
    call_into,
    device_of,
    named,
    normalize_axis,
    on_device,
    public,
)

__all__ = ["argpartition", "argsort", "lexsort", "partition", "sort", "sort_complex"]


_SORT_PARAMETERS = """a : array_like
        Array to sort.
    axis : int or None, optional
        Axis to sort along (default -1); None sorts the flattened array.
    kind : {'quicksort', 'mergesort', 'heapsort', 'stable'}, optional
        Sorting algorithm, as NumPy's.  'stable'/'mergesort' keep the order
        of equal elements.
    order : None
        Only None (asnumpy arrays have no fields).
    stable : bool, optional
        True for a stable sort (exclusive with ``kind``).
    descending : bool, optional
        Sort in descending order (the Array API's keyword; NumPy has none).
        A stable descending sort keeps equal elements in their original
        order; NaNs come first."""

_PARTITION_PARAMETERS = """a : array_like
        Array to partition.
    kth : int or sequence of ints
        Positions that must hold their sorted value.
    axis : int or None, optional
        Axis to partition along (default -1); None uses the flattened array.
    kind : {'introselect'}, optional
        Selection algorithm.
    order : None
        Only None."""


def _probe(a):
    return np.zeros(tuple(min(n, 1) for n in a.shape), a.dtype)


def _sorted_shape(a, axis):
    if axis is None or a.ndim == 0:
        return (a.size,)
    return a.shape


def _sort_call(kernel, a, axis, kind, order, stable, dtype, descending=False):
    a = device_operand(a)
    getattr(np, kernel)(_probe(a), axis=axis, kind=kind, order=order, stable=stable)
    if descending:
        return _descending(kernel, a, axis, kind, order, stable, dtype)
    if axis is not None and a.ndim:
        axis = normalize_axis(axis, a.ndim)
    out = empty(_sorted_shape(a, axis), dtype or a.dtype, a._device, func=kernel)
    if out.size:
        if axis is None or a.ndim == 0:
            axis = None
        launch(kernel, out, a, axis, kind, stable, func=kernel)
    return out


def _descending(kernel, a, axis, kind, order, stable, dtype):
    """The descending sort: the ascending sort of ``a`` reversed along the axis, reversed.

    Reversing before and after keeps equal elements in their original order
    when the sort is stable; argsort maps the indices back with ``n - 1 - i``.
    """
    if axis is None or a.ndim == 0:
        a, axis = a.reshape(-1), 0
    axis = normalize_axis(axis, a.ndim)
    reverse = (slice(None),) * axis + (slice(None, None, -1),)
    out = _sort_call(kernel, a[reverse], axis, kind, order, stable, dtype)
    if kernel == "argsort":
        out = (a.shape[axis] - 1) - out
    return out[reverse].copy()


def _partition_call(name, a, kth, axis, kind, order, dtype):
    a = device_operand(a)
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if axis is not None:
        axis = normalize_axis(axis, a.ndim)
    kth = on_device(kth, a._device)
    shape = (a.size,) if axis is None else a.shape
    return call_into(name, name, shape, dtype or a.dtype, a._device, (a, kth),
                     {"axis": axis, "kind": kind})


_DOC = """{summary}

    Parameters
    ----------
    {parameters}

    Returns
    -------
    asnumpy.ndarray
        {returns}

    Raises
    ------
    {raises}

    See Also
    --------
    numpy.{name}
    """


def _documented(name, function, parameters, summary, returns, raises):
    """``function`` made public as ``asnumpy.<name>``; ``raises``: (type, when) pairs."""
    raises = "\n    ".join(f"{kind}\n        {when}" for kind, when in raises)
    return public(name, function, _DOC.format(summary=summary, parameters=parameters,
                                              returns=returns, raises=raises, name=name))


def _sorting(name, dtype, summary, returns, raises):
    """``sort`` (``dtype`` None: a's) or ``argsort`` (``dtype`` intp) from a table row."""

    def function(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
        return _sort_call(name, a, axis, kind, order, stable, dtype, descending)

    return _documented(name, function, _SORT_PARAMETERS, summary, returns, raises)


def _partitioning(name, dtype, summary, returns, raises):
    """``partition`` or ``argpartition`` from a table row (as :func:`_sorting`)."""

    def function(a, kth, axis=-1, kind="introselect", order=None):
        return _partition_call(name, a, kth, axis, kind, order, dtype)

    return _documented(name, function, _PARTITION_PARAMETERS, summary, returns, raises)


_AXIS_ERROR = "numpy.exceptions.AxisError"

sort = _sorting(
    "sort", None, "Return a sorted copy of an array.",
    "The sorted array, of ``a``'s dtype; NaNs sort last.",
    [(_AXIS_ERROR, "For an axis out of range (also for a 0-d array with an integer axis)."),
     ("ValueError",
      "For a bad ``kind``, ``order`` given, or ``kind`` and ``stable`` both given.")])
argsort = _sorting(
    "argsort", INTP, "Indices that sort an array along an axis.",
    "``intp`` indices; a 0-d ``a`` gives shape ``(1,)`` as in NumPy.",
    [(_AXIS_ERROR, "For an axis out of range."), ("ValueError", "For a bad ``kind`` or ``order``.")])


@named("lexsort")
def lexsort(keys, axis=-1):
    """Indirect stable sort on several keys (the last key is the primary one).

    Parameters
    ----------
    keys : array_like or sequence of array_like
        Keys of equal shape; a 2-D array's rows are the keys.
    axis : int, optional
        Axis to sort along (default -1).

    Returns
    -------
    asnumpy.ndarray
        ``intp`` indices.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For keys of different shapes.

    See Also
    --------
    numpy.lexsort
    """
    device = device_of(keys)
    if isinstance(keys, (list, tuple)):
        keys = type(keys)(device_operand(k) if device is None else on_device(k, device)
                          for k in keys)
        device = device_of(keys)
        if device is None:
            from ..transfer import asarray
            keys = asarray(np.asarray(keys))
            device = keys._device
    else:
        keys = device_operand(keys)
        device = keys._device
    return call_held("lexsort", "lexsort", device, (keys,), {"axis": axis})[0]


partition = _partitioning(
    "partition", None,
    "A copy of ``a`` with the ``kth`` elements in sorted position, smaller ones before.",
    "The partitioned array, NumPy's arrangement exactly.",
    [(_AXIS_ERROR, "For an axis out of range."),
     ("ValueError", "For ``kth`` out of bounds or a bad ``kind``."),
     ("TypeError", "For a non-integer ``kth``.")])
argpartition = _partitioning(
    "argpartition", INTP, "Indices that partition ``a`` along an axis (see :func:`partition`).",
    "``intp`` indices, NumPy's exactly.",
    [(_AXIS_ERROR, "For an axis out of range."), ("ValueError", "For ``kth`` out of bounds.")])


@named("sort_complex")
def sort_complex(a):
    """Sort a complex array by real part, then imaginary part (along the last axis).

    Parameters
    ----------
    a : array_like
        Input array.

    Returns
    -------
    asnumpy.ndarray
        A complex array: complex64 for int8/uint8/int16/uint16/float16/float32
        input and complex64 input, else complex128 (NumPy's rules).

    Raises
    ------
    numpy.exceptions.AxisError
        For a 0-d array.

    See Also
    --------
    numpy.sort_complex
    """
    a = device_operand(a)
    dtype = np.sort_complex(np.zeros(max(1, min(a.size, 1)), a.dtype)).dtype
    if a.ndim == 0:
        normalize_axis(-1, 0)
    return call_into("sort_complex", "sort_complex", a.shape, dtype, a._device, (a,))


# small plain calls (one array, no keywords) made by NumPy on the view (compiled.py)
sort = compiled.numpy_call(np.sort, sort, "sort")
argsort = compiled.numpy_call(np.argsort, argsort, "argsort")
