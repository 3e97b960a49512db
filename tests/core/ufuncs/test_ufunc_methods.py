"""ufunc.reduce, accumulate, reduceat, outer and at, differentially against NumPy.

Every binary ufunc of the catalog is reduced, accumulated and taken
``outer`` on every dtype (where NumPy has no loop, both sides raise the same
error type); values, dtypes, shapes and RuntimeWarnings must be NumPy's.
Then the keywords (axis, keepdims, dtype, out, initial, where), the errors
(bad axes, non-reorderable multi-axis reductions, empty reductions without
an identity, bad reduceat indices, bad ``at`` indices) and ``at``'s
unbuffered semantics (repeated indices accumulate).
"""

import functools

import numpy
import pytest
from _standard_values import ufunc_following_the_standard
from _inputs import same_error
from _ufunc_data import (
    BINARY,
    ELEMENTWISE,
    UNIQUE,
    error_name,
    operand,
    operands,
    record_warnings,
)

import asnumpy
from asnumpy import testing
from asnumpy.backends.cpu.math_kernels import STANDARD_VALUES

# binary ufuncs with one output: the ones NumPy reduces
REDUCIBLE = [name for name in BINARY if UNIQUE[name].nout == 1]
FLOAT_RTOL = {numpy.float16: 5e-3, numpy.float32: 1e-5, numpy.complex64: 1e-5,
              "default": 1e-12}


def _exact_or_close(use_close, rtol):
    """A decorator comparing bit for bit, or to ``rtol`` where ``use_close(kwargs)`` holds."""
    def decorate(impl):
        exact = testing.numpy_asnumpy_array_equal(device_check=True)(impl)
        close = testing.numpy_asnumpy_allclose(rtol=rtol, device_check=True)(impl)

        @functools.wraps(exact)
        def run(*args, **kwargs):
            __tracebackhide__ = True
            return (close if use_close(kwargs) else exact)(*args, **kwargs)

        return run

    return decorate


def close_to_numpy():
    """The comparison for reductions, chosen by the test's ``dtype`` argument.

    Reductions may reassociate float sums, so inexact dtypes compare to a
    tolerance; integer and bool ones (and tests without a dtype) bit for bit.
    """
    def inexact(kwargs):
        dtype = kwargs.get("dtype")
        return dtype is not None and numpy.dtype(dtype).kind in "fc"

    return _exact_or_close(inexact, FLOAT_RTOL)


def on_a_device() -> bool:
    return asnumpy.get_device().kind in ("cuda", "npu")


def moderate_factors(xp, a):
    """``a`` with every factor outside [1/8, 8] (or not finite) set to 1: NumPy multiplies in
    sequence, a device in a tree, and inf * 0, overflow or subnormal partial products make
    the grouping decide the result; factors in [1/8, 8] keep every grouping close."""
    return xp.where(xp.isfinite(a) & (abs(a) >= 0.125) & (abs(a) <= 8), a, 1)


def attempt(function, *args, **kwargs):
    """``(result, warnings)``, or the public class name of the error raised."""
    try:
        return record_warnings(function, *args, **kwargs)
    except (TypeError, ValueError, IndexError, OverflowError) as error:
        return error_name(error)


def comparable(name, outcomes):
    """``outcomes`` of ``attempt``, without the warnings for ufuncs that give the Array API's
    special values (floor_divide): where NumPy warns of the nan it makes there, asnumpy
    makes none, by design (docs/interop.md); their values are still compared."""
    if name not in STANDARD_VALUES:
        return outcomes
    return [outcome[0] if isinstance(outcome, tuple) else outcome for outcome in outcomes]


def data(shape, dtype, name=None):
    """Domain-touring data; small values for ``power`` and the shifts (so results stay sane)."""
    small = name in ("power", "left_shift", "right_shift", "ldexp", "float_power", "lcm")
    return operand(shape, dtype, "small" if small else "any")


# -- reduce -------------------------------------------------------------------

AXES = [None, 0, 1, -1, (0, 2), (2, 0), (), (0, 1, 2)]


@pytest.mark.parametrize("name", REDUCIBLE)
@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy()
def test_reduce_every_binary_ufunc(xp, name, dtype):
    ufunc = getattr(xp, name) if xp is not numpy else ufunc_following_the_standard(name)
    on_cuda = on_a_device()
    if on_cuda and name == "add":
        # a device sums in another order than NumPy (and float16 in float32, where NumPy's
        # strided loops round every step): domain-touring data (huge values of both signs,
        # infinities) then cancels or overflows differently; small multiples of 1/4 sum
        # exactly in any order
        small = operand((3, 4, 5), dtype, "small")
        a = xp.asarray(numpy.round(small * 4) / 4 if small.dtype.kind in "fc" else small)
    else:
        a = xp.asarray(data((3, 4, 5), dtype, name))
        if on_cuda and name == "multiply" and a.dtype.kind in "fc":
            a = moderate_factors(xp, a)
    results = []
    for axis in AXES:
        for keepdims in (False, True):
            results.append(attempt(ufunc.reduce, a, axis=axis, keepdims=keepdims))
    results.append(attempt(ufunc.reduce, a[::-1, :, ::2], axis=1))
    if on_cuda and a.dtype.kind == "c" and name == "add":
        # assert_allclose compares a complex infinity exactly, its finite part included,
        # and a device sums in another order: each part is compared with the tolerance
        results = [(r[0].real, r[0].imag, r[1]) if isinstance(r, tuple) else r
                   for r in results]
    return comparable(name, results)


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (0, 4), (1, 1)], ids=str)
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "logical_and",
                                  "bitwise_xor", "subtract", "fmax", "gcd", "arctan2"])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_reduce_empty_and_0d(xp, shape, name):
    """Empty reductions without an identity raise ValueError, as in NumPy."""
    a = xp.asarray(data(shape, numpy.int32))
    ufunc = getattr(xp, name)
    return [attempt(ufunc.reduce, a, axis=axis) for axis in (None, 0, -1, (), 1, (0,))]


@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy()
def test_reduce_dtype_out_initial_where(xp, dtype):
    a = xp.asarray(data((4, 6), dtype))
    if on_a_device() and a.dtype.kind in "fc":
        # a device sums in a tree, NumPy in sequence: multiples of 1/4 sum exactly in any
        # order (beside an infinite real part the imaginary part is compared exactly)
        a = xp.round(a * 4) / 4
    mask = xp.asarray(numpy.random.random_sample(6) < 0.5)
    results = []
    for requested in (None, numpy.float64, numpy.int8, numpy.complex64, bool):
        results.append(attempt(xp.add.reduce, a, axis=0, dtype=requested))
    for out_dtype in (numpy.float32, numpy.int64, dtype):
        out = xp.zeros(6, dtype=out_dtype)
        results.append((attempt(xp.add.reduce, a, axis=0, out=out), out))
        out2 = xp.zeros((1, 6), dtype=out_dtype)
        results.append((attempt(xp.maximum.reduce, a, axis=0, keepdims=True, out=(out2,)), out2))
    results.append(attempt(xp.maximum.reduce, a, axis=1, initial=5))
    results.append(attempt(xp.minimum.reduce, a, axis=None, initial=-3))
    results.append(attempt(xp.add.reduce, a, axis=1, where=mask))
    finite = a
    if on_a_device() and a.dtype.kind in "fc":
        finite = moderate_factors(xp, a)
    results.append(attempt(xp.multiply.reduce, finite, axis=0, where=mask, initial=2))
    results.append(attempt(xp.maximum.reduce, a, axis=1, where=mask))            # no identity
    results.append(attempt(xp.maximum.reduce, a, axis=1, where=mask, initial=0))
    results.append(attempt(xp.add.reduce, a, axis=0, where=False))
    results.append(attempt(xp.add.reduce, a, axis=0, where=mask.tolist() if xp is numpy else mask))
    return results


def test_reduce_errors():
    bodies = [
        lambda xp: xp.add.reduce(xp.ones((2, 3)), axis=2),                   # AxisError
        lambda xp: xp.add.reduce(xp.ones((2, 3)), axis=(0, -2)),             # duplicate
        lambda xp: xp.subtract.reduce(xp.ones((2, 3)), axis=(0, 1)),         # not reorderable
        lambda xp: xp.subtract.reduce(xp.ones((2, 3)), axis=None),
        lambda xp: xp.maximum.reduce(xp.ones((0, 3)), axis=0),               # no identity
        lambda xp: xp.sqrt.reduce(xp.ones(3)),                               # unary
        lambda xp: xp.divmod.reduce(xp.ones(3)),                             # two outputs
        lambda xp: xp.matmul.reduce(xp.ones((3, 3))),                        # gufunc
        lambda xp: xp.add.reduce(xp.ones((2, 3)), axis=0, out=xp.zeros(2)),  # out shape
        lambda xp: xp.add.reduce(xp.ones((2, 3)), axis=0, out=(xp.zeros(3), xp.zeros(3))),
        lambda xp: xp.add.reduce(xp.ones((2, 3)), axis=1, where=xp.ones(2, dtype=bool)),
        lambda xp: xp.add.reduce(xp.ones(3), axis=0.5),
        lambda xp: xp.equal.reduce(xp.ones(3)),                              # no loop
        lambda xp: xp.power.reduce(xp.asarray(numpy.array([2, -1, 3]))),     # negative power
    ]
    for body in bodies:
        same_error(body)
    error = same_error(bodies[0])
    assert isinstance(error, numpy.exceptions.AxisError) and "asnumpy" in str(error)


def test_reduce_into_read_only_out():
    def body(xp):
        out = xp.zeros(3)
        out.flags.writeable = False
        return xp.add.reduce(xp.ones((2, 3)), axis=0, out=out)

    assert "asnumpy" in str(same_error(body))


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_reduce_of_host_data(xp):
    host = numpy.random.randint(-9, 9, (3, 4))
    return xp.add.reduce(host, axis=1), xp.maximum.reduce(host.tolist(), axis=0)


@testing.with_seed()
def test_large_reductions_match_numpy():
    x = numpy.random.standard_normal((2**20,))
    ours = asnumpy.add.reduce(asnumpy.asarray(x))
    numpy.testing.assert_allclose(ours.get(), numpy.add.reduce(x), rtol=1e-12)
    ints = numpy.random.randint(-1000, 1000, (2**20,))
    assert asnumpy.add.reduce(asnumpy.asarray(ints)).get() == numpy.add.reduce(ints)
    assert asnumpy.maximum.reduce(asnumpy.asarray(x)).get() == x.max()


def test_reduce_warnings_and_errstate():
    for mode in ("ignore", "warn", "raise"):
        outcomes = []
        for xp in (numpy, asnumpy):
            with xp.errstate(all=mode):
                try:
                    outcomes.append(record_warnings(
                        lambda xp=xp: xp.asarray(xp.divide.reduce(
                            xp.asarray(numpy.array([[1.0, 0.0], [0.0, 2.0]])), axis=0)))[1])
                except FloatingPointError as error:
                    outcomes.append(str(error))
        assert outcomes[0] == outcomes[1], mode


# -- accumulate ------------------------------------------------------------------


@pytest.mark.parametrize("name", REDUCIBLE)
@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy()
def test_accumulate_every_binary_ufunc(xp, name, dtype):
    ufunc = getattr(xp, name) if xp is not numpy else ufunc_following_the_standard(name)
    a = xp.asarray(data((3, 5), dtype, name))
    return comparable(name, [attempt(ufunc.accumulate, a, axis=axis) for axis in (0, 1, -1, -2)]
                      + [attempt(ufunc.accumulate, a[::-1, ::2], axis=1)])


@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy()
def test_accumulate_dtype_and_out(xp, dtype):
    a = xp.asarray(data((4, 3), dtype))
    out = xp.zeros((4, 3), dtype=numpy.complex128)
    out_t = xp.zeros((3, 4), dtype=numpy.float64).T
    return [attempt(xp.add.accumulate, a, dtype=numpy.float64),
            attempt(xp.multiply.accumulate, a, axis=1, dtype=numpy.int16),
            (attempt(xp.add.accumulate, a, out=out), out),
            (attempt(xp.maximum.accumulate, a, out=(out_t,)), out_t),
            attempt(xp.add.accumulate, xp.asarray(data((5,), dtype)))]


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_accumulate_and_reduce_into_their_own_operand(xp):
    a = xp.asarray(data((3, 4), numpy.float64, "add"))
    b = xp.array(a)
    c = xp.array(a)
    xp.add.accumulate(a, axis=1, out=a)
    xp.maximum.accumulate(b[::-1], axis=0, out=b)
    xp.add.reduce(c, axis=0, out=c[0])
    return a, b, c


@testing.numpy_asnumpy_array_equal(device_check=True)
def test_single_axis_as_a_tuple(xp):
    a = xp.asarray(numpy.arange(12.0).reshape(3, 4))
    return (xp.add.accumulate(a, axis=(1,)), xp.multiply.accumulate(a, axis=(-2,)),
            xp.add.reduceat(a, [0, 2], axis=(1,)), xp.add.reduce(a, axis=(1,)))


def test_accumulate_errors():
    bodies = [
        lambda xp: xp.add.accumulate(xp.ones((2, 3)), axis=2),
        lambda xp: xp.add.accumulate(xp.ones((2, 3)), axis=None),
        lambda xp: xp.add.accumulate(xp.ones((2, 3)), axis=(0, 1)),
        lambda xp: xp.add.accumulate(xp.ones((2, 3)), axis=()),
        lambda xp: xp.add.accumulate(xp.ones((2, 3)), axis=[1]),
        lambda xp: xp.add.accumulate(xp.asarray(numpy.float64(3.0))),
        lambda xp: xp.sqrt.accumulate(xp.ones(3)),
        lambda xp: xp.matmul.accumulate(xp.ones((3, 3))),
        lambda xp: xp.add.accumulate(xp.ones((2, 3)), out=xp.zeros((3, 2))),
    ]
    for body in bodies:
        same_error(body)


@testing.numpy_asnumpy_array_equal(device_check=True)
def test_accumulate_empty(xp):
    return (xp.add.accumulate(xp.ones((0, 3))), xp.maximum.accumulate(xp.ones((3, 0)), axis=1),
            xp.multiply.accumulate(xp.ones((2, 0)), axis=0))


# -- reduceat --------------------------------------------------------------------

INDICES = [[0, 2, 1, 4], [0], [3, 3, 0], numpy.array([1, 4, 2], numpy.int32), [4, 0], [0.0, 2.7],
           [True, False], (0, 1), range(3)]


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "subtract",
                                  "bitwise_or", "logical_xor", "fmin", "divide", "hypot"])
@testing.with_seed()
@testing.for_all_dtypes()
@close_to_numpy()
def test_reduceat(xp, name, dtype):
    ufunc = getattr(xp, name)
    a = xp.asarray(data((3, 5), dtype, name))
    results = []
    for indices in INDICES:
        results.append(attempt(ufunc.reduceat, a, indices, axis=1))
    results.append(attempt(ufunc.reduceat, a, [0, 2], axis=0))
    results.append(attempt(ufunc.reduceat, a[::-1, ::-2], [0, 1, 1], axis=-1))
    results.append(attempt(ufunc.reduceat, a, xp.asarray(numpy.array([2, 0, 4])), axis=1))
    return results


@testing.with_seed()
@close_to_numpy()
def test_reduceat_dtype_and_out(xp):
    a = xp.asarray(data((3, 5), numpy.int16))
    out = xp.zeros((3, 2), dtype=numpy.float32)
    return (xp.add.reduceat(a, [0, 3], axis=1, dtype=numpy.int8), out,
            xp.multiply.reduceat(a, [0, 3], axis=1, out=out),
            xp.add.reduceat(a, [1, 2], axis=1, out=(xp.zeros((3, 2), dtype=numpy.int64),)))


@pytest.mark.parametrize("indices", [[0, 5], [-1], [0, -6], numpy.array([0, 1], numpy.uint64),
                                     [[0, 1]], [], numpy.array([], numpy.intp), [1 + 0j], ["a"],
                                     numpy.array([0.0, 1.0]), [2**63]], ids=repr)
def test_reduceat_bad_indices(indices):
    def body(xp):
        return xp.add.reduceat(xp.ones((2, 5)), indices, axis=1)

    try:
        expected = body(numpy)
    except Exception as error:       # noqa: BLE001
        asnumpy_error = same_error(body)
        if isinstance(error, IndexError):
            assert "asnumpy.add.reduceat" in str(asnumpy_error)
    else:
        numpy.testing.assert_array_equal(body(asnumpy).get(), expected)


def test_reduceat_errors():
    bodies = [
        lambda xp: xp.add.reduceat(xp.ones((2, 5)), [0, 1], axis=2),
        lambda xp: xp.add.reduceat(xp.ones((2, 5)), [0, 1], out=xp.zeros((3, 5))),
        lambda xp: xp.sqrt.reduceat(xp.ones(5), [0, 1]),
        lambda xp: xp.matmul.reduceat(xp.ones((5, 5)), [0, 1]),
        lambda xp: xp.add.reduceat(xp.asarray(numpy.float64(1.0)), [0]),
        lambda xp: xp.add.reduceat(xp.ones((2, 5)), [0], axis=(0, 1)),
        lambda xp: xp.add.reduceat(xp.ones((2, 5)), [0], axis=None),
        lambda xp: xp.add.reduceat(xp.ones((2, 5)), 1, axis=1),
        lambda xp: xp.add.reduceat(xp.ones((2, 0)), [0], axis=1),
    ]
    for body in bodies:
        same_error(body)


# -- outer ------------------------------------------------------------------------


def exact_on_cpu():
    """Bit for bit on cpu (NumPy's own loops); on a device, inexact results to a tolerance
    by their dtype (integers still exact): its atan2, pow and complex products round their
    own way, and NumPy's differ by CPU (its AVX-512 loops use SVML and fused multiply-adds)."""
    return _exact_or_close(lambda kwargs: on_a_device(), {
        **FLOAT_RTOL, numpy.float64: 1e-12, numpy.complex128: 1e-12, "default": 0})


@pytest.mark.parametrize("name", BINARY)
@testing.with_seed()
@testing.for_all_dtypes()
@exact_on_cpu()
def test_outer_every_binary_ufunc(xp, name, dtype):
    ufunc = getattr(xp, name) if xp is not numpy else ufunc_following_the_standard(name)
    a = xp.asarray(data((2, 3), dtype, name))
    b = xp.asarray(data((4,), dtype, name))
    return comparable(name, [attempt(ufunc.outer, a, b), attempt(ufunc.outer, b[::-1], a[:, ::2])])


@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_outer_shapes_and_keywords(xp):
    a = xp.asarray(data((3,), numpy.int32))
    b = xp.asarray(data((2, 2), numpy.int32))
    out = xp.zeros((3, 2, 2), dtype=numpy.float64)
    results = [xp.add.outer(a, b), xp.add.outer(a, 5), xp.add.outer(7, b),
               xp.multiply.outer(a, b, dtype=numpy.float32),
               xp.subtract.outer(a, b, out=out), out,
               xp.add.outer(xp.asarray(numpy.int8(3)), a), xp.add.outer(a[:0], b),
               xp.add.outer(a.tolist(), b), xp.add.outer(numpy.arange(2), b)]
    mask_out = xp.zeros((3, 2, 2), dtype=numpy.int32)
    xp.add.outer(a, b, out=mask_out, where=xp.asarray(numpy.array([True, False])))
    q, r = xp.divmod.outer(a, b + 20)
    return results, mask_out, q, r


def test_outer_errors():
    for body in (lambda xp: xp.sqrt.outer(xp.ones(2), xp.ones(2)),
                 lambda xp: xp.matmul.outer(xp.ones(2), xp.ones(2)),
                 lambda xp: xp.add.outer(xp.ones(2), xp.ones(3), out=xp.zeros((3, 2))),
                 lambda xp: xp.add.outer(xp.ones(2, dtype=numpy.int8), 1.5,
                                         out=xp.zeros((2,), dtype=numpy.int8))):
        same_error(body)
    with pytest.raises(ValueError, match="different devices"):
        asnumpy.add.outer(asnumpy.ones(2), asnumpy.asarray(numpy.ones(2), device="cpu:1"))


# -- at ----------------------------------------------------------------------------

AT_UFUNCS = [name for name in ELEMENTWISE if UNIQUE[name].nout == 1]


@pytest.mark.parametrize("name", AT_UFUNCS)
@testing.with_seed()
@testing.for_all_dtypes()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_at_every_ufunc(xp, name, dtype):
    """Repeated indices apply repeatedly (unbuffered), for every ufunc with one output."""
    ufunc = getattr(xp, name)
    host_a, host_b = operands(name, [dtype, dtype], [(6,), (9,)])
    a = xp.asarray(host_a)
    indices = numpy.random.randint(-6, 6, 9)
    if ufunc.nin == 1:
        return attempt(ufunc.at, a, indices), a
    b = host_b
    scalar = b[0].item()
    first = attempt(ufunc.at, a, indices, xp.asarray(b))
    second = attempt(ufunc.at, a, indices[:3], scalar)
    return first, second, a


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_at_indices(xp):
    a = xp.asarray(data((4, 5), numpy.float64))
    b = xp.asarray(data((4, 5), numpy.float64))
    xp.add.at(a, (slice(None), [0, 0, 3]), 1.5)
    xp.multiply.at(a, ([0, 1, 1], [2, 2, 2]), xp.asarray(numpy.array([2.0, 3.0, 4.0])))
    xp.subtract.at(a, 2, b[0])
    xp.maximum.at(a, slice(1, 3), b[1])
    xp.add.at(a, numpy.array([[0, 1], [1, 0]]), 1)
    xp.add.at(a, xp.asarray(numpy.array([True, False, True, False])), 10)
    xp.negative.at(a, ([3, 3, 3], [1, 1, 4]))
    xp.add.at(a, ..., 1)
    xp.add.at(a, (Ellipsis, [4, 4]), 1)
    xp.add.at(a[::-1, 1:], ([0, 0], [1, 1]), 100)
    xp.add.at(a, [], 5)                                   # an empty integer index
    xp.add.at(a, ([], []), 5)
    xp.add.at(a, [[0, 1], [1, 2]], 1)
    ints = xp.asarray(data((5,), numpy.int64))
    xp.floor_divide.at(ints, [0, 1, 1], xp.asarray(numpy.array([0, 2, 3])))
    xp.add.at(ints, [2, 2], 2.5)                          # at casts unsafely, as NumPy
    xp.multiply.at(ints, [3], xp.asarray(numpy.array([1.5 + 1j])))
    return a, ints


def test_at_errors():
    bodies = [
        lambda xp: xp.add.at(xp.ones(4), [0, 4], 1),                      # IndexError
        lambda xp: xp.add.at(xp.ones(4), [-5], 1),
        lambda xp: xp.add.at(xp.ones((2, 2)), ([0], [2]), 1),
        lambda xp: xp.add.at(xp.ones(4), [0, 1], xp.ones(3)),             # b shape
        lambda xp: xp.add.at(xp.ones(4), [0, 1]),                         # b missing
        lambda xp: xp.negative.at(xp.ones(4), [0, 1], 1),                 # b for a unary
        lambda xp: xp.divmod.at(xp.ones(4), [0], 1),                      # two outputs
        lambda xp: xp.matmul.at(xp.ones(4), [0], 1),                      # gufunc
        lambda xp: xp.power.at(xp.ones(4, dtype=numpy.int64), [0], -1),   # negative power
        lambda xp: xp.add.at(xp.ones(4), [0.5], 1),                       # float index
        lambda xp: xp.add.at(xp.ones(4), [True, False], 1),               # mask length
    ]
    for body in bodies:
        same_error(body)
    error = same_error(bodies[0])
    assert isinstance(error, IndexError)


def test_at_on_read_only_and_other_devices():
    a = asnumpy.ones(4)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="asnumpy.add.at"):
        asnumpy.add.at(a, [0], 1)
    with pytest.raises(ValueError, match="different devices"):
        asnumpy.add.at(asnumpy.ones(4), [0], asnumpy.asarray(numpy.ones(1), device="cpu:1"))
    with pytest.raises(TypeError, match="asnumpy.add.at"):
        asnumpy.add.at(numpy.ones(4), [0], 1)


def test_at_warnings_match_numpy():
    for name, b in (("floor_divide", 0), ("divide", 0.0), ("multiply", 1e308), ("log", None)):
        outcomes = []
        for xp in (numpy, asnumpy):
            a = xp.asarray(numpy.array([1.0, 0.0, 2.0, -1.0]))
            args = () if b is None else (b,)
            outcomes.append(record_warnings(getattr(xp, name).at, a, [0, 1, 1, 3], *args)[1])
        assert outcomes[0] == outcomes[1], name
