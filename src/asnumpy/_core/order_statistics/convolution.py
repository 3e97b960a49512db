"""Discrete, linear convolution and cross-correlation of 1-D sequences.

NumPy's own ``correlate``/``convolve`` run on the device data (the
``numpy_function`` kernel); a call on length-one host probes raises NumPy's
errors (empty input, more than one dimension, unknown mode) and gives the
result dtype, and the result length follows from the mode.
"""

from __future__ import annotations

import numpy as np

from .._launch import empty, launch
from ..sorting._numpy_calls import fill_doc
from ._probes import device_of, named, probe_array, quiet, to_device

__all__ = ["convolve", "correlate"]


_SEQUENCES = """a, v : array_like
        Non-empty 1-D input sequences (for ``convolve`` a scalar is one of length 1)."""

_RESULT = """Returns
    -------
    asnumpy.ndarray
        1-D, of the promoted dtype of ``a`` and ``v``.

    Raises
    ------
    ValueError
        For empty or multi-dimensional input, or an unknown mode."""


def _length(n, m, mode):
    if mode in ("valid", 0):
        return max(n, m) - min(n, m) + 1
    if mode in ("same", 1):
        return max(n, m)
    return n + m - 1


def _run(func, a, v, mode):
    device = device_of(a, v)
    a, v = to_device(a, device, func), to_device(v, device, func)
    if func == "convolve":
        # numpy.convolve reads its inputs with ndmin=1 (a scalar is a length-1
        # sequence); numpy.correlate does not
        a, v = (x.reshape(1) if x.ndim == 0 else x for x in (a, v))
    dtype = np.asarray(quiet(getattr(np, func), probe_array(a), probe_array(v), mode)).dtype
    out = empty((_length(a.shape[0], v.shape[0], mode),), dtype, device, func=func)
    launch("numpy_function", (out,), func, (a, v), {"mode": mode}, func=func)
    return out


@named("correlate")
@fill_doc(sequences=_SEQUENCES, result=_RESULT)
def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-D sequences, as ``numpy.correlate``.

    ``c[k] = sum_n a[n + k] * conj(v[n])``.

    Parameters
    ----------
    {sequences}
    mode : {'valid', 'same', 'full'}, optional
        Result length ``max(M, N) - min(M, N) + 1``, ``max(M, N)`` or ``M + N - 1``.

    {result}

    See Also
    --------
    numpy.correlate, convolve
    """
    return _run("correlate", a, v, mode)


@named("convolve")
@fill_doc(sequences=_SEQUENCES, result=_RESULT)
def convolve(a, v, mode="full"):
    """Discrete, linear convolution of two 1-D sequences, as ``numpy.convolve``.

    Parameters
    ----------
    {sequences}
    mode : {'full', 'same', 'valid'}, optional
        Result length ``M + N - 1``, ``max(M, N)`` or ``max(M, N) - min(M, N) + 1``.

    {result}

    See Also
    --------
    numpy.convolve, correlate
    """
    return _run("convolve", a, v, mode)
