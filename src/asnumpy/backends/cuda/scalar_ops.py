"""Scalar CUDA C for every elementwise ufunc loop of the catalog.

Each loop of a NumPy ufunc (``numpy.<name>.types``, restricted to the dtypes
asnumpy supports) becomes one ``__device__`` function that computes one
element.  Kernel renderers concatenate :data:`PRELUDE` and the functions they
need and wrap them in a grid-stride loop.

The functions come from :data:`TABLE`: per ufunc and *type class* of the
first input (``b`` bool, ``i`` signed integer, ``u`` unsigned integer, ``h``
half, ``f`` float -- half too unless ``h`` is given -- and ``c`` complex) a C
expression, or a statement block for several outputs, over:

``a``, ``b``
    the inputs converted to their compute type (half computes in float, as
    NumPy's half loops do); ``x0``, ``x1`` are the raw inputs;
``T``, ``T1``
    the compute types of the inputs;
``r0``, ``r1``
    (statement blocks) the outputs in their compute types.

The result is stored with ``asn_cast`` (float to half rounds to nearest
even).  The semantics are NumPy's (see the prelude's comments), except:

* where the Array API standard's special cases and NumPy 2.4 disagree, the
  standard's values, as on the cpu (``floor_divide`` with one infinite
  operand, complex ``expm1`` at zero and non-finite arguments, complex
  ``tanh`` at an infinite real part; see ``cpu.math_kernels.STANDARD_VALUES``);
* floating-point error flags (NumPy's divide/overflow/invalid warnings) are
  not raised;
* ``power`` of signed integers with a negative exponent gives the truncated
  exact value (1 for a base of 1, +-1 for -1, 0 otherwise); the back end
  never launches it so: ``kernels.py`` looks for a negative exponent first
  and lets the host fallback raise NumPy's ValueError;
* float to integer casts outside the int64 range, and NaN, are undefined (as
  in NumPy);
* complex transcendental functions are computed from textbook/Kahan formulas:
  accurate to a few ulp of ``abs(result)`` for moderate arguments, but
  arguments near overflow and some inf/NaN combinations do not follow C99
  Annex G exactly.

NVRTC needs the CUDA runtime headers on its include path (cuda_fp16.h).
Device math follows CUDA's accuracy (``sinf`` etc.); compile with
``--fmad=false`` for results that round like NumPy's (no contraction to FMA).
"""

from __future__ import annotations

import numpy

from ...ops.cxx.types import CTYPES, by_value, parameter_type, parameter_value
from ...ops.cxx.functions import UfuncForms
from ...ops.cxx.prelude import PRELUDE

__all__ = ["CTYPES", "FORMS", "PRELUDE", "TABLE", "by_value", "device_function", "loops",
           "parameter_type", "parameter_value"]

_INT, _ALL = "iu", "biufc"
_ARITH = "iufc"

# ufunc -> {type classes: C expression or statement block}; see module doc.
TABLE: dict[str, dict[str, str]] = {
    # arithmetic
    "add": {"b": "a || b", _ARITH: "asn_add(a, b)"},
    "subtract": {_ARITH: "asn_sub(a, b)"},
    "multiply": {"b": "a && b", _ARITH: "asn_mul(a, b)"},
    "divide": {"fc": "a / b"},
    # the Array API standard's special values: one infinite operand gives a / b
    # (inf // 2 == inf, -1 // inf == -0.0), where NumPy gives nan and -1.0
    "floor_divide": {_INT: "asn_floordiv(a, b)",
                     "f": "asn_isinf(a) != asn_isinf(b) ? a / b : asn_floordiv(a, b)"},
    "remainder": {"iuf": "asn_remainder(a, b)"},
    "fmod": {_INT: "asn_int_fmod(a, b)", "f": "asn_fmod(a, b)"},
    "divmod": {_INT: "r0 = asn_int_floordiv(a, b); r1 = asn_int_remainder(a, b);",
               "f": "if (b == 0) { r0 = a / b; r1 = asn_fmod(a, b); } else { r0 = asn_divmod(a, b, r1); }"},
    "negative": {_ARITH: "asn_neg(a)"},
    "positive": {_ARITH: "a"},
    "absolute": {"b": "a", "i": "(T)asn_uabs(a)", "u": "a", "f": "asn_fabs(a)", "c": "asn_abs(a)"},
    "fabs": {"f": "asn_fabs(a)"},
    "sign": {_ARITH: "asn_sign(a)"},
    "reciprocal": {_INT: "asn_int_reciprocal(a)", "f": "(T)1 / a", "c": "asn_reciprocal(a)"},
    "square": {_INT + "f": "asn_mul(a, a)", "c": "asn_square(a)"},
    "sqrt": {"fc": "asn_sqrt(a)"},
    "cbrt": {"f": "asn_cbrt(a)"},
    "power": {_INT: "asn_int_power(a, b)", "f": "asn_pow(a, b)", "c": "asn_power(a, b)"},
    "float_power": {"f": "asn_pow(a, b)", "c": "asn_power(a, b)"},
    "conjugate": {_INT + "f": "a", "c": "asn_conj(a)"},
    # exponents and logarithms
    **{name: {"fc": f"asn_{name}(a)"}
       for name in ("exp", "exp2", "log", "log2", "log10", "log1p")},
    # the standard's complex expm1 at zero and non-finite z is cexp(z) - 1 (NumPy: inf+nanj ...)
    "expm1": {"f": "asn_expm1(a)",
              "c": "if (asn_isfinite(a) && (a.re != 0 || a.im != 0)) { r0 = asn_expm1(a); } "
                   "else { T e = asn_exp(a); r0 = asn_cpack(e.re - 1, e.im); }"},
    "logaddexp": {"f": "asn_logaddexp(a, b)"},
    "logaddexp2": {"f": "asn_logaddexp2(a, b)"},
    # trigonometric
    **{name: {"fc": f"asn_{'a' + name[3:] if name.startswith('arc') else name}(a)"}
       for name in ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
                    "arcsinh", "arccosh", "arctanh")},
    # the standard's tanh(+-inf + yj) is +-1 + 0j with the sign of y on the zero (NumPy:
    # that of sin(2y)); a real argument (NaN included) keeps its zero imaginary part
    "tanh": {"f": "asn_tanh(a)",
             "c": "typedef decltype(a.re) R; if (asn_isinf(a.re)) { "
                  "r0 = asn_cpack(asn_copysign((R)1, a.re), asn_copysign((R)0, a.im)); } "
                  "else if (a.im == 0) { r0 = asn_cpack(asn_tanh(a.re), a.im); } "
                  "else { r0 = asn_tanh(a); }"},
    "arctan2": {"f": "asn_atan2(a, b)"},
    "hypot": {"f": "asn_hypot(a, b)"},
    # the constant is rounded as NumPy's: pi in the type, then divided in the type
    **{name: {"f": "a * ((T)3.14159265358979323846264338327950288 / (T)180)"}
       for name in ("deg2rad", "radians")},
    **{name: {"f": "a * ((T)180 / (T)3.14159265358979323846264338327950288)"}
       for name in ("rad2deg", "degrees")},
    # rounding (integer loops are the identity)
    "rint": {"f": "asn_rint(a)", "c": "asn_rint(a)"},
    **{name: {"b" + _INT: "a", "f": f"asn_{name}(a)"} for name in ("floor", "ceil", "trunc")},
    # comparison
    "equal": {"b" + _INT: "asn_cmp3(a, b) == 0", "f": "a == b", "c": "asn_ceq(a, b)"},
    "not_equal": {"b" + _INT: "asn_cmp3(a, b) != 0", "f": "a != b", "c": "!asn_ceq(a, b)"},
    "less": {"b" + _INT: "asn_cmp3(a, b) < 0", "f": "a < b", "c": "asn_clt(a, b)"},
    "less_equal": {"b" + _INT: "asn_cmp3(a, b) <= 0", "f": "a <= b", "c": "asn_cle(a, b)"},
    "greater": {"b" + _INT: "asn_cmp3(a, b) > 0", "f": "a > b", "c": "asn_clt(b, a)"},
    "greater_equal": {"b" + _INT: "asn_cmp3(a, b) >= 0", "f": "a >= b", "c": "asn_cle(b, a)"},
    # NumPy's half loops keep the first operand on a tie (-0.0 vs 0.0), its float loops the
    # second
    "maximum": {"b": "a || b", "h": "asn_half_maximum(a, b)", "iufc": "asn_maximum(a, b)"},
    "minimum": {"b": "a && b", "h": "asn_half_minimum(a, b)", "iufc": "asn_minimum(a, b)"},
    "fmax": {"b": "a || b", "iufc": "asn_fmax(a, b)"},
    "fmin": {"b": "a && b", "iufc": "asn_fmin(a, b)"},
    # logical: truth value of any type
    "logical_and": {_ALL: "asn_nonzero(a) && asn_nonzero(b)"},
    "logical_or": {_ALL: "asn_nonzero(a) || asn_nonzero(b)"},
    "logical_xor": {_ALL: "asn_nonzero(a) != asn_nonzero(b)"},
    "logical_not": {_ALL: "!asn_nonzero(a)"},
    # bitwise
    "bitwise_and": {"b": "a && b", _INT: "(T)(a & b)"},
    "bitwise_or": {"b": "a || b", _INT: "(T)(a | b)"},
    "bitwise_xor": {"b": "a != b", _INT: "(T)(a ^ b)"},
    "invert": {"b": "!a", _INT: "(T)~a"},
    "left_shift": {_INT: "asn_lshift(a, b)"},
    "right_shift": {_INT: "asn_rshift(a, b)"},
    "bitwise_count": {_INT: "asn_popc(asn_uabs(a))"},
    # floating point
    "copysign": {"f": "asn_copysign(a, b)"},
    "nextafter": {"h": "asn_half_nextafter(x0, x1)", "f": "asn_nextafter(a, b)"},
    "spacing": {"h": "asn_half_spacing(x0)", "f": "asn_spacing(a)"},
    "frexp": {"f": "r0 = asn_frexp(a, &r1);"},
    "ldexp": {"f": "asn_ldexp_clamped(a, (long long)b)"},
    "modf": {"f": "r0 = asn_modf(a, &r1);"},
    "signbit": {"f": "asn_signbit(x0)"},
    "isnan": {_ALL: "asn_isnan(x0)"},
    "isinf": {_ALL: "asn_isinf(x0)"},
    "isfinite": {_ALL: "asn_isfinite(x0)"},
    "heaviside": {"f": "asn_heaviside(a, b)"},
    # number theory
    "gcd": {_INT: "asn_gcd(a, b)"},
    "lcm": {_INT: "asn_lcm(a, b)"},
}

# the renderer of the table's C forms (ops/cxx/functions.py): one per table
FORMS = UfuncForms(TABLE, PRELUDE)
loops = FORMS.loops
function_name = FORMS.function_name
device_function = FORMS.device_function
