"""Kernel arguments marshalled to the kernel's declared parameter types, exactly.

A rendered kernel declares its parameters as ``(C type, name)`` pairs.  The
driver hands each argument to cuda-core's ``launch``, which packs it by its
*Python* type -- a Python int as an ``intptr_t``, a float as a ``double``, a
NumPy scalar by its dtype (``numpy.longlong`` and ``numpy.ulonglong`` it
rejects) -- and the kernel reads whatever bytes it finds.  So every argument
must be a value whose packed form *is* the parameter's C type:

* a pointer (``T*``): a Python int, the address;
* a by-value scalar: the NumPy scalar of the parameter's type
  (:data:`PARAMETER_DTYPES`), of NumPy's canonical class (``numpy.int64``,
  never ``numpy.longlong``).

:func:`converter` builds, once per parameter list, the function that turns
values into those arguments.  A value of the wrong kind (a float for an
integer parameter, a bool for a pointer, ...) or one the type cannot hold
exactly (300 for an ``unsigned char``, 0.1 for a ``float``) is a TypeError,
raised before anything is launched.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

__all__ = ["PARAMETER_DTYPES", "converter", "marshal"]

# C type of a by-value kernel parameter -> the NumPy dtype cuda-core packs as that type
PARAMETER_DTYPES = {
    "bool": np.dtype(np.bool_),
    "signed char": np.dtype(np.int8), "unsigned char": np.dtype(np.uint8),
    "short": np.dtype(np.int16), "unsigned short": np.dtype(np.uint16),
    "int": np.dtype(np.int32), "unsigned int": np.dtype(np.uint32),
    "long long": np.dtype(np.int64), "unsigned long long": np.dtype(np.uint64),
    "asn_half": np.dtype(np.float16), "float": np.dtype(np.float32),
    "double": np.dtype(np.float64),
    "asn_complex64": np.dtype(np.complex64), "asn_complex128": np.dtype(np.complex128),
}

_POINTER_LIMIT = 2**64


def _kind(value) -> str:
    """'b', 'i', 'f' or 'c' for a Python or NumPy number; '' for anything else."""
    if isinstance(value, bool | np.bool_):
        return "b"
    if isinstance(value, int | np.integer):
        return "i"
    if isinstance(value, float | np.floating):
        return "f"
    if isinstance(value, complex | np.complexfloating):
        return "c"
    return ""


def _same_number(converted, value) -> bool:
    """Whether ``converted`` holds ``value`` exactly (NaN holds NaN, of either sign)."""
    a, b = complex(converted), complex(value)
    return all(x == y or (math.isnan(x) and math.isnan(y))
               for x, y in ((a.real, b.real), (a.imag, b.imag)))


def _by_value(kernel_name, position, c_type, name):
    """The converter of one by-value parameter."""
    dtype = PARAMETER_DTYPES[c_type]
    make = dtype.type
    accepted = {"b": "b", "i": "i", "u": "i", "f": "f", "c": "fc"}[dtype.kind]
    bounds = (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)) if dtype.kind in "iu" \
        else None
    where = f"asnumpy (cuda): kernel {kernel_name}, argument {position} ({c_type} {name})"

    def convert(value):
        if type(value) is make:
            return value                      # already exact: the common case
        if type(value) is np.ndarray and value.ndim == 0:
            value = value[()]
        kind = _kind(value)
        if not kind or kind not in accepted:
            raise TypeError(f"{where}: expects a {dtype} value, got {value!r} "
                            f"({type(value).__name__})")
        if bounds is not None:
            number = operator.index(value)
            if not bounds[0] <= number <= bounds[1]:
                raise TypeError(f"{where}: {value!r} does not fit in {dtype}")
            return make(number)
        with np.errstate(all="ignore"):
            converted = make(value)
        if not _same_number(converted, value):
            raise TypeError(f"{where}: {value!r} is not exactly representable in {dtype}")
        return converted

    return convert


def _pointer(kernel_name, position, c_type, name):
    """The converter of one pointer parameter: an address as a Python int."""
    where = f"asnumpy (cuda): kernel {kernel_name}, argument {position} ({c_type} {name})"

    def convert(value):
        if type(value) is int and 0 <= value < _POINTER_LIMIT:
            return value
        if _kind(value) != "i" or not 0 <= int(value) < _POINTER_LIMIT:
            raise TypeError(f"{where}: expects a device address, got {value!r}")
        return int(value)

    return convert


def parameter_converter(kernel_name, position, c_type, name):
    """The function converting one argument for parameter ``c_type name``."""
    c_type = " ".join(c_type.split())
    if c_type.endswith("*"):
        return _pointer(kernel_name, position, c_type, name)
    if c_type not in PARAMETER_DTYPES:
        raise TypeError(f"asnumpy (cuda): kernel {kernel_name}: no argument form for a "
                        f"parameter of type {c_type!r}")
    return _by_value(kernel_name, position, c_type, name)


@functools.lru_cache(maxsize=4096)
def converter(kernel_name, parameters):
    """The function marshalling a launch's values for ``parameters`` (built once).

    Parameters
    ----------
    kernel_name : str
        Named in error messages.
    parameters : tuple of (str, str)
        The kernel's declared ``(C type, name)`` pairs, in order.

    Returns
    -------
    callable
        ``convert(values) -> list`` of the exact launch arguments; raises
        TypeError when the count differs or a value is of the wrong kind or
        does not fit its parameter.
    """
    converters = tuple(parameter_converter(kernel_name, k, t, n)
                       for k, (t, n) in enumerate(parameters))
    count = len(converters)
    # the common case, checked in one pass: every value already of its exact type
    # (addresses Python ints, in range), as the kernels' planners produce them
    exact = tuple(int if " ".join(t.split()).endswith("*") else PARAMETER_DTYPES[t].type
                  for t, _ in parameters)
    addresses = tuple(k for k, t in enumerate(exact) if t is int)

    def convert(values):
        if len(values) != count:
            raise TypeError(f"asnumpy (cuda): kernel {kernel_name} takes {count} arguments, "
                            f"got {len(values)}")
        if tuple(map(type, values)) == exact and all(
                0 <= values[k] < _POINTER_LIMIT for k in addresses):
            return list(values)
        return [c(v) for c, v in zip(converters, values)]

    return convert


def marshal(kernel_name, parameters, values) -> list:
    """``values`` as exact arguments of a kernel declaring ``parameters``; see :func:`converter`."""
    return converter(kernel_name, tuple(parameters))(values)
