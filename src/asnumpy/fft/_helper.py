"""Sample frequencies and spectrum shifts of :mod:`asnumpy.fft`."""

from __future__ import annotations

import numpy as np

from .._core._launch import empty, launch
from .._core.creation._allocation import _target_device
from .._core.math_functions._operands import to_device
from .._core.reductions._operands import named

__all__ = ["fftfreq", "fftshift", "ifftshift", "rfftfreq"]


def _frequencies(func, n, d, device, dtype=None):
    device = _target_device(device, d)
    if dtype is not None:
        return _frequencies(func, n, d, device).astype(_real_floating(dtype, func), copy=False)
    if np.ndim(d) != 0 or not isinstance(n, (int, np.integer)) or n < 1:
        # NumPy's errors (and its broadcasting with an array ``d``) on the host
        from .._core.transfer import asarray

        return asarray(getattr(np.fft, func)(n, d), device=device)
    if hasattr(d, "__asnumpy_device__"):
        d = d.get()[()]
    dtype = getattr(np.fft, func)(1, d).dtype
    length = n if func == "fftfreq" else n // 2 + 1
    out = empty((length,), dtype, device, func=func)
    launch("numpy_function", (out,), f"fft.{func}", (n, d), {}, func=func)
    return out


def _real_floating(dtype, func):
    """``dtype`` as a NumPy dtype; ValueError unless it is real floating (the Array API's rule)."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"asnumpy.fft.{func}: dtype must be a real floating dtype, got {dtype}")
    return dtype


def _publish(function, name, doc):
    """``function`` as the public ``asnumpy.fft.<name>`` with docstring ``doc``."""
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return named(name)(function)


_FREQUENCIES_DOC = """Sample frequencies of {summary}, as ``numpy.fft.{name}``.

``{values} / (d * n)``.

Parameters
----------
n : int
    Window length.
d : scalar, optional
    Sample spacing{spacing}; default 1.
device : asnumpy.Device or str, optional
    Device of the result (default the current device).
dtype : real floating dtype, optional
    dtype of the result (the Array API's keyword; NumPy has none).  None:
    the dtype NumPy gives for ``d``.

Returns
-------
asnumpy.ndarray
    Shape ``{shape}``.

Raises
------
ValueError
    If ``n`` is not an integer.

See Also
--------
numpy.fft.{name}, {other}
"""


def _make_frequencies(name, **doc):
    """The public ``fftfreq``/``rfftfreq``: :func:`_frequencies` of ``name``."""

    def function(n, d=1.0, device=None, *, dtype=None):
        return _frequencies(name, n, d, device, dtype)

    return _publish(function, name, _FREQUENCIES_DOC.format(name=name, **doc))


fftfreq = _make_frequencies(
    "fftfreq", summary="a length-``n`` discrete Fourier transform",
    values="[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1]",
    spacing=" (the inverse of the sampling rate)",
    shape="(n,)``, float64 for a Python float ``d", other="rfftfreq")
rfftfreq = _make_frequencies(
    "rfftfreq", summary=":func:`rfft`'s output", values="[0, 1, ..., n // 2]", spacing="",
    shape="(n // 2 + 1,)", other="fftfreq")


def _shift(func, x, axes, sign):
    from .._core.rearranging import roll
    from .._core.creation._allocation import _target_device as target

    x = to_device(x, target(None, x), func)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [sign * (dim // 2) for dim in x.shape]
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (x.shape[axes] // 2)
    else:
        shift = [sign * (x.shape[ax] // 2) for ax in axes]
    return roll(x, shift, axes)


_SHIFT_DOC = """{summary}, as ``numpy.fft.{name}``.

Parameters
----------
x : array_like
    Input array.
axes : int or tuple of ints, optional
    Axes shifted (default all).

Returns
-------
asnumpy.ndarray
    ``x`` rolled by ``{roll}`` along each axis.

See Also
--------
numpy.fft.{name}, {other}
"""


def _make_shift(name, sign, summary, roll, other):
    """The public ``fftshift``/``ifftshift``: :func:`_shift` by ``sign``."""

    def function(x, axes=None):
        return _shift(name, x, axes, sign)

    return _publish(function, name, _SHIFT_DOC.format(summary=summary, name=name, roll=roll,
                                                      other=other))


fftshift = _make_shift("fftshift", 1, "Move the zero-frequency term to the centre of the "
                       "spectrum", "n // 2", "ifftshift")
ifftshift = _make_shift("ifftshift", -1, "Inverse of :func:`fftshift`", "-(n // 2)",
                        "fftshift")
