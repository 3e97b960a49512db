"""Universal functions, differentially against NumPy through :mod:`asnumpy.testing`.

Every ufunc of ``asnumpy._core.ufuncs.UFUNCS`` is run on every dtype with
random data that tours its domain (NaN/inf, negatives under ``sqrt``/``log``,
zero integer divisors, integer overflow); the values, dtypes, shapes and the
RuntimeWarnings must be NumPy's, and where NumPy has no loop both sides
raise the same error type.  Then the call protocol: broadcasting, ``out=``,
``where=``, ``dtype=``, ``signature=``, ``casting=``, ``order=``, layouts,
NEP 50 scalars, host operands, devices, floating-point error modes (also on
a user stream and on arrays large enough for the cpu back end's parallel
path), and the generalized ufuncs (matmul, vecdot, matvec, vecmat).
"""

import enum

import numpy
import pytest
from _inputs import same_error
from _ufunc_data import (
    ALL_DTYPES,
    BINARY,
    ELEMENTWISE,
    FLAGS_ON_CPU_ONLY,
    GUFUNCS,
    UNIQUE,
    error_name,
    operand,
    operands,
    record_warnings,
    tolerance,
)

from _standard_values import following_the_standard

import asnumpy
from asnumpy import testing
from asnumpy._core.ufuncs import UFUNCS
from asnumpy.ops.ufuncs import ALIASES

UFUNC_ERROR = numpy._core._exceptions.UFuncTypeError


def compare(name, **kwargs):
    """The comparison for ufunc ``name``: bit for bit, or a few ulps for transcendental ones."""
    rtol = tolerance(name)
    if rtol == {"default": 0}:
        return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)
    return testing.numpy_asnumpy_allclose(rtol=rtol, atol=1e-300, device_check=True, **kwargs)


# -- the catalog ---------------------------------------------------------------


def test_catalog_holds_every_numpy_ufunc():
    numpys = {name for name in numpy.__all__ if isinstance(getattr(numpy, name), numpy.ufunc)}
    assert set(UFUNCS) == numpys - {"isnat"}          # datetimes are not numbers
    for name, ufunc in UFUNCS.items():
        assert getattr(asnumpy, name) is ufunc
        assert isinstance(ufunc, asnumpy.ufunc)
        assert name in asnumpy.__all__


def test_aliases_are_the_same_objects_as_in_numpy():
    assert asnumpy.abs is asnumpy.absolute and asnumpy.pow is asnumpy.power
    assert asnumpy.true_divide is asnumpy.divide and asnumpy.conj is asnumpy.conjugate
    for alias, target in ALIASES.items():
        assert getattr(numpy, alias) is getattr(numpy, target)
        assert UFUNCS[alias] is UFUNCS[target]
    names = sorted(UFUNCS)
    for a in names:
        for b in names:
            assert (UFUNCS[a] is UFUNCS[b]) == (getattr(numpy, a) is getattr(numpy, b)), (a, b)


@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_attributes_are_numpys(name):
    ours, theirs = UFUNCS[name], getattr(numpy, name)
    for attribute in ("nin", "nout", "nargs", "ntypes", "types", "identity", "signature",
                      "__name__"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert theirs.__doc__ in ours.__doc__
    assert ours.__doc__.startswith(f"asnumpy.{theirs.__name__}")
    assert repr(ours) == f"<asnumpy.ufunc '{theirs.__name__}'>"


# -- every ufunc x every dtype ---------------------------------------------------


def _call_recording(xp, name, args, **kwargs):
    """``(result, warnings)`` of ``xp.<name>(*args)``, or "TypeError" (no loop for the dtypes).
    NumPy's side has the Array API special values asnumpy follows (floor_divide by inf ...)."""
    function = following_the_standard(name) if xp is numpy else getattr(xp, name)
    try:
        return record_warnings(function, *args, **kwargs)
    except TypeError:
        return "TypeError"


@pytest.mark.parametrize("name", ELEMENTWISE)
@testing.with_seed()
@testing.for_all_dtypes()
def test_every_ufunc_on_every_dtype(name, dtype):
    """Same-dtype operands, on a C-contiguous and on a reversed strided layout."""
    nin = UNIQUE[name].nin

    def body(xp):
        data = operands(name, [dtype] * nin, [(6, 9)] * nin)
        args = [xp.asarray(d) for d in data]
        views = [a[::-2, 1::2] for a in args]
        return [_call_recording(xp, name, args), _call_recording(xp, name, views)]

    compare(name)(body)()


@pytest.mark.parametrize("name", BINARY)
@testing.with_seed()
@testing.for_dtypes_combination(ALL_DTYPES, names=("dtype1", "dtype2"))
def test_binary_ufuncs_on_mixed_dtypes(name, dtype1, dtype2):
    """Promotion (uint64 with int64 -> float64, ...) and the no-loop errors are NumPy's."""

    def body(xp):
        data = operands(name, [dtype1, dtype2], [(3, 1, 4), (5, 1)])
        return _call_recording(xp, name, [xp.asarray(d) for d in data])

    compare(name)(body)()


SCALARS = [0, 3, -2, 300, 2**40, 2**63, 2**64 - 1, 2**64, -(2**63) - 1, -(2**70), 10**400, 2.5,
           -0.0, float("nan"), 1e300, 1 - 2j, True, numpy.float32(1.5), numpy.int8(-3),
           numpy.uint64(7), numpy.complex64(2j)]


@pytest.mark.parametrize("name", BINARY)
@testing.with_seed()
@testing.for_all_dtypes()
def test_binary_ufuncs_with_scalars(name, dtype):
    """Python scalars are weak (NEP 50), NumPy scalars strong; on either side."""

    def body(xp):
        x = xp.asarray(operand((7,), dtype, "small"))
        results = []
        for scalar in SCALARS:
            for args in ((x, scalar), (scalar, x)):
                try:
                    results.append(_call_recording(xp, name, args))
                except (TypeError, OverflowError, ValueError) as error:
                    results.append(error_name(error))
        return results

    compare(name)(body)()


@pytest.mark.parametrize("name", ELEMENTWISE)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int32, numpy.float32, numpy.complex64])
def test_every_ufunc_on_0d_and_empty_arrays(name, dtype):
    nin = UNIQUE[name].nin

    @compare(name)
    def body(xp):
        zero_d = [xp.asarray(d) for d in operands(name, [dtype] * nin, [()] * nin)]
        empty = [xp.asarray(d)
                 for d in operands(name, [dtype] * nin, [(0, 3)] + [(3,)] * (nin - 1))]
        return _call_recording(xp, name, zero_d), _call_recording(xp, name, empty)

    body()


CORE_SHAPES = {"matmul": [(2, 3, 4), (4, 5)], "vecdot": [(2, 3, 4), (3, 4)],
               "matvec": [(2, 3, 4), (4,)], "vecmat": [(4,), (2, 4, 3)]}


@pytest.mark.parametrize("name", GUFUNCS)
@testing.with_seed()
@testing.for_all_dtypes()
@testing.numpy_asnumpy_allclose(rtol={numpy.float16: 1e-2, numpy.float32: 1e-5,
                                      numpy.complex64: 1e-5, "default": 1e-12},
                                atol=1e-6, device_check=True)
def test_every_gufunc_on_every_dtype(xp, name, dtype):
    """Integer results wrap like NumPy's; float ones are close (BLAS sums in its own order)."""
    a, b = (xp.asarray(operand(s, dtype, "small")) for s in CORE_SHAPES[name])
    mixed = xp.asarray(operand(CORE_SHAPES[name][1], numpy.float32, "small"))
    return _call_recording(xp, name, (a, b)), _call_recording(xp, name, (a, mixed)), \
        _call_recording(xp, name, (a[::-1], b[..., ::-1] if b.ndim > 1 else b[::-1]))


@pytest.mark.parametrize("name", ["add", "multiply", "sqrt", "floor_divide", "exp", "sin",
                                  "maximum", "less", "divmod"])
@testing.with_seed()
def test_large_arrays_are_bit_identical(name):
    """2**20 elements: the cpu back end's parallel path gives NumPy's bits and warnings."""
    ufunc = UNIQUE[name]
    dtype = numpy.int64 if name == "floor_divide" else numpy.float64
    data = operands(name, [dtype] * ufunc.nin, [(2**20,)] * ufunc.nin)
    expected, expected_warnings = record_warnings(getattr(numpy, name), *data)
    result, caught = record_warnings(ufunc, *[asnumpy.asarray(d) for d in data])
    assert caught == expected_warnings
    for ours, theirs in zip(result if isinstance(result, tuple) else (result,),
                            expected if isinstance(expected, tuple) else (expected,)):
        assert ours.dtype == theirs.dtype
        ours = ours.get()
        assert numpy.array_equal(ours.view(numpy.uint8), theirs.view(numpy.uint8)), name


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@testing.with_seed()
def test_large_where_out_and_casting_are_bit_identical():
    x = numpy.random.standard_normal(2**20)
    mask = numpy.random.random_sample(2**20) < 0.5
    expected = numpy.full(2**20, 7.0, dtype=numpy.float32)
    numpy.sqrt(x, out=expected, where=mask, casting="same_kind")
    result = asnumpy.full(2**20, 7.0, dtype=numpy.float32)
    asnumpy.sqrt(asnumpy.asarray(x), out=result, where=asnumpy.asarray(mask),
                 casting="same_kind")
    assert numpy.array_equal(result.get().view(numpy.uint32), expected.view(numpy.uint32))
    pair = numpy.zeros(2**20), numpy.zeros(2**20)
    device_pair = asnumpy.zeros(2**20), asnumpy.zeros(2**20)
    numpy.divmod(x, 0.3, out=pair, where=mask)
    asnumpy.divmod(asnumpy.asarray(x), 0.3, out=device_pair, where=asnumpy.asarray(mask))
    for ours, theirs in zip(device_pair, pair):
        assert numpy.array_equal(ours.get().view(numpy.uint64), theirs.view(numpy.uint64))


@testing.with_seed()
def test_large_strided_and_broadcast_operands():
    x = numpy.random.standard_normal((1024, 2048))
    y = numpy.random.standard_normal((2048,))
    expected = numpy.multiply(x[:, ::-2].T, y[::2, None])
    result = asnumpy.multiply(asnumpy.asarray(x)[:, ::-2].T, asnumpy.asarray(y)[::2, None])
    assert numpy.array_equal(result.get(), expected)
    assert result.strides == expected.strides


# -- broadcasting -----------------------------------------------------------------

SHAPE_PAIRS = [((3, 4), (4,)), ((3, 1), (1, 5)), ((2, 1, 4), (3, 1)), ((), (2, 3)),
               ((0, 3), (1, 3)), ((0,), ()), ((1,), (0,))]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True, strides_check=True)
def test_broadcasting(xp, shapes):
    x, y = (xp.asarray(operand(s, numpy.int16, "small")) for s in shapes)
    return xp.add(x, y), xp.multiply(y, x), xp.divmod(x, y + 10)


@pytest.mark.parametrize("shapes", [((3, 4), (3,)), ((2, 3), (3, 2)), ((0,), (2,)),
                                    ((2, 1, 3), (4, 3, 1, 2))], ids=str)
def test_shapes_that_do_not_broadcast(shapes):
    def body(xp):
        return xp.add(*(xp.ones(s) for s in shapes))

    error = same_error(body)
    assert "asnumpy.add" in str(error) and "broadcast" in str(error)


def test_out_that_does_not_fit():
    for out_shape in [(3,), (2, 3), (1, 4), (4,), (2, 4, 1)]:
        def body(xp, out_shape=out_shape):
            return xp.add(xp.ones((2, 4)), 1, out=xp.zeros(out_shape))

        assert "asnumpy.add" in str(same_error(body))


# -- out= ------------------------------------------------------------------------


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_out_forms(xp):
    x, y = (xp.asarray(operand((3, 4), numpy.float64, "small")) for _ in range(2))
    results = []
    out = xp.zeros((3, 4))
    results.append(xp.add(x, y, out=out) is out)
    out1 = xp.zeros((3, 4))
    results.append(xp.subtract(x, y, out=(out1,)) is out1)
    out2 = xp.zeros((3, 4))
    results.append(xp.multiply(x, y, out2) is out2)          # positional out
    q, r = xp.zeros((3, 4)), xp.zeros((3, 4))
    pair = xp.divmod(x, y, out=(q, r))
    results.append(pair[0] is q and pair[1] is r)
    half = xp.zeros((3, 4))
    pair = xp.divmod(x, y, out=(half, None))
    results.append(pair[0] is half)
    m, e = xp.zeros((3, 4)), xp.zeros((3, 4), dtype=numpy.int32)
    pair = xp.frexp(x, m, e)                                  # positional outs
    results.append(pair[0] is m and pair[1] is e)
    f, i = xp.zeros((3, 4), dtype=numpy.float32), xp.zeros((3, 4))
    xp.modf(x, out=(f, i))
    return results, out, out1, out2, q, r, half, pair, f, i


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_out_broader_than_the_inputs(xp):
    x = xp.asarray(operand((4,), numpy.float32, "small"))
    out = xp.zeros((3, 2, 4))
    xp.negative(x, out=out)
    strided = xp.zeros((6, 8))[::2, ::-2]
    xp.add(x, 1, out=strided)
    return out, strided


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_out_of_another_dtype_casts(xp):
    x = xp.asarray(operand((5,), numpy.int16, "small"))
    results = []
    for dtype in (numpy.int64, numpy.float32, numpy.complex128, numpy.int16):
        out = xp.zeros(5, dtype=dtype)
        xp.multiply(x, 3, out=out)
        results.append(out)
    return results


@pytest.mark.parametrize("case", ["shifted", "reversed", "same", "transposed", "inplace"])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_out_overlapping_an_input(xp, case):
    a = xp.asarray(operand((6, 6), numpy.float64, "small"))
    if case == "shifted":
        xp.add(a[:-1], a[1:], out=a[1:])
    elif case == "reversed":
        xp.subtract(a[::-1], a, out=a)
    elif case == "same":
        xp.multiply(a, a, out=a)
    elif case == "transposed":
        xp.add(a, a.T, out=a)
    else:
        xp.negative(a[:, ::-1], out=a)
    return a


@pytest.mark.parametrize("case", ["shifted", "reversed", "transposed"])
def test_large_out_overlapping_an_input(rng, case):
    """2**20 elements: overlap with the output is resolved as NumPy does, on the parallel path."""
    host = rng.standard_normal((1024, 1024))
    device_array = asnumpy.array(host)
    for xp, a in ((asnumpy, device_array), (numpy, host)):
        if case == "shifted":
            xp.add(a[:-1], a[1:], out=a[1:])
        elif case == "reversed":
            a += a[::-1]
        else:
            xp.subtract(a, a.T, out=a)
    numpy.testing.assert_array_equal(device_array.get(), host)


def test_bad_out_arguments():
    cases = [
        lambda xp: xp.add(xp.ones(3), 1, xp.ones(3), out=xp.ones(3)),      # out twice
        lambda xp: xp.divmod(xp.ones(3), 1, out=xp.ones(3)),                # one for two
        lambda xp: xp.add(xp.ones(3), 1, out=(xp.ones(3), xp.ones(3))),     # too many
        lambda xp: xp.add(xp.ones(3), 1, out=[1.0, 2.0, 3.0]),              # not an array
        lambda xp: xp.add(xp.ones(3), 1, 2, 3),                             # too many args
        lambda xp: xp.add(xp.ones(3)),                                      # too few
        lambda xp: xp.add(xp.ones(3), 1, bogus=1),                          # unknown keyword
    ]
    for body in cases:
        testing.numpy_asnumpy_array_equal(accept_error=(TypeError, ValueError))(body)()


def test_read_only_out():
    def body(xp):
        out = xp.zeros(3)
        out.flags.writeable = False
        return xp.add(xp.ones(3), 1, out=out)

    assert "asnumpy.add" in str(same_error(body))


# -- where= -------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_where_with_out(xp):
    x = xp.asarray(operand((4, 5), numpy.float32, "small"))
    mask = xp.asarray(numpy.random.random_sample((4, 5)) < 0.5)
    row = xp.asarray(numpy.random.random_sample(5) < 0.5)
    results = []
    for where in (mask, row, row.tolist() if xp is numpy else row, True, False,
                  numpy.bool_(False)):
        out = xp.full((4, 5), -7.0, dtype=numpy.float32)
        xp.sqrt(x, out=out, where=where)
        results.append(out)
    q, r = xp.zeros((4, 5)), xp.zeros((4, 5))
    xp.divmod(x, 3, out=(q, r), where=mask)
    return results, q, r


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_where_broadcasts_with_the_operands(xp):
    x = xp.asarray(operand((5,), numpy.int32, "small"))
    mask = xp.asarray(numpy.random.random_sample((3, 1)) < 0.5)
    out = xp.zeros((3, 5), dtype=numpy.int32)
    xp.add(x, 10, out=out, where=mask)
    return out


def test_where_without_out_warns_as_numpy():
    for xp in (numpy, asnumpy):
        with pytest.warns(UserWarning, match="where"):
            xp.add(xp.ones(3), 1, where=xp.asarray([True, False, True]))


def test_bad_where():
    for where in (lambda xp: xp.ones(3), lambda xp: xp.asarray([True, False]),
                  lambda xp: xp.asarray([1 + 1j, 0, 0])):
        def body(xp, where=where):
            return xp.add(xp.ones(3), 1, out=xp.zeros(3), where=where(xp))

        testing.numpy_asnumpy_array_equal(accept_error=(TypeError, ValueError))(body)()


# -- dtype=, signature=, casting= -----------------------------------------------

LOOP_REQUESTS = [
    {"dtype": numpy.float32}, {"dtype": "f8"}, {"dtype": numpy.int8}, {"dtype": complex},
    {"signature": "ff->f"}, {"signature": "dd->d"}, {"signature": (None, None, numpy.float64)},
    {"signature": (numpy.int16, numpy.int16, None)}, {"signature": "f"},
    {"signature": numpy.float32}, {"signature": ("f", "f")}, {"signature": "l,l->l"},
    {"dtype": numpy.float32, "signature": "ff->f"}, {"dtype": numpy.int8, "casting": "unsafe"},
    {"signature": "ii->i", "casting": "unsafe"}, {"signature": "bb->b", "casting": "same_kind"},
]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("request_", LOOP_REQUESTS, ids=str)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int8, numpy.uint32, numpy.float16, numpy.float64,
                     numpy.complex64])
@testing.numpy_asnumpy_array_equal(device_check=True, accept_error=(TypeError, ValueError))
def test_dtype_and_signature(xp, request_, dtype):
    x = xp.asarray(operand((4,), dtype, "small"))
    y = xp.asarray(operand((4,), numpy.int16, "small"))
    return xp.add(x, y, **request_), xp.add(x, 3, **request_), xp.negative(y, **request_)


CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("casting", CASTINGS)
@testing.with_seed()
@testing.for_dtypes_combination([numpy.int8, numpy.int16, numpy.uint8, numpy.float32,
                                 numpy.float64, numpy.complex64],
                                names=("dtype", "out_dtype"))
@testing.numpy_asnumpy_array_equal(device_check=True, accept_error=TypeError)
def test_casting_rules(xp, casting, dtype, out_dtype):
    x = xp.asarray(operand((5,), dtype, "small"))
    y = xp.asarray(operand((5,), numpy.int16, "small"))
    out = xp.zeros(5, dtype=out_dtype)
    return xp.multiply(x, y, out=out, casting=casting)


def _int16(xp):
    return xp.ones(3, dtype=numpy.int16)


CASTING_ERRORS = {
    "casting='no'": lambda xp: xp.add(_int16(xp), xp.ones(3, dtype=numpy.int8), casting="no"),
    "safe into int8": lambda xp: xp.add(_int16(xp), 1, casting="safe",
                                        out=xp.zeros(3, dtype=numpy.int8)),
    "same_kind into uint8": lambda xp: xp.add(_int16(xp), 1, out=xp.zeros(3, dtype=numpy.uint8)),
    "float input, dtype=int8": lambda xp: xp.add(xp.ones(3), 1, dtype=numpy.int8),
    "no loop": lambda xp: xp.bitwise_and(xp.ones(3), 1),
    "int += float": lambda xp: xp.add(_int16(xp), 1.5, out=_int16(xp)),
}


@pytest.mark.parametrize("case", list(CASTING_ERRORS))
def test_casting_errors_are_numpys_ufunc_type_error(case):
    """NumPy's own error class (UFuncTypeError, a TypeError, for casts), naming the ufunc."""
    error = same_error(CASTING_ERRORS[case])
    assert isinstance(error, TypeError)
    assert isinstance(error, UFUNC_ERROR) or case == "no loop"
    assert "'add'" in str(error) or "'bitwise_and'" in str(error)


@testing.numpy_asnumpy_array_equal(device_check=True, strides_check=True)
def test_keyword_spellings(xp):
    """order=None is 'K', the order letters go in either case, bytes are read as str."""
    a = xp.asarray(numpy.arange(6.0).reshape(2, 3)).T
    return [xp.add(a, 1, order=order) for order in (None, "f", "c", "k", "a", b"F")] + [
        xp.add(a, 1, casting=b"safe"), xp.add(a, 1, signature=b"dd->d")]


def test_bad_casting_order_signature_keywords():
    bodies = [
        lambda xp: xp.add(xp.ones(3), 1, casting="bogus"),
        lambda xp: xp.add(xp.ones(3), 1, order="X"),
        lambda xp: xp.add(xp.ones(3), 1, signature="ffff->f"),
        lambda xp: xp.add(xp.ones(3), 1, signature=("f", "f", "f", "f")),
        lambda xp: xp.add(xp.ones(3), 1, dtype="f", signature="ff->f"),
        lambda xp: xp.add(xp.ones(3), 1, dtype="U3"),
        lambda xp: xp.add(xp.ones(3), 1, order=""),
        lambda xp: xp.add(xp.ones(3), 1, order="kk"),
        lambda xp: xp.add(xp.ones(3), 1, order=1),
        lambda xp: xp.add(xp.ones(3), 1, casting=None),
        lambda xp: xp.add(xp.ones(3), 1, casting="SAFE"),
    ]
    for body in bodies:
        error = same_error(body)
        assert "asnumpy.add" in str(error) or "'add'" in str(error) or "dtype" in str(error)


# -- order=, layouts ------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("order", ["C", "F", "K", "A"])
@pytest.mark.parametrize("layout", ["C", "transposed", "F-view", "strided", "mixed"])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True, strides_check=True)
def test_output_order(xp, order, layout):
    a = xp.asarray(operand((4, 6), numpy.float64, "small"))
    b = xp.asarray(operand((6, 4), numpy.float64, "small"))
    if layout == "transposed":
        x, y = a.T, a.T[::-1]
    elif layout == "F-view":
        x, y = xp.asfortranarray(b), xp.asfortranarray(b)
    elif layout == "strided":
        x, y = b[::-1, ::2], b[:, 1::2]
    elif layout == "mixed":
        x, y = a.T, b
    else:
        x, y = b, b
    return xp.add(x, y, order=order), xp.negative(x, order=order), xp.sqrt(x, order=order)


@pytest.mark.parametrize("view", [lambda a: a[::-1], lambda a: a[:, ::-3], lambda a: a.T[1:],
                                  lambda a: a[::2, ::-2].T, lambda a: a[2]],
                         ids=["rev", "cols-3", "T[1:]", "2x-2T", "row"])
@testing.with_seed()
@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal(device_check=True, accept_error=TypeError)
def test_non_contiguous_and_negative_strides(xp, view, dtype):
    a = xp.asarray(operand((6, 7), dtype))
    b = xp.asarray(operand((6, 7), dtype))
    with numpy.errstate(all="ignore"):
        return (xp.add(view(a), view(b)), xp.maximum(view(b), view(a)), xp.equal(view(a), view(a)),
                xp.negative(view(a)) if dtype != numpy.bool_ else xp.logical_not(view(a)))


# -- scalars and NEP 50 -----------------------------------------------------------------


@testing.numpy_asnumpy_array_equal(device_check=True, accept_error=(OverflowError, TypeError))
def _nep50(xp, case):
    u8 = xp.asarray(numpy.array([0, 7, 255], dtype=numpy.uint8))
    i8 = xp.asarray(numpy.array([-128, 3, 127], dtype=numpy.int8))
    f16 = xp.asarray(numpy.array([1.5, -2.0, 65504], dtype=numpy.float16))
    return {
        "uint8 + 300": lambda: u8 + 300,
        "add(uint8, 300)": lambda: xp.add(u8, 300),
        "uint8 == -1": lambda: u8 == -1,
        "uint8 != -1": lambda: xp.not_equal(u8, -1),
        "uint8 < 2**70": lambda: u8 < 2**70,
        "-(2**70) < uint8": lambda: xp.less(-(2**70), u8),
        "uint8 >= -5": lambda: xp.greater_equal(u8, -5),
        "int8 > 200": lambda: i8 > 200,
        "int8 <= -129": lambda: i8 <= -129,
        "int8 + 1.5": lambda: i8 + 1.5,
        "int8 * 1j": lambda: i8 * 1j,
        "int8 + True": lambda: i8 + True,
        "int8 + int8(1)": lambda: i8 + numpy.int8(1),
        "int8 + int64(1)": lambda: i8 + numpy.int64(1),
        "uint8 + int8 scalar": lambda: u8 + numpy.int8(-1),
        "float16 + 1e5": lambda: f16 + 1e5,
        "float16 + float64(1)": lambda: f16 + numpy.float64(1.0),
        "float16 * 2**100": lambda: f16 * 2**100,
        "uint8 - 1": lambda: u8 - 1,
        "uint8 + -1": lambda: u8 + -1,
        "uint64 + int64": lambda: xp.add(xp.asarray(numpy.array([1, 2**63], numpy.uint64)),
                                         xp.asarray(numpy.array([-1, 1], numpy.int64))),
        "uint64 + 1": lambda: xp.add(xp.asarray(numpy.array([2**64 - 1], numpy.uint64)), 1),
        "bool - bool": lambda: xp.asarray(numpy.array([True])) - xp.asarray(numpy.array([True])),
        "-bool": lambda: -xp.asarray(numpy.array([True])),
        "int ** -1": lambda: xp.power(i8, -1),
        "int ** negative array": lambda: i8 ** xp.asarray(numpy.array([1, -1, 2], numpy.int8)),
        "scalars only": lambda: xp.add(3, 4.5),
        "numpy scalars only": lambda: xp.multiply(numpy.float32(3), numpy.int8(4)),
        "0-d array with scalar": lambda: xp.add(xp.asarray(numpy.uint8(200)), 100),
        "int8 + IntEnum": lambda: i8 + _Three.THREE,         # subclasses are strong
        "float16 + float subclass": lambda: f16 + _Half(0.5),
        "int8 + numpy 0-d array": lambda: i8 + numpy.array(5),
        "int8 + numpy bool": lambda: i8 + numpy.True_,
    }[case]()


class _Three(enum.IntEnum):
    THREE = 3


class _Half(float):
    pass


NEP50_CASES = ["uint8 + 300", "add(uint8, 300)", "uint8 == -1", "uint8 != -1", "uint8 < 2**70",
               "-(2**70) < uint8", "uint8 >= -5", "int8 > 200", "int8 <= -129", "int8 + 1.5",
               "int8 * 1j", "int8 + True", "int8 + int8(1)", "int8 + int64(1)",
               "uint8 + int8 scalar", "float16 + 1e5", "float16 + float64(1)",
               "float16 * 2**100", "uint8 - 1", "uint8 + -1", "uint64 + int64", "uint64 + 1",
               "bool - bool", "-bool", "scalars only", "numpy scalars only",
               "0-d array with scalar", "int8 + IntEnum", "float16 + float subclass",
               "int8 + numpy 0-d array", "int8 + numpy bool"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", NEP50_CASES)
def test_nep50_scalars(case):
    _nep50(case=case)


def test_specific_nep50_errors():
    u8 = numpy.array([1, 2], numpy.uint8)
    assert type(same_error(lambda xp: xp.asarray(u8) + 300)) is OverflowError
    assert isinstance(same_error(lambda xp: xp.asarray(u8 > 1) - xp.asarray(u8 > 0)), TypeError)
    for case in ("int ** -1", "int ** negative array"):
        error = same_error(lambda xp, case=case: _nep50.__wrapped__(xp, case))
        assert type(error) is ValueError and "negative" in str(error)


def test_python_scalar_value_changes_do_not_reuse_a_stale_conversion():
    x = asnumpy.asarray(numpy.array([1, 2, 3], numpy.uint8))
    assert (x + 1).get().tolist() == [2, 3, 4]
    assert (x + 250).get().tolist() == [251, 252, 253]
    assert (x + 2.5).dtype == numpy.float64
    with pytest.raises(OverflowError):
        x + 256
    assert (x == 3).get().tolist() == [False, False, True]
    assert (x == 259).get().tolist() == [False, False, False]
    assert (x < 2**70).get().all()


# -- host operands and devices ---------------------------------------------------------


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_host_operands_are_moved_to_the_device(xp):
    x = xp.asarray(operand((3, 4), numpy.float32, "small"))
    h = operand((4,), numpy.float64, "small")
    return (xp.add(x, h), xp.add(h, x), xp.multiply(x, h.tolist()), xp.subtract([1, 2, 3, 4], x),
            xp.add(x, numpy.float64(2)), xp.maximum(x, h[::-1]))


def test_host_operands_follow_the_device_array():
    a = asnumpy.asarray(numpy.ones(3), device="cpu:1")
    for result in (asnumpy.add(a, numpy.arange(3.0)), asnumpy.add(numpy.arange(3.0), a),
                   asnumpy.add(a, [1, 2, 3]), a + numpy.arange(3.0), numpy.arange(3.0) + a):
        assert isinstance(result, asnumpy.ndarray) and result.device == "cpu:1"
        assert result.get().tolist() in ([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])
    only_host = asnumpy.add(numpy.arange(3.0), [1.0, 1.0, 1.0])
    assert isinstance(only_host, asnumpy.ndarray) and only_host.device == asnumpy.get_device()


def test_arrays_on_two_devices_are_refused():
    a = asnumpy.ones(3)
    here = str(a.device)                     # the default device
    b = asnumpy.asarray(numpy.ones(3), device="cpu:1")
    calls = [lambda: asnumpy.add(a, b), lambda: asnumpy.add(b, a), lambda: a + b,
             lambda: asnumpy.add(a, a, out=asnumpy.zeros(3, device="cpu:1")),
             lambda: asnumpy.add(a, 1, out=asnumpy.zeros(3), where=b > 0),
             lambda: asnumpy.matmul(a, b)]
    for call in calls:
        with pytest.raises(ValueError,
                           match=rf"different devices .*({here}|cpu:1).*(cpu:1|{here})"):
            call()


# -- floating-point errors ---------------------------------------------------------------

MODES = ["ignore", "warn", "raise", "call"]


def _fp_errors(xp, errstate, mode, large=False):
    """Run operations that raise each floating-point flag under ``errstate``; report what came."""
    calls = []
    n = 2**20 if large else 7
    floats = numpy.random.standard_normal(n)
    floats[:4] = (0.0, -1.0, 1e308, numpy.nan)
    ints = numpy.random.randint(-3, 4, n)
    ints[:2] = (0, numpy.iinfo(numpy.int64).min)
    x, i = xp.asarray(floats), xp.asarray(ints)
    outcomes = []
    operations = [
        lambda: xp.log(x),                     # divide (0) and invalid (-1)
        lambda: xp.exp(x),                     # overflow
        lambda: xp.multiply(x, 1e308),         # overflow
        lambda: xp.floor_divide(i, i[::-1]),   # integer divide by zero (and overflow at min//-1)
        lambda: xp.remainder(i, 0),
        lambda: xp.divide(x, 0.0),
        lambda: xp.sqrt(x),
        lambda: xp.add(x, 1.0),                # no flag at all
    ]
    with errstate(call=lambda kind, flag: calls.append(kind),
                  **{flag: mode for flag in ("divide", "over", "invalid")}):
        for operation in operations:
            try:
                result, caught = record_warnings(operation)
                outcomes.append((result if not large else xp.isnan(result).sum(), caught))
            except FloatingPointError as error:
                outcomes.append(f"FloatingPointError: {error}")
    return outcomes, calls


@FLAGS_ON_CPU_ONLY
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("which", ["asnumpy.errstate", "numpy.errstate"])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal()
def test_floating_point_error_modes(xp, mode, which):
    errstate = asnumpy.errstate if which == "asnumpy.errstate" else numpy.errstate
    assert asnumpy.errstate is numpy.errstate and asnumpy.geterr is numpy.geterr
    return _fp_errors(xp, errstate, mode)


@FLAGS_ON_CPU_ONLY
@pytest.mark.parametrize("mode", MODES)
@testing.with_seed()
@testing.numpy_asnumpy_array_equal()
def test_floating_point_error_modes_on_large_arrays(xp, mode):
    return _fp_errors(xp, asnumpy.errstate, mode, large=True)


@FLAGS_ON_CPU_ONLY
def test_seterr_and_seterrcall_are_numpys():
    calls = []
    old = asnumpy.seterr(all="call")
    old_call = asnumpy.seterrcall(lambda kind, flag: calls.append(kind))
    try:
        assert asnumpy.geterr()["divide"] == "call" and numpy.geterr()["divide"] == "call"
        asnumpy.log(asnumpy.zeros(3))
        assert asnumpy.geterrcall() is numpy.geterrcall()
    finally:
        asnumpy.seterr(**old)
        asnumpy.seterrcall(old_call)
    assert calls == ["divide by zero"]


@FLAGS_ON_CPU_ONLY
@pytest.mark.parametrize("size", [3, 2**20])
@pytest.mark.parametrize("mode", ["ignore", "warn", "raise", "call"])
def test_floating_point_errors_on_a_user_stream(mode, size):
    """The errstate at launch travels with the work; 2**20 elements take the parallel path.

    Warnings and callbacks come when the stream runs the work, a 'raise'
    error from ``synchronize()``.
    """
    x = numpy.resize(numpy.array([0.0, -1.0, 2.0]), size)
    expected_calls, calls = [], []
    with numpy.errstate(all=mode, call=lambda kind, flag: expected_calls.append(kind)):
        try:
            expected, expected_warnings = record_warnings(numpy.log, x)
        except FloatingPointError as error:
            expected, expected_warnings = error, []
    stream = asnumpy.Stream()
    device_x = asnumpy.asarray(x)
    with asnumpy.errstate(all=mode, call=lambda kind, flag: calls.append(kind)), stream:
        result = asnumpy.log(device_x)
    if isinstance(expected, FloatingPointError):
        with pytest.raises(FloatingPointError, match=str(expected)):
            stream.synchronize()
        return
    caught = record_warnings(stream.synchronize)[1]
    numpy.testing.assert_array_equal(result.get(), expected)
    assert caught == expected_warnings
    assert calls == expected_calls


# -- generalized ufuncs ------------------------------------------------------------------

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)),
                 ((5, 2, 3), (3, 4)), ((4, 1, 2, 3), (5, 3, 2)), ((2, 0), (0, 3)),
                 ((0, 2, 3), (3, 1)), ((1, 3), (2, 3, 1))]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int8, numpy.uint16, numpy.int64, numpy.float16,
                     numpy.float32, numpy.float64, numpy.complex64, numpy.complex128])
@testing.numpy_asnumpy_allclose(rtol={numpy.float16: 1e-2, numpy.float32: 1e-5,
                                      numpy.complex64: 1e-5, "default": 1e-12},
                                atol=1e-5, device_check=True)
def test_matmul_shapes(xp, shapes, dtype):
    a, b = (xp.asarray(operand(s, dtype, "small")) for s in shapes)
    return xp.matmul(a, b), a @ b


VEC_SHAPES = {
    "vecdot": [((3,), (3,)), ((4, 3), (3,)), ((2, 1, 3), (4, 3)), ((0, 3), (3,))],
    "matvec": [((2, 3), (3,)), ((4, 2, 3), (3,)), ((2, 3), (5, 3)), ((1, 2, 3), (4, 1, 3))],
    "vecmat": [((3,), (3, 2)), ((3,), (4, 3, 2)), ((5, 3), (3, 2)), ((4, 1, 3), (2, 3, 2))],
}


@pytest.mark.parametrize("name, shapes", [(n, s) for n, table in VEC_SHAPES.items()
                                          for s in table], ids=str)
@testing.with_seed()
@testing.for_dtypes([numpy.bool_, numpy.int32, numpy.float32, numpy.float64, numpy.complex64,
                     numpy.complex128])
@testing.numpy_asnumpy_allclose(rtol={numpy.float32: 1e-5, numpy.complex64: 1e-5,
                                      "default": 1e-12}, atol=1e-5, device_check=True)
def test_vecdot_matvec_vecmat(xp, name, shapes, dtype):
    a, b = (xp.asarray(operand(s, dtype, "small")) for s in shapes)
    return getattr(xp, name)(a, b)


@testing.numpy_asnumpy_allclose(rtol=1e-12, device_check=True)
def test_complex_vecdot_conjugates_the_first_operand(xp):
    a = xp.asarray(numpy.array([1 + 2j, 3 - 1j, -2j]))
    b = xp.asarray(numpy.array([2 - 1j, 1j, 4 + 0j]))
    m = xp.asarray(numpy.array([[2 - 1j, 0], [1j, 1], [4, 2j]]))
    return xp.vecdot(a, b), xp.vecdot(b, a), xp.vecmat(a, m), xp.matvec(m.T, a)


@pytest.mark.parametrize("name, shapes", [
    ("matmul", ((), (3,))), ("matmul", ((3,), ())), ("matmul", ((2, 3), (2, 3))),
    ("matmul", ((3,), (4,))), ("matmul", ((2, 2, 3), (3, 3, 2))), ("vecdot", ((3,), (4,))),
    ("vecdot", ((), ())), ("matvec", ((2, 3), (2,))), ("matvec", ((3,), (3,))),
    ("vecmat", ((), (3, 2))), ("vecmat", ((2,), (3, 2))),
], ids=str)
def test_gufunc_shape_errors(name, shapes):
    def body(xp):
        return getattr(xp, name)(*(xp.ones(s) for s in shapes))

    error = same_error(body)
    assert f"asnumpy.{name}" in str(error)


@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=1e-12, device_check=True)
def test_gufunc_keywords(xp):
    a = xp.asarray(operand((3, 2, 4), numpy.float64, "small"))
    b = xp.asarray(operand((4, 5), numpy.float64, "small"))
    out = xp.zeros((3, 2, 5))
    xp.matmul(a, b, out=out)
    f32 = xp.matmul(a, b, dtype=numpy.float32)
    strided = xp.matmul(a[:, ::-1, ::2], b[::2, ::-1])
    vec = xp.zeros((3, 2))
    xp.vecdot(a, a, out=vec)
    return out, f32, strided, vec


CORE_AXES_CALLS = [
    ("matmul", ((3, 4, 5), (5, 4)), {"axes": [(0, 1), (1, 0), (0, 1)]}),
    ("matmul", ((3, 4, 5), (5, 4)), {"axes": [(-3, -2), (-1, -2), (2, 0)]}),
    ("matmul", ((3, 4, 5), (3,)), {"axes": [(1, 0), (0,), (0,)]}),
    ("vecdot", ((3, 4, 5), (3, 4, 5)), {"axis": 0}),
    ("vecdot", ((3, 4, 5), (3, 4, 5)), {"axis": -2, "keepdims": True}),
    ("vecdot", ((3, 4, 5), (4, 5)), {"axes": [1, 0]}),
    ("vecdot", ((3, 4, 5), (3, 4, 5)), {"axes": [(0,), (0,), ()]}),
    ("matvec", ((3, 4, 5), (4,)), {"axes": [(2, 1), (0,), (0,)]}),
    ("vecmat", ((4,), (3, 4, 5)), {"axes": [(0,), (1, 0), (0,)]}),
]


@pytest.mark.parametrize("name, shapes, kwargs", CORE_AXES_CALLS, ids=str)
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=1e-12, device_check=True)
def test_gufunc_core_axes_keywords(xp, name, shapes, kwargs):
    operands = [xp.asarray(operand(s, numpy.float64, "small")) for s in shapes]
    result = getattr(xp, name)(*operands, **kwargs)
    out = xp.zeros(result.shape)
    written = getattr(xp, name)(*operands, out=out, **kwargs)
    assert written is out
    return result, out


@pytest.mark.parametrize("kwargs", [
    {"axes": [0, 0], "axis": 0}, {"axis": 0}, {"keepdims": True},
    {"axes": [(5, 1), (0, 1), (0, 1)]}, {"axes": [(0, 1)]}, {"axes": [(0,), (0, 1), (0, 1)]},
], ids=str)
def test_gufunc_core_axes_errors(kwargs):
    error = same_error(lambda xp: xp.matmul(xp.ones((3, 4, 5)), xp.ones((5, 4)), **kwargs))
    assert "asnumpy" in str(error) or isinstance(error, numpy.exceptions.AxisError)


def test_matmul_of_integers_and_bools_is_exact(rng):
    a = rng.integers(-1000, 1000, (7, 9))
    b = rng.integers(-1000, 1000, (9, 3))
    numpy.testing.assert_array_equal(asnumpy.matmul(asnumpy.asarray(a), asnumpy.asarray(b)).get(),
                                     a @ b)
    m = rng.random((4, 5)) < 0.3
    numpy.testing.assert_array_equal((asnumpy.asarray(m) @ asnumpy.asarray(m.T)).get(), m @ m.T)


@pytest.mark.parametrize("kwargs", [{"axis": 0}, {"axes": [(0,)]}, {"keepdims": True}],
                         ids=str)
def test_gufunc_only_keywords_on_elementwise_ufuncs(kwargs):
    testing.numpy_asnumpy_array_equal(accept_error=(TypeError, ValueError))(
        lambda xp: xp.add(xp.ones(2), 1, **kwargs))()
