"""Printing arrays: ``array2string``, ``array_repr``, ``array_str`` and the print options.

The print options are NumPy's own (``set_printoptions``, ``get_printoptions``
and ``printoptions`` are NumPy's functions): one state, honoured by NumPy's
and asnumpy's printing alike, as ``errstate`` is shared.  The functions here
copy an asnumpy array to the host and let NumPy's printer format it, so
every NumPy keyword is accepted and the text is NumPy's; ``array_repr``
adds ``device='...'`` for an array off the default device.
"""

from __future__ import annotations

import numpy as np
from numpy import get_printoptions, printoptions, set_printoptions

from . import _formatting
from .ndarray import ndarray
from .transfer import asnumpy

__all__ = ["array2string", "array_repr", "array_str", "set_printoptions", "get_printoptions",
           "printoptions", "format_float_positional", "format_float_scientific"]


def _host(a, func):
    if isinstance(a, ndarray):
        return asnumpy(a)
    if isinstance(a, np.ndarray):
        return a
    raise TypeError(f"asnumpy.{func}: expected an asnumpy or NumPy array, got "
                    f"{type(a).__name__}")


def array2string(a, max_line_width=None, precision=None, suppress_small=None, separator=" ",
                 prefix="", **kwargs) -> str:
    """The text of an array's elements (``numpy.array2string``), for asnumpy arrays too.

    Parameters
    ----------
    a : ndarray or numpy.ndarray
        The array to format (an asnumpy array is copied to the host).
    max_line_width, precision, suppress_small, separator, prefix
        As in NumPy.
    **kwargs
        NumPy's keyword-only options: ``formatter``, ``threshold``,
        ``edgeitems``, ``sign``, ``floatmode``, ``suffix``, ``legacy``.

    Returns
    -------
    str
    """
    return np.array2string(_host(a, "array2string"), max_line_width, precision, suppress_small,
                           separator, prefix, **kwargs)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None) -> str:
    """The repr of an array (``numpy.array_repr``); names the device off the default one.

    Parameters
    ----------
    arr : ndarray or numpy.ndarray
    max_line_width, precision, suppress_small : optional
        As in NumPy.

    Returns
    -------
    str
    """
    if isinstance(arr, ndarray):
        return _formatting.array_repr(arr, max_line_width, precision, suppress_small)
    return np.array_repr(_host(arr, "array_repr"), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None) -> str:
    """The str of an array (``numpy.array_str``).

    Parameters
    ----------
    a : ndarray or numpy.ndarray
    max_line_width, precision, suppress_small : optional
        As in NumPy.

    Returns
    -------
    str
    """
    return np.array_str(_host(a, "array_str"), max_line_width, precision, suppress_small)


def _scalar(x, func):
    """A host floating scalar from ``x`` (a 0-d asnumpy array is fetched, keeping its dtype)."""
    if isinstance(x, ndarray):
        if x.ndim != 0:
            raise TypeError(f"asnumpy.{func}: x must be a scalar or a 0-d array, got an array "
                            f"of shape {x.shape}")
        return asnumpy(x)[()]
    return x


def format_float_positional(x, *args, **kwargs) -> str:
    """Format a floating scalar in positional notation (``numpy.format_float_positional``).

    ``x`` may be a 0-d asnumpy array: its value is formatted in its own dtype.
    The other arguments are NumPy's.
    """
    return np.format_float_positional(_scalar(x, "format_float_positional"), *args, **kwargs)


def format_float_scientific(x, *args, **kwargs) -> str:
    """Format a floating scalar in scientific notation (``numpy.format_float_scientific``).

    ``x`` may be a 0-d asnumpy array: its value is formatted in its own dtype.
    The other arguments are NumPy's.
    """
    return np.format_float_scientific(_scalar(x, "format_float_scientific"), *args, **kwargs)
