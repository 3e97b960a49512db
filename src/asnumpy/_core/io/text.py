"""Text files: :func:`loadtxt`, :func:`savetxt`, :func:`genfromtxt`, :func:`fromregex`.

Parsing and formatting are NumPy's; loaded data is placed on ``device``.
"""

from __future__ import annotations

import numpy as np

from ... import _dtypes
from ..reductions._operands import named
from ._host_data import to_device_array, to_host

__all__ = ["fromregex", "genfromtxt", "loadtxt", "savetxt"]


def _place(result, device, func):
    if isinstance(result, tuple):
        return tuple(to_device_array(np.asarray(r), device, func) for r in result)
    return to_device_array(np.asarray(result), device, func)


@named("loadtxt")
def loadtxt(fname, dtype=float, comments="#", delimiter=None, converters=None, skiprows=0,
            usecols=None, unpack=False, ndmin=0, encoding=None, max_rows=None, *,
            quotechar=None, like=None, device=None):
    """Load numeric data from a text file.

    Parameters are NumPy's (see :func:`numpy.loadtxt`); ``dtype`` must be
    numeric (structured dtypes raise TypeError).

    Parameters
    ----------
    fname : file, str, pathlib.Path, list of str, generator
        The text to read.
    dtype : data-type, optional
        Numeric data type of the result.
    comments, delimiter, converters, skiprows, usecols, unpack, ndmin, encoding, max_rows,
    quotechar : optional
        As in NumPy.
    like : None
        Accepted for NumPy compatibility.
    device : str or Device, optional
        Device of the result (default: the current device).

    Returns
    -------
    out : ndarray
        The data (transposed when ``unpack=True``).

    See Also
    --------
    numpy.loadtxt, savetxt, genfromtxt
    """
    dtype = _dtypes.to_dtype(dtype, "loadtxt")
    host = np.loadtxt(fname, dtype=dtype, comments=comments, delimiter=delimiter,
                      converters=converters, skiprows=skiprows, usecols=usecols, unpack=unpack,
                      ndmin=ndmin, encoding=encoding, max_rows=max_rows, quotechar=quotechar)
    return _place(host, device, "loadtxt")


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="",
            comments="# ", encoding=None):
    """Save a 1-D or 2-D array to a text file.

    Parameters
    ----------
    fname : filename, file handle or pathlib.Path
        Names ending in ``.gz`` are written gzip-compressed.
    X : array_like
        The data (asnumpy arrays are copied from their device).
    fmt, delimiter, newline, header, footer, comments, encoding : optional
        As in :func:`numpy.savetxt`.

    See Also
    --------
    numpy.savetxt, loadtxt
    """
    np.savetxt(fname, to_host(X, "savetxt"), fmt=fmt, delimiter=delimiter, newline=newline,
               header=header, footer=footer, comments=comments, encoding=encoding)


@named("genfromtxt")
def genfromtxt(fname, dtype=float, comments="#", delimiter=None, skip_header=0, skip_footer=0,
               converters=None, missing_values=None, filling_values=None, usecols=None,
               names=None, excludelist=None,
               deletechars=" !#$%&'()*+,-./:;<=>?@[\\]^{|}~", replace_space="_",
               autostrip=False, case_sensitive=True, defaultfmt="f%i", unpack=None,
               usemask=False, loose=True, invalid_raise=True, max_rows=None, encoding=None, *,
               ndmin=0, like=None, device=None):
    """Load data from a text file, with missing values handled as specified.

    Parameters are NumPy's (see :func:`numpy.genfromtxt`).  The result must
    be numeric: results with a structured dtype (``names=``, mixed column
    types under ``dtype=None``) raise TypeError naming the dtype, as does
    ``usemask=True`` (asnumpy has no masked arrays).  Missing values become
    ``filling_values`` (NaN for floats by default).

    Returns
    -------
    out : ndarray
        The data, on ``device``.

    See Also
    --------
    numpy.genfromtxt, loadtxt
    """
    if usemask:
        raise TypeError("usemask=True is not supported: asnumpy has no masked arrays")
    if dtype is not None:
        dtype = _dtypes.to_dtype(dtype, "genfromtxt")
    host = np.genfromtxt(
        fname, dtype=dtype, comments=comments, delimiter=delimiter, skip_header=skip_header,
        skip_footer=skip_footer, converters=converters, missing_values=missing_values,
        filling_values=filling_values, usecols=usecols, names=names, excludelist=excludelist,
        deletechars=deletechars, replace_space=replace_space, autostrip=autostrip,
        case_sensitive=case_sensitive, defaultfmt=defaultfmt, unpack=unpack, usemask=False,
        loose=loose, invalid_raise=invalid_raise, max_rows=max_rows, encoding=encoding,
        ndmin=ndmin)
    return _place(host, device, "genfromtxt")


@named("fromregex")
def fromregex(file, regexp, dtype, encoding=None, *, device=None):
    """Read numbers from a text file with regular-expression groups.

    Parameters
    ----------
    file : file, str or pathlib.Path
        The text file.
    regexp : str or regexp
        Pattern whose groups give the fields of each match.
    dtype : structured data-type
        As in NumPy, one field per group.  asnumpy holds plain numbers, so
        the fields must be numeric: one field gives a 1-D array of that
        field's dtype; several give an ``(n, fields)`` array of their common
        dtype (NumPy returns a structured array instead).
    encoding : str, optional
        Encoding used to decode the file.
    device : str or Device, optional
        Device of the result.

    Returns
    -------
    output : ndarray

    See Also
    --------
    numpy.fromregex, loadtxt
    """
    host = np.fromregex(file, regexp, dtype, encoding=encoding)
    names = host.dtype.names
    for name in names:
        _dtypes.to_dtype(host.dtype[name], "fromregex")
    if len(names) == 1:
        plain = host[names[0]]
    else:
        common = np.result_type(*(host.dtype[name] for name in names))
        plain = np.stack([host[name].astype(common) for name in names], axis=-1)
    return to_device_array(np.ascontiguousarray(plain), device, "fromregex")
