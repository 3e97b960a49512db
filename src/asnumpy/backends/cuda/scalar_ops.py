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

from ...ops.cxx.functions import op_table_forms
from ...ops.cxx.prelude import PRELUDE
from ...ops.cxx.types import CTYPES, by_value, parameter_type, parameter_value

__all__ = ["CTYPES", "FORMS", "PRELUDE", "TABLE", "by_value", "device_function", "loops",
           "parameter_type", "parameter_value"]

# the renderer of the op table's C forms (ops/cxx/functions.py), and that table: ufunc ->
# {type classes: C expression or statement block} (asnumpy.ops.ufuncs says what a form
# may use)
FORMS = op_table_forms()
TABLE: dict[str, dict[str, str]] = FORMS.table
loops = FORMS.loops
function_name = FORMS.function_name
device_function = FORMS.device_function
