"""NumPy dtypes as C types in generated kernels, and scalars passed by value.

:data:`CTYPES` maps a dtype character to the C type every generated kernel
stores it as -- ufunc kernels, user kernels' placeholders and fusion alike --
the prelude's ``asn_half`` and ``asn_complex64/128`` for half and complex
data (the types kernels' sources call ``float16`` and ``complex<T>``).  A float16 scalar travels to a kernel as its bits, an
``unsigned short``: a half by value has no portable calling convention (the
host emulation's ctypes cannot pass one).
"""

from __future__ import annotations

import numpy

__all__ = ["CTYPES", "by_value", "parameter_type", "parameter_value"]

# dtype char -> C type name; 'l' and 'q' are both int64 (LP64)
CTYPES = {
    "?": "bool", "b": "signed char", "B": "unsigned char", "h": "short",
    "H": "unsigned short", "i": "int", "I": "unsigned int", "l": "long long",
    "L": "unsigned long long", "q": "long long", "Q": "unsigned long long",
    "e": "asn_half", "f": "float", "d": "double", "F": "asn_complex64",
    "D": "asn_complex128",
}


def parameter_type(char: str) -> str:
    """The C type of a by-value kernel parameter holding a ``char`` scalar."""
    return "unsigned short" if char == "e" else CTYPES[char]


def parameter_value(char: str, name: str) -> str:
    """The C expression giving the ``char`` value of by-value parameter ``name``."""
    return f"asn_hfrom({name})" if char == "e" else name


def by_value(value):
    """The launch argument for NumPy scalar ``value`` (see :func:`parameter_type`)."""
    value = numpy.asarray(value)
    return (value.view(numpy.uint16) if value.dtype == numpy.float16 else value)[()]
