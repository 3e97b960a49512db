"""The Array API standard's special values where NumPy's loops give others.

asnumpy follows the standard (2024.12) where NumPy 2.4's loops give other
special values (docs/interop.md).  Each :class:`StandardValues` names the
loop input types it applies to, ``select(*inputs)`` -> bool mask of the
elements NumPy gets "wrong" (None: none), and ``value(*inputs)`` -> the
standard's results for those elements (inputs already masked and in the
loop's types).  They are NumPy expressions: the cpu back end runs them
around NumPy's loop, the cuda C forms (:mod:`.ufuncs`) compute the same
values inline, and the tests check both against them.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

__all__ = ["StandardValues", "FLOOR_DIVIDE", "EXPM1", "TANH"]


class StandardValues(NamedTuple):
    """Where and how a ufunc's results follow the standard instead of NumPy."""

    types: str                      # loop input type chars it applies to
    select: Callable                # (*inputs) -> bool mask, or None for none
    value: Callable                 # (*masked inputs) -> the standard's results


def _floor_divide_select(x, y):
    inf_x, inf_y = np.isinf(x), np.isinf(y)
    if not (inf_x.any() or inf_y.any()):
        return None
    # exactly one operand infinite (a NaN one gives NaN both ways)
    return inf_x != inf_y


def _complex_nonfinite_or_zero(z):
    return ~np.isfinite(z) | (z == 0)


def _exp_minus_one(z):
    # C99 cexp's special values, minus one: the standard's expm1 table
    return np.exp(z) - 1


def _infinite_real_finite_imaginary(z):
    return np.isinf(z.real) & np.isfinite(z.imag)


def _tanh_of_infinite_real(z):
    # +-1 + 0j with the zero's sign that of imag(z) (NumPy: that of sin(2 imag(z)))
    result = np.empty_like(z)
    result.real = np.copysign(1, z.real)
    result.imag = np.copysign(0, z.imag)
    return result


# inf // 2 == inf, -1 // inf == -0.0 (NumPy: nan, -1.0): the quotient x / y
FLOOR_DIVIDE = StandardValues("efdg", _floor_divide_select, np.divide)
# expm1(inf+0j) == inf+0j (NumPy: inf+nanj) and the other non-finite rows
EXPM1 = StandardValues("FDG", _complex_nonfinite_or_zero, _exp_minus_one)
# tanh(inf+3j) == 1+0j (NumPy: 1-0j)
TANH = StandardValues("FDG", _infinite_real_finite_imaginary, _tanh_of_infinite_real)
