"""asnumpy: NumPy on compute devices.

Arrays live in a device's memory (:class:`asnumpy.ndarray`); functions keep
NumPy's names, dtypes and errors; data moves between host and device
explicitly (:func:`asarray`, :func:`asnumpy`, ``from_numpy``/``to_numpy``),
synchronously or on streams.  The ``cpu`` device works everywhere and is the
default; ``ASNUMPY_DEVICE`` chooses another.
"""

__all__: list[str] = []     # extended section by section below

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
from ._dtypes import ML_DTYPES_FLOATS as _ML_DTYPES_FLOATS, ml_dtypes_type as _ml_dtypes_type

from importlib import import_module as _import_module  # asnumpy.testing, on first access

# names re-exported from asnumpy.extension (the user kernels), resolved by __getattr__
_EXTENSION_NAMES = frozenset({"ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule"})


# [import time] submodules and functions imported on first use (PEP 562; asnumpy._lazy):
# `import asnumpy` loads the array, creation, ufuncs and reductions, not these
from ._lazy import LazyAttribute as _LazyAttribute, LazyExports as _LazyExports

_LAZY_NAMES = {     # module -> the names it provides here
    ".linalg._products": ("einsum", "einsum_path", "inner", "kron", "outer", "tensordot", "vdot"),
    "._core.io": ("fromfile", "fromregex", "fromstring", "genfromtxt", "load", "loadtxt",
                  "save", "savetxt", "savez", "savez_compressed"),
    "._core.polynomials": (
        "poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul",
        "polysub", "polyval", "roots", "bartlett", "blackman", "hamming", "hanning", "kaiser"),
    "._core.printing": (
        "array2string", "array_repr", "array_str", "format_float_positional",
        "format_float_scientific", "get_printoptions", "printoptions", "set_printoptions"),
    "._core.host_helpers": (
        "base_repr", "binary_repr", "get_include", "getbufsize", "info", "isfortran", "isscalar",
        "iterable", "mintypecode", "setbufsize", "show_config", "show_runtime", "test",
        "typename", "get_array_module"),
    "._core.datetime_helpers": (
        "busday_count", "busday_offset", "busdaycalendar", "datetime_as_string", "datetime_data",
        "is_busday", "isnat"),
    "._core.pyfunc": ("frompyfunc", "vectorize"),
    "._core.memmap": ("memmap",),
    "._core.order_statistics": (
        "median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile", "cov",
        "corrcoef", "correlate", "convolve"),
}
_LAZY = _LazyExports(__name__, globals(), names=_LAZY_NAMES,
                     submodules=("emath", "fft", "lib", "linalg", "polynomial", "profiler",
                                 "random", "typing"))
# asnumpy.typing: the type aliases of asnumpy's annotations and stubs (imports numpy.typing)
__all__ += ["typing"]
# ... and the ndarray members those parts define, placeholders until first use: the first
# access imports the module, whose import sets the real member on ndarray (every member
# defined outside ndarray's class body is listed in _core/ndarray_members.py)
from ._core.ndarray_members import ON_FIRST_USE as _LAZY_METHODS
_LazyAttribute.install(ndarray, _LAZY_METHODS)


def __dir__():
    return sorted(set(_LAZY.dir()) | set(__all__))


def __getattr__(name):
    if name in _LAZY:
        return _LAZY.load(name)
    # asnumpy.bfloat16, asnumpy.float8_e4m3fn, ...: ml_dtypes' types, imported on first
    # access so that `import asnumpy` never imports the optional package
    if name in _ML_DTYPES_FLOATS:
        try:
            return _ml_dtypes_type(name, f"asnumpy.{name}")
        except ImportError as exc:
            raise AttributeError(str(exc), name=name, obj=None) from exc
    # [names users reach for] asnumpy.testing is imported on first access (it imports pytest)
    if name == "testing":
        return _import_module("asnumpy.testing")
    # user kernels: asnumpy.extension and its classes, imported on first access
    if name == "extension" or name in _EXTENSION_NAMES:
        extension = _import_module("asnumpy.extension")
        return extension if name == "extension" else getattr(extension, name)
    # asnumpy.fuse (kernel fusion) and asnumpy.jit (traced, replayed), imported on first use
    if name == "fuse":
        return _import_module("asnumpy.extension.fusion").fuse
    if name in ("jit", "lazy"):
        return getattr(_import_module("asnumpy.extension._jit"), name)
    raise AttributeError(f"module 'asnumpy' has no attribute {name!r}")


# -- errors
from ._errors import DeviceUnavailableError, OutOfMemoryError
# -- devices, streams, events and memory
from .runtime import (
    Device, Event, MemoryPool, Stream, devices, finalize, get_current_stream, get_device, init,
    reset_device, reset_device_force, set_device, synchronize,
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
# (every ufunc of the op table, asnumpy.ops.ufuncs, by its NumPy names and aliases)
from ._core.ufuncs import UFUNCS as _UFUNCS, Plan, ufunc
globals().update(_UFUNCS)
# -- reductions and statistics
__all__ += _LAZY.export("._core.reductions", (
    "sum", "prod", "min", "max", "amin", "amax", "argmin", "argmax", "all", "any", "mean",
    "var", "std", "ptp", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "nansum",
    "nanprod", "nanmin", "nanmax", "nanargmin", "nanargmax", "nanmean", "nanvar", "nanstd",
    "nancumsum", "nancumprod", "count_nonzero", "average", "nonzero",
))
# -- mathematical functions composed of ufuncs (clip, round, diff, isclose, softmax, ...)
__all__ += _LAZY.export("._core.math_functions", (
    "clip", "nan_to_num", "around", "round", "fix", "real", "imag", "angle", "real_if_close",
    "sinc", "i0", "diff", "ediff1d", "gradient", "trapezoid", "unwrap", "interp", "dot",
    "cross", "isclose", "allclose", "array_equal", "array_equiv", "isreal", "iscomplex",
    "isrealobj", "iscomplexobj", "isneginf", "isposinf", "relu", "gelu", "softmax",
))
# floating-point error handling is NumPy's own (one state, honoured by both)
from numpy import errstate, geterr, geterrcall, seterr, seterrcall

# -- indexing
__all__ += _LAZY.export("._core.indexing", (
    "take", "put", "take_along_axis", "put_along_axis", "choose", "compress", "extract",
    "place", "putmask", "where", "select", "copyto", "argwhere", "flatnonzero", "diagonal",
    "trace", "fill_diagonal", "diag_indices", "diag_indices_from", "tril_indices",
    "tril_indices_from", "triu_indices", "triu_indices_from", "mask_indices", "ix_",
    "ravel_multi_index", "unravel_index", "may_share_memory", "shares_memory",
))
# -- shape manipulation, joining, splitting
__all__ += _LAZY.export("._core.manipulation", (
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes", "moveaxis",
    "rollaxis", "squeeze", "expand_dims", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d", "shape", "ndim", "size",
    "require", "resize", "concatenate", "concat", "stack", "hstack", "vstack", "dstack",
    "column_stack", "row_stack", "block", "split", "array_split", "hsplit", "vsplit", "dsplit",
    "unstack",
))
# -- rearranging: flip, roll, tile, repeat, pad, insert, delete, ...
__all__ += _LAZY.export("._core.rearranging", (
    "flip", "fliplr", "flipud", "roll", "rot90", "repeat", "tile", "pad", "append", "delete",
    "insert", "trim_zeros", "apply_along_axis", "apply_over_axes", "piecewise",
))
# -- sorting, searching, sets, counting
__all__ += _LAZY.export("._core.sorting", (
    "sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex", "searchsorted",
    "digitize", "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "isin", "intersect1d", "union1d", "setdiff1d", "setxor1d", "bincount", "histogram",
    "histogram2d", "histogramdd", "histogram_bin_edges", "packbits", "unpackbits",
))
# -- order statistics, covariance, convolution
# (imported on first use: see _LAZY)
__all__ += [
    "median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile", "cov",
    "corrcoef", "correlate", "convolve",
]

# -- linear algebra, FFT and random numbers (submodules), and the top-level products
# (fft, lib, linalg, polynomial, random and the products are imported on first use: see _LAZY)
__all__ += ["fft", "lib", "linalg", "polynomial", "random"]
__all__ += ["einsum", "einsum_path", "inner", "kron", "outer", "tensordot", "vdot"]
# [io]
# (imported on first use: see _LAZY)
__all__ += [
    "fromfile", "fromregex", "fromstring", "genfromtxt", "load", "loadtxt", "save", "savetxt",
    "savez", "savez_compressed",
]
# [polynomials and windows]
# (imported on first use: see _LAZY)
__all__ += [
    "poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul",
    "polysub", "polyval", "roots", "bartlett", "blackman", "hamming", "hanning", "kaiser",
]

# [interop: the Array API standard (__array_namespace__, to_device, inspection, astype)]
from ._interop.array_api import __array_namespace_info__, array_api, astype  # noqa: E402
__all__ += ["__array_namespace_info__", "array_api", "astype"]

# [interop: NumPy's dispatch protocols, installed on ndarray once the namespace is built]
from ._interop import dispatch as _dispatch  # noqa: E402,F401

# [interop: numpy.asarray(a) (__array__): a view on cpu; off the host refused unless opted in]
from ._interop.host_conversion import (  # noqa: E402
    HostCopyWarning, allow_host_copies, get_implicit_host_copies, host_copy_count,
    set_implicit_host_copies,
)
__all__ += ["HostCopyWarning", "allow_host_copies", "get_implicit_host_copies",
            "host_copy_count", "set_implicit_host_copies"]

# [interop: DLPack (__dlpack__, __dlpack_device__) and __cuda_array_interface__ on ndarray]
# (imported on first use: see _LAZY and _LAZY_METHODS)
__all__ += _LAZY.export("._interop.dlpack", ("from_dlpack",))

# [interop: pickle protocol 5 out-of-band buffers (zero-copy frames for Dask, multiprocessing)]
from ._interop import pickling as _pickling  # noqa: E402,F401

__version__ = "0.1.0"
# the Array API standard version asnumpy declares; asnumpy.array_api (a.__array_namespace__())
# conforms to it, the module differs where NumPy 2.4 does (docs/interop.md, "The Array API")
__array_api_version__ = "2025.12"

# AsNumpy's users write ``except anp.MemoryError``.
MemoryError = OutOfMemoryError

__all__ += ["__version__", "runtime", "ndarray", "Flags", "TransferHandle", "array", "asarray",
           "asnumpy", "MemoryError", "OutOfMemoryError", "DeviceUnavailableError",
           "Device", "Event", "MemoryPool", "Stream", "devices", "finalize",
           "get_current_stream", "get_device", "init", "reset_device", "reset_device_force",
           "set_device", "synchronize"]
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
__all__ += [*_UFUNCS, "ufunc", "Plan"]
__all__ += ["errstate", "geterr", "geterrcall", "seterr", "seterrcall"]

# [names users reach for: constants, index helpers, printing, host helpers, iterators]
from numpy import e, euler_gamma, inf, nan, newaxis, pi  # noqa: E402
# (index helpers, iterators, conversions, printing, host helpers, datetime helpers and
# frompyfunc/vectorize: see _LAZY)
_LAZY.export("._core.index_tricks", ("c_", "index_exp", "mgrid", "ndindex", "ogrid", "r_", "s_"))
_LAZY.export("._core.iterators", ("broadcast", "flatiter", "ndenumerate", "nditer", "nested_iters"))
_LAZY.export("._core.conversions", ("asanyarray", "asarray_chkfinite", "from_numpy", "to_numpy"))
# (memmap and emath: see _LAZY)
# NumPy's other scalar types: asnumpy arrays hold numbers only, so making one with
# these dtypes raises TypeError; they serve isinstance/issubdtype checks and host data.
from numpy import (  # noqa: E402
    bytes_, character, clongdouble, datetime64, flexible, long, longdouble, object_, record,
    str_, timedelta64, ulong, void,
)
__all__ += [
    "e", "euler_gamma", "inf", "nan", "newaxis", "pi", "c_", "index_exp", "mgrid", "ndindex",
    "ogrid", "r_", "s_", "broadcast", "flatiter", "ndenumerate", "nditer", "nested_iters",
    "array2string", "array_repr", "array_str", "format_float_positional",
    "format_float_scientific", "get_printoptions", "printoptions", "set_printoptions",
    "base_repr", "binary_repr", "get_include", "getbufsize", "info", "isfortran", "isscalar",
    "iterable", "mintypecode", "setbufsize", "show_config", "show_runtime", "test", "typename",
    "get_array_module",
    "busday_count", "busday_offset", "busdaycalendar", "datetime_as_string", "datetime_data",
    "is_busday", "isnat", "frompyfunc", "vectorize", "asanyarray", "asarray_chkfinite",
    "from_numpy", "to_numpy", "memmap", "emath", "testing", "bytes_", "character",
    "clongdouble", "datetime64", "flexible", "long", "longdouble", "object_", "record", "str_",
    "timedelta64", "ulong", "void",
]
# -- user kernels (asnumpy.extension; imported on first access, see __getattr__)
__all__ += ["extension", *sorted(_EXTENSION_NAMES)]
# -- kernel fusion and jit (asnumpy.extension.fusion / .jit; imported on first use, see
#    __getattr__)
__all__ += ["fuse", "jit", "lazy"]
# the extended-precision types exist where NumPy has them (float96 or float128, ...)
from . import _extended_types  # noqa: E402
globals().update(_extended_types.TYPES)
__all__ += list(_extended_types.TYPES)
