"""asnumpy.testing: the harness passes what agrees and fails what does not."""

import inspect
import sys
import unittest
import warnings as _warnings

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asnumpy
from asnumpy import testing
from asnumpy._dtypes import SUPPORTED_DTYPES
from asnumpy.testing import (
    assert_no_warnings, assert_warns, assert_warns_message, suppress_warnings,
)

ALL_TYPES = [d.type for d in SUPPORTED_DTYPES]


def _device(host):
    return asnumpy.asarray(numpy.asarray(host))


def _notes(exc):
    return "\n".join(getattr(exc, "__notes__", []))


# -- differential decorators: what agrees passes -------------------------------


@testing.numpy_asnumpy_array_equal()
def test_equal_results_pass(xp):
    return xp.asarray(numpy.arange(6, dtype=numpy.int16).reshape(2, 3))


@testing.numpy_asnumpy_array_equal()
def test_sequences_scalars_and_dtypes_compare(xp):
    a = xp.asarray(numpy.array([1.5, numpy.nan]))
    return (a, [a.shape, a.ndim], a.dtype, numpy.float32(2), 7, {"n": a.size})


@testing.numpy_asnumpy_array_equal()
def test_zero_d_asnumpy_array_matches_numpy_scalar(xp):
    if xp is numpy:
        return numpy.float32(3)
    return asnumpy.asarray(numpy.array(3, numpy.float32))


@testing.numpy_asnumpy_array_equal()
def test_asnumpy_may_return_host_arrays(xp):
    a = xp.asarray(numpy.arange(3))
    return a if xp is numpy else asnumpy.asnumpy(a)


@testing.numpy_asnumpy_allclose(rtol=1e-6)
def test_allclose_passes_within_tolerance(xp):
    value = 1.0 if xp is numpy else 1.0 + 1e-7
    return xp.asarray(numpy.array([value, 2.0]))


@testing.numpy_asnumpy_array_equal()
def test_body_sees_the_same_random_state_on_both_sides(xp):
    return xp.asarray(numpy.random.rand(4))


# -- differential decorators: what disagrees fails -----------------------------


def test_mismatched_values_fail():
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        return xp.asarray(numpy.array([1, 2, 3 if xp is numpy else 4]))

    with pytest.raises(AssertionError, match=r"asnumpy \(x, ACTUAL\) differs from numpy"):
        body()


def test_values_outside_tolerance_fail():
    @testing.numpy_asnumpy_allclose(rtol=1e-9)
    def body(xp):
        return xp.asarray(numpy.array([1.0 if xp is numpy else 1.0 + 1e-7]))

    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        body()


@pytest.mark.parametrize("decorator", [testing.numpy_asnumpy_array_equal,
                                       testing.numpy_asnumpy_allclose])
def test_mismatched_dtypes_fail(decorator):
    @decorator()
    def body(xp):
        dtype = numpy.float32 if xp is numpy else numpy.float64
        return xp.asarray(numpy.ones(2, dtype))

    with pytest.raises(AssertionError, match="dtypes differ: asnumpy float64, numpy float32"):
        body()


def test_mismatched_dtypes_pass_without_type_check():
    @testing.numpy_asnumpy_array_equal(type_check=False)
    def body(xp):
        dtype = numpy.float32 if xp is numpy else numpy.float64
        return xp.asarray(numpy.ones(2, dtype))

    body()


@pytest.mark.parametrize("type_check", [True, False])
def test_mismatched_shapes_always_fail(type_check):
    @testing.numpy_asnumpy_array_equal(type_check=type_check)
    def body(xp):
        shape = (1, 3) if xp is numpy else (3,)
        return xp.asarray(numpy.ones(shape))

    with pytest.raises(AssertionError, match=r"shapes differ: asnumpy \(3,\), numpy \(1, 3\)"):
        body()


def test_python_scalar_types_must_match():
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        return 1 if xp is numpy else 1.0

    with pytest.raises(AssertionError, match="types differ: asnumpy float, numpy int"):
        body()


def test_array_where_numpy_gives_python_scalar_fails():
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        return 2 if xp is numpy else _device(2)

    with pytest.raises(AssertionError, match="asnumpy returned asnumpy"):
        body()


def test_sequence_lengths_and_elements_are_checked():
    @testing.numpy_asnumpy_array_equal()
    def shorter(xp):
        a = xp.asarray(numpy.arange(3))
        return (a, a) if xp is numpy else (a,)

    @testing.numpy_asnumpy_array_equal()
    def second_differs(xp):
        return (xp.asarray(numpy.arange(3)), xp.asarray(numpy.arange(3 if xp is numpy else 4)))

    @testing.numpy_asnumpy_array_equal()
    def list_for_tuple(xp):
        a = xp.asarray(numpy.arange(3))
        return (a,) if xp is numpy else [a]

    with pytest.raises(AssertionError, match="lengths differ: asnumpy 1, numpy 2"):
        shorter()
    with pytest.raises(AssertionError, match=r"second_differs\[1\]: shapes differ"):
        second_differs()
    with pytest.raises(AssertionError, match="asnumpy returned a list, numpy a tuple"):
        list_for_tuple()


def test_returning_nothing_fails():
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        xp.asarray(numpy.arange(3))

    with pytest.raises(AssertionError, match="returned None"):
        body()


def test_numpy_run_returning_an_asnumpy_array_fails():
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        return asnumpy.asarray(numpy.arange(3))

    with pytest.raises(AssertionError, match="numpy run returned an asnumpy.ndarray"):
        body()


def test_strides_check():
    def body(xp):
        a = xp.asarray(numpy.arange(6.0).reshape(2, 3))
        return a.T if xp is numpy else a.T.copy()

    testing.numpy_asnumpy_array_equal()(body)()
    with pytest.raises(AssertionError, match="strides differ"):
        testing.numpy_asnumpy_array_equal(strides_check=True)(body)()


def test_contiguous_check():
    def body(xp):
        a = xp.asarray(numpy.arange(6.0).reshape(2, 3))
        return a if xp is numpy else a.T.copy().T

    testing.numpy_asnumpy_allclose()(body)()
    with pytest.raises(AssertionError, match="c_contiguous"):
        testing.numpy_asnumpy_allclose(contiguous_check=True)(body)()


def test_tolerance_per_dtype():
    def body(xp, dtype):
        error = 0 if xp is numpy else 1e-3
        return xp.asarray(numpy.array([1.0 + error], dtype=dtype))

    tolerances = {numpy.float16: 1e-2, numpy.dtype("float32"): 1e-2, "default": 1e-9}
    loose = testing.for_dtypes([numpy.float16, numpy.float32])(
        testing.numpy_asnumpy_allclose(rtol=tolerances)(body))
    strict = testing.for_dtypes([numpy.float64])(
        testing.numpy_asnumpy_allclose(rtol=tolerances)(body))
    loose()
    with pytest.raises(AssertionError):
        strict()
    missing = testing.for_dtypes([numpy.float64])(
        testing.numpy_asnumpy_allclose(rtol={numpy.float32: 1e-2})(body))
    with pytest.raises(TypeError, match="no rtol given for dtype float64"):
        missing()


# -- errors --------------------------------------------------------------------


@pytest.mark.parametrize("accept_error", [False, True])
def test_only_asnumpy_raising_fails(accept_error):
    @testing.numpy_asnumpy_array_equal(accept_error=accept_error)
    def body(xp):
        if xp is asnumpy:
            raise ValueError("asnumpy side broke")
        return xp.asarray(numpy.arange(3))

    with pytest.raises(AssertionError, match="only asnumpy raised an error") as info:
        body()
    assert "ValueError: asnumpy side broke" in str(info.value)
    assert "numpy returned:  numpy.ndarray(shape=(3,)" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)


@pytest.mark.parametrize("accept_error", [False, True])
def test_only_numpy_raising_fails(accept_error):
    @testing.numpy_asnumpy_allclose(accept_error=accept_error)
    def body(xp):
        if xp is numpy:
            raise IndexError("numpy side broke")
        return xp.asarray(numpy.arange(3))

    with pytest.raises(AssertionError, match="only numpy raised an error") as info:
        body()
    assert "IndexError: numpy side broke" in str(info.value)


@pytest.mark.parametrize("numpy_error, asnumpy_error", [
    (ValueError, TypeError),
    (numpy.exceptions.AxisError, ValueError),   # asnumpy must raise the AxisError itself
    (TypeError, Exception),
])
@pytest.mark.parametrize("accept_error", [False, True])
def test_incompatible_errors_fail(numpy_error, asnumpy_error, accept_error):
    @testing.numpy_asnumpy_array_equal(accept_error=accept_error)
    def body(xp):
        raise (numpy_error if xp is numpy else asnumpy_error)("nope")

    with pytest.raises(AssertionError, match="incompatible errors") as info:
        body()
    assert numpy_error.__name__ in str(info.value) and asnumpy_error.__name__ in str(info.value)


@pytest.mark.parametrize("numpy_error, asnumpy_error", [
    (ValueError, ValueError),
    (ValueError, numpy.exceptions.AxisError),
    (IndexError, numpy.exceptions.AxisError),
    (numpy.exceptions.AxisError, numpy.exceptions.AxisError),
    (MemoryError, asnumpy.OutOfMemoryError),
])
def test_compatible_errors_are_accepted(numpy_error, asnumpy_error):
    @testing.numpy_asnumpy_array_equal(accept_error=True)
    def body(xp):
        if asnumpy_error is asnumpy.OutOfMemoryError and xp is asnumpy:
            raise asnumpy.OutOfMemoryError("cpu:0", 1 << 40, 1 << 20, 0)
        raise (numpy_error if xp is numpy else asnumpy_error)("expected")

    body()


def test_numpy_private_error_classes_count_as_their_public_ancestor():
    @testing.numpy_asnumpy_array_equal(accept_error=TypeError)
    def body(xp):
        if xp is numpy:
            numpy.add(numpy.array(["a"]), numpy.array([1]))  # numpy's private _UFuncNoLoopError
        raise TypeError("asnumpy.add: no loop for <U1 and int64")

    body()


def test_accept_error_class_limits_what_is_accepted():
    @testing.numpy_asnumpy_array_equal(accept_error=ValueError)
    def value_errors(xp):
        raise ValueError("expected")

    @testing.numpy_asnumpy_array_equal(accept_error=(ValueError, IndexError))
    def type_errors(xp):
        raise TypeError("from " + xp.__name__)

    value_errors()
    with pytest.raises(TypeError, match="from asnumpy") as info:
        type_errors()
    assert "numpy raised a compatible error" in _notes(info.value)


def test_errors_propagate_without_accept_error():
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        raise KeyError("from " + xp.__name__)

    with pytest.raises(KeyError, match="from asnumpy"):
        body()


def test_skip_in_the_body_skips():
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        raise unittest.SkipTest("not on this device")

    with pytest.raises(unittest.SkipTest):
        body()


def test_bad_decorator_arguments_fail_at_decoration():
    with pytest.raises(TypeError, match="accept_error"):
        testing.numpy_asnumpy_array_equal(accept_error="yes")
    with pytest.raises(TypeError, match="keyword argument 'xp'"):
        testing.numpy_asnumpy_array_equal()(lambda module: None)
    with pytest.raises(TypeError, match="keyword argument 'dtype'"):
        testing.for_all_dtypes()(lambda xp: None)
    with pytest.raises(ValueError, match="nothing to loop over"):
        testing.for_dtypes([])(lambda dtype: None)


def test_numpy_asnumpy_equal():
    @testing.numpy_asnumpy_equal()
    def agrees(xp):
        return xp.asarray(numpy.zeros((2, 3))).shape

    @testing.numpy_asnumpy_equal()
    def disagrees(xp):
        return xp.asarray(numpy.zeros((2, 3) if xp is numpy else (3, 2))).shape

    agrees()
    with pytest.raises(AssertionError, match=r"asnumpy: \(3, 2\)"):
        disagrees()


def test_array_almost_equal_and_less():
    @testing.numpy_asnumpy_array_almost_equal(decimal=3)
    def almost(xp):
        return xp.asarray(numpy.array([1.0 if xp is numpy else 1.0001]))

    @testing.numpy_asnumpy_array_less()
    def less(xp):
        return xp.asarray(numpy.array([2.0 if xp is numpy else 1.0]))

    @testing.numpy_asnumpy_array_less()
    def not_less(xp):
        return xp.asarray(numpy.array([1.0]))

    almost()
    less()
    with pytest.raises(AssertionError):
        not_less()


# -- loops ---------------------------------------------------------------------


def _dtypes_passed_by(decorator):
    seen = []

    @decorator
    def body(dtype):
        seen.append(dtype)

    body()
    return seen


@pytest.mark.parametrize("decorator, expected", [
    (testing.for_all_dtypes(), ALL_TYPES),
    (testing.for_all_dtypes(no_float16=True, no_bool=True, no_complex=True),
     [t for t in ALL_TYPES if t not in (numpy.float16, numpy.bool_, numpy.complex64,
                                        numpy.complex128)]),
    (testing.for_float_dtypes(), [numpy.float16, numpy.float32, numpy.float64]),
    (testing.for_float_dtypes(no_float16=True), [numpy.float32, numpy.float64]),
    (testing.for_int_dtypes(), [numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
                                numpy.uint16, numpy.uint32, numpy.uint64, numpy.bool_]),
    (testing.for_int_dtypes(no_bool=True), [numpy.int8, numpy.int16, numpy.int32, numpy.int64,
                                            numpy.uint8, numpy.uint16, numpy.uint32,
                                            numpy.uint64]),
    (testing.for_signed_dtypes(), [numpy.int8, numpy.int16, numpy.int32, numpy.int64]),
    (testing.for_unsigned_dtypes(), [numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64]),
    (testing.for_complex_dtypes(), [numpy.complex64, numpy.complex128]),
    (testing.for_dtypes(["f4", numpy.dtype("i2"), numpy.uint8]),
     [numpy.float32, numpy.int16, numpy.uint8]),
])
def test_dtype_loops_run_every_dtype(decorator, expected):
    seen = _dtypes_passed_by(decorator)
    assert seen == expected
    assert all(isinstance(t, type) and issubclass(t, numpy.generic) for t in seen)


def test_dtype_loop_names_the_failing_dtypes_after_running_all():
    seen = []

    @testing.for_all_dtypes()
    def body(dtype):
        seen.append(dtype)
        if dtype in (numpy.int32, numpy.float16):
            raise AssertionError(f"broken for {numpy.dtype(dtype)}")

    with pytest.raises(AssertionError, match="broken for int32") as info:
        body()
    assert seen == ALL_TYPES
    notes = _notes(info.value)
    assert "failed with dtype=int32" in notes
    assert "also failed with: dtype=float16 (AssertionError)" in notes
    assert "passed with: dtype=bool" in notes


def test_dtype_loop_under_a_comparison_names_the_dtype():
    @testing.for_all_dtypes(name="t")
    @testing.numpy_asnumpy_array_equal()
    def body(xp, t):
        dtype = numpy.float64 if (xp is asnumpy and t == numpy.int16) else t
        return testing.shaped_arange((2, 2), xp, dtype)

    with pytest.raises(AssertionError, match="dtypes differ: asnumpy float64, numpy int16") as info:
        body()
    assert "failed with t=int16" in _notes(info.value)


def test_dtype_loop_skips():
    @testing.for_dtypes([numpy.int8, numpy.float32])
    def some_skip(dtype):
        if dtype == numpy.int8:
            pytest.skip("int8 not relevant")

    @testing.for_dtypes([numpy.int8, numpy.float32])
    def all_skip(dtype):
        raise unittest.SkipTest("nothing relevant")

    some_skip()
    with pytest.raises(unittest.SkipTest):
        all_skip()


def test_pytest_fail_in_a_loop_names_the_dtype():
    @testing.for_dtypes([numpy.int8, numpy.uint8])
    def body(dtype):
        if dtype == numpy.uint8:
            pytest.fail("unsigned")

    with pytest.raises(pytest.fail.Exception) as info:
        body()
    assert "stopped with dtype=uint8" in _notes(info.value)


def test_order_loops():
    seen = []

    @testing.for_orders(["C", "F"])
    @testing.for_CF_orders(name="other")
    def body(order, other):
        seen.append((order, other))

    body()
    assert seen == [(o, p) for o in "CF" for p in [None, "C", "F", "c", "f"]]
    assert testing.for_cf_orders is testing.for_CF_orders


def test_dtype_combinations():
    full, sampled = [], []

    @testing.for_all_dtypes_combination(names=("a", "b"), full=True)
    def every(a, b):
        full.append((a, b))

    @testing.for_all_dtypes_combination(names=("a", "b"), full=False, no_complex=True)
    def some(a, b):
        sampled.append((a, b))

    every()
    some()
    assert sorted(full, key=str) == sorted([(a, b) for a in ALL_TYPES for b in ALL_TYPES], key=str)
    types = [t for t in ALL_TYPES if t not in (numpy.complex64, numpy.complex128)]
    assert len(types) <= len(sampled) <= 2 * len(types)
    assert len(set(sampled)) == len(sampled)
    assert {a for a, _ in sampled} == set(types) == {b for _, b in sampled}


def test_dtype_combination_sample_is_reproducible():
    def run():
        seen = []

        def body(a, b):
            seen.append((a, b))

        testing.for_all_dtypes_combination(names=("a", "b"), full=False)(body)()
        return seen

    assert run() == run()


def test_signatures_hide_injected_names():
    @testing.with_seed(1)
    @testing.for_all_dtypes()
    @testing.for_orders("CF")
    @testing.numpy_asnumpy_array_equal()
    def body(self, xp, dtype, order, fixture, param=1):
        return None

    assert list(inspect.signature(body).parameters) == ["self", "fixture", "param"]


# -- composition under pytest: real test classes with fixtures and parametrize --


@pytest.fixture
def columns():
    return 3


class TestComposesUnderPytest:

    @pytest.mark.parametrize("rows", [1, 2])
    @testing.for_all_dtypes(no_complex=True)
    @testing.numpy_asnumpy_array_equal()
    def test_loop_outside_comparison(self, xp, dtype, rows, columns):
        a = testing.shaped_arange((rows, columns), xp, dtype)
        return a, a.T, a.dtype, rows

    @testing.numpy_asnumpy_allclose()
    @testing.for_float_dtypes()
    @pytest.mark.parametrize("order", ["C", "F"])
    def test_comparison_outside_loop(self, xp, dtype, order, columns):
        return testing.shaped_random((2, columns), xp, dtype, order=order)

    @testing.with_seed(123)
    @testing.for_dtypes_combination([numpy.int8, numpy.float32], names=("a", "b"), full=True)
    @testing.numpy_asnumpy_array_equal()
    def test_combination_with_seed(self, xp, a, b, columns):
        assert testing.current_seed() == 123
        return (testing.shaped_arange((columns,), xp, a), testing.shaped_reverse_arange(2, xp, b),
                xp.asarray(numpy.random.rand(2)))


@given(n=st.integers(0, 4))
@settings(max_examples=5, deadline=None)
@testing.for_dtypes([numpy.int8, numpy.float32])
@testing.numpy_asnumpy_array_equal()
def test_composes_with_hypothesis(xp, dtype, n):
    return testing.shaped_arange((n,), xp, dtype)


def test_positional_arguments_do_not_collide_with_injected_ones():
    @testing.for_dtypes([numpy.int16])
    @testing.numpy_asnumpy_array_equal()
    def body(xp, dtype, n, m=1):
        return testing.shaped_arange((n, m), xp, dtype)

    body(2)
    body(2, 3)
    body(n=2, m=3)


# -- with_seed -----------------------------------------------------------------


def test_with_seed_seeds_numpy_random_and_restores_it():
    numpy.random.seed(5)
    after_five = numpy.random.RandomState(5).rand(2)
    drawn = []

    @testing.with_seed(42)
    def body():
        assert testing.current_seed() == 42
        drawn.append(numpy.random.rand(3))

    body()
    numpy.testing.assert_array_equal(drawn[0], numpy.random.RandomState(42).rand(3))
    numpy.testing.assert_array_equal(numpy.random.rand(2), after_five)
    assert testing.current_seed() is None


def test_with_seed_draws_fresh_seeds_and_reports_them():
    seeds = []

    @testing.with_seed
    def body():
        seeds.append(testing.current_seed())
        raise ValueError("unlucky")

    for _ in range(2):
        with pytest.raises(ValueError, match="unlucky") as info:
            body()
        assert f"with_seed({seeds[-1]})" in _notes(info.value)
    assert seeds[0] != seeds[1]
    assert all(0 <= s < 2**32 for s in seeds)


def test_with_seed_reports_the_seed_of_assertion_failures():
    @testing.with_seed(7)
    @testing.numpy_asnumpy_array_equal()
    def body(xp):
        values = numpy.random.rand(2)
        return xp.asarray(values if xp is numpy else values + 1)

    with pytest.raises(AssertionError) as info:
        body()
    assert "random seed 7" in _notes(info.value)


def test_with_seed_rejects_bad_seeds():
    with pytest.raises(ValueError):
        testing.with_seed(-1)
    with pytest.raises(ValueError):
        testing.with_seed(2**32)
    with pytest.raises(TypeError):
        testing.with_seed(1.5)


# -- assertions on either kind of array ------------------------------------------


def test_assertions_accept_asnumpy_arrays_on_either_side():
    host = numpy.array([1.0, 2.0, numpy.nan])
    device = _device(host)
    for x, y in [(device, host), (host, device), (device, device), (device, list(host))]:
        testing.assert_array_equal(x, y)
        testing.assert_allclose(x, y)
        testing.assert_array_almost_equal(x, y)
    testing.assert_array_less(_device([1, 2]), numpy.array([2, 3]))
    testing.assert_array_less(numpy.array([1, 2]), _device([2, 3]))
    testing.assert_allclose(_device(3.0), 3.0)
    testing.assert_array_equal([_device(1), _device(2)], numpy.array([1, 2]))
    testing.assert_array_list_equal([device, _device([1])], [host, numpy.array([1])])
    testing.assert_array_almost_equal_nulp(_device([1.0]), numpy.array([1.0]))
    testing.assert_array_max_ulp(_device([1.0]), numpy.array([1.0]))


def test_assertions_fail_on_differences():
    device = _device([1.0, 2.0])
    with pytest.raises(AssertionError):
        testing.assert_array_equal(device, numpy.array([1.0, 3.0]))
    with pytest.raises(AssertionError):
        testing.assert_allclose(numpy.array([1.0, 2.1]), device, rtol=1e-3)
    with pytest.raises(AssertionError):
        testing.assert_array_almost_equal(device, numpy.array([1.0, 2.001]), decimal=6)
    with pytest.raises(AssertionError):
        testing.assert_array_less(device, numpy.array([2.0, 2.0]))
    with pytest.raises(AssertionError):
        testing.assert_array_equal(device, numpy.array([1.0, 2.0], numpy.float32), strict=True)
    with pytest.raises(AssertionError):
        testing.assert_array_equal(device, numpy.array([1.0, 2.0, 3.0]))
    with pytest.raises(AssertionError, match="List size"):
        testing.assert_array_list_equal([device], [device, device])


# -- array makers ----------------------------------------------------------------


def test_shaped_arange_values():
    numpy.testing.assert_array_equal(testing.shaped_arange((2, 3), numpy, numpy.int32),
                                     numpy.arange(1, 7, dtype=numpy.int32).reshape(2, 3))
    numpy.testing.assert_array_equal(testing.shaped_arange(4, numpy, numpy.bool_),
                                     [False, True, False, True])
    numpy.testing.assert_array_equal(testing.shaped_arange(2, numpy, numpy.complex64),
                                     numpy.array([1 + 1j, 2 + 2j], numpy.complex64))
    numpy.testing.assert_array_equal(testing.shaped_reverse_arange((3,), numpy, numpy.uint8),
                                     numpy.array([3, 2, 1], numpy.uint8))
    assert testing.shaped_arange((), numpy).shape == ()
    assert testing.shaped_arange((0, 2), numpy).shape == (0, 2)


@testing.for_all_dtypes()
def test_array_makers_make_asnumpy_arrays_by_default(dtype):
    for make in (testing.shaped_arange, testing.shaped_reverse_arange, testing.shaped_random):
        device = make((2, 3), dtype=dtype)
        host = make((2, 3), numpy, dtype)
        assert isinstance(device, asnumpy.ndarray)
        assert device.dtype == numpy.dtype(dtype) == host.dtype
        numpy.testing.assert_array_equal(device.get(), host)


def test_shaped_random_is_deterministic_and_keeps_the_global_state():
    state = numpy.random.get_state()
    a = testing.shaped_random((3, 4), numpy, numpy.float64, seed=3)
    numpy.testing.assert_array_equal(a, numpy.random.RandomState(3).rand(3, 4) * 10)
    numpy.testing.assert_array_equal(testing.shaped_random((3, 4), numpy, numpy.float64, seed=3), a)
    assert not numpy.array_equal(testing.shaped_random((3, 4), numpy, numpy.float64, seed=4), a)
    assert numpy.all((0 <= a) & (a < 10))
    complex_values = testing.shaped_random((50,), numpy, numpy.complex128, scale=2)
    assert numpy.all(complex_values.imag != 0) and numpy.all(numpy.abs(complex_values.real) < 2)
    assert set(testing.shaped_random((50,), numpy, numpy.bool_).tolist()) == {True, False}
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], state[1])


def test_array_makers_order_and_device():
    f = testing.shaped_arange((2, 3), dtype=numpy.float64, order="F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    assert testing.shaped_random((2, 3), numpy, order="F").flags.f_contiguous
    on_one = testing.shaped_arange((2,), device="cpu:1")
    assert on_one.device == asnumpy.Device("cpu:1")


# -- layout and device checks ---------------------------------------------------


def test_strides_check_compares_layout():
    @testing.numpy_asnumpy_array_equal(strides_check=True)
    def body(xp):
        order = "C" if xp is numpy else "F"
        return xp.asarray(numpy.arange(6.0).reshape(2, 3), order=order)

    with pytest.raises(AssertionError):
        body()


def test_strides_check_ignores_strides_of_length_one_axes():
    @testing.numpy_asnumpy_array_equal(strides_check=True)
    def body(xp):
        data = numpy.random.rand(1, 4)
        # the same layout, reached two ways: a length-1 axis of stride 32 or 8
        return xp.asarray(data) if xp is numpy else xp.asarray(data.T).T

    body()

    @testing.numpy_asnumpy_array_equal(strides_check="exact")
    def exact(xp):
        data = numpy.ones((1, 4))
        return xp.asarray(data) if xp is numpy else xp.asarray(data.T).T

    if asnumpy.asarray(numpy.ones((4, 1))).T.strides != numpy.ones((1, 4)).strides:
        with pytest.raises(AssertionError):
            exact()


def test_strides_check_rejects_unknown_modes():
    with pytest.raises(ValueError, match="strides_check"):
        testing.numpy_asnumpy_array_equal(strides_check="loose")


def test_device_check_requires_device_results():
    @testing.numpy_asnumpy_array_equal(device_check=True)
    def host_result(xp):
        return numpy.arange(3)

    with pytest.raises(AssertionError, match="device_check"):
        host_result()

    @testing.numpy_asnumpy_array_equal(device_check=True)
    def device_result(xp):
        return xp.asarray(numpy.arange(3))

    device_result()


# -- suppress_warnings (numpy.testing's semantics) and the warning assertions -----------

def _warn(message="careful", category=UserWarning):
    _warnings.warn(message, category, stacklevel=2)


def test_suppress_warnings_filter_by_category_and_message():
    with _warnings.catch_warnings(record=True) as shown:
        _warnings.simplefilter("always")
        with suppress_warnings() as sup:
            sup.filter(DeprecationWarning)
            sup.filter(UserWarning, message="ign")
            _warn("old", DeprecationWarning)
            _warn("IGNORED text")               # message: case-insensitive, from the start
            _warn("not ignored")
            _warn("runtime", RuntimeWarning)
    assert [str(w.message) for w in shown] == ["not ignored", "runtime"]


def test_suppress_warnings_record_and_log():
    with suppress_warnings() as sup:
        recorded = sup.record(RuntimeWarning)
        sup.filter(UserWarning)
        _warn("r1", RuntimeWarning)
        _warn("u1")
        _warn("r2", RuntimeWarning)
    assert [str(w.message) for w in recorded] == ["r1", "r2"]
    assert [str(w.message) for w in sup.log] == ["r1", "r2"]


def test_suppress_warnings_module_filter():
    import asnumpy.testing._warnings as other_module
    with _warnings.catch_warnings(record=True) as shown:
        _warnings.simplefilter("always")
        with suppress_warnings() as sup:
            sup.filter(module=other_module)      # warnings raised in another module only
            _warn("from this test module")
        with suppress_warnings() as sup:
            sup.filter(module=sys.modules[__name__])
            _warn("suppressed here")
    assert [str(w.message) for w in shown] == ["from this test module"]


@pytest.mark.parametrize("rule, expected", [("always", 4), ("once", 2), ("location", 3),
                                            ("module", 2)])
def test_suppress_warnings_forwarding_rules(rule, expected):
    with _warnings.catch_warnings(record=True) as shown:
        _warnings.simplefilter("always")
        with suppress_warnings(rule):
            for _ in range(2):
                _warn("a")                       # the same location twice
            _warn("a")                           # the same text elsewhere
            _warn("b")
    assert len(shown) == expected


def test_suppress_warnings_rules_inside_the_context_end_with_it():
    sup = suppress_warnings()
    sup.filter(UserWarning, message="always")
    with _warnings.catch_warnings(record=True) as shown:
        _warnings.simplefilter("always")
        with sup:
            sup.filter(RuntimeWarning)
            _warn("always hidden")
            _warn("inside", RuntimeWarning)
        with sup:
            _warn("always hidden")
            _warn("outside", RuntimeWarning)
    assert [str(w.message) for w in shown] == ["outside"]


def test_suppress_warnings_as_decorator_and_bare_asnumpy_style():
    sup = suppress_warnings()
    sup.filter(UserWarning)

    @sup
    def numpy_style():
        _warn("hidden")
        return 1

    @suppress_warnings
    def asnumpy_style(x):
        _warn("hidden too", RuntimeWarning)
        return x + 1

    with _warnings.catch_warnings(record=True) as shown:
        _warnings.simplefilter("always")
        assert numpy_style() == 1 and asnumpy_style(1) == 2
    assert shown == []
    assert asnumpy_style.__name__ == "asnumpy_style"


def test_suppress_warnings_errors():
    with pytest.raises(ValueError, match="forwarding rule 'sometimes'"):
        suppress_warnings("sometimes")
    sup = suppress_warnings()
    with sup:
        with pytest.raises(RuntimeError, match="cannot enter the same context twice"):
            sup.__enter__()


def test_suppress_warnings_catches_asnumpy_runtime_warnings(on_cpu):
    with suppress_warnings() as sup:
        log = sup.record(RuntimeWarning)
        asnumpy.log(asnumpy.asarray([-1.0]))
    assert len(log) == 1 and "invalid value" in str(log[0].message)


def test_assert_warns_and_no_warnings(on_cpu):
    assert assert_warns(UserWarning, lambda: (_warn(), 5)[1]) == 5
    with assert_warns(RuntimeWarning):
        asnumpy.sqrt(asnumpy.asarray([-1.0]))
    with pytest.raises(AssertionError, match="no DeprecationWarning was raised"):
        with assert_warns(DeprecationWarning):
            _warn()
    assert assert_no_warnings(lambda x: x * 2, 4) == 8
    with pytest.raises(AssertionError, match="got 1 warning"):
        with assert_no_warnings():
            _warn()
    with assert_warns_message(UserWarning, "care+ful"):
        _warn()
    with pytest.raises(AssertionError, match="matching 'other'"):
        with assert_warns_message(UserWarning, "other"):
            _warn()


def test_no_numpy_deprecation_warnings_from_the_helpers():
    with _warnings.catch_warnings():
        _warnings.simplefilter("error", DeprecationWarning)
        with suppress_warnings() as sup:
            sup.filter(UserWarning)
        with assert_warns(UserWarning):
            _warn()
        assert_no_warnings(lambda: None)


# -- NumPy's general assertions with asnumpy arrays; strict= ----------------------------

def test_assert_equal_nested_and_strict():
    a = asnumpy.arange(3)
    testing.assert_equal({"x": [a, 1.5], "y": (a,)}, {"x": [numpy.arange(3), 1.5],
                                                     "y": (numpy.arange(3),)})
    testing.assert_equal(asnumpy.zeros(3), 0)             # scalars broadcast by default
    with pytest.raises(AssertionError):
        testing.assert_equal(asnumpy.zeros(3), 0, strict=True)
    with pytest.raises(AssertionError):
        testing.assert_equal(asnumpy.zeros(3, numpy.float32), numpy.zeros(3), strict=True)
    with pytest.raises(AssertionError):
        testing.assert_equal({"x": a}, {"x": numpy.arange(1, 4)})


def test_assert_almost_and_approx_equal():
    testing.assert_almost_equal(asnumpy.asarray([1.0, 2.0]), [1.0 + 1e-9, 2.0])
    with pytest.raises(AssertionError):
        testing.assert_almost_equal(asnumpy.asarray([1.0]), [1.001], decimal=5)
    testing.assert_approx_equal(asnumpy.asarray(1234567.0), 1234568.0, significant=6)
    with pytest.raises(AssertionError):
        testing.assert_approx_equal(asnumpy.asarray(1.0), 1.1, significant=3)


def test_exception_assertions():
    testing.assert_raises(ValueError, asnumpy.zeros, -1)
    with testing.assert_raises_regex(ValueError, "negative dimensions"):
        asnumpy.zeros(-1)
    testing.assert_string_equal("abc", "abc")
    with pytest.raises(AssertionError):
        testing.assert_(False, "message")


def test_to_host_keeps_named_tuples():
    from asnumpy.testing._compare import to_host
    result = asnumpy.linalg.eigh(asnumpy.eye(2))
    host = to_host(result)
    assert type(host) is type(result) and isinstance(host.eigenvalues, numpy.ndarray)


# -- AsNumpy's options of the dtype loops ---------------------------------------


@pytest.mark.parametrize("decorator, expected", [
    (testing.for_all_dtypes(exclude=[numpy.float64, "i4"]),
     [t for t in ALL_TYPES if t not in (numpy.float64, numpy.int32)]),
    (testing.for_all_dtypes(exclude=numpy.complex64),
     [t for t in ALL_TYPES if t is not numpy.complex64]),
    (testing.for_all_dtypes(no_uint32=True, no_uint64=True),
     [t for t in ALL_TYPES if t not in (numpy.uint32, numpy.uint64)]),
    (testing.for_float_dtypes(exclude=[numpy.dtype("f2")]), [numpy.float32, numpy.float64]),
    (testing.for_int_dtypes(exclude=[numpy.bool_, numpy.int8], no_uint64=True),
     [numpy.int16, numpy.int32, numpy.int64, numpy.uint8, numpy.uint16, numpy.uint32]),
    (testing.for_signed_dtypes(exclude=[numpy.int64]), [numpy.int8, numpy.int16, numpy.int32]),
    (testing.for_unsigned_dtypes(no_uint32=True), [numpy.uint8, numpy.uint16, numpy.uint64]),
    (testing.for_complex_dtypes(exclude=[numpy.complex128]), [numpy.complex64]),
])
def test_dtype_loops_leave_out_what_asnumpy_options_say(decorator, expected):
    assert _dtypes_passed_by(decorator) == expected


def test_asnumpy_options_default_to_every_dtype():
    # AsNumpy defaulted no_float16/no_uint32/no_uint64 to True; asnumpy has those dtypes.
    for factory in (testing.for_all_dtypes, testing.for_unsigned_dtypes, testing.for_int_dtypes):
        params = inspect.signature(factory).parameters
        assert params["exclude"].default is None
        assert params["no_uint32"].default is False and params["no_uint64"].default is False
    assert inspect.signature(testing.for_all_dtypes).parameters["no_float16"].default is False


@testing.for_all_dtypes(exclude=[numpy.float64])
def test_a_body_failing_only_for_an_excluded_dtype_passes(dtype):
    assert dtype is not numpy.float64


def test_excluding_every_dtype_is_an_error():
    with pytest.raises(ValueError, match="nothing to loop over"):
        testing.for_complex_dtypes(exclude=[numpy.complex64, numpy.complex128])(
            lambda dtype: None)


def test_combination_loops_take_the_asnumpy_options():
    seen = set()

    @testing.for_all_dtypes_combination(names=("a", "b"), full=True,
                                        exclude=[numpy.float64], no_uint64=True)
    def body(a, b):
        seen.update((a, b))

    body()
    assert seen == set(ALL_TYPES) - {numpy.float64, numpy.uint64}
    # CuPy's positional order still binds: names, no_bool, full.
    params = list(inspect.signature(testing.for_int_dtypes_combination).parameters)
    assert params[:3] == ["names", "no_bool", "full"]


# -- sp_name / scipy_name and allclose's strides_check -------------------------------


def test_scipy_name_runs_scipy_on_asnumpy_arrays():
    pytest.importorskip("scipy")
    import scipy
    import scipy.special

    seen = []

    # device_check: with SCIPY_ARRAY_API=1 (tests/conftest.py) SciPy computes in asnumpy
    @testing.numpy_asnumpy_allclose(rtol=1e-12, scipy_name="scipy", device_check=True)
    def body(xp, scipy):
        seen.append(scipy)
        x = xp.asarray(numpy.array([[1.0, 2.0, 3.0], [-4.0, 0.5, 6.0]]))
        return scipy.special.logsumexp(x, axis=1)

    assert list(inspect.signature(body).parameters) == []
    body()
    assert seen == [scipy, scipy]


def test_sp_name_passes_scipy_sparse():
    pytest.importorskip("scipy")
    import scipy.sparse

    @testing.numpy_asnumpy_array_equal(sp_name="sp", scipy_name="sc")
    def body(xp, sp, sc):
        assert sp is scipy.sparse and sc.sparse is scipy.sparse
        return sp.csr_array(numpy.eye(3)).toarray()

    body()


def test_scipy_modules_missing_raise_a_clear_error(monkeypatch):
    @testing.numpy_asnumpy_array_equal(scipy_name="scipy")
    def body(xp, scipy):
        return xp.zeros(2)

    monkeypatch.setitem(sys.modules, "scipy", None)  # import scipy now fails
    with pytest.raises(ImportError, match=r"numpy_asnumpy_array_equal.*SciPy is not installed"):
        body()


@pytest.mark.parametrize("decorator", [
    testing.numpy_asnumpy_array_almost_equal, testing.numpy_asnumpy_array_less,
    testing.numpy_asnumpy_equal,
])
def test_every_comparison_takes_scipy_name(decorator):
    pytest.importorskip("scipy")
    import scipy

    shift = 1 if decorator is testing.numpy_asnumpy_array_less else 0

    @decorator(scipy_name="sc")
    def body(xp, sc):
        assert sc is scipy
        values = xp.asarray(numpy.arange(2.0))
        if decorator is testing.numpy_asnumpy_equal:
            return values.shape
        return values - shift if xp is asnumpy else values

    body()


def test_scipy_names_must_be_argument_names():
    with pytest.raises(TypeError, match="sp_name"):
        testing.numpy_asnumpy_allclose(sp_name=3)


def test_allclose_strides_check():
    @testing.numpy_asnumpy_allclose(strides_check=True)
    def transposed(xp):
        a = xp.asarray(numpy.arange(6.0).reshape(2, 3))
        return a.T if xp is numpy else a.T.copy()

    with pytest.raises(AssertionError, match="strides differ"):
        transposed()

    @testing.numpy_asnumpy_allclose(strides_check=True)
    def same(xp):
        return xp.asarray(numpy.arange(6.0).reshape(2, 3)).T

    same()


# -- test data and constants -------------------------------------------------------


def test_constants_cover_edge_shapes_every_dtype_and_both_orders():
    assert () in testing.TEST_SHAPES and any(0 in s for s in testing.TEST_SHAPES)
    assert list(testing.TEST_DTYPES) == ALL_TYPES
    assert testing.TEST_ORDERS == ("C", "F")


@testing.for_all_dtypes()
def test_generate_test_data(dtype):
    host = testing.generate_test_data((4, 50), dtype, numpy, seed=1)
    device = testing.generate_test_data((4, 50), dtype, seed=1)
    assert isinstance(device, asnumpy.ndarray) and host.dtype == device.dtype == dtype
    numpy.testing.assert_array_equal(device.get(), host)
    if numpy.dtype(dtype).kind in "iufc":
        values = host.real if numpy.dtype(dtype).kind == "c" else host
        assert values.min() >= (0 if numpy.dtype(dtype).kind == "u" else -10)
        assert values.max() < 10
        if numpy.dtype(dtype).kind != "u":
            assert values.min() < 0  # signs included
    else:
        assert set(host.ravel().tolist()) == {True, False}


def test_generate_test_data_seed_range_and_layout():
    state = numpy.random.get_state()
    a = testing.generate_test_data((3, 4), numpy.float64, numpy, seed=5)
    numpy.testing.assert_array_equal(a, testing.generate_test_data((3, 4), "f8", numpy, seed=5))
    assert not numpy.array_equal(a, testing.generate_test_data((3, 4), "f8", numpy, seed=6))
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], state[1])
    b = testing.generate_test_data(100, numpy.uint8, numpy, low=250, high=256)
    assert b.min() >= 250
    assert testing.generate_test_data((2, 3), order="F").flags.f_contiguous
    assert testing.generate_test_data((), numpy.int8, numpy).shape == ()
    with pytest.raises(ValueError, match="generate_test_data"):
        testing.generate_test_data(3, numpy.uint8, low=-1)


# -- parameterized tests ------------------------------------------------------------


def test_product_and_product_dict():
    assert testing.product({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    assert testing.product({}) == [{}]
    assert testing.product({"a": []}) == []
    assert testing.product_dict([{"a": 1}, {"a": 2}], [{"b": 3, "c": 4}]) == [
        {"a": 1, "b": 3, "c": 4}, {"a": 2, "b": 3, "c": 4}]
    # AsNumpy's form: dicts of value lists
    assert testing.product_dict({"a": [1, 2]}, {"b": [3]}) == [{"a": 1, "b": 3}, {"a": 2, "b": 3}]
    assert testing.product_dict([{"a": 1}], [{"a": 2}]) == [{"a": 2}]
    with pytest.raises(TypeError, match="product"):
        testing.product([("a", 1)])
    with pytest.raises(TypeError, match="product_dict"):
        testing.product_dict([1, 2])


@testing.parameterize(*testing.product({"shape": [(2, 3), (0,)], "dtype": [numpy.int8, "f4"]}))
class TestParameterizedClass:
    # pytest collects the four generated classes; the decorated name holds a TestBundle.

    def test_attributes_are_set(self):
        a = asnumpy.zeros(self.shape, dtype=self.dtype)
        assert a.shape == self.shape and a.dtype == numpy.dtype(self.dtype)
        assert self._params == {"shape": self.shape, "dtype": self.dtype}


@testing.parameterize({"k": 1}, {"k": 2})
@testing.parameterize({"n": 10}, {"n": 20}, {"n": 30})
class TestStackedParameterize(unittest.TestCase):
    def test_both_attributes(self):
        assert self.k in (1, 2) and self.n in (10, 20, 30)


def test_parameterize_generates_the_cases():
    module = sys.modules[__name__]
    assert isinstance(TestParameterizedClass, testing.TestBundle)
    generated = [c for c in TestParameterizedClass]
    assert len(generated) == 4
    assert [(c.shape, c.dtype) for c in generated] == [
        ((2, 3), numpy.int8), ((2, 3), "f4"), ((0,), numpy.int8), ((0,), "f4")]
    for cls in generated:
        assert getattr(module, cls.__name__) is cls and cls.__name__.isidentifier()
        assert cls.__name__.startswith("TestParameterizedClass_param_")
    stacked = list(TestStackedParameterize)
    assert sorted((c.k, c.n) for c in stacked) == [(k, n) for k in (1, 2) for n in (10, 20, 30)]
    assert all(issubclass(c, unittest.TestCase) for c in stacked)
    # the classes of the inner decorator were replaced in the module by the outer's
    inner = [name for name in vars(module) if name.startswith("TestStackedParameterize_param")
             and getattr(module, name) not in stacked]
    assert inner == []


def test_parameterize_runs_each_case_under_pytest(tmp_path):
    import subprocess
    import textwrap

    (tmp_path / "test_generated.py").write_text(textwrap.dedent("""
        from asnumpy import testing

        @testing.parameterize(*testing.product({"a": [1, 2, 3], "b": [0, 1]}))
        class TestCase:
            def test_it(self):
                assert (self.a, self.b) != (3, 1)

        @testing.parameterize({"x": 1, "y": 2}, {"x": 5, "y": 5})
        def test_function(x, y):
            assert x <= y

        @testing.parameterize({"n": 0}, {"n": 3})
        @testing.numpy_asnumpy_array_equal()
        def test_under_a_comparison(xp, n):
            return xp.arange(n)
    """))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider",
                          "test_generated.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert "1 failed, 9 passed" in run.stdout, run.stdout
    assert "TestCase_param_5_a_3_b_1::test_it" in run.stdout
    assert "test_function[x=1,y=2]" not in run.stdout  # passed: not listed by -rf


def test_parameterize_errors():
    with pytest.raises(ValueError, match="no parameter sets"):
        testing.parameterize()
    with pytest.raises(TypeError, match="must be a dict"):
        testing.parameterize([("a", 1)])
    with pytest.raises(ValueError, match="the names"):
        testing.parameterize({"a": 1}, {"b": 2})(lambda a: None)


def test_parameterize_test_class_and_make_decorator():
    class Base:
        pass

    classes = testing.parameterize_test_class(Base, {"dtype": [numpy.float32, numpy.int64]})
    assert [c.dtype for c in classes] == [numpy.float32, numpy.int64]
    assert all(issubclass(c, Base) for c in classes)
    assert classes[0].__name__ == "Base_param_0_dtype_float32"

    doubled = testing.make_decorator(
        lambda cls: testing.generate_test_classes(cls, [{"twice": True}, {"twice": False}]))
    bundle = doubled(Base)
    assert isinstance(bundle, testing.TestBundle) and len(bundle) == 2
    assert [c.twice for c in bundle] == [True, False]
    assert testing.TestBundle.__test__ is False


def test_pytest_helpers():
    assert testing.pytest_is_available()
    assert testing.fixture is pytest.fixture
    assert testing.skip.name == "skip" and testing.skipif.name == "skipif"
    assert testing.xfail.name == "xfail"
    with pytest.raises(AttributeError):
        testing.no_such_helper  # noqa: B018


def test_pytest_helpers_without_pytest(monkeypatch):
    monkeypatch.setitem(sys.modules, "pytest", None)
    assert not testing.pytest_is_available()
    with pytest.raises(ImportError, match="skipif is pytest's"):
        testing.skipif  # noqa: B018
