"""cpu kernels for universal functions and reductions: NumPy's own loops."""

from __future__ import annotations

import numpy as np

from .kernels import view

__all__ = ["MATH_KERNELS"]


def _native(value):
    return view(value) if hasattr(value, "_realize") else value


def ufunc(out, name, loop, *operands) -> None:
    """Run NumPy ufunc ``name`` with the resolved ``loop`` dtypes into ``out``."""
    getattr(np, name)(*map(_native, operands), out=view(out), signature=loop, casting="unsafe")


def reduce(out, name, array, axes, dtype, keepdims) -> None:
    """Reduce ``array`` over ``axes`` with ufunc ``name`` into ``out``."""
    getattr(np, name).reduce(view(array), axis=axes, dtype=dtype, out=view(out), keepdims=keepdims)


MATH_KERNELS = {"ufunc": ufunc, "reduce": reduce}
