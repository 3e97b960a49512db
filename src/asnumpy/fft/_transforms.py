"""The transforms of :mod:`asnumpy.fft`: pocketfft (NumPy's, or SciPy's) on device memory.

The fourteen functions are generated from :data:`_TABLE` by :func:`_make`:
one row per transform (its name, 1-D/2-D/N-D, the family, the direction and
its one-line summary); signatures, defaults and NumPy-style docstrings follow
from the row.
"""

from __future__ import annotations

import textwrap

from .._core.reductions._operands import named
from ._planning import transform

# name, kind ("1-D", "2-D", "N-D"), family ("complex", "real", "hermitian"),
# inverse, summary (the docstring's first line, before ", as ``numpy.fft.<name>``")
_TABLE = (
    ("fft", "1-D", "complex", False, "One-dimensional discrete Fourier transform"),
    ("ifft", "1-D", "complex", True, "One-dimensional inverse discrete Fourier transform"),
    ("rfft", "1-D", "real", False, ("One-dimensional discrete Fourier transform of real input "
                                   "(the non-negative frequencies)")),
    ("irfft", "1-D", "real", True, ("Inverse of :func:`rfft`: a real signal from its half "
                                   "spectrum")),
    ("hfft", "1-D", "hermitian", False, ("Discrete Fourier transform of a signal with "
                                        "Hermitian symmetry (a real spectrum)")),
    ("ihfft", "1-D", "hermitian", True, ("Inverse of :func:`hfft`: the half spectrum of a "
                                        "real signal, conjugated")),
    ("fftn", "N-D", "complex", False, "N-dimensional discrete Fourier transform"),
    ("ifftn", "N-D", "complex", True, "N-dimensional inverse discrete Fourier transform"),
    ("fft2", "2-D", "complex", False, "Two-dimensional discrete Fourier transform"),
    ("ifft2", "2-D", "complex", True, "Two-dimensional inverse discrete Fourier transform"),
    ("rfftn", "N-D", "real", False, "N-dimensional discrete Fourier transform of real input"),
    ("rfft2", "2-D", "real", False, "Two-dimensional discrete Fourier transform of real input"),
    ("irfftn", "N-D", "real", True, "Inverse of :func:`rfftn`"),
    ("irfft2", "2-D", "real", True, "Inverse of :func:`rfft2`"),
)

# the ``axis``/``axes`` default of each kind
_AXES_DEFAULT = {"1-D": -1, "2-D": (-2, -1), "N-D": None}

# ``n`` of the 1-D transforms, by (family, inverse)
_LENGTH_1D = {
    ("complex", False): "Length of the transformed axis of the output; the input is cropped "
                        "or zero-padded. Defaults to the input's length along ``axis``.",
    ("real", False): "Number of input points used along ``axis`` (cropped or zero-padded). "
                     "Defaults to the input's length.",
    ("real", True): "Length of the output along ``axis``; ``n // 2 + 1`` input points are "
                    "used. Defaults to ``2 * (m - 1)`` for input length ``m``.",
    ("hermitian", False): "Length of the output along ``axis``. Defaults to ``2 * (m - 1)`` "
                          "for input length ``m``.",
    ("hermitian", True): "Number of input points used along ``axis``. Defaults to the input's "
                         "length.",
}
_LENGTH_1D["complex", True] = _LENGTH_1D["complex", False]

_AXES_DOC = {
    "1-D": "axis : int, optional\n    Axis transformed (default the last).",
    "2-D": "axes : sequence of ints, optional\n    Axes transformed (default the last two).",
    "N-D": "axes : sequence of ints, optional\n"
           "    Axes transformed (default all, or the last ``len(s)``).",
}

# the result, by (output, 1-D); the output is "complex" (full spectrum),
# "half" (non-negative frequencies) or "real"
_RESULT = {
    ("complex", True): "The transform, complex.",
    ("complex", False): "The transform, complex.",
    ("half", True): "The transform, complex, of length ``n // 2 + 1`` along ``axis``.",
    ("half", False): "The transform, complex; the last transformed axis has length "
                     "``s[-1] // 2 + 1``.",
    ("real", True): "The transform, real, of length ``n`` along ``axis``.",
    ("real", False): "The transform, real; the last transformed axis has length ``s[-1]`` "
                     "(default ``2 * (m - 1)``).",
}

_DOC = """{summary}, as ``numpy.fft.{name}``.

Parameters
----------
a : array_like
    Input array (host data is moved to the current device).
{length}
{axes}
norm : {{"backward", "ortho", "forward"}}, optional
    Which direction is scaled: by ``1/n`` on the inverse ("backward", the
    default), ``1/sqrt(n)`` both ways ("ortho"), or ``1/n`` on the forward
    transform ("forward").
out : asnumpy.ndarray, optional
    Array the result is written into; of the result's shape, and of a
    dtype the result casts to (``same_kind``).

Returns
-------
asnumpy.ndarray
{result}

Raises
------
ValueError
    For a transform length below 1, an unknown ``norm``, an ``out`` of
    the wrong shape{nd_error}.
AxisError, IndexError
    For an axis out of range (as NumPy).

See Also
--------
numpy.fft.{name}
"""


def _output(family, inverse):
    """What a transform returns: "complex", "half" (spectrum) or "real"."""
    if family == "complex":
        return "complex"
    return "real" if inverse == (family == "real") else "half"


def _indented(text):
    return textwrap.fill(text, 84, initial_indent="    ", subsequent_indent="    ")


def _docstring(name, kind, family, inverse, summary):
    one_d = kind == "1-D"
    if one_d:
        length = "n : int, optional\n" + _indented(_LENGTH_1D[family, inverse])
    else:
        length = ("s : sequence of ints, optional\n"
                  "    Output length along each transformed axis (``-1``: the input's).")
    result = (_RESULT[_output(family, inverse), one_d] + "  NumPy 2's dtypes: complex64 and"
              " float32 input give single precision, other input double precision.")
    return _DOC.format(
        summary=summary, name=name, length=length, axes=_AXES_DOC[kind],
        result=_indented(result),
        nd_error="" if one_d else ", or ``s`` and ``axes`` of different lengths")


def _make(name, kind, family, inverse, summary):
    """The public function ``name`` of one :data:`_TABLE` row, with NumPy's signature."""
    if kind == "1-D":
        def function(a, n=None, axis=-1, norm=None, out=None):
            return transform(name, a, n, axis, norm, out, nd=False)
    else:
        def function(a, s=None, axes=None, norm=None, out=None):
            return transform(name, a, s, axes, norm, out, nd=True)

        function.__defaults__ = (None, _AXES_DEFAULT[kind], None, None)
    function.__name__ = function.__qualname__ = name
    function.__module__ = __name__
    function.__doc__ = _docstring(name, kind, family, inverse, summary)
    return named(name)(function)


__all__ = [row[0] for row in _TABLE]
globals().update((row[0], _make(*row)) for row in _TABLE)
