"""Vectorised math on the host target: glibc's libmvec called from loops GCC vectorises.

NumPy's float loops of ``sin``, ``log``, ``tanh`` ... are SIMD; a C++ loop
calling ``sinf`` element by element is not, so a fused cpu kernel computing
them was several times slower than NumPy's separate calls.  GCC vectorises a
loop calling a function declared ``__attribute__((simd("notinbranch")))``
(when math errno is off, as it is in the toolchain's flags) by calling the
function's vector variants, ``_ZGV{b,c,d,e}N{2..16}v_<name>``, which glibc's
libmvec provides (x86-64, glibc >= 2.22; the functions below since 2.35).
glibc declares them so only under ``-ffast-math``, which would also change
NaN, inf and signed-zero handling and the rounding of ``+ - * /``; here they
are declared under names of our own (:func:`declarations`), with the C
library's symbol as the assembler name, so nothing else changes.

:data:`FUNCTIONS` are the ufuncs whose real loops call them: the libmvec
functions whose results were measured within 4 ulp of NumPy's over random
and edge inputs, with NumPy's NaN/inf/zero results (docs/extension.md,
"Fusion numerics").  Whether a host can use them is probed once by the
toolchain (:func:`asnumpy.backends.cpu.compiler.vector_math_options`); where
it cannot (no libmvec, another C library, a compiler without the attribute)
the same names call the scalar C functions.
"""

from __future__ import annotations

__all__ = ["FUNCTIONS", "LINK_OPTIONS", "declarations", "probe_source"]

# ufunc name -> (C function, arity)
FUNCTIONS = {
    "sin": ("sin", 1), "cos": ("cos", 1), "tan": ("tan", 1),
    "arcsin": ("asin", 1), "arccos": ("acos", 1), "arctan": ("atan", 1),
    "sinh": ("sinh", 1), "cosh": ("cosh", 1), "tanh": ("tanh", 1),
    "arcsinh": ("asinh", 1), "arccosh": ("acosh", 1), "arctanh": ("atanh", 1),
    "exp": ("exp", 1), "exp2": ("exp2", 1), "expm1": ("expm1", 1),
    "log": ("log", 1), "log2": ("log2", 1), "log10": ("log10", 1), "log1p": ("log1p", 1),
    "cbrt": ("cbrt", 1), "arctan2": ("atan2", 2), "hypot": ("hypot", 2),
}

# libmvec linked explicitly (not only through libm.so's AS_NEEDED group), and kept even
# where the linker defaults to --as-needed
LINK_OPTIONS = ("-Wl,--push-state,--no-as-needed", "-lmvec", "-Wl,--pop-state")


def declarations(vector: bool) -> str:
    """C++ defining ``asn_simd_<name>`` (float and double) for each of :data:`FUNCTIONS`.

    With ``vector`` they call the C library's function declared with GCC's
    ``simd`` attribute (loops calling them vectorise into libmvec calls);
    without, the prelude's scalar ``asn_<name>``.  Follows the prelude.
    """
    lines = []
    if vector:
        lines += ["#if defined(__GNUC__) && !defined(__clang__)",
                  '#define ASN_SIMD __attribute__((simd("notinbranch"), const, nothrow))',
                  "#else",
                  "#define ASN_SIMD",
                  "#endif",
                  'extern "C" {']
        for c, arity in sorted(set(FUNCTIONS.values())):
            for ctype, suffix in (("float", "f"), ("double", "")):
                params = ", ".join([ctype] * arity)
                lines.append(f'{ctype} asn_libmvec_{c}{suffix}({params}) __asm__("{c}{suffix}") '
                             "ASN_SIMD;")
        lines.append("}")
    for c, arity in sorted(set(FUNCTIONS.values())):
        names = "xy"[:arity]
        for ctype, suffix in (("float", "f"), ("double", "")):
            params = ", ".join(f"{ctype} {v}" for v in names)
            call = f"asn_libmvec_{c}{suffix}" if vector else f"asn_{c}"
            lines.append(f"__device__ __forceinline__ {ctype} asn_simd_{c}({params}) "
                         f"{{ return {call}({', '.join(names)}); }}")
    return "\n".join(lines) + "\n"


def probe_source(header: str, prelude: str) -> str:
    """A translation unit whose ``asn_vecmath_probe(n, x, y)`` runs a vectorisable loop
    of every function over ``x`` (and ``y``) and returns how many results differ from
    the scalar call's by more than a relative 1e-5 (NaN matching NaN)."""
    loops = []
    for c, arity in sorted(set(FUNCTIONS.values())):
        for ctype in ("float", "double"):
            v = f"{ctype[0]}v"
            args = ", ".join(f"({ctype}){name}[i]" for name in "xy"[:arity])
            loops.append(
                f"  for (long long i = 0; i < n; ++i) {v}[i] = asn_simd_{c}({args});\n"
                f"  for (long long i = 0; i < n; ++i) {{ {ctype} w = asn_{c}({args});\n"
                f"    if (!(w == {v}[i] || (w != w && {v}[i] != {v}[i])\n"
                f"          || ASN_STD fabs(w - {v}[i]) <= 1e-5 * ASN_STD fabs(w))) ++bad; }}")
    body = "\n".join(loops)
    return (header + prelude + declarations(True)
            + 'extern "C" int asn_vecmath_probe(long long n, const float* __restrict x, '
              "const float* __restrict y) {\n"
              "  if (n > 64) return -1;\n"
              "  float fv[64]; double dv[64]; int bad = 0;\n"
            + body + "\n  return bad;\n}\n")
