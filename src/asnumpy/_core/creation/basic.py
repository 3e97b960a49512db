"""Arrays from a shape and a value: empty, zeros, ones, full and their *_like."""

from __future__ import annotations

import numpy as np

from ._allocation import (
    _allocate,
    _allocate_like,
    _append_doc,
    _fill,
    _fill_scalar,
    _shared_doc,
    _target_device,
    _value_dtype,
)

__all__ = ["empty", "empty_like", "full", "full_like", "ones", "ones_like", "zeros", "zeros_like"]


# -- from shape and value -----------------------------------------------------
#
# empty, zeros and ones differ only in their fill value, default dtype and
# docstring: one table row each, one factory.

_SHAPE_DOC = """{summary}

    Parameters
    ----------
    $shape_dtype_order
    $device_like

    Returns
    -------
    ndarray
        {returns}{extra}
    """

_EMPTY_RAISES = """

    Raises
    ------
    ValueError
        For negative dimensions or an order other than 'C' or 'F'.
    TypeError
        For a non-numeric dtype."""

# name, fill value (None: uninitialised), default dtype, summary, returns, extra
_FROM_SHAPE = (
    ("empty", None, float,
     "Return a new array of given shape and type, without initializing entries.", "Array of uninitialized data.", _EMPTY_RAISES),
    ("zeros", 0, float, "Return a new array of given shape and type, filled with zeros.",
     "Array of zeros.", ""),
    ("ones", 1, None, "Return a new array of given shape and type, filled with ones.",
     "Array of ones.", ""),
)


def _fill_constant(out, value, name):
    # NumPy's zeros are zero bytes, which float8_e8m0fnu (ml_dtypes; it has no zero)
    # reads as 2**-127 where a cast of 0 gives NaN
    _fill_scalar(out, np.zeros((), out.dtype) if value == 0 else value, name)


def _fill_elements(out, value, func):
    """Fill ``out`` with ``value`` as ``numpy.copyto(out, value, casting='unsafe')``.

    NumPy casts the value once per element, so an empty ``out`` reports no
    floating-point error (``full((0,), 1e10, dtype=uint16)`` under
    ``errstate(all='raise')``); conversion errors such as a Python int out of
    range are raised all the same.
    """
    if out.size == 0:
        with np.errstate(all="ignore"):
            _fill(out, value, func)
        return
    _fill(out, value, func)


def _name(function, name, doc):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return _shared_doc(function)


def _from_shape(name, value, default_dtype, summary, returns, extra):
    def creator(shape, dtype=default_dtype, order="C", *, device=None, like=None):
        out = _allocate(shape, dtype, order, _target_device(device, like), name)
        if value is not None:
            _fill_constant(out, value, name)
        return out
    return _name(creator, name, _SHAPE_DOC.format(summary=summary, returns=returns, extra=extra))


empty, zeros, ones = (_from_shape(*row) for row in _FROM_SHAPE)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """Return a new array of given shape and type, filled with ``fill_value``.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the new array.
    fill_value : scalar or array_like
        Fill value: a scalar (converted as NumPy converts it, e.g. OverflowError
        for a Python int out of the dtype's range), a host array or sequence
        broadcast to ``shape``, or an asnumpy array broadcast on its device.
    dtype : data-type, optional
        Numeric dtype; by default the dtype of ``numpy.array(fill_value)``.
    order : {'C', 'F'}, optional
        Row-major (C) or column-major (Fortran) memory layout.
    device : str or Device, optional
        Where the array lives; by default the device of an asnumpy
        ``fill_value`` or ``like``, else the current device.
    like : array_like, optional
        Reference object; when it is an asnumpy array its device is the default.

    Returns
    -------
    ndarray
        Array of ``fill_value``.
    """
    func = "full"
    if dtype is None:
        dtype = _value_dtype(fill_value, func)
    out = _allocate(shape, dtype, order, _target_device(device, fill_value, like), func)
    _fill_elements(out, fill_value, func)
    return out


# -- like another array -------------------------------------------------------

_LIKE_PARAMETERS = """
    dtype : data-type, optional
        Overrides the dtype of the result (must be numeric).
    order : {'C', 'F', 'A', 'K'}, optional
        Memory layout: 'K' (default) follows the prototype's layout as closely
        as possible, 'A' is 'F' when the prototype is Fortran-contiguous.
    subok : bool, optional
        Accepted for NumPy compatibility (asnumpy has no array subclasses).
    shape : int or tuple of int, optional
        Overrides the shape of the result.
    device : str or Device, optional
        Where the result lives; by default the prototype's device (the
        current device for host prototypes)."""


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Return a new array with the same shape and type as a given array."""
    return _allocate_like(prototype, dtype, order, shape, device, "empty_like")


def _filled_like(name, value, summary):
    def creator(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        out = _allocate_like(a, dtype, order, shape, device, name)
        _fill_constant(out, value, name)
        return out
    return _name(creator, name, summary)


zeros_like = _filled_like(
    "zeros_like", 0, "Return an array of zeros with the same shape and type as a given array.")
ones_like = _filled_like(
    "ones_like", 1, "Return an array of ones with the same shape and type as a given array.")


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Return a full array with the same shape and type as a given array."""
    out = _allocate_like(a, dtype, order, shape, device, "full_like")
    _fill_elements(out, fill_value, "full_like")
    return out


def _complete_like_docstring(function, first_parameter, returns, extra=""):
    """Append the Parameters and Returns sections the ``*_like`` functions share."""
    _append_doc(function, (
        f"\n\n    Parameters\n    ----------\n    {first_parameter} : array_like\n"
        f"        The prototype: an asnumpy array or a host array-like.{extra}"
        f"{_LIKE_PARAMETERS}\n\n    Returns\n    -------\n    ndarray\n        {returns}\n    "
    ))


_complete_like_docstring(empty_like, "prototype", "Array of uninitialized data.")
_complete_like_docstring(zeros_like, "a", "Array of zeros.")
_complete_like_docstring(ones_like, "a", "Array of ones.")
_complete_like_docstring(full_like, "a", "Array of ``fill_value``.",
                         "\n    fill_value : scalar or array_like\n        Fill value, converted"
                         " and broadcast as in :func:`full`.")
