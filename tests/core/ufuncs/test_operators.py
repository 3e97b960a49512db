"""ndarray operators, differentially against NumPy through :mod:`asnumpy.testing`.

The operators are generated from the catalog's tables
(``BINARY_OPERATORS``, ``COMPARISONS``, ``UNARY_OPERATORS``), so the tests
iterate the same tables: every operator, its reflected form (Python
scalars, NumPy scalars, lists and NumPy arrays on the left: NumPy's
``ndarray`` defers to asnumpy because asnumpy arrays set
``__array_ufunc__ = None``) and its in-place form, on mixed dtypes, with
NumPy's promotion, overflow, warnings and errors.
"""

import functools
import operator

import numpy
import pytest
from _standard_values import following_the_standard
from _ufunc_data import ALL_DTYPES, error_name, operand, record_warnings

import asnumpy
from asnumpy import testing
from asnumpy.ops.ufuncs import BINARY_OPERATORS, COMPARISONS, UNARY_OPERATORS

BINARY = {op: getattr(operator, op if op != "and" and op != "or" else op + "_")
          for op in BINARY_OPERATORS if op != "divmod"}
BINARY["divmod"] = divmod
INPLACE = {op: getattr(operator, f"i{op}") for op in BINARY_OPERATORS if op != "divmod"}
COMPARE = {op: getattr(operator, op) for op in COMPARISONS}
UNARY = {op: getattr(operator, op) if op != "abs" else abs for op in UNARY_OPERATORS}


def attempt(function, *args):
    """``(result, warnings)`` of ``function(*args)``, or the public name of its error."""
    try:
        return record_warnings(function, *args)
    except (TypeError, ValueError, OverflowError) as error:
        return error_name(error)


# NumPy's SIMD complex loops may contract ``a*c - b*d`` into a fused multiply-add, and a
# GPU compiler contracts by default; asnumpy's cuda kernels compute the textbook formulas
# (``abs`` through ``hypot``).  Both are accurate to about an ulp of |result|, so off the
# cpu a complex ``*`` or ``abs`` may differ from NumPy's in the last bits (a real or
# imaginary part near cancellation by several of its own ulps, hence the normwise bound):
# there the comparison allows 4 eps relative to |result|.  On the cpu it is bit for bit.
COMPLEX_PRODUCT = {numpy.complex64: 4 * numpy.finfo(numpy.float32).eps,
                   numpy.complex128: 4 * numpy.finfo(numpy.float64).eps, "default": 0}
# ``**`` off the cpu: device math libraries (and the emulator's libm) may round a real
# power differently from NumPy's loops by an ulp; a complex power beyond the exponents
# done by repeated multiplication is exp(b * log(a)), whose rounding is amplified by |b|
# (up to 255 here), and the complex exp/log differ from NumPy's.
POWER = {numpy.float16: 4 * numpy.finfo(numpy.float16).eps,
         numpy.float32: 4 * numpy.finfo(numpy.float32).eps,
         numpy.float64: 4 * numpy.finfo(numpy.float64).eps,
         numpy.complex64: 1024 * numpy.finfo(numpy.float32).eps,
         numpy.complex128: 1024 * numpy.finfo(numpy.float64).eps, "default": 0}
COMPLEX_MAGNITUDE = {numpy.float32: 4 * numpy.finfo(numpy.float32).eps,   # abs(complex64)
                     numpy.float64: 4 * numpy.finfo(numpy.float64).eps, "default": 0}


def exact_but_for_complex_rounding(rounding):
    """Compare bit for bit, but off the cpu the ops of ``rounding`` (op: rtol table) closely."""
    exact = testing.numpy_asnumpy_array_equal(device_check=True)
    close = {op: testing.numpy_asnumpy_allclose(rtol=rtol, device_check=True)
             for op, rtol in rounding.items()}

    def decorate(test):
        exact_test = exact(test)
        close_tests = {op: decorator(test) for op, decorator in close.items()}

        @functools.wraps(exact_test)
        def compared(*args, op, **kwargs):
            on_cpu = asnumpy.get_device().kind == "cpu"
            chosen = exact_test if on_cpu else close_tests.get(op, exact_test)
            return chosen(*args, op=op, **kwargs)

        return compared

    return decorate


def small(shape, dtype):
    """Small values (shifts, powers and divisions stay meaningful), zero included."""
    return operand(shape, dtype, "small")


def test_the_tables_cover_numpys_operators():
    for op in BINARY_OPERATORS:
        assert hasattr(asnumpy.ndarray, f"__{op}__") and hasattr(asnumpy.ndarray, f"__r{op}__")
        assert getattr(numpy.ndarray, f"__{op}__")
    for op in (*COMPARISONS, *UNARY_OPERATORS):
        assert hasattr(asnumpy.ndarray, f"__{op}__")
    numpys = {name for name in dir(numpy.ndarray)
              if name.startswith("__i") and name.endswith("__") and name not in (
                  "__init__", "__init_subclass__", "__index__", "__int__", "__invert__",
                  "__iter__")}
    ours = {name for name in dir(asnumpy.ndarray) if name in numpys}
    assert ours == numpys
    assert asnumpy.ndarray.__hash__ is None


# -- binary operators ---------------------------------------------------------------


@pytest.mark.parametrize("op", [op for op in BINARY if op != "matmul"])
@testing.with_seed()
@testing.for_dtypes_combination(ALL_DTYPES, names=("dtype1", "dtype2"))
@exact_but_for_complex_rounding({"mul": COMPLEX_PRODUCT, "pow": POWER})
def test_binary_operators(xp, op, dtype1, dtype2):
    function = BINARY[op]
    x = xp.asarray(small((3, 4), dtype1))
    y = xp.asarray(small((4,), dtype2))
    return attempt(function, x, y), attempt(function, y, x), attempt(function, x[::-1], x)


SCALARS = [0, 2, -3, 255, 2**70, 2.5, -0.0, 1 + 1j, True, numpy.int8(-2), numpy.float32(0.5),
           numpy.uint64(3), numpy.complex64(1j)]


@pytest.mark.parametrize("op", [op for op in BINARY if op != "matmul"])
@testing.with_seed()
@testing.for_all_dtypes()
@exact_but_for_complex_rounding({"mul": COMPLEX_PRODUCT, "pow": POWER})
def test_binary_operators_with_scalars_on_either_side(xp, op, dtype):
    """Python scalars are weak (NEP 50), NumPy scalars strong; the reflected method runs.
    NumPy's ``//`` has the Array API special values asnumpy follows (``inf // 2 == inf``)."""
    function = BINARY[op]
    if xp is numpy and op == "floordiv":
        function = following_the_standard("floor_divide")
    x = xp.asarray(small((5,), dtype))
    return [(attempt(function, x, s), attempt(function, s, x)) for s in SCALARS]


@pytest.mark.parametrize("op", list(BINARY))
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_host_arrays_and_lists_on_either_side(xp, op):
    """A NumPy array on the left defers to asnumpy's reflected operator (result on the device)."""
    function = BINARY[op]
    shape = (3, 3)
    x = xp.asarray(small(shape, numpy.int32))
    host = small(shape, numpy.int16)
    results = [attempt(function, host, x), attempt(function, x, host),
               attempt(function, host.tolist(), x), attempt(function, x, host.tolist())]
    return results


def test_numpy_arrays_on_the_left_give_device_arrays():
    host = numpy.arange(1.0, 7.0).reshape(2, 3)
    device = asnumpy.asarray(numpy.full((2, 3), 2.0))
    for op, function in BINARY.items():
        other = device.T if op == "matmul" else device
        if op in ("and", "or", "xor", "lshift", "rshift"):
            result = function(host.astype(int), other.astype(int))
        else:
            result = function(host, other)
        for part in result if isinstance(result, tuple) else (result,):
            assert isinstance(part, asnumpy.ndarray), op
    for op, function in COMPARE.items():
        assert isinstance(function(host, device), asnumpy.ndarray), op
        numpy.testing.assert_array_equal(function(host, device).get(), function(host, 2.0))


@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int8, numpy.uint32, numpy.int64, numpy.float32,
                     numpy.float64, numpy.complex64])
@testing.numpy_asnumpy_allclose(rtol=1e-5, device_check=True)
def test_matmul_operator(xp, dtype):
    a = xp.asarray(small((2, 3, 4), dtype))
    b = xp.asarray(small((4, 5), dtype))
    v = xp.asarray(small((4,), dtype))
    host = small((5, 4), dtype)
    return a @ b, a @ v, v @ v, b.T @ v[::-1], host @ b, b @ host


def test_matmul_operator_errors():
    for body in (lambda xp: xp.ones((2, 3)) @ xp.ones((2, 3)),
                 lambda xp: xp.ones((2, 3)) @ 3,
                 lambda xp: 3 @ xp.ones((2, 3))):
        testing.numpy_asnumpy_array_equal(accept_error=(ValueError, TypeError))(body)()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_divmod_and_pow(xp):
    x = xp.asarray(small((4, 3), numpy.int32))
    y = xp.asarray(small((3,), numpy.float64))
    return (divmod(x, 3), divmod(7, x + 10), divmod(x, y), divmod(y, x + 10), pow(x, 2),
            pow(3, xp.abs(x)), x ** 0.5, attempt(pow, x, 2, 5), attempt(pow, x, -1),
            attempt(operator.pow, 2, x))


# -- comparisons -------------------------------------------------------------------------


@pytest.mark.parametrize("op", list(COMPARE))
@testing.with_seed()
@testing.for_dtypes_combination(ALL_DTYPES, names=("dtype1", "dtype2"))
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_comparisons(xp, op, dtype1, dtype2):
    function = COMPARE[op]
    x = xp.asarray(small((3, 4), dtype1))
    y = xp.asarray(small((4,), dtype2))
    scalars = [attempt(function, x, s) for s in SCALARS] + [attempt(function, s, x)
                                                            for s in SCALARS]
    return attempt(function, x, y), attempt(function, y, x), scalars


@pytest.mark.parametrize("op", ["eq", "ne"])
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_equality_with_objects_no_array_holds(xp, op):
    """``a == None`` compares elementwise (all False), as NumPy's object loop does."""
    function = COMPARE[op]
    x = xp.asarray(numpy.array([[1, 2], [3, 4]]))
    return function(x, None), function(None, x), function(x, "ab"), function(x[0], None)


@pytest.mark.parametrize("op", ["lt", "le", "gt", "ge"])
def test_ordering_with_objects_no_array_holds_raises(op):
    for other in (None, "ab", object()):
        with pytest.raises(TypeError):
            COMPARE[op](asnumpy.ones(3), other)
        with pytest.raises(TypeError):
            COMPARE[op](numpy.ones(3), other)


def test_comparison_shape_errors():
    for function in COMPARE.values():
        testing.numpy_asnumpy_array_equal(accept_error=ValueError)(
            lambda xp, f=function: f(xp.ones((2, 3)), xp.ones(2)))()


def test_arrays_are_unhashable():
    with pytest.raises(TypeError, match="unhashable"):
        hash(asnumpy.ones(2))


# -- unary operators ---------------------------------------------------------------------


@pytest.mark.parametrize("op", list(UNARY))
@testing.with_seed()
@testing.for_all_dtypes()
@exact_but_for_complex_rounding({"abs": COMPLEX_MAGNITUDE})
def test_unary_operators(xp, op, dtype):
    x = xp.asarray(operand((3, 5), dtype))
    return attempt(UNARY[op], x), attempt(UNARY[op], x[::-1, ::2]), attempt(UNARY[op], x[1, 2, ...])


@testing.with_seed()
@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_conj_methods(xp, dtype):
    """``conj`` of a real array is the array itself, as in NumPy."""
    x = xp.asarray(operand((4,), dtype))
    return x.conj(), x.conjugate(), x.conj() is x, x[::-2].conjugate()


# -- in-place operators -------------------------------------------------------------------


def inplace(function, target, other):
    """``target op= other``: the result, whether it is ``target`` itself, and the warnings."""
    before = target
    try:
        result, caught = record_warnings(function, target, other)
    except (TypeError, ValueError, OverflowError) as error:
        return error_name(error)
    return result is before, result, caught


@pytest.mark.parametrize("op", [op for op in INPLACE if op != "matmul"])
@testing.with_seed()
@testing.for_dtypes_combination(ALL_DTYPES, names=("dtype1", "dtype2"))
@exact_but_for_complex_rounding({"mul": COMPLEX_PRODUCT, "pow": POWER})
def test_inplace_operators(xp, op, dtype1, dtype2):
    """The result keeps the target's dtype (same_kind casting: int += float raises).

    Each operation gets a fresh target: after an error NumPy leaves the target
    partly written, in an order that is not specified.
    """
    function = INPLACE[op]
    x = small((3, 4), dtype1)
    y = small((4,), dtype2)
    if op == "pow" and y.dtype.kind == "i":
        y = abs(y)                         # negative integer powers raise (tested elsewhere)
    return [inplace(function, xp.array(x), xp.asarray(y)),
            inplace(function, xp.array(x)[::2], 2), inplace(function, xp.array(x), 1.5),
            inplace(function, xp.array(x), -1), inplace(function, xp.array(x), 0.5)]


@pytest.mark.parametrize("op", [op for op in INPLACE if op != "matmul"])
@testing.with_seed()
@exact_but_for_complex_rounding({"mul": COMPLEX_PRODUCT, "pow": POWER})
def test_inplace_with_overlap_and_host_operands(xp, op):
    function = INPLACE[op]
    x = xp.asarray(small((4, 4), numpy.int64) + 5)
    results = [inplace(function, x, x[::-1]), inplace(function, x, x.T),
               inplace(function, x[1:], x[:-1]), inplace(function, x, small((4,), numpy.int8)),
               inplace(function, x, [1, 2, 3, 4]), inplace(function, x[0], x)]
    return results, x


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_inplace_specifics(xp):
    ints = xp.asarray(small((3,), numpy.int32))
    floats = xp.asarray(small((3,), numpy.float32))
    return (inplace(operator.iadd, ints, 1.5), inplace(operator.itruediv, ints, 2),
            inplace(operator.iadd, floats, 1e300), inplace(operator.imul, ints, 2**40),
            inplace(operator.isub, xp.asarray(numpy.array([True])), True),
            inplace(operator.ipow, ints, -1), inplace(operator.iadd, floats, 1j),
            inplace(operator.iadd, xp.asarray(numpy.array([250], numpy.uint8)), 10),
            inplace(operator.iadd, xp.asarray(numpy.array([250], numpy.uint8)), 300),
            ints, floats)


@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=1e-12, device_check=True)
def test_inplace_matmul(xp):
    a = xp.asarray(small((3, 3), numpy.float64))
    b = xp.asarray(small((3, 3), numpy.float64))
    batch = xp.asarray(small((2, 3, 3), numpy.float64))
    results = [inplace(operator.imatmul, a, b), inplace(operator.imatmul, a, a),
               inplace(operator.imatmul, batch, b), inplace(operator.imatmul, b, small((3, 3),
                                                                                 numpy.float64)),
               inplace(operator.imatmul, xp.asarray(small((2, 3), numpy.float64)), b),
               inplace(operator.imatmul, xp.asarray(small((3, 2), numpy.float64)),
                       xp.asarray(small((2, 2), numpy.float64))),
               inplace(operator.imatmul, xp.asarray(small((3,), numpy.float64)), b),
               inplace(operator.imatmul, xp.asarray(small((3, 3), numpy.float64)),
                       xp.asarray(small((3,), numpy.float64))),
               inplace(operator.imatmul, xp.asarray(small((3, 3), numpy.int64)), b)]
    return results, a, batch


def test_inplace_shape_errors():
    bodies = [
        lambda xp: operator.iadd(xp.ones(3), xp.ones((2, 3))),        # target cannot grow
        lambda xp: operator.imatmul(xp.ones((2, 3)), xp.ones((3, 3))),  # @= changing the shape
        lambda xp: operator.iadd(xp.ones(3), xp.ones(4)),
    ]
    for body in bodies:
        testing.numpy_asnumpy_array_equal(accept_error=ValueError)(body)()


def test_inplace_into_read_only_array():
    a = asnumpy.ones(3)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        a += 1


# -- deferring to other types --------------------------------------------------------


class Deferring:
    """A type that opts out of NumPy-style operators; its own reflected methods answer."""

    __array_ufunc__ = None

    def __radd__(self, other):
        return "Deferring.__radd__"

    def __add__(self, other):
        return "Deferring.__add__"

    def __eq__(self, other):
        return "Deferring.__eq__"

    __hash__ = object.__hash__


def test_types_that_opt_out_get_their_reflected_method():
    a = asnumpy.ones(3)
    assert a + Deferring() == "Deferring.__radd__"
    assert Deferring() + a == "Deferring.__add__"
    assert (a == Deferring()) == "Deferring.__eq__"
    with pytest.raises(TypeError):
        a - Deferring()
    assert numpy.ones(3) + Deferring() == "Deferring.__radd__"


def test_operators_on_two_devices_are_refused():
    a = asnumpy.ones(3)
    b = asnumpy.asarray(numpy.ones(3), device="cpu:1")
    for function in (*BINARY.values(), *COMPARE.values()):
        with pytest.raises(ValueError, match="different devices"):
            function(a, b)
    with pytest.raises(ValueError, match="different devices"):
        a += b
