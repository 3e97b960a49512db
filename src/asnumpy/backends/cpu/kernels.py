"""The cpu kernel library: NumPy's compiled loops run on device buffers.

``KERNELS`` maps a kernel name to a function whose first argument is the
output array.  Array arguments are asnumpy arrays; :func:`view` gives the
NumPy view of their device memory that NumPy's loops then write into.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.exceptions import ComplexWarning

from ..._errors import user_stacklevel

__all__ = ["KERNELS", "dense_bytes", "view"]


def view(array) -> np.ndarray:
    """A NumPy view of an asnumpy array's cpu device memory (cached)."""
    native = array._native
    if native is None:
        buffer = array._realize()
        # an empty array reads no memory: its offset may point past a 0-byte buffer
        offset = array._offset if 0 not in array._shape else 0
        native = np.ndarray(array._shape, array._dtype, buffer=buffer.handle,
                            offset=offset, strides=array._strides)
        array._native = native
    return native


def dense_bytes(native: np.ndarray) -> np.ndarray:
    """The bytes of a dense array with positive strides (a fresh NumPy result) as 1-D uint8.

    NumPy lays a new result out densely in its operands' memory order, so its
    axes sorted by stride are C-contiguous and the first byte is the lowest.
    """
    if native.flags.c_contiguous:
        flat = native.reshape(-1)
    else:
        order = sorted(range(native.ndim), key=lambda axis: -native.strides[axis])
        flat = native.transpose(order).reshape(-1)
    # a copy here would detach the buffer from the array's memory
    if flat.size and not np.may_share_memory(flat, native):
        raise ValueError("dense_bytes: the array is not dense with positive strides")
    return flat.view(np.uint8)


def _native(value):
    return view(value) if hasattr(value, "_realize") else value


def fill(out, value) -> None:
    """Set every element of ``out`` to the 0-d NumPy array ``value``."""
    np.copyto(view(out), _real_part_into(out, value), casting="unsafe")


def copy(out, src) -> None:
    """Copy ``src`` into ``out``, broadcasting and casting unsafely."""
    np.copyto(view(out), _real_part_into(out, view(src)), casting="unsafe")


def _real_part_into(out, source: np.ndarray) -> np.ndarray:
    """``source``, or its real part when it is complex and ``out`` a real number type.

    NumPy's cast warns ComplexWarning at the line that called it, which would
    be this module's: asnumpy warns at the user's line and copies the real part.
    """
    if source.dtype.kind != "c" or out._dtype.kind not in "iuf":
        return source
    warnings.warn("Casting complex values to real discards the imaginary part",
                  ComplexWarning, stacklevel=user_stacklevel())
    return source.real


def host_fill(out, writer) -> None:
    """Let ``writer(memoryview)`` fill contiguous ``out``'s bytes in memory order.

    The seam for data produced on the host (a file being read): on cpu the
    memoryview is the device memory itself, so nothing is staged or copied.
    """
    target = view(out)
    flat = target.T if target.flags.f_contiguous and not target.flags.c_contiguous else target
    writer(memoryview(flat.reshape(-1).view(np.uint8)))


def _producer(numpy_function):
    """A kernel writing ``numpy_function(*args, dtype=out.dtype, **kw)`` into out."""

    def kernel(out, *args, **kwargs):
        args = [_native(a) for a in args]
        kwargs = {name: _native(value) for name, value in kwargs.items()}
        result = numpy_function(*args, dtype=out._dtype, **kwargs)
        np.copyto(view(out), result, casting="unsafe")

    kernel.__name__ = numpy_function.__name__
    return kernel


def _cast_after(numpy_function):
    """A kernel for NumPy functions that take no dtype: compute, then cast."""

    def kernel(out, *args, **kwargs):
        args = [_native(a) for a in args]
        kwargs = {name: _native(value) for name, value in kwargs.items()}
        np.copyto(view(out), numpy_function(*args, **kwargs), casting="unsafe")

    kernel.__name__ = numpy_function.__name__
    return kernel


def linspace_step(start, stop, div, dtype):
    """The spacing ``numpy.linspace`` reports for ``div`` intervals (``retstep``)."""
    return np.subtract(stop, start, dtype=dtype.type) / div


KERNELS = {
    "fill": fill,
    "copy": copy,
    "host_fill": host_fill,
    "arange": _producer(np.arange),
    "linspace": _producer(np.linspace),
    "linspace_step": _producer(linspace_step),
    "logspace": _producer(np.logspace),
    "geomspace": _producer(np.geomspace),
    "tri": _producer(np.tri),
    "tril": _cast_after(np.tril),
    "triu": _cast_after(np.triu),
    "vander": _cast_after(np.vander),
}
