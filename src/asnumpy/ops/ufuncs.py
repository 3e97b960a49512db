"""Every universal function asnumpy offers, one entry each: the op table.

An entry (:class:`UfuncOp`) carries everything about its ufunc that is not
in NumPy's ufunc object of the same name (arity, identity, loop list and
type rules are read from that object):

``category``
    its group in NumPy's documentation (the namespace and docs list them so);
``c``
    its C form per *type class* of the first input -- ``b`` bool, ``i``
    signed integer, ``u`` unsigned integer, ``h`` half (float's form unless
    given), ``f`` float, ``c`` complex -- a C expression, or a statement
    block for several outputs, over ``a``, ``b`` (the inputs in their compute
    types: half computes in float, as NumPy's half loops do), ``x0``, ``x1``
    (the raw inputs), ``T``, ``T1`` (the compute types) and ``r0``, ``r1``
    (a block's outputs); the helpers it calls are the portable prelude's.
    Generated kernels (cuda) render one device function per loop from it; a
    ufunc without C forms (the gufuncs) runs through the host fallback there;
``weight``
    relative cost per element against ``add`` (a power of two; cpu splits a
    call across threads from ``out.nbytes * weight`` on: measured in
    ``benchmarks/thresholds.py``);
``approximate``
    its tolerance class: results are compared to a few ulps (transcendental
    functions whose last bit depends on SIMD or libm code) instead of bit
    for bit;
``aliases``
    NumPy's other names for the same ufunc object (NumPy 2's array-API names);
``operator``
    the Python operator it backs: ``"add"`` gives ``__add__``, ``__radd__``
    and ``__iadd__`` (no in-place form for several outputs); a comparison
    has no reflected form (Python swaps it itself); a unary ufunc's is unary;
``reorderable``
    reductions may be regrouped (associative and commutative, integer
    overflow included: it wraps around);
``standard``
    the Array API standard's special values where NumPy's loops give others
    (:mod:`.special_values`);
``domains``
    operand index -> the test-data domain that operand needs (``"exponent"``:
    small non-negative integers for integer ``power``, ``"shift"``: shift
    counts).

Adding a ufunc is one entry here (plus a prelude helper when its C form
needs a new one): the namespace export, the ndarray operator, the cuda
device functions, the cpu weight and the tests' tolerance follow.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from . import special_values

__all__ = ["ALIASES", "BINARY_OPERATORS", "CATEGORIES", "COMPARISONS", "OPS", "UFUNCS",
           "UNARY_OPERATORS", "UfuncOp", "kernel_key", "power_shortcut"]

@dataclasses.dataclass(frozen=True)
class UfuncOp:
    """One universal function: see the module docstring for each field."""

    name: str
    c: Mapping[str, str] = dataclasses.field(default_factory=dict)
    weight: int = 1
    approximate: bool = False
    aliases: tuple[str, ...] = ()
    operator: str | None = None
    reorderable: bool = False
    standard: special_values.StandardValues | None = None
    domains: Mapping[int, str] = dataclasses.field(default_factory=dict)
    category: str = ""

    @property
    def numpy(self) -> np.ufunc:
        """NumPy's ufunc of this name: the specification."""
        return getattr(np, self.name)


# type-class groups of the C forms
_INT, _ALL, _ARITH = "iu", "biufc", "iufc"
_PI = "3.14159265358979323846264338327950288"

_OP = UfuncOp
CATEGORIES: dict[str, tuple[UfuncOp, ...]] = {
    "arithmetic": (
        _OP("add", {"b": "a || b", _ARITH: "asn_add(a, b)"}, operator="add", reorderable=True),
        _OP("subtract", {_ARITH: "asn_sub(a, b)"}, operator="sub"),
        _OP("multiply", {"b": "a && b", _ARITH: "asn_mul(a, b)"}, operator="mul",
            reorderable=True),
        _OP("divide", {"fc": "a / b"}, approximate=True, aliases=("true_divide",),
            operator="truediv"),
        # the Array API standard's special values: one infinite operand gives a / b
        # (inf // 2 == inf, -1 // inf == -0.0), where NumPy gives nan and -1.0
        _OP("floor_divide", {_INT: "asn_floordiv(a, b)",
                             "f": "asn_isinf(a) != asn_isinf(b) ? a / b : asn_floordiv(a, b)"},
            weight=16, operator="floordiv", standard=special_values.FLOOR_DIVIDE),
        _OP("remainder", {"iuf": "asn_remainder(a, b)"}, weight=16, aliases=("mod",),
            operator="mod"),
        _OP("fmod", {_INT: "asn_int_fmod(a, b)", "f": "asn_fmod(a, b)"}, weight=64),
        _OP("divmod", {_INT: "r0 = asn_int_floordiv(a, b); r1 = asn_int_remainder(a, b);",
                       "f": "if (b == 0) { r0 = a / b; r1 = asn_fmod(a, b); } "
                            "else { r0 = asn_divmod(a, b, r1); }"},
            weight=16, operator="divmod"),
        _OP("negative", {_ARITH: "asn_neg(a)"}, operator="neg"),
        _OP("positive", {_ARITH: "a"}, operator="pos"),
        _OP("absolute", {"b": "a", "i": "(T)asn_uabs(a)", "u": "a", "f": "asn_fabs(a)",
                         "c": "asn_abs(a)"}, approximate=True, aliases=("abs",), operator="abs"),
        _OP("fabs", {"f": "asn_fabs(a)"}, weight=8),
        _OP("sign", {_ARITH: "asn_sign(a)"}, weight=4),
        _OP("reciprocal", {_INT: "asn_int_reciprocal(a)", "f": "(T)1 / a",
                           "c": "asn_reciprocal(a)"}, weight=4, approximate=True),
        _OP("square", {_INT + "f": "asn_mul(a, a)", "c": "asn_square(a)"}),
        _OP("sqrt", {"fc": "asn_sqrt(a)"}, weight=8, approximate=True),
        _OP("cbrt", {"f": "asn_cbrt(a)"}, weight=4, approximate=True),
        _OP("power", {_INT: "asn_int_power(a, b)", "f": "asn_pow(a, b)",
                      "c": "asn_power(a, b)"},
            weight=16, approximate=True, aliases=("pow",), operator="pow",
            domains={1: "exponent"}),
        _OP("float_power", {"f": "asn_pow(a, b)", "c": "asn_power(a, b)"}, weight=64,
            approximate=True),
        _OP("conjugate", {_INT + "f": "a", "c": "asn_conj(a)"}, aliases=("conj",)),
    ),
    "exponents and logarithms": (
        _OP("exp", {"fc": "asn_exp(a)"}, weight=4, approximate=True),
        _OP("exp2", {"fc": "asn_exp2(a)"}, weight=4, approximate=True),
        # the standard's complex expm1 at zero and non-finite z is cexp(z) - 1
        # (NumPy: inf+nanj ...)
        _OP("expm1", {"f": "asn_expm1(a)",
                      "c": "if (asn_isfinite(a) && (a.re != 0 || a.im != 0)) { r0 = asn_expm1(a); } "
                           "else { T e = asn_exp(a); r0 = asn_cpack(e.re - 1, e.im); }"},
            weight=8, approximate=True, standard=special_values.EXPM1),
        _OP("log", {"fc": "asn_log(a)"}, weight=4, approximate=True),
        _OP("log2", {"fc": "asn_log2(a)"}, weight=4, approximate=True),
        _OP("log10", {"fc": "asn_log10(a)"}, weight=4, approximate=True),
        _OP("log1p", {"fc": "asn_log1p(a)"}, weight=8, approximate=True),
        _OP("logaddexp", {"f": "asn_logaddexp(a, b)"}, weight=64, approximate=True),
        _OP("logaddexp2", {"f": "asn_logaddexp2(a, b)"}, weight=64, approximate=True),
    ),
    "trigonometric": (
        _OP("sin", {"fc": "asn_sin(a)"}, weight=64, approximate=True),
        _OP("cos", {"fc": "asn_cos(a)"}, weight=64, approximate=True),
        _OP("tan", {"fc": "asn_tan(a)"}, weight=8, approximate=True),
        _OP("arcsin", {"fc": "asn_asin(a)"}, weight=64, approximate=True, aliases=("asin",)),
        _OP("arccos", {"fc": "asn_acos(a)"}, weight=64, approximate=True, aliases=("acos",)),
        _OP("arctan", {"fc": "asn_atan(a)"}, weight=8, approximate=True, aliases=("atan",)),
        _OP("arctan2", {"f": "asn_atan2(a, b)"}, weight=16, approximate=True,
            aliases=("atan2",)),
        _OP("hypot", {"f": "asn_hypot(a, b)"}, weight=64, approximate=True),
        _OP("sinh", {"fc": "asn_sinh(a)"}, weight=8, approximate=True),
        _OP("cosh", {"fc": "asn_cosh(a)"}, weight=4, approximate=True),
        # the standard's tanh(+-inf + yj) is +-1 + 0j with the sign of y on the zero (NumPy:
        # that of sin(2y)); a real argument (NaN included) keeps its zero imaginary part
        _OP("tanh", {"f": "asn_tanh(a)",
                     "c": "typedef decltype(a.re) R; if (asn_isinf(a.re)) { "
                          "r0 = asn_cpack(asn_copysign((R)1, a.re), asn_copysign((R)0, a.im)); } "
                          "else if (a.im == 0) { r0 = asn_cpack(asn_tanh(a.re), a.im); } "
                          "else { r0 = asn_tanh(a); }"},
            weight=8, approximate=True, standard=special_values.TANH),
        _OP("arcsinh", {"fc": "asn_asinh(a)"}, weight=16, approximate=True, aliases=("asinh",)),
        _OP("arccosh", {"fc": "asn_acosh(a)"}, weight=32, approximate=True, aliases=("acosh",)),
        _OP("arctanh", {"fc": "asn_atanh(a)"}, weight=32, approximate=True, aliases=("atanh",)),
        # the constant is rounded as NumPy's: pi in the type, then divided in the type
        _OP("deg2rad", {"f": f"a * ((T){_PI} / (T)180)"}, weight=8, approximate=True),
        _OP("rad2deg", {"f": f"a * ((T)180 / (T){_PI})"}, weight=8, approximate=True),
        _OP("degrees", {"f": f"a * ((T)180 / (T){_PI})"}, weight=16, approximate=True),
        _OP("radians", {"f": f"a * ((T){_PI} / (T)180)"}, weight=8, approximate=True),
    ),
    # integer loops are the identity
    "rounding": (
        _OP("rint", {"f": "asn_rint(a)", "c": "asn_rint(a)"}),
        _OP("floor", {"b" + _INT: "a", "f": "asn_floor(a)"}),
        _OP("ceil", {"b" + _INT: "a", "f": "asn_ceil(a)"}),
        _OP("trunc", {"b" + _INT: "a", "f": "asn_trunc(a)"}),
    ),
    "comparison": (
        _OP("equal", {"b" + _INT: "asn_cmp3(a, b) == 0", "f": "a == b", "c": "asn_ceq(a, b)"},
            operator="eq"),
        _OP("not_equal", {"b" + _INT: "asn_cmp3(a, b) != 0", "f": "a != b",
                          "c": "!asn_ceq(a, b)"}, operator="ne"),
        _OP("less", {"b" + _INT: "asn_cmp3(a, b) < 0", "f": "a < b", "c": "asn_clt(a, b)"},
            operator="lt"),
        _OP("less_equal", {"b" + _INT: "asn_cmp3(a, b) <= 0", "f": "a <= b",
                           "c": "asn_cle(a, b)"}, operator="le"),
        _OP("greater", {"b" + _INT: "asn_cmp3(a, b) > 0", "f": "a > b", "c": "asn_clt(b, a)"},
            operator="gt"),
        _OP("greater_equal", {"b" + _INT: "asn_cmp3(a, b) >= 0", "f": "a >= b",
                              "c": "asn_cle(b, a)"}, operator="ge"),
        # NumPy's half loops keep the first operand on a tie (-0.0 vs 0.0), its float
        # loops the second
        _OP("maximum", {"b": "a || b", "h": "asn_half_maximum(a, b)",
                        "iufc": "asn_maximum(a, b)"}, reorderable=True),
        _OP("minimum", {"b": "a && b", "h": "asn_half_minimum(a, b)",
                        "iufc": "asn_minimum(a, b)"}, reorderable=True),
        _OP("fmax", {"b": "a || b", "iufc": "asn_fmax(a, b)"}, reorderable=True),
        _OP("fmin", {"b": "a && b", "iufc": "asn_fmin(a, b)"}, reorderable=True),
    ),
    # truth value of any type
    "logical": (
        _OP("logical_and", {_ALL: "asn_nonzero(a) && asn_nonzero(b)"}, reorderable=True),
        _OP("logical_or", {_ALL: "asn_nonzero(a) || asn_nonzero(b)"}, reorderable=True),
        _OP("logical_xor", {_ALL: "asn_nonzero(a) != asn_nonzero(b)"}, reorderable=True),
        _OP("logical_not", {_ALL: "!asn_nonzero(a)"}),
    ),
    "bitwise": (
        _OP("bitwise_and", {"b": "a && b", _INT: "(T)(a & b)"}, operator="and",
            reorderable=True),
        _OP("bitwise_or", {"b": "a || b", _INT: "(T)(a | b)"}, operator="or", reorderable=True),
        _OP("bitwise_xor", {"b": "a != b", _INT: "(T)(a ^ b)"}, operator="xor",
            reorderable=True),
        _OP("invert", {"b": "!a", _INT: "(T)~a"}, aliases=("bitwise_invert", "bitwise_not"),
            operator="invert"),
        _OP("left_shift", {_INT: "asn_lshift(a, b)"}, aliases=("bitwise_left_shift",),
            operator="lshift", domains={1: "shift"}),
        _OP("right_shift", {_INT: "asn_rshift(a, b)"}, aliases=("bitwise_right_shift",),
            operator="rshift", domains={1: "shift"}),
        _OP("bitwise_count", {_INT: "asn_popc(asn_uabs(a))"}),
    ),
    "floating point": (
        _OP("copysign", {"f": "asn_copysign(a, b)"}, weight=4),
        _OP("nextafter", {"h": "asn_half_nextafter(x0, x1)", "f": "asn_nextafter(a, b)"},
            weight=32),
        _OP("spacing", {"h": "asn_half_spacing(x0)", "f": "asn_spacing(a)"}, weight=16),
        _OP("frexp", {"f": "r0 = asn_frexp(a, &r1);"}),
        _OP("ldexp", {"f": "asn_ldexp_clamped(a, (long long)b)"}, domains={1: "shift"}),
        _OP("modf", {"f": "r0 = asn_modf(a, &r1);"}, weight=32),
        _OP("signbit", {"f": "asn_signbit(x0)"}),
        _OP("isnan", {_ALL: "asn_isnan(x0)"}),
        _OP("isinf", {_ALL: "asn_isinf(x0)"}),
        _OP("isfinite", {_ALL: "asn_isfinite(x0)"}),
        _OP("heaviside", {"f": "asn_heaviside(a, b)"}, weight=8),
    ),
    "number theory": (
        _OP("gcd", {_INT: "asn_gcd(a, b)"}, weight=64, reorderable=True),
        _OP("lcm", {_INT: "asn_lcm(a, b)"}, weight=64),
    ),
    # generalized ufuncs: NumPy's (BLAS) loops on cpu; no C form (the host fallback on cuda)
    "linear algebra": (
        _OP("matmul", weight=0, approximate=True, operator="matmul"),
        _OP("vecdot", weight=0, approximate=True),
        _OP("matvec", weight=0, approximate=True),
        _OP("vecmat", weight=0, approximate=True),
    ),
}
del _OP

OPS: dict[str, UfuncOp] = {
    op.name: dataclasses.replace(op, category=category)
    for category, ops in CATEGORIES.items() for op in ops
}
"""ufunc name (NumPy's ``__name__``) -> its entry, in the documentation's order."""

# -- views of the table the front end reads ------------------------------------------

UFUNCS: dict[str, tuple[str, ...]] = {
    category: tuple(op.name for op in ops) for category, ops in CATEGORIES.items()}
"""category -> ufunc names."""

ALIASES: dict[str, str] = dict(sorted(
    (alias, op.name) for op in OPS.values() for alias in op.aliases))
"""NumPy's other name -> the ufunc it names (the same object, as in NumPy)."""

_COMPARISON = "comparison"
BINARY_OPERATORS: dict[str, str] = {
    op.operator: op.name for op in OPS.values()
    if op.operator and op.numpy.nin == 2 and op.category != _COMPARISON}
"""Python operator -> ufunc; each gets ``__op__``, ``__rop__`` and (one output) ``__iop__``."""

COMPARISONS: dict[str, str] = {
    op.operator: op.name for op in OPS.values() if op.operator and op.category == _COMPARISON}
"""Comparison operator -> ufunc: no reflected form (Python swaps comparisons itself)."""

UNARY_OPERATORS: dict[str, str] = {
    op.operator: op.name for op in OPS.values() if op.operator and op.numpy.nin == 1}
"""Unary operator -> ufunc."""


def power_shortcut(dtype_kind: str, exponent) -> str | None:
    """NumPy's ``fast_scalar_power``: the unary ufunc ``array ** exponent`` becomes, or None.

    Only exact Python ints and floats count: 2 squares any array, 0.5 and -1
    take the square root and the reciprocal of float and complex arrays
    (``dtype_kind``: the array's ``dtype.kind``).  ndarray's ``**`` and the
    fusion tracer both follow it.
    """
    kind = type(exponent)
    if kind is int:
        if exponent == 2:
            return "square"
        if exponent == -1 and dtype_kind in "fc":
            return "reciprocal"
    elif kind is float and exponent == 0.5 and dtype_kind in "fc":
        return "sqrt"
    return None


# NumPy's own ufuncs by ``__name__``: the names back ends compute ufuncs by
_NUMPY_UFUNCS = {f.__name__: f for f in vars(np).values() if isinstance(f, np.ufunc)}


def kernel_key(numpy_ufunc):
    """What back-end kernels know ``numpy_ufunc`` by: NumPy's own ufuncs by ``__name__``;
    any other (``scipy.special.gamma``, whose ``exp2`` is not NumPy's) as the object."""
    name = numpy_ufunc.__name__
    return name if _NUMPY_UFUNCS.get(name) is numpy_ufunc else numpy_ufunc
