"""dtypes: asnumpy's dtype objects and helpers are NumPy's, arrays included.

Every helper is checked against NumPy over all pairs of supported dtypes and
the NEP 50 cases (Python scalars are weak, 0-d arrays count by dtype), with
asnumpy arrays wherever NumPy takes its own arrays.
"""

import math
import re

import numpy
import pytest

import asnumpy
from asnumpy import testing
from asnumpy._dtypes import SUPPORTED_DTYPES

ALL_TYPES = [d.type for d in SUPPORTED_DTYPES]
CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")

SAME_OBJECTS = [
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp", "int_", "uint",
    "double", "single", "half", "byte", "ubyte", "short", "ushort", "intc", "uintc", "longlong",
    "ulonglong", "csingle", "cdouble", "dtype", "iinfo", "isdtype", "issubdtype",
    "promote_types", "number", "integer", "signedinteger", "unsignedinteger", "floating",
    "complexfloating", "inexact", "generic",
]


@pytest.mark.parametrize("name", SAME_OBJECTS)
def test_dtype_names_are_numpys_own_objects(name):
    assert getattr(asnumpy, name) is getattr(numpy, name)


def test_finfo_is_numpys_in_python_numbers():
    """asnumpy.finfo is its own class (the Array API's Python floats), NumPy's limits."""
    assert asnumpy.finfo is not numpy.finfo      # tests/core/ufuncs/test_array_api_special_cases.py: more


def test_numpy_1_aliases_and_supported_list():
    assert asnumpy.float_ is numpy.float64
    assert asnumpy.complex_ is numpy.complex128
    assert [d.name for d in SUPPORTED_DTYPES] == [
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128"]


# -- promotion -----------------------------------------------------------------


@testing.for_all_dtypes_combination(names=("a", "b"), full=True)
@testing.numpy_asnumpy_equal()
def test_result_type_all_pairs(xp, a, b):
    one_d = xp.asarray(numpy.ones(2, a))
    zero_d = xp.asarray(numpy.ones((), b))
    return (xp.result_type(a, b), xp.result_type(numpy.dtype(a), numpy.dtype(b).str),
            xp.result_type(one_d, zero_d), xp.result_type(one_d, b), xp.result_type(a, zero_d),
            xp.result_type(one_d, zero_d, numpy.float16))


WEAK_SCALAR_CASES = [
    (numpy.int8, 1), (numpy.int8, 300), (numpy.int8, 1.0), (numpy.int8, 1j), (numpy.uint8, -1),
    (numpy.uint64, 1), (numpy.uint64, -1), (numpy.int64, 2**63), (numpy.float16, 1e300),
    (numpy.float32, 1.0), (numpy.float32, 1), (numpy.float32, 1j), (numpy.complex64, 1.0),
    (numpy.bool_, True), (numpy.bool_, 1), (numpy.bool_, 1.0), (numpy.bool_, 1j),
]


@pytest.mark.parametrize("typed, scalar", WEAK_SCALAR_CASES)
@testing.numpy_asnumpy_equal(accept_error=True)
def test_result_type_python_scalars_are_weak(xp, typed, scalar):
    zero_d = xp.asarray(numpy.zeros((), typed))
    one_d = xp.asarray(numpy.zeros(3, typed))
    return (xp.result_type(typed, scalar), xp.result_type(scalar, zero_d),
            xp.result_type(one_d, scalar), xp.result_type(scalar, scalar))


def test_nep50_promotion_values():
    zero_d_int8 = asnumpy.asarray(numpy.array(100, numpy.int8))
    assert asnumpy.result_type(numpy.uint64, numpy.int64) == numpy.float64
    assert asnumpy.result_type(asnumpy.asarray(numpy.ones(2, numpy.uint64)),
                               asnumpy.asarray(numpy.ones(2, numpy.int64))) == numpy.float64
    assert asnumpy.result_type(numpy.int8, 1) == numpy.int8
    assert asnumpy.result_type(zero_d_int8, 1.0) == numpy.float64
    assert asnumpy.result_type(numpy.float32, 3.0) == numpy.float32
    assert asnumpy.result_type(numpy.float16, 1j) == numpy.complex64
    assert asnumpy.result_type(zero_d_int8, numpy.int16) == numpy.int16  # no value-based casting
    assert asnumpy.result_type(True, 1) == numpy.int64
    assert isinstance(asnumpy.result_type(zero_d_int8), numpy.dtype)


@testing.numpy_asnumpy_equal(accept_error=True)
def test_result_type_needs_an_argument(xp):
    return xp.result_type()


@testing.for_all_dtypes_combination(names=("a", "b"), full=True)
@testing.numpy_asnumpy_equal()
def test_promote_types_all_pairs(xp, a, b):
    return xp.promote_types(a, b), xp.promote_types(numpy.dtype(a).str, numpy.dtype(b))


@testing.for_all_dtypes_combination(names=("a", "b"), full=True)
@testing.numpy_asnumpy_equal()
def test_can_cast_all_pairs(xp, a, b):
    sources = (a, numpy.dtype(a), xp.asarray(numpy.ones((), a)), xp.asarray(numpy.ones(2, a)))
    return [xp.can_cast(source, b, casting=casting) for source in sources for casting in CASTINGS]


def test_can_cast_reads_0d_asnumpy_arrays_by_dtype_not_value():
    big = asnumpy.asarray(numpy.array(300, numpy.int64))
    small = asnumpy.asarray(numpy.array(1, numpy.int64))
    assert asnumpy.can_cast(big, numpy.int8) is False
    assert asnumpy.can_cast(small, numpy.int8) is False
    assert asnumpy.can_cast(small, numpy.int8, casting="unsafe") is True


@pytest.mark.parametrize("scalar", [1, 1.0, 1j])
@testing.numpy_asnumpy_equal(accept_error=TypeError)
def test_can_cast_rejects_python_scalars(xp, scalar):
    return xp.can_cast(scalar, numpy.int8)


# -- min_scalar_type and common_type ---------------------------------------------


SCALARS = [0, 1, -1, 255, 256, -129, 70000, 2**31, -(2**31) - 1, 2**63, 2**64 - 1, True, False,
           0.5, -1.5, 1e10, 1e300, -1e300, math.inf, math.nan, 1 + 0j, 1e300 + 1j, 1j,
           numpy.int64(300), numpy.uint64(2**64 - 1), numpy.float64(0.5), numpy.float32(1e30)]


@pytest.mark.parametrize("value", SCALARS, ids=repr)
@testing.numpy_asnumpy_equal()
def test_min_scalar_type_reads_scalars_and_0d_arrays_by_value(xp, value):
    zero_d = xp.asarray(numpy.asarray(value))
    return xp.min_scalar_type(value), xp.min_scalar_type(zero_d)


def test_min_scalar_type_of_0d_asnumpy_array_values():
    assert asnumpy.min_scalar_type(asnumpy.asarray(numpy.array(300, numpy.int64))) == numpy.uint16
    assert asnumpy.min_scalar_type(asnumpy.asarray(numpy.array(-1.5))) == numpy.float16
    one_d = asnumpy.asarray(numpy.array([300], numpy.int64))
    assert asnumpy.min_scalar_type(one_d) == numpy.int64


@testing.for_all_dtypes()
@testing.numpy_asnumpy_equal()
def test_min_scalar_type_of_arrays_is_their_dtype(xp, dtype):
    return (xp.min_scalar_type(xp.asarray(numpy.ones(3, dtype))),
            xp.min_scalar_type(xp.asarray(numpy.ones((2, 0), dtype))),
            xp.min_scalar_type(xp.asarray(numpy.ones((), dtype))))


@testing.for_all_dtypes_combination(names=("a", "b"), full=True)
@testing.numpy_asnumpy_equal(accept_error=TypeError)
def test_common_type_all_pairs(xp, a, b):
    x = xp.asarray(numpy.ones(2, a))
    y = xp.asarray(numpy.ones((), b))
    return xp.common_type(x), xp.common_type(x, y), xp.common_type(y, numpy.ones(1, numpy.float32))


@testing.numpy_asnumpy_equal(accept_error=AttributeError)
def test_common_type_of_python_scalars_fails_as_numpys(xp):
    return xp.common_type(1.0)


def test_common_type_values():
    assert asnumpy.common_type() is numpy.float16
    assert asnumpy.common_type(asnumpy.asarray(numpy.ones(2, numpy.int8))) is numpy.float64
    assert asnumpy.common_type(asnumpy.asarray(numpy.ones(2, numpy.float16)),
                               asnumpy.asarray(numpy.ones(2, numpy.complex64))) is numpy.complex64


# -- finfo, iinfo, isdtype, issubdtype --------------------------------------------


@testing.for_dtypes([numpy.float16, numpy.float32, numpy.float64, numpy.complex64,
                     numpy.complex128])
@testing.numpy_asnumpy_equal()
def test_finfo(xp, dtype):
    array = xp.asarray(numpy.ones(2, dtype))
    infos = [xp.finfo(dtype), xp.finfo(numpy.dtype(dtype)), xp.finfo(array.dtype)]
    return [(i.dtype, i.bits, i.eps, i.max, i.min, i.tiny, i.smallest_normal, i.resolution,
             i.precision) for i in infos]


@testing.for_int_dtypes(no_bool=True)
@testing.numpy_asnumpy_equal()
def test_iinfo(xp, dtype):
    array = xp.asarray(numpy.ones(2, dtype))
    infos = [xp.iinfo(dtype), xp.iinfo(numpy.dtype(dtype)), xp.iinfo(array.dtype)]
    return [(i.dtype, i.bits, i.min, i.max) for i in infos]


@testing.for_dtypes([numpy.bool_, numpy.float32, numpy.complex64])
@testing.numpy_asnumpy_equal(accept_error=ValueError)
def test_iinfo_rejects_non_integers(xp, dtype):
    return xp.iinfo(dtype)


@testing.for_int_dtypes()
@testing.numpy_asnumpy_equal(accept_error=ValueError)
def test_finfo_rejects_non_inexact(xp, dtype):
    return xp.finfo(dtype)


ISDTYPE_KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric", ("integral", "real floating"), numpy.float32,
                 (numpy.int8, "bool")]


@testing.for_all_dtypes()
@testing.numpy_asnumpy_equal()
def test_isdtype(xp, dtype):
    return [xp.isdtype(numpy.dtype(dtype), kind) for kind in ISDTYPE_KINDS]


@pytest.mark.parametrize("make_args", [
    lambda xp: (xp.asarray(numpy.ones(2)), "bool"),      # arrays are not dtypes
    lambda xp: (numpy.dtype("f4"), "no such kind"),
    lambda xp: (numpy.dtype("f4"), 3),
])
@testing.numpy_asnumpy_equal(accept_error=True)
def test_isdtype_errors(xp, make_args):
    return xp.isdtype(*make_args(xp))


@testing.for_all_dtypes()
@testing.numpy_asnumpy_equal()
def test_issubdtype(xp, dtype):
    parents = [xp.generic, xp.number, xp.integer, xp.signedinteger, xp.unsignedinteger,
               xp.inexact, xp.floating, xp.complexfloating, xp.bool_, xp.float64, xp.int64,
               "f4", "i8", float, int, complex, bool]
    args = (dtype, numpy.dtype(dtype), numpy.dtype(dtype).str)
    return [xp.issubdtype(arg, parent) for arg in args for parent in parents]


# -- non-numeric dtypes cannot make arrays -----------------------------------------


NON_NUMERIC = [
    ("asarray of str", lambda: asnumpy.asarray(numpy.array(["a"])), "<U1"),
    ("ndarray U3", lambda: asnumpy.ndarray((2,), dtype="U3"), "<U3"),
    ("ndarray S3", lambda: asnumpy.ndarray((2,), dtype="S3"), "S3"),
    ("ndarray V8", lambda: asnumpy.ndarray((2,), dtype="V8"), "V8"),
    ("asarray dtype=object", lambda: asnumpy.asarray([1], dtype=object), "dtype('O')"),
    ("asarray of objects", lambda: asnumpy.asarray(numpy.array([1, None])), "dtype('O')"),
    ("asarray of mixed list", lambda: asnumpy.asarray([1, "a"]), "a list holding the string 'a'"),
    ("datetime64", lambda: asnumpy.asarray(numpy.array(["2020-01-01"], "M8[D]")), "<M8[D]"),
    ("timedelta64", lambda: asnumpy.asarray(numpy.zeros(2, "m8[s]")), "<m8[s]"),
    ("structured", lambda: asnumpy.asarray(numpy.zeros(2, [("a", "f4")])), "[('a', '<f4')]"),
    ("asarray to str", lambda: asnumpy.asarray(numpy.arange(3), dtype="U3"), "<U3"),
    ("astype str", lambda: asnumpy.asarray(numpy.arange(3)).astype("U3"), "<U3"),
    ("array dtype=object", lambda: asnumpy.array([1.0], dtype=object), "dtype('O')"),
]


@pytest.mark.parametrize("make, text", [case[1:] for case in NON_NUMERIC],
                         ids=[case[0] for case in NON_NUMERIC])
def test_non_numeric_dtypes_raise_type_error_naming_the_dtype(make, text):
    with pytest.raises(TypeError, match=re.escape(text)):
        make()


@pytest.mark.skipif(numpy.dtype(numpy.longdouble) == numpy.dtype(numpy.float64),
                    reason="longdouble is float64 on this platform")
@pytest.mark.parametrize("make", [
    lambda: asnumpy.asarray(numpy.ones(2, numpy.longdouble)),
    lambda: asnumpy.ndarray((2,), dtype=numpy.clongdouble),
    lambda: asnumpy.asarray(numpy.ones(2), dtype=numpy.longdouble),
])
def test_extended_precision_is_not_supported(make):
    with pytest.raises(TypeError, match="is not supported"):
        make()


@testing.for_all_dtypes()
def test_every_supported_dtype_makes_arrays(dtype):
    host = testing.shaped_arange((2, 3), numpy, dtype)
    device = asnumpy.asarray(host)
    assert device.dtype == numpy.dtype(dtype)
    numpy.testing.assert_array_equal(device.get(), host)
    assert asnumpy.ndarray((2,), dtype=dtype).dtype == numpy.dtype(dtype)


@pytest.mark.parametrize("code", ["q", "l", "i", "p", "P", "Q", "L", "I", "h", "H", "b", "B",
                                  "e", "f", "d", "F", "D", "?"])
def test_numpy_type_codes_of_supported_dtypes_are_accepted(code):
    assert asnumpy.ndarray((1,), dtype=code).dtype == numpy.dtype(code)


@pytest.mark.parametrize("dtype", [">i4", ">f8", ">c16", "<u2"])
def test_non_native_byte_order_is_stored_natively(dtype):
    host = numpy.arange(4).astype(dtype)
    device = asnumpy.asarray(host)
    assert device.dtype.isnative and device.dtype == host.dtype.newbyteorder("=")
    numpy.testing.assert_array_equal(device.get(), host)
