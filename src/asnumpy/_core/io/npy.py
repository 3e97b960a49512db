"""``.npy`` and ``.npz`` files: :func:`save`, :func:`load`, :func:`savez`, :func:`savez_compressed`.

Headers are read and written with :mod:`numpy.lib.format`, so files are
byte-compatible with NumPy's.  Loading checks the header before allocating:
bad magic, a malformed header, a header announcing more data than the file
holds, and truncated data raise ValueError; object arrays raise ValueError
unless ``allow_pickle=True`` (and TypeError then, as asnumpy holds numbers:
they are never unpickled); other non-numeric dtypes raise TypeError.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import pickle
import sys
import zipfile
from collections.abc import Mapping

import numpy as np
from numpy.lib import format as npformat

try:                                  # every header version, 3.0 (utf-8 names) included
    from numpy.lib._format_impl import _read_array_header
except ImportError:                   # pragma: no cover - other NumPy layouts
    _read_array_header = getattr(npformat, "_read_array_header", None)

from ... import _dtypes
from ...runtime.device import Device
from ...runtime.stream import get_current_stream
from .._launch import empty, launch_on
from ..transfer import asarray
from ..ndarray import ndarray
from ._host_data import to_device_array, to_host

__all__ = ["NpzFile", "load", "save", "savez", "savez_compressed"]

_ZIP_PREFIXES = (b"PK\x03\x04", b"PK\x05\x06")
_MAX_HEADER_SIZE = 10000


def _read_header(fp, max_header_size, func):
    """``(shape, fortran_order, dtype)`` from the ``.npy`` header at ``fp``'s position."""
    try:
        version = npformat.read_magic(fp)
        if version == (1, 0):
            return npformat.read_array_header_1_0(fp, max_header_size=max_header_size)
        if version == (2, 0):
            return npformat.read_array_header_2_0(fp, max_header_size=max_header_size)
        if _read_array_header is None:
            raise ValueError(f"unsupported .npy format version {version}")
        return _read_array_header(fp, version, max_header_size=max_header_size)
    except ValueError as exc:
        raise ValueError(f"asnumpy.{func}: {exc}") from None


def _remaining_bytes(fp, total):
    """Bytes left after ``fp``'s position (``total`` is the stream's size when known)."""
    try:
        position = fp.tell()
        if total is None:
            try:
                total = os.fstat(fp.fileno()).st_size
            except (AttributeError, OSError, io.UnsupportedOperation):
                total = fp.seek(0, 2)
                fp.seek(position)
        return total - position
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None


def _check_header(shape, dtype, fp, total, allow_pickle, func):
    """Validate the dtype and the announced size; return the number of data bytes."""
    if dtype.hasobject:
        if not allow_pickle:
            raise ValueError(f"asnumpy.{func}: Object arrays cannot be loaded when "
                             "allow_pickle=False")
        raise TypeError(f"asnumpy.{func}: dtype {dtype!r} (pickled Python objects) is not "
                        "supported; asnumpy arrays hold numbers")
    _dtypes.to_dtype(dtype, func)                  # TypeError naming non-numeric dtypes
    if any(n < 0 for n in shape):
        raise ValueError(f"asnumpy.{func}: the header announces a negative dimension: "
                         f"shape {shape}")
    if math.prod(n for n in shape if n) * dtype.itemsize > sys.maxsize:
        # NumPy's limit, zero-size shapes included: (0, 2**62, 2**62) is no array either
        raise ValueError(f"asnumpy.{func}: array is too big; the header announces shape "
                         f"{shape} of dtype {dtype}, larger than the maximum possible size")
    nbytes = math.prod(shape) * dtype.itemsize
    remaining = _remaining_bytes(fp, total)
    if remaining is not None and nbytes > remaining:
        raise ValueError(f"asnumpy.{func}: the header announces an array of shape {shape} and "
                         f"dtype {dtype} ({nbytes} bytes) but only {remaining} bytes of data "
                         "follow: the file is truncated or corrupt")
    return nbytes


def _read_into(fp, view, nbytes, func):
    """Fill the byte memoryview ``view`` from ``fp``; ValueError if the data end early."""
    done = 0
    readinto = getattr(fp, "readinto", None)
    while done < nbytes:
        if readinto is not None:
            count = readinto(view[done:])
        else:
            chunk = fp.read(nbytes - done)
            count = len(chunk)
            view[done:done + count] = chunk
        if not count:
            raise ValueError(f"asnumpy.{func}: EOF: reading array data, expected {nbytes} "
                             f"bytes got {done}")
        done += count


def _read_npy(fp, allow_pickle, max_header_size, device, func, total=None):
    """The array stored at ``fp``'s position, read straight into ``device``'s pool."""
    shape, fortran_order, dtype = _read_header(fp, max_header_size, func)
    nbytes = _check_header(shape, dtype, fp, total, allow_pickle, func)
    order = "F" if fortran_order else "C"
    if not dtype.isnative:                 # converted on the host to the native byte order
        host = np.empty(shape, dtype=dtype, order=order)
        _read_into(fp, memoryview(host.reshape(-1, order=order).view(np.uint8)), nbytes, func)
        return to_device_array(host, device, func)
    device = Device(device)
    out = empty(shape, dtype, device, order=order, func=func)
    if nbytes:
        launch_on(device, "host_fill", out, lambda buffer: _read_into(fp, buffer, nbytes, func),
                  func=func)
        get_current_stream(device).synchronize()   # the file has been read on return
    return out


def _load_mmap(file, mmap_mode, allow_pickle, max_header_size, device, func):
    if hasattr(file, "read"):
        raise ValueError(f"asnumpy.{func}: Filename must be a string or a path-like object. "
                         "Memmap cannot use existing file handles.")
    with open(os.fspath(file), "rb") as fid:
        shape, _, dtype = _read_header(fid, max_header_size, func)
        _check_header(shape, dtype, fid, None, allow_pickle, func)
    host = npformat.open_memmap(file, mode=mmap_mode, max_header_size=max_header_size)
    device = Device(device)
    if device.backend.can_alias_host:
        # the mapping itself, as asnumpy.memmap: writes reach the file, and the
        # memory is the file's, not the pool's
        return asarray(host, device=device, copy=False)
    # A device that cannot map the file gets a copy: right for 'c' (writes stay private) and
    # for 'r' (read-only, as the mapping); 'r+' promises writes that reach the file.
    if mmap_mode in ("r+", "readwrite", "w+", "write"):
        raise ValueError(f"asnumpy.{func}: mmap_mode={mmap_mode!r} writes through to the file, "
                         f"which needs a device that can map host memory; {device} cannot "
                         "(load it on cpu, or with mmap_mode='c' or 'r')")
    result = to_device_array(host, device, func)
    result._writeable = not mmap_mode.startswith("r")
    return result


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=_MAX_HEADER_SIZE, device=None):
    """Load arrays from ``.npy``, ``.npz`` or (if allowed) pickled files.

    Parameters
    ----------
    file : file-like object, str or pathlib.Path
        The file to read.  File objects must support ``seek`` and ``read``.
    mmap_mode : {None, 'r+', 'r', 'w+', 'c'}, optional
        Memory-map a ``.npy`` file instead of reading it.  On devices that
        can alias host memory (cpu) the result is backed by the mapping.
    allow_pickle : bool, optional
        Allow loading pickled files (the pickle is executed).  Default False.
        Object arrays inside ``.npy`` files are never unpickled: they raise
        ValueError, or TypeError when ``allow_pickle=True``.
    fix_imports, encoding : optional
        Used only when unpickling, as in NumPy.
    max_header_size : int, optional
        Largest header accepted (a guard against malicious headers).
    device : str or Device, optional
        Device for the loaded arrays (default: the current device).

    Returns
    -------
    result : ndarray or NpzFile
        An array for ``.npy`` files; a lazy, dict-like :class:`NpzFile` for
        ``.npz`` files (close it, or use it as a context manager).

    Raises
    ------
    EOFError
        The file is empty.
    ValueError
        Bad magic, malformed header, truncated data, a header announcing
        more data than the file holds, or pickled data with ``allow_pickle=False``.
    zipfile.BadZipFile
        A ``.npz`` file that is not a valid zip archive (NumPy's error).
    TypeError
        The file holds a non-numeric dtype (structured, strings, objects).

    See Also
    --------
    numpy.load
    """
    func = "load"
    own = not hasattr(file, "read")
    fid = open(os.fspath(file), "rb") if own else file  # noqa: SIM115 (an NpzFile may keep it)
    try:
        magic = fid.read(len(npformat.MAGIC_PREFIX))
        if not magic:
            raise EOFError(f"asnumpy.{func}: No data left in file")
        fid.seek(-len(magic), 1)
        if magic.startswith(_ZIP_PREFIXES):
            result = NpzFile(fid, own_fid=own, allow_pickle=allow_pickle,
                             max_header_size=max_header_size, device=device)
            own = False                            # the NpzFile closes it
            return result
        if magic == npformat.MAGIC_PREFIX:
            if mmap_mode:
                return _load_mmap(file, mmap_mode, allow_pickle, max_header_size, device, func)
            return _read_npy(fid, allow_pickle, max_header_size, device, func)
        if not allow_pickle:
            raise ValueError(f"asnumpy.{func}: This file contains pickled (object) data or is "
                             "not a .npy/.npz file. If you trust the file you can load it "
                             "unsafely using the `allow_pickle=` keyword argument.")
        try:
            value = pickle.load(fid, fix_imports=fix_imports, encoding=encoding)
        except Exception as exc:
            raise OSError(f"asnumpy.{func}: Failed to interpret file {file!r} as a pickle") \
                from exc
        return to_device_array(np.asarray(value), device, func)
    finally:
        if own:
            fid.close()


def save(file, arr, allow_pickle=True):
    """Save an array to a binary file in NumPy ``.npy`` format.

    Parameters
    ----------
    file : file, str or pathlib.Path
        File or filename; ``.npy`` is appended to names without it.
    arr : array_like
        Array to save.  An asnumpy array is written by its device's kernel
        straight from device memory (on cpu: no host copy first).
    allow_pickle : bool, optional
        Accepted for NumPy compatibility; asnumpy arrays hold numbers and
        are never pickled.

    See Also
    --------
    numpy.save, load, savez
    """
    if isinstance(arr, ndarray):
        launch_on(arr._device, "numpy_function", (), "save", (file, arr),
                  {"allow_pickle": allow_pickle}, func="save")
        get_current_stream(arr._device).synchronize()     # the file is complete on return
        return
    np.save(file, to_host(arr, "save"), allow_pickle=allow_pickle)


def _host_arrays(args, kwds, func):
    return [to_host(a, func) for a in args], {k: to_host(v, func) for k, v in kwds.items()}


def savez(file, *args, allow_pickle=True, **kwds):
    """Save several arrays into a single uncompressed ``.npz`` file.

    Positional arrays are stored as ``arr_0``, ``arr_1``, ...; keyword
    arrays under their names.  ``.npz`` is appended to names without it.

    See Also
    --------
    numpy.savez, savez_compressed, load
    """
    args, kwds = _host_arrays(args, kwds, "savez")
    np.savez(file, *args, allow_pickle=allow_pickle, **kwds)


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Save several arrays into a single compressed (deflate) ``.npz`` file.

    See Also
    --------
    numpy.savez_compressed, savez, load
    """
    args, kwds = _host_arrays(args, kwds, "savez_compressed")
    np.savez_compressed(file, *args, allow_pickle=allow_pickle, **kwds)


class NpzFile(Mapping):
    """A lazy, read-only mapping over the arrays of a ``.npz`` file.

    Each ``npz[name]`` reads that member and returns a device array (a
    member that is not a ``.npy`` file gives its raw bytes, as NumPy).
    Use it as a context manager, or call :meth:`close`.

    Attributes
    ----------
    files : list of str
        The names of the arrays (``.npy`` suffixes removed).
    zip : zipfile.ZipFile
        The underlying archive.
    """

    def __init__(self, fid, own_fid=False, allow_pickle=False,
                 max_header_size=_MAX_HEADER_SIZE, device=None):
        try:
            self.zip = zipfile.ZipFile(fid)
        except zipfile.BadZipFile as exc:
            if own_fid:
                fid.close()
            raise zipfile.BadZipFile(f"asnumpy.load: bad .npz file: {exc}") from None
        self._files = self.zip.namelist()
        self.files = [name.removesuffix(".npy") for name in self._files]
        self.fid = fid if own_fid else None
        self.allow_pickle = allow_pickle
        self.max_header_size = max_header_size
        self.device = device

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Close the archive (and the file, when :func:`load` opened it)."""
        if self.zip is not None:
            self.zip.close()
            self.zip = None
        if self.fid is not None:
            self.fid.close()
            self.fid = None

    def __del__(self):
        with contextlib.suppress(OSError, AttributeError, ValueError):
            self.close()

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self.files or key in self._files

    def __getitem__(self, key):
        if self.zip is None:
            raise ValueError("asnumpy.load: I/O operation on a closed NpzFile")
        if key in self._files:
            name = key
        elif key in self.files:
            name = self._files[self.files.index(key)]
        else:
            raise KeyError(f"{key} is not a file in the archive")
        info = self.zip.getinfo(name)
        with self.zip.open(name) as member:
            magic = member.read(len(npformat.MAGIC_PREFIX))
            if magic != npformat.MAGIC_PREFIX:
                return magic + member.read()
        with self.zip.open(name) as member:
            return _read_npy(member, self.allow_pickle, self.max_header_size, self.device,
                             "load", total=info.file_size)

    def __repr__(self):
        state = "closed" if self.zip is None else f"files={self.files}"
        return f"<asnumpy NpzFile {state}>"
