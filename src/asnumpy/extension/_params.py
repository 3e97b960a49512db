"""Kernel parameter lists (CuPy's syntax) and the typing of a call's arguments.

A parameter list is ``"T x, raw T y, float32 z"``: comma-separated
declarations of a type and a name, optionally preceded by ``raw`` (the whole
array, indexed by the kernel itself) or ``_non_const`` (an input the kernel
may write).  A one-letter type is a *placeholder*, bound at call time to the
dtype of the array passed for it; longer types are NumPy dtype names.

Typing a call (:func:`resolve_types`) follows CuPy: output arrays bind
placeholders first, then input arrays; an array whose dtype disagrees with a
fixed type or an already bound placeholder raises TypeError.  Scalars bind
nothing: they take their parameter's type (and a placeholder bound only by
scalars takes the scalar's own dtype: int64, float64, complex128 or bool for
Python scalars).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..ops.cxx.types import CTYPES

__all__ = ["Param", "c_type", "parse_params", "resolve_types", "scalar_dtype"]


class Param(NamedTuple):
    """One declared parameter."""

    name: str
    dtype: np.dtype | None      # None for a placeholder
    ctype: str                  # the placeholder's letter, or the C type name
    raw: bool
    is_const: bool


def c_type(dtype) -> str:
    """The C type name of ``dtype`` in kernels (``float``, ``complex<double>``, ...)."""
    dtype = np.dtype(dtype)
    try:
        return CTYPES[dtype.char]
    except KeyError:
        raise TypeError(f"asnumpy.extension: kernels cannot take {dtype} data") from None


def parse_params(text: str, is_const: bool, where: str) -> tuple[Param, ...]:
    """Parse a parameter list; ``where`` names the kernel in error messages."""
    params = []
    for item in (text.split(",") if text.strip() else ()):
        words = item.split()
        if len(words) < 2:
            raise ValueError(f"{where}: syntax error in parameter {item.strip()!r}")
        type_name, name = words[-2:]
        raw, const = False, is_const
        for word in words[:-2]:
            if word == "raw":
                raw = True
            elif word == "_non_const":
                const = False
            else:
                raise ValueError(f"{where}: unknown keyword {word!r} in parameter "
                                 f"{item.strip()!r}")
        if not name.isidentifier():
            raise ValueError(f"{where}: invalid parameter name {name!r}")
        if len(type_name) == 1:
            if not type_name.isalpha():
                raise ValueError(f"{where}: invalid type placeholder {type_name!r}")
            params.append(Param(name, None, type_name, raw, const))
            continue
        try:
            dtype = np.dtype(type_name)
        except TypeError:
            dtype = None
        if dtype is None or dtype.name != type_name or dtype.char not in CTYPES:
            raise ValueError(f"{where}: unknown type {type_name!r} in parameter "
                             f"{item.strip()!r} (use a NumPy dtype name such as 'float32', "
                             "or a one-letter placeholder)")
        params.append(Param(name, dtype, c_type(dtype), raw, const))
    return tuple(params)


def scalar_dtype(value) -> np.dtype:
    """The dtype a scalar argument has on its own (NumPy's defaults for Python scalars)."""
    if isinstance(value, np.generic):
        return value.dtype
    for kind, dtype in ((bool, np.bool_), (int, np.int64), (float, np.float64),
                        (complex, np.complex128)):
        if isinstance(value, kind):
            return np.dtype(dtype)
    raise TypeError(f"unsupported scalar {value!r}")


def resolve_types(in_params, out_params, in_dtypes, out_dtypes, in_scalars, where):
    """The dtypes of every parameter, and the placeholders' bindings.

    ``in_dtypes``/``out_dtypes`` hold an array's dtype, or None for a scalar
    (outputs: None when not given); ``in_scalars`` the scalar values.
    Returns ``(in_types, out_types, bindings)``; raises TypeError on a
    conflict, naming the parameter, the two dtypes and the placeholder.
    """
    bound: dict[str, np.dtype] = {}

    def bind(param, dtype):
        if param.dtype is not None:
            if dtype != param.dtype:
                raise TypeError(f"{where}: type is mismatched for parameter {param.name!r}: "
                                f"got {dtype}, declared {param.dtype}")
        elif param.ctype in bound and bound[param.ctype] != dtype:
            raise TypeError(f"{where}: type is mismatched for parameter {param.name!r}: "
                            f"got {dtype}, but placeholder {param.ctype} is already "
                            f"{bound[param.ctype]}")
        else:
            bound[param.ctype] = dtype

    for param, dtype in zip(out_params, out_dtypes):
        if dtype is not None:
            bind(param, dtype)
    for param, dtype in zip(in_params, in_dtypes):
        if dtype is not None:
            bind(param, dtype)
    for param, dtype, value in zip(in_params, in_dtypes, in_scalars):
        if dtype is None and param.dtype is None and param.ctype not in bound:
            bound[param.ctype] = scalar_dtype(value)
    for param in out_params:
        if param.dtype is None and param.ctype not in bound:
            raise TypeError(f"{where}: cannot decide the type of output {param.name!r}: "
                            f"placeholder {param.ctype} is bound by no argument; pass the "
                            "output array")

    def types(params):
        return tuple(bound[p.ctype] if p.dtype is None else p.dtype for p in params)

    return types(in_params), types(out_params), bound
