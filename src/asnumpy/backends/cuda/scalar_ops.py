"""Scalar CUDA C for every elementwise ufunc loop of the op table (asnumpy.ops.ufuncs).

Each loop of a NumPy ufunc (``numpy.<name>.types``, restricted to the dtypes
asnumpy supports) becomes one ``__device__`` function that computes one
element.  Kernel renderers concatenate :data:`PRELUDE` and the functions they
need and wrap them in a grid-stride loop.

The functions come from :data:`TABLE`, the op table's C forms
(:mod:`asnumpy.ops.ufuncs`): per ufunc and *type class* of the first input a
C expression, or a statement block for several outputs.

The result is stored with ``asn_cast`` (float to half rounds to nearest
even).  The semantics are NumPy's (see the prelude's comments), except:

* where the Array API standard's special cases and NumPy 2.4 disagree, the
  standard's values, as on the cpu (``floor_divide`` with one infinite
  operand, complex ``expm1`` at zero and non-finite arguments, complex
  ``tanh`` at an infinite real part; see ``asnumpy.ops.special_values``);
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

from ...ops.ufuncs import OPS
from .prelude import PRELUDE

__all__ = ["CTYPES", "PRELUDE", "TABLE", "by_value", "device_function", "loops",
           "parameter_type", "parameter_value"]

# dtype char -> C type name; 'l' and 'q' are both int64 (LP64)
CTYPES = {
    "?": "bool", "b": "signed char", "B": "unsigned char", "h": "short",
    "H": "unsigned short", "i": "int", "I": "unsigned int", "l": "long long",
    "L": "unsigned long long", "q": "long long", "Q": "unsigned long long",
    "e": "asn_half", "f": "float", "d": "double", "F": "asn_complex64",
    "D": "asn_complex128",
}


# Scalars passed to a kernel by value: a float16 travels as its bits (an
# unsigned short), since a half by value has no portable calling convention
# (the host emulation's ctypes cannot pass one).
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


_CLASS = {"?": "b", "e": "h", "f": "f", "d": "f", "F": "c", "D": "c"}
_CLASS.update(dict.fromkeys("bhilq", "i"))
_CLASS.update(dict.fromkeys("BHILQ", "u"))
_TOKEN = {"?": "o"}  # characters not allowed in C names

# ufunc -> {type classes: C expression or statement block}: the op table's C forms
# (asnumpy.ops.ufuncs, whose docstring says what a form may use)
TABLE: dict[str, dict[str, str]] = {name: dict(op.c) for name, op in OPS.items() if op.c}

_SUPPORTED = frozenset(CTYPES)


def loops(name: str) -> list[tuple[numpy.dtype, ...]]:
    """Every supported loop of a ufunc.

    Parameters
    ----------
    name : str
        NumPy ufunc ``__name__`` (a key of :data:`TABLE`).

    Returns
    -------
    list of tuple of numpy.dtype
        Inputs then outputs, in the order of ``numpy.<name>.types`` with
        duplicates dropped ('l' and 'q' are kept apart, as NumPy lists both).

    Raises
    ------
    KeyError
        When ``name`` has no scalar form here.
    """
    if name not in TABLE:
        raise KeyError(f"no cuda scalar form for ufunc {name!r}")
    seen, out = set(), []
    for sig in getattr(numpy, name).types:
        chars = sig.replace("->", "")
        if chars in seen or not set(chars) <= _SUPPORTED:
            continue
        seen.add(chars)
        out.append(tuple(numpy.dtype(c) for c in chars))
    return out


def _template(name: str, cls: str) -> str:
    entry = TABLE[name]
    if cls == "h" and not any("h" in k for k in entry):
        cls = "f"
    for classes, text in entry.items():
        if cls in classes:
            return text
    raise TypeError(f"ufunc {name!r} has no loop for type class {cls!r}")


def _chars(loop) -> str:
    if isinstance(loop, str):
        return loop.replace("->", "")
    return "".join(numpy.dtype(t).char for t in loop)


def function_name(name: str, loop) -> str:
    """The C name of the device function of ``name`` for ``loop``."""
    chars = _chars(loop)
    nin = getattr(numpy, name).nin
    tok = "".join(_TOKEN.get(c, c) for c in chars)
    return f"asn_{name}_{tok[:nin]}_{tok[nin:]}"


def device_function(name: str, loop) -> tuple[str, str]:
    """C source of the ``__device__`` function computing one loop of a ufunc.

    Parameters
    ----------
    name : str
        NumPy ufunc ``__name__``.
    loop : sequence of numpy.dtype or str
        Input then output dtypes, as one entry of ``numpy.<name>.types``
        (a string such as ``'ff->f'`` is accepted too).

    Returns
    -------
    source : str
        Defines ``__device__ __forceinline__ void FN(In0 x0[, In1 x1],
        Out0 &y0[, Out1 &y1])``; it compiles after :data:`PRELUDE`, and
        sources of several functions can be concatenated.
    function_name : str
        ``FN``, unique per ``(name, loop)``.

    Raises
    ------
    TypeError
        When ``loop`` is not a supported loop of ``name``.
    """
    if name not in TABLE:
        raise TypeError(f"no cuda scalar form for ufunc {name!r}")
    chars = _chars(loop)
    if chars not in {_chars(lp) for lp in loops(name)}:
        raise TypeError(f"{name} has no supported loop {chars!r}")
    ufunc = getattr(numpy, name)
    ins, outs = chars[:ufunc.nin], chars[ufunc.nin:]
    text = _template(name, _CLASS[ins[0]])
    fn = function_name(name, chars)
    params = [f"{CTYPES[c]} x{k}" for k, c in enumerate(ins)]
    params += [f"{CTYPES[c]} &y{k}" for k, c in enumerate(outs)]
    lines = [f"__device__ __forceinline__ void {fn}({', '.join(params)}) {{"]
    tnames = ["T", "T1"]
    for k, c in enumerate(ins):
        lines.append(f"    typedef typename asn_compute<{CTYPES[c]}>::type {tnames[k]};")
    for k, c in enumerate(ins):
        lines.append(f"    const {tnames[k]} {'ab'[k]} = asn_cast<{tnames[k]}>(x{k}); (void){'ab'[k]};")
    if ";" in text:  # statement block assigning r0, r1
        for k, c in enumerate(outs):
            lines.append(f"    typename asn_compute<{CTYPES[c]}>::type r{k};")
        lines.append(f"    {text}")
        for k, c in enumerate(outs):
            lines.append(f"    y{k} = asn_cast<{CTYPES[c]}>(r{k});")
    else:
        lines.append(f"    y0 = asn_cast<{CTYPES[outs[0]]}>({text});")
    lines.append("}")
    return "\n".join(lines) + "\n", fn
