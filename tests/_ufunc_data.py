"""Inputs for the ufunc tests: random data that exercises each function's domain.

Values are drawn from ``numpy.random`` (seeded per test by
``testing.with_seed``), so the NumPy and the asnumpy run of a differential
test body draw the same data.  Floating-point data mixes normal values with
the special ones (NaN, +-inf, +-0, +-1, huge and tiny magnitudes): ``sqrt``
and ``log`` meet negatives, ``exp`` overflows, ``arcsin`` leaves its domain,
so both sides produce NaN/inf and the same RuntimeWarnings.  Integer data
mixes small values (zero divisors for ``floor_divide``/``remainder``) with
the type's extremes (overflow in ``negative``, ``absolute``, ``multiply``,
``min // -1``).
"""

import re
import warnings

import numpy
import pytest

from asnumpy import get_device
from asnumpy._core.ufuncs import UFUNCS
from asnumpy.ops.ufuncs import OPS

__all__ = [
    "ALL_DTYPES",
    "APPROXIMATE",
    "BINARY",
    "ELEMENTWISE",
    "FLAGS_ON_CPU_ONLY",
    "GUFUNCS",
    "UNIQUE",
    "error_name",
    "operand",
    "operands",
    "record_warnings",
    "tolerance",
]

ALL_DTYPES = (numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
              numpy.uint16, numpy.uint32, numpy.uint64, numpy.float16, numpy.float32,
              numpy.float64, numpy.complex64, numpy.complex128)

# one entry per ufunc object (aliases share their target's object)
UNIQUE = {}
for _ufunc in UFUNCS.values():
    UNIQUE.setdefault(_ufunc.__name__, _ufunc)
UNIQUE = dict(sorted(UNIQUE.items()))
ELEMENTWISE = sorted(name for name, u in UNIQUE.items() if u.signature is None)
BINARY = sorted(name for name in ELEMENTWISE if UNIQUE[name].nin == 2)
GUFUNCS = sorted(name for name, u in UNIQUE.items() if u.signature is not None)

# the op table's tolerance classes: transcendental functions computed by SIMD or
# libm code whose last bit may depend on alignment are compared to a few ulps,
# everything else bit for bit
APPROXIMATE = frozenset(name for name, op in OPS.items() if op.approximate)
_SPECIAL_FLOATS = (numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5,
                   1e300, -1e300, 1e-300, 65504.0, 1e38, 3.0e-45)


def tolerance(name):
    """``rtol`` for comparing ``name``'s results: a dict per dtype (0 where exact)."""
    if name not in APPROXIMATE:
        return {"default": 0}
    return {numpy.float16: 2e-3, numpy.float32: 4e-6, numpy.complex64: 4e-6,
            "default": 4e-15}


def _floats(shape, dtype):
    values = numpy.random.standard_normal(shape) * 10.0 ** numpy.random.randint(-2, 3, shape)
    flat = values.reshape(-1)
    if flat.size >= 4:
        count = max(1, flat.size // 4)
        where = numpy.random.choice(flat.size, count, replace=False)
        flat[where] = numpy.random.choice(_SPECIAL_FLOATS, count)
    with numpy.errstate(over="ignore"):
        return values.astype(dtype)


def _integers(shape, dtype):
    info = numpy.iinfo(dtype)
    small = numpy.random.randint(max(info.min, -12), 13, size=shape)
    extreme = numpy.random.randint(info.min, info.max, size=shape, dtype=dtype)
    pick = numpy.random.random_sample(shape) < 0.25
    values = numpy.where(pick, extreme, small.astype(dtype))
    flat = values.reshape(-1)
    if flat.size >= 6:   # the extremes and zero always appear
        flat[:3] = (info.min, info.max, 0)
    return values.astype(dtype)


def operand(shape, dtype, kind="any"):
    """Random host data of ``dtype`` and ``shape``.

    ``kind`` narrows the values: ``'any'`` (the domain tour above),
    ``'exponent'`` (small non-negative integers, for integer ``power``),
    ``'shift'`` (shift counts, some past the width), ``'small'`` (small
    magnitudes, no specials).
    """
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return numpy.asarray(numpy.random.random_sample(shape) < 0.5)
    if kind == "exponent" and dtype.kind in "iu":
        return numpy.asarray(numpy.random.randint(0, 6, size=shape).astype(dtype))
    if kind == "shift" and dtype.kind in "iu":
        return numpy.asarray(numpy.random.randint(0, dtype.itemsize * 8 + 3,
                                                  size=shape).astype(dtype))
    if kind == "small":
        values = numpy.random.randint(-4 if dtype.kind != "u" else 0, 5, size=shape)
        if dtype.kind in "fc":
            values = values + numpy.random.random_sample(shape)
        if dtype.kind == "c":
            values = values + 1j * numpy.random.standard_normal(shape)
        return numpy.asarray(values).astype(dtype)
    if dtype.kind in "iu":
        return numpy.asarray(_integers(shape, dtype))
    if dtype.kind == "f":
        return numpy.asarray(_floats(shape, dtype))
    real, imag = _floats(shape, numpy.float64), _floats(shape, numpy.float64)
    with numpy.errstate(over="ignore", invalid="ignore"):
        return numpy.asarray((real + 1j * imag).astype(dtype))


def operands(name, dtypes, shapes):
    """Host inputs for ufunc ``name``: one per dtype/shape, within the domain it needs."""
    domains = OPS[name].domains        # operands that must stay in range (the op table's)
    return [operand(shape, dtype, domains.get(index, "any"))
            for index, (dtype, shape) in enumerate(zip(dtypes, shapes))]


# For tests of floating-point error reporting, which is the cpu back end's only.
FLAGS_ON_CPU_ONLY = pytest.mark.cpu_default(
    "the cuda back end reports no floating-point error flags (backends/cuda/scalar_ops.py)")

# NumPy's warnings from the floating-point error flags ("invalid value encountered in sqrt").
_FLAG_WARNING = re.compile(
    r"RuntimeWarning: (divide by zero|overflow|underflow|invalid value) encountered in ")


def record_warnings(function, *args, **kwargs):
    """``(function(*args, **kwargs), warnings)``: the warnings as sorted unique texts.

    While a cuda device is current (``ASNUMPY_DEVICE=cuda:0``), the warnings of
    floating-point error flags are left out, on NumPy's side too: the cuda back
    end does not report those flags (``backends/cuda/scalar_ops.py``).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    texts = {f"{w.category.__name__}: {w.message}" for w in caught}
    if get_device().kind in ("cuda", "npu"):
        texts = {text for text in texts if not _FLAG_WARNING.match(text)}
    return result, sorted(texts)


def error_name(error):
    """The name of the public class of ``error`` (NumPy's private subclasses reduced)."""
    from asnumpy.testing._differential import public_error_type

    return public_error_type(type(error)).__name__
