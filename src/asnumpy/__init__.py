"""asnumpy: NumPy on compute devices.

Arrays live in a device's memory (:class:`asnumpy.ndarray`); functions keep
NumPy's names, dtypes and errors; data moves between host and device
explicitly (:func:`asarray`, :func:`asnumpy`, ``from_numpy``/``to_numpy``),
synchronously or on streams.  The ``cpu`` device works everywhere and is the
default; ``ASNUMPY_DEVICE`` chooses another.
"""

from . import runtime
# -- arrays and transfers
from ._core.ndarray import Flags, ndarray
from ._core.transfer import TransferHandle, array, asarray, asnumpy
# -- dtypes: NumPy's own type objects and helpers
from ._dtypes import (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64,
    complex64, complex128, intp, uintp, int_, uint, float_, complex_, double, single, half,
    byte, ubyte, short, ushort, intc, uintc, longlong, ulonglong, csingle, cdouble, dtype,
    result_type, promote_types, can_cast, min_scalar_type, common_type, finfo, iinfo, isdtype,
    issubdtype, number, integer, signedinteger, unsignedinteger, floating, complexfloating,
    inexact, generic, bool,
)
# -- errors
from ._errors import DeviceUnavailableError, OutOfMemoryError
# -- devices, streams, events and memory
from .runtime import (
    Device, Event, MemoryPool, Stream, devices, finalize, get_current_stream, get_device, init,
    reset_device, set_device, synchronize,
)
from ._memory_api import (
    get_default_memory_pool, enable_memory_pool, disable_memory_pool, set_memory_pool_size,
    memory_summary, get_host_memory_pool,
)
# -- array creation
from ._core.creation import (
    empty, zeros, ones, full, empty_like, zeros_like, ones_like, full_like, arange, linspace,
    logspace, geomspace, eye, identity, diag, diagflat, tri, tril, triu, vander, meshgrid,
    indices, fromfunction, copy, ascontiguousarray, asfortranarray, frombuffer, fromiter,
)
# -- universal functions and reductions
from ._core._math import (
    add, multiply, sum,
)

__version__ = "0.1.0"

# AsNumpy's users write ``except anp.MemoryError``.
MemoryError = OutOfMemoryError

__all__ = ["__version__", "runtime", "ndarray", "Flags", "TransferHandle", "array", "asarray",
           "asnumpy", "MemoryError", "OutOfMemoryError", "DeviceUnavailableError",
           "Device", "Event", "MemoryPool", "Stream", "devices", "finalize",
           "get_current_stream", "get_device", "init", "reset_device", "set_device",
           "synchronize"]
__all__ += [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp", "int_",
    "uint", "float_", "complex_", "double", "single", "half", "byte", "ubyte", "short",
    "ushort", "intc", "uintc", "longlong", "ulonglong", "csingle", "cdouble", "dtype",
    "result_type", "promote_types", "can_cast", "min_scalar_type", "common_type", "finfo",
    "iinfo", "isdtype", "issubdtype", "number", "integer", "signedinteger", "unsignedinteger",
    "floating", "complexfloating", "inexact", "generic", "bool",
]
__all__ += [
    "get_default_memory_pool", "enable_memory_pool", "disable_memory_pool",
    "set_memory_pool_size", "memory_summary", "get_host_memory_pool",
]
__all__ += [
    "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
    "arange", "linspace", "logspace", "geomspace", "eye", "identity", "diag", "diagflat",
    "tri", "tril", "triu", "vander", "meshgrid", "indices", "fromfunction", "copy",
    "ascontiguousarray", "asfortranarray", "frombuffer", "fromiter",
]
__all__ += ["add", "multiply", "sum"]
