"""Window functions: bartlett, blackman, hamming, hanning, kaiser.

Built on the device from ``arange`` and ufuncs, with NumPy's formulas (so
the values match ``numpy.<window>``).  ``M`` is converted as NumPy converts
it (``numpy.array([0.0, M])``), so the result is float64 (complex128 for a
complex ``beta`` in ``kaiser``).
"""

from __future__ import annotations

import math

import numpy as np

from ..creation import arange, full, ones, zeros
from ..math_functions import i0
from ..reductions._operands import named
from ..ufuncs import UFUNCS

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]

_PI = math.pi


def _points(M, device, func):
    """``(M, n)``: ``M`` as NumPy's float and ``n = arange(1 - M, M, 2)``, or the short result."""
    values = np.array([0.0, M])
    M = values[1]
    if M < 1:
        return M, zeros((0,), values.dtype, device=device)
    if M == 1:
        return M, ones((1,), values.dtype, device=device)
    return M, arange(1 - M, M, 2, device=device)


def _cosine_window(M, terms, device, func):
    """``terms[0] + sum_k terms[k] * cos(k * pi * n / (M - 1))``, as NumPy writes it."""
    M, n = _points(M, device, func)
    if not M > 1:
        return n
    cos, multiply, divide, add = UFUNCS["cos"], UFUNCS["multiply"], UFUNCS["divide"], UFUNCS["add"]
    result = None
    for k, weight in enumerate(terms[1:], start=1):
        factor = _PI if k == 1 else k * _PI
        term = multiply(weight, cos(divide(multiply(factor, n), M - 1)))
        result = add(terms[0], term) if result is None else add(result, term)
    return result


_RETURNS = """Returns
    -------
    asnumpy.ndarray
        The window, float64 of length ``M`` (empty for ``M < 1``, ``[1.]`` for ``M == 1``)."""

_M = """M : int
        Number of points of the window.
    device : asnumpy.Device, optional
        Where the window is made (an asnumpy extension; default: the current device)."""

_WINDOW_DOC = """{summary}

    Parameters
    ----------
    {M}

    {returns}

    See Also
    --------
    numpy.{name}, {others}
    """


def _doc(function):
    function.__doc__ = function.__doc__.format(M=_M, returns=_RETURNS)
    return function


def _window_doc(name, summary):
    """The docstring of the ``M``-only window ``name`` (see ``_WINDOW_DOC``)."""
    others = ", ".join(w for w in __all__ if w != name)
    return _WINDOW_DOC.format(summary=summary, M=_M, returns=_RETURNS, name=name, others=others)


@named("bartlett")
def bartlett(M, *, device=None):
    M, n = _points(M, device, "bartlett")
    if not M > 1:
        return n
    scaled = UFUNCS["divide"](n, M - 1)
    return UFUNCS["subtract"](1, UFUNCS["absolute"](scaled))


bartlett.__doc__ = _window_doc("bartlett", "The Bartlett (triangular) window, as ``numpy.bartlett``.")

#: The cosine-sum windows: name, the summary of their docstring, the weights of the cosines.
_COSINE_WINDOWS = (
    ("blackman", ("The Blackman window, as ``numpy.blackman``.\n\n"
                  "    ``0.42 + 0.5 cos(pi n / (M - 1)) + 0.08 cos(2 pi n / (M - 1))``."),
     (0.42, 0.5, 0.08)),
    ("hamming", "The Hamming window, as ``numpy.hamming``: ``0.54 + 0.46 cos(pi n / (M - 1))``.",
     (0.54, 0.46)),
    ("hanning", "The Hann window, as ``numpy.hanning``: ``0.5 + 0.5 cos(pi n / (M - 1))``.",
     (0.5, 0.5)),
)


def _make_cosine_window(name, summary, terms):
    """The public window ``name``: ``_cosine_window`` with the weights ``terms``."""

    def window(M, *, device=None):
        return _cosine_window(M, terms, device, name)

    window.__name__ = window.__qualname__ = name
    window.__doc__ = _window_doc(name, summary)
    return named(name)(window)


blackman, hamming, hanning = (_make_cosine_window(*row) for row in _COSINE_WINDOWS)


@named("kaiser")
@_doc
def kaiser(M, beta, *, device=None):
    """The Kaiser window, as ``numpy.kaiser``.

    ``i0(beta * sqrt(1 - ((n - alpha) / alpha)**2)) / i0(beta)`` with
    ``n = 0 .. M-1`` and ``alpha = (M - 1) / 2``.

    Parameters
    ----------
    {M}
    beta : float
        Shape parameter (0: rectangular; 5: like Hamming; 8.6: like Blackman).

    Returns
    -------
    asnumpy.ndarray
        The window, float64 of length ``max(M, 0)`` (``[1.]`` for ``M == 1``).

    See Also
    --------
    numpy.kaiser, bartlett, blackman, hamming, hanning
    """
    values = np.array([0.0, M, beta])
    M, beta = values[1], values[2]
    if M == 1:
        return ones((1,), values.dtype, device=device)
    n = arange(0, M, device=device)
    alpha = (M - 1) / 2.0
    ratio = UFUNCS["divide"](UFUNCS["subtract"](n, alpha), alpha)
    root = UFUNCS["sqrt"](UFUNCS["subtract"](1, UFUNCS["power"](ratio, 2.0)))
    beta_device = full((), beta, values.dtype, device=n.device)
    return UFUNCS["divide"](i0(UFUNCS["multiply"](beta, root)), i0(beta_device))
