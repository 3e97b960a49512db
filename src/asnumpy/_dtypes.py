"""dtypes: NumPy's own type objects, limited to the numeric kinds.

asnumpy arrays hold bool, integer, floating and complex data, and with the
optional ``ml_dtypes`` package its narrow floating types (bfloat16 and the
float8 family, :data:`ML_DTYPES_FLOATS`).  The dtype helpers are NumPy's,
wrapped only so that they accept asnumpy arrays wherever NumPy accepts its own.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np

__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
    "intp", "uintp", "int_", "uint", "float_", "complex_", "double", "single", "half",
    "byte", "ubyte", "short", "ushort", "intc", "uintc", "longlong", "ulonglong", "csingle",
    "cdouble", "dtype", "result_type", "promote_types", "can_cast", "min_scalar_type",
    "common_type", "finfo", "iinfo", "isdtype", "issubdtype", "number", "integer",
    "signedinteger", "unsignedinteger", "floating", "complexfloating", "inexact", "generic",
    "bool", "SUPPORTED_DTYPES", "ML_DTYPES_FLOATS", "is_supported", "ml_dtypes_type",
    "to_dtype", "dtype_code", "dtype_from_code",
]

bool_ = bool = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
intp, uintp, int_, uint = np.intp, np.uintp, np.int_, np.uint
float_, complex_ = np.float64, np.complex128
double, single, half = np.double, np.single, np.half
byte, ubyte, short, ushort = np.byte, np.ubyte, np.short, np.ushort
intc, uintc, longlong, ulonglong = np.intc, np.uintc, np.longlong, np.ulonglong
csingle, cdouble = np.csingle, np.cdouble
number, integer, generic, inexact = np.number, np.integer, np.generic, np.inexact
signedinteger, unsignedinteger = np.signedinteger, np.unsignedinteger
floating, complexfloating = np.floating, np.complexfloating
dtype = np.dtype
iinfo, isdtype, issubdtype, promote_types = (
    np.iinfo, np.isdtype, np.issubdtype, np.promote_types,
)
# NumPy's limits as Python floats (the Array API standard's finfo)
from ._finfo import finfo  # noqa: E402

SUPPORTED_DTYPES = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
))
_SUPPORTED_KINDS = "biufc"
# For the fast path of to_dtype: a non-native dtype is not in it and takes the slow path.
_SUPPORTED_SET = frozenset(SUPPORTED_DTYPES)

# The floating types of the optional ml_dtypes package that asnumpy arrays hold (NumPy
# gives most of them kind 'V'; ml_dtypes registers their casts, promotions and ufunc
# loops with NumPy).  A name the installed ml_dtypes lacks is skipped.
ML_DTYPES_FLOATS = (
    "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e4m3b11fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
)
ML_DTYPES_INSTALL = 'pip install "asnumpy[ml-dtypes]"'
_ML_DTYPES_NAMES = frozenset(ML_DTYPES_FLOATS)
_ml_dtypes_set = None            # the supported dtypes plus ml_dtypes', once it is imported


def ml_dtypes_type(name: str, func: str = "asnumpy") -> type:
    """The scalar type ``ml_dtypes.<name>``, importing the optional package on first use.

    Raises ImportError naming the extra to install when ml_dtypes is missing,
    and AttributeError when the installed version lacks ``name``.
    """
    try:
        module = importlib.import_module("ml_dtypes")
    except ImportError:
        raise ImportError(f"{func}: {name} needs the ml_dtypes package; install it with "
                          f"{ML_DTYPES_INSTALL}") from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"{func}: the installed ml_dtypes {module.__version__} has no "
                             f"{name}; upgrade it with {ML_DTYPES_INSTALL}") from None


def _supported_set() -> frozenset:
    """SUPPORTED_DTYPES plus ml_dtypes' floats when ml_dtypes is imported.

    No dtype of ml_dtypes can exist before the package is imported, so until
    then the NumPy set answers alone and ``import asnumpy`` never imports it.
    """
    global _ml_dtypes_set
    if _ml_dtypes_set is None:
        module = sys.modules.get("ml_dtypes")
        if module is None:
            return _SUPPORTED_SET
        _ml_dtypes_set = _SUPPORTED_SET | frozenset(
            np.dtype(getattr(module, name)) for name in ML_DTYPES_FLOATS
            if hasattr(module, name))
    return _ml_dtypes_set


def is_supported(dtype: np.dtype) -> bool:
    """Whether asnumpy arrays hold ``dtype`` (a native-byte-order NumPy dtype)."""
    return dtype in _SUPPORTED_SET or dtype in _supported_set()


def dtype_code(dtype: np.dtype) -> int:
    """A nonzero int naming a supported ``dtype`` in int64 metadata (see dtype_from_code).

    NumPy's own types are their type character; ml_dtypes' are negative (their
    characters repeat NumPy's: float8_e4m3b11fnuz is 'L', as uint64).
    """
    if dtype.name in _ML_DTYPES_NAMES and dtype.type.__module__ == "ml_dtypes":
        return -1 - ML_DTYPES_FLOATS.index(dtype.name)
    return ord(dtype.char)


def dtype_from_code(code: int) -> np.dtype:
    """The dtype that :func:`dtype_code` gave ``code`` for."""
    if code < 0:
        return np.dtype(ml_dtypes_type(ML_DTYPES_FLOATS[-1 - code]))
    return np.dtype(chr(code))


def _numpy_dtype(value, func):
    """``np.dtype(value)``; a name of :data:`ML_DTYPES_FLOATS` imports ml_dtypes first."""
    try:
        return np.dtype(value)
    except TypeError as exc:
        if isinstance(value, str) and value in _ML_DTYPES_NAMES:
            try:
                return np.dtype(ml_dtypes_type(value, f"asnumpy.{func}"))
            except ImportError as missing:       # NumPy's error type, with the remedy
                raise TypeError(f"{missing} ({exc})") from None
        raise TypeError(f"asnumpy.{func}: {exc}") from None


def to_dtype(value, func: str, default=None) -> np.dtype:
    """The native-byte-order NumPy dtype for ``value``; TypeError if not supported.

    ``None`` gives ``default`` (when one is given).  Non-native byte orders
    are accepted and stored natively, as device memory has one byte order.
    Only the dtypes of :data:`SUPPORTED_DTYPES` are accepted: strings,
    objects, datetimes, structured dtypes and the extended-precision
    ``longdouble``/``clongdouble`` raise TypeError naming the dtype.
    """
    if isinstance(value, np.dtype) and value in _SUPPORTED_SET:
        return value                      # the common case: already a supported dtype
    if value is None and default is not None:
        return np.dtype(default)
    result = _numpy_dtype(value, func)
    if not result.isnative and result.fields is None and (
            result.kind in _SUPPORTED_KINDS or is_supported(result.newbyteorder("="))):
        result = result.newbyteorder("=")        # ml_dtypes' swapped types are kind 'V'
    if not is_supported(result) or result.fields is not None or result.subdtype:
        raise TypeError(
            f"asnumpy.{func}: dtype {result!r} is not supported; asnumpy arrays hold bool, "
            "int8-int64, uint8-uint64, float16-float64, complex64 and complex128 numbers "
            f"(and with ml_dtypes, {ML_DTYPES_INSTALL}: {', '.join(ML_DTYPES_FLOATS)})"
        )
    return result


def _as_numpy_arg(value):
    """asnumpy arrays stand in for NumPy's by their dtype (NumPy 2 has no
    value-based casting for arrays, 0-d included)."""
    return value.dtype if hasattr(value, "__asnumpy_device__") else value


def result_type(*arrays_and_dtypes) -> np.dtype:
    """The dtype that NumPy's promotion rules (NEP 50) give for the arguments.

    Parameters
    ----------
    *arrays_and_dtypes : asnumpy or NumPy arrays, dtypes, or scalars
        Arrays (0-d included) count by their dtype; Python scalars are weak.

    Returns
    -------
    numpy.dtype
    """
    return np.result_type(*map(_as_numpy_arg, arrays_and_dtypes))


def can_cast(from_, to, casting="safe") -> bool:
    """Whether a cast from ``from_`` to ``to`` is allowed under ``casting``.

    Parameters
    ----------
    from_ : asnumpy or NumPy array, dtype or NumPy scalar
        Arrays count by their dtype (NEP 50: no value-based casting).
    to : data-type
        The target dtype.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        The casting rule.

    Returns
    -------
    bool
    """
    return np.can_cast(_as_numpy_arg(from_), to, casting=casting)


def min_scalar_type(a) -> np.dtype:
    """The smallest dtype that holds ``a``.

    Parameters
    ----------
    a : scalar or array
        Scalars and 0-d arrays (asnumpy's are read from the device) are
        judged by value; other arrays give their own dtype.

    Returns
    -------
    numpy.dtype
    """
    if hasattr(a, "__asnumpy_device__"):
        if a.ndim != 0:
            return a.dtype
        a = a.get()
    return np.min_scalar_type(a)


def common_type(*arrays) -> type:
    """The inexact scalar type common to the arrays, as ``numpy.common_type``.

    Parameters
    ----------
    *arrays : asnumpy or NumPy arrays
        Integer arrays count as float64.

    Returns
    -------
    type
        A NumPy floating or complex scalar type.
    """
    stand_ins = [np.empty(0, dtype=a.dtype) if hasattr(a, "__asnumpy_device__") else a
                 for a in arrays]
    return np.common_type(*stand_ins)
