"""Which asnumpy ops run as aclnn operators, and for which dtypes: data.

Each entry names the aclnn operator (``aclnn<Name>GetWorkspaceSize`` /
``aclnn<Name>``), its argument form and the dtypes asnumpy sends it.  The
dtype sets are those the operators' CANN documentation lists for Atlas A2
(910B) and that keep NumPy's semantics; anything outside them -- float64 for
the transcendental and rounding functions, unsigned wider than 8 bits,
complex, a loop with mixed dtypes, ``where=`` -- goes through the host
fallback (:mod:`asnumpy.ops.host_fallback`), which gives NumPy's answer.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["ACCUMULATIONS", "ARG_REDUCTIONS", "CASTS", "FILL_DTYPES", "LINALG", "MATMUL_MAX_NDIM",
           "REDUCTIONS", "SORT_DTYPES", "UFUNCS", "AclnnOp"]


def _dtypes(chars: str) -> frozenset:
    return frozenset(np.dtype(c) for c in chars)


FLOATS = _dtypes("fe")                 # float32, float16
FLOATS64 = _dtypes("fed")
SIGNED = _dtypes("bhil")               # int8, int16, int32, int64
NUMERIC = FLOATS64 | SIGNED | _dtypes("B")
INTEGRAL = SIGNED | _dtypes("B?")


class AclnnOp(NamedTuple):
    """One ufunc as an aclnn operator.

    ``form``: ``"unary"`` (self, out), ``"binary"`` (self, other, out),
    ``"alpha"`` (self, other, alpha scalar 1, out: Add and Sub), ``"square"`` (one
    operand as both inputs of a binary operator: NumPy's square is ``x * x``),
    ``"matmul"``.
    ``dtypes``: the loop input dtypes it takes (the output is the loop's).
    """

    operator: str
    form: str
    dtypes: frozenset


def _table(form, dtypes, pairs):
    return {name: AclnnOp(operator, form, dtypes) for name, operator in pairs}


UFUNCS = {
    **_table("alpha", NUMERIC, (("add", "Add"), ("subtract", "Sub"))),
    **_table("binary", NUMERIC, (("multiply", "Mul"),)),
    **_table("square", NUMERIC, (("square", "Mul"),)),
    **_table("binary", FLOATS64, (("divide", "Div"),)),
    **_table("binary", FLOATS | _dtypes("il"), (("maximum", "Maximum"), ("minimum", "Minimum"))),
    # (floor_divide and remainder stay NumPy's: its signed zeros and infinities at the
    # edges are not aclnnFloorDivide's / aclnnRemainderTensorTensor's documented results)
    **_table("binary", FLOATS, (("arctan2", "Atan2"), ("power", "PowTensorTensor"))),
    **_table("binary", NUMERIC | _dtypes("?"), (
        ("equal", "EqTensor"), ("not_equal", "NeTensor"), ("greater", "GtTensor"),
        ("greater_equal", "GeTensor"), ("less", "LtTensor"), ("less_equal", "LeTensor"))),
    **_table("binary", _dtypes("?"), (("logical_and", "LogicalAnd"), ("logical_or", "LogicalOr"),
                                      ("logical_xor", "LogicalXor"))),
    **_table("unary", _dtypes("?"), (("logical_not", "LogicalNot"),)),
    **_table("binary", INTEGRAL, (("bitwise_and", "BitwiseAndTensor"),
                                  ("bitwise_or", "BitwiseOrTensor"),
                                  ("bitwise_xor", "BitwiseXorTensor"))),
    **_table("unary", INTEGRAL, (("invert", "BitwiseNot"),)),
    **_table("unary", FLOATS, (
        ("exp", "Exp"), ("exp2", "Exp2"), ("expm1", "Expm1"), ("log", "Log"), ("log2", "Log2"),
        ("log10", "Log10"), ("log1p", "Log1p"), ("sqrt", "Sqrt"), ("sin", "Sin"),
        ("cos", "Cos"), ("tan", "Tan"), ("arcsin", "Asin"), ("arccos", "Acos"),
        ("arctan", "Atan"), ("sinh", "Sinh"), ("cosh", "Cosh"), ("tanh", "Tanh"),
        ("arcsinh", "Asinh"), ("arccosh", "Acosh"), ("arctanh", "Atanh"), ("floor", "Floor"),
        ("ceil", "Ceil"), ("trunc", "Trunc"), ("rint", "Round"), ("reciprocal", "Reciprocal"))),
    **_table("unary", FLOATS64 | SIGNED, (("absolute", "Abs"), ("negative", "Neg"))),
    **_table("unary", FLOATS | _dtypes("il"), (("sign", "Sign"),)),
    # a gufunc: 1-D . 1-D as aclnnDot, stacks of matrices (batch axes broadcast) as
    # aclnnMatmul, fp32 kept (cubeMathType 0); a vector with a matrix: the fallback
    **_table("matmul", FLOATS, (("matmul", "Matmul"),)),
}
MATMUL_MAX_NDIM = 6                    # aclnnMatmul's operands: at most 6-D

# numpy.linalg functions (the ``numpy_function`` kernel): name -> (operator, dtypes).
# inv runs only where Slogdet finds no singular matrix (NumPy's LinAlgError is the
# fallback's); det is left to the fallback (sign * exp(logabsdet) is not LAPACK's product)
LINALG = {"linalg.inv": ("Inverse", _dtypes("fd")), "linalg.slogdet": ("Slogdet", _dtypes("fd"))}

# ufunc reductions (``reduce`` kernel): ufunc name -> (operator, form, input dtypes)
REDUCTIONS = {
    "add": ("ReduceSum", "dims", NUMERIC),          # (self, dim[], keepDim, dtype, out)
    "maximum": ("Amax", "dims", FLOATS64 | SIGNED | _dtypes("B")),
    "minimum": ("Amin", "dims", FLOATS64 | SIGNED | _dtypes("B")),
    # one axis at a time; not float16, which ProdDim accumulates in float32 where NumPy
    # rounds (and overflows) at every step
    "multiply": ("ProdDim", "dim", _dtypes("fil")),
}
ACCUMULATIONS = {"add": ("Cumsum", NUMERIC)}                  # (self, dim, dtype, out)
ARG_REDUCTIONS = {"argmax": "ArgMax", "argmin": "ArgMin"}      # (self, dim, keepdim, out)
ARG_DTYPES = FLOATS64 | SIGNED | _dtypes("B")
SORT_DTYPES = FLOATS | SIGNED | _dtypes("B")                  # aclnnSort
FILL_DTYPES = NUMERIC | _dtypes("?")                           # aclnnInplaceFillScalar
COPY_DTYPES = NUMERIC | _dtypes("?")                           # aclnnInplaceCopy, same dtype
# aclnnCast between these, when NumPy calls the cast safe (or float32 <-> float16)
CASTS = NUMERIC | _dtypes("?")
