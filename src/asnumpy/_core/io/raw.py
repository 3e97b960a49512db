"""Raw binary and simple text data: :func:`fromfile`, :func:`tofile`, :func:`fromstring`."""

from __future__ import annotations

import io
import operator
import os

import numpy as np

from ... import _dtypes
from ..ndarray_members import attach
from ..reductions._operands import named
from ._host_data import to_device_array

__all__ = ["fromfile", "fromstring", "tofile"]


def _count_the_file_holds(file, dtype, count, sep, offset):
    """``count`` capped at the items a binary file holds.

    NumPy returns only the items there are, but allocates ``count`` of them
    first: a huge ``count`` on a small file would be a huge host allocation.
    """
    if sep or operator.index(count) < 0:
        return count
    try:
        if hasattr(file, "fileno"):
            remaining = os.fstat(file.fileno()).st_size - file.tell()
        else:
            remaining = os.path.getsize(os.fspath(file))
    except (OSError, TypeError, ValueError, AttributeError, io.UnsupportedOperation):
        return count                       # not a plain file: NumPy decides
    available = (remaining - offset) // dtype.itemsize
    return min(count, available) if available >= 0 else count


def _file_byte_order(native, given, sep):
    """The dtype NumPy reads binary items in: ``given``'s byte order (``'>u4'``), ``native``'s type.

    Device arrays hold native byte order only (``to_dtype``); the bytes of a
    file are in the order the dtype names, so they are read so and swapped
    when the array is made. Text (``sep``) is parsed as native numbers.
    """
    if sep:
        return native
    try:
        byteorder = np.dtype(given).byteorder
    except TypeError:                   # a name only asnumpy knows: native
        return native
    return native.newbyteorder(byteorder) if byteorder in "<>" else native


@named("fromfile")
def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None, device=None):
    """Construct an array from the data in a binary or text file.

    Parameters
    ----------
    file : file or str or pathlib.Path
        Open file object or filename.
    dtype : data-type, optional
        Data type of the items (numeric dtypes only).
    count : int, optional
        Number of items to read; -1 means all.
    sep : str, optional
        Separator between items for text files; ``""`` means binary.
    offset : int, optional
        Bytes to skip from the file's current position (binary files only).
    like : None
        Accepted for NumPy compatibility; must be None.
    device : str or Device, optional
        Device of the result (default: the current device).

    Returns
    -------
    out : ndarray
        1-D array on ``device``.

    See Also
    --------
    numpy.fromfile, tofile, fromstring
    """
    original = dtype
    dtype = _dtypes.to_dtype(dtype, "fromfile")
    count = _count_the_file_holds(file, dtype, count, sep, offset)
    host = np.fromfile(file, dtype=_file_byte_order(dtype, original, sep), count=count, sep=sep,
                       offset=offset)
    return to_device_array(host, device, "fromfile")


def tofile(a, fid, sep="", format="%s"):
    """Write the array ``a`` to a file as text or binary (C order), as ``ndarray.tofile``.

    Parameters
    ----------
    a : ndarray
        The array to write (copied from its device).
    fid : file or str or pathlib.Path
        Open file object or filename.
    sep : str, optional
        Separator between items for text output; ``""`` writes binary.
    format : str, optional
        Format string for text output.

    See Also
    --------
    numpy.ndarray.tofile, fromfile
    """
    a.get().tofile(fid, sep=sep, format=format)


@named("fromstring")
def fromstring(string, dtype=float, count=-1, *, sep="", like=None, device=None):
    """A new 1-D array initialised from text data in a string.

    Parameters
    ----------
    string : str
        The text holding the data.
    dtype : data-type, optional
        Data type of the items (numeric dtypes only).
    count : int, optional
        Number of items to read; -1 means all.
    sep : str
        The separator between numbers.  The binary mode (``sep=""``) was
        removed from NumPy and raises ValueError, as there.
    like : None
        Accepted for NumPy compatibility.
    device : str or Device, optional
        Device of the result.

    Returns
    -------
    arr : ndarray

    See Also
    --------
    numpy.fromstring, fromfile
    """
    dtype = _dtypes.to_dtype(dtype, "fromstring")
    host = np.fromstring(string, dtype=dtype, count=count, sep=sep)
    return to_device_array(host, device, "fromstring")


# the ndarray member this module gives (ndarray_members.py): a.tofile(fid, sep, format)
NDARRAY_MEMBERS = {"tofile": (tofile, ("fid", "sep", "format"))}

attach(__name__, NDARRAY_MEMBERS)
