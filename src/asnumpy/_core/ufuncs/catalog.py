"""The ufunc catalog: every universal function asnumpy offers, as data.

Each entry names the NumPy ufunc that specifies it: arity, identity, loop
list and type rules are read from that object, and each back end computes it
by name (NumPy's loop on ``cpu``).  Operators and in-place operators of
:class:`asnumpy.ndarray` are generated from :data:`BINARY_OPERATORS` and
:data:`UNARY_OPERATORS`.

A NumPy ufunc outside NumPy's namespace (SciPy's ``scipy.special.gamma``, a
user's ``numpy.frompyfunc`` or Numba ufunc) runs through the same machinery
(``_interop/dispatch.py`` wraps it on first dispatch); back ends know it by the
ufunc object itself instead of a name (:func:`kernel_key`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ALIASES", "BINARY_OPERATORS", "COMPARISONS", "UFUNCS", "UNARY_OPERATORS",
           "kernel_key"]

# category -> NumPy ufunc names (NumPy's ``__name__`` of each)
UFUNCS = {
    "arithmetic": (
        "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
        "divmod", "negative", "positive", "absolute", "fabs", "sign", "reciprocal",
        "square", "sqrt", "cbrt", "power", "float_power", "conjugate",
    ),
    "exponents and logarithms": (
        "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2",
    ),
    "trigonometric": (
        "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "hypot",
        "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
        "deg2rad", "rad2deg", "degrees", "radians",
    ),
    "rounding": ("rint", "floor", "ceil", "trunc"),
    "comparison": (
        "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
        "maximum", "minimum", "fmax", "fmin",
    ),
    "logical": ("logical_and", "logical_or", "logical_xor", "logical_not"),
    "bitwise": (
        "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift",
        "bitwise_count",
    ),
    "floating point": (
        "copysign", "nextafter", "spacing", "frexp", "ldexp", "modf", "signbit",
        "isnan", "isinf", "isfinite", "heaviside",
    ),
    "number theory": ("gcd", "lcm"),
    "linear algebra": ("matmul", "vecdot", "matvec", "vecmat"),
}

# NumPy's other names for the same ufunc object (NumPy 2 array-API aliases)
ALIASES = {
    "abs": "absolute", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin",
    "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
    "bitwise_invert": "invert", "bitwise_not": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "conj": "conjugate", "true_divide": "divide",
    "mod": "remainder", "pow": "power",
}

# Python operator -> ufunc; each gets __op__, __rop__ and (unless None) __iop__
BINARY_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift", "divmod": "divmod",
}
# comparisons have no reflected form: Python swaps them itself
COMPARISONS = {
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal",
}
UNARY_OPERATORS = {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}


# NumPy's own ufuncs by ``__name__``: the names back ends compute ufuncs by
_NUMPY_UFUNCS = {f.__name__: f for f in vars(np).values() if isinstance(f, np.ufunc)}


def kernel_key(numpy_ufunc):
    """What back-end kernels know ``numpy_ufunc`` by: NumPy's own ufuncs by ``__name__``;
    any other (``scipy.special.gamma``, whose ``exp2`` is not NumPy's) as the object."""
    name = numpy_ufunc.__name__
    return name if _NUMPY_UFUNCS.get(name) is numpy_ufunc else numpy_ufunc
