"""Plans: ``ufunc.plan(...)`` handed to the user, and the implicit plan cache.

A plan is made once for operands of one signature (dtypes, shapes, strides,
device; the types of Python scalars) and launched many times, on the
current stream or a given one.  The implicit cache reuses plans for plain
calls: it must give NumPy's results whatever values come back with the same
signature, Python scalars changing value or type included.
"""

import numpy
import pytest
from _ufunc_data import FLAGS_ON_CPU_ONLY, operand

import asnumpy
from asnumpy._core.ufuncs.ufunc import _PLAN_CACHE_SIZE


def device(host):
    return asnumpy.asarray(host)


def check(result, expected):
    """Same dtype and shape, equal values (NaN equal)."""
    for ours, theirs in zip(result if isinstance(result, tuple) else (result,),
                            expected if isinstance(expected, tuple) else (expected,)):
        assert isinstance(ours, asnumpy.ndarray)
        theirs = numpy.asarray(theirs)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        numpy.testing.assert_array_equal(ours.get(), theirs)


# -- user plans -------------------------------------------------------------------------


def test_plan_with_out(rng):
    x, y = rng.standard_normal((3, 4)), rng.standard_normal(4)
    dx, dy, z = device(x), device(y), asnumpy.empty((3, 4))
    plan = asnumpy.add.plan(dx, dy, out=z)
    assert isinstance(plan, asnumpy.Plan)
    assert plan.ufunc is asnumpy.add and plan.shape == (3, 4) and plan.device == dx.device
    assert plan.loop == numpy.add.resolve_dtypes((x.dtype, y.dtype, None))
    assert isinstance(plan.workspace_size, int) and plan.workspace_size >= 0
    assert "add" in repr(plan)
    for _ in range(3):
        x[...] = rng.standard_normal((3, 4))
        dx = device(x)
        assert plan(dx, dy, out=z) is z
        check(z, x + y)
    fresh = plan(dx, dy)                              # no out: a new array each launch
    assert fresh is not z and fresh is not plan(dx, dy)
    check(fresh, x + y)


@pytest.mark.parametrize("name", ["add", "multiply", "divide", "maximum", "less", "arctan2",
                                  "logical_xor", "sqrt", "negative", "isnan", "divmod", "frexp",
                                  "modf", "matmul", "vecdot"])
def test_plans_of_many_ufuncs(rng, name):
    ufunc, reference = getattr(asnumpy, name), getattr(numpy, name)
    shapes = {"matmul": [(3, 4), (4, 2)], "vecdot": [(3, 4), (4,)]}.get(name, [(2, 5), (5,)])
    plan = None
    for _ in range(3):
        hosts = [rng.standard_normal(s) for s in shapes[:ufunc.nin]]
        args = [device(h) for h in hosts]
        plan = plan or ufunc.plan(*args)
        with numpy.errstate(all="ignore"):
            check(plan(*args), reference(*hosts))
            check(ufunc(*args), reference(*hosts))


def test_plan_with_python_scalars_takes_each_value():
    host = numpy.array([0, 7, 200], numpy.uint8)
    x = device(host)
    plan = asnumpy.add.plan(x, 3)
    for value in (0, 1, 55, 255):
        check(plan(x, value), host + value)
    with pytest.raises(OverflowError):
        plan(x, 256)
    with pytest.raises(OverflowError):
        plan(x, -1)
    with pytest.raises(ValueError, match="other operands"):
        plan(x, 2.5)                                   # another scalar type: another signature
    reflected = asnumpy.subtract.plan(3, x)
    check(reflected(250, x), numpy.subtract(250, host))


@pytest.mark.parametrize("name", ["equal", "not_equal", "less", "less_equal", "greater",
                                  "greater_equal"])
def test_comparison_plans_with_python_ints_out_of_range(name):
    host = numpy.array([0, 5, 255], numpy.uint8)
    x = device(host)
    reference = getattr(numpy, name)
    for planned in (5, 300, -1):
        right, left = getattr(asnumpy, name).plan(x, planned), getattr(asnumpy, name).plan(
            planned, x)
        for value in (5, 255, 256, -1, 2**70, -(2**70), 0):
            check(right(x, value), reference(host, value))
            check(left(value, x), reference(value, host))


def test_plan_refuses_other_operands():
    x, y = asnumpy.ones((2, 3)), asnumpy.ones(3)
    plan = asnumpy.add.plan(x, y)
    others = [
        (asnumpy.ones((2, 3), dtype=numpy.float32), y),          # dtype
        (asnumpy.ones((3, 3)), y),                                # shape
        (asnumpy.ones((3, 2)).T, y),                              # strides
        (asnumpy.asarray(numpy.ones((2, 3)), device="cpu:1"), y),  # device
        (x, 1.0),                                                 # a scalar for an array
        (numpy.ones((2, 3)), y),                                  # a host array
    ]
    for args in others:
        with pytest.raises(ValueError, match="asnumpy.add: this plan was made for other"):
            plan(*args)
    for out in (asnumpy.empty((3, 3)), asnumpy.empty((2, 3), dtype=numpy.float32),
                asnumpy.empty((2, 3), device="cpu:1")):
        with pytest.raises(ValueError, match="asnumpy.add"):
            plan(x, y, out=out)
    read_only = asnumpy.empty((2, 3))
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="asnumpy.add"):
        plan(x, y, out=read_only)


def test_planning_raises_numpys_errors():
    x = asnumpy.ones(3, dtype=numpy.int8)
    with pytest.raises(TypeError):
        asnumpy.add.plan(x, 1.5, out=asnumpy.empty(3, dtype=numpy.int8))
    with pytest.raises(ValueError, match="broadcast"):
        asnumpy.add.plan(x, asnumpy.ones(4))
    with pytest.raises(TypeError):
        asnumpy.subtract.plan(x > 0, x > 0)


def test_plan_with_keywords(rng):
    host = rng.integers(-50, 50, (4, 3)).astype(numpy.int16)
    x = device(host)
    check(asnumpy.multiply.plan(x, 3, dtype=numpy.float32)(x, 3),
          numpy.multiply(host, 3, dtype=numpy.float32))
    mask_host = rng.random((4, 3)) < 0.5
    mask = device(mask_host)
    out, expected = asnumpy.zeros((4, 3), dtype=numpy.int16), numpy.zeros((4, 3), numpy.int16)
    plan = asnumpy.negative.plan(x, out=out, where=mask)
    plan(x, out=out, where=mask)
    numpy.negative(host, out=expected, where=mask_host)
    check(out, expected)
    with pytest.raises(ValueError, match="other operands"):
        plan(x, out=out, where=device(mask_host[:, :1]))
    transposed = asnumpy.add.plan(x.T, 1, order="F")
    result = transposed(x.T, 1)
    expected = numpy.add(host.T, 1, order="F")
    check(result, expected)
    assert result.strides == expected.strides


def test_plan_on_a_user_stream(rng):
    x, y = rng.standard_normal(2**16), rng.standard_normal(2**16)
    dx, dy, z = device(x), device(y), asnumpy.empty(2**16)
    stream = asnumpy.Stream()
    plan = asnumpy.multiply.plan(dx, dy, out=z)
    for _ in range(4):
        assert plan(dx, dy, out=z, stream=stream) is z
    fresh = plan(dx, dy, stream=stream)
    stream.synchronize()
    check(z, x * y)
    check(fresh, x * y)
    with pytest.raises(TypeError, match="stream"):
        plan(dx, dy, stream="default")
    with pytest.raises(ValueError, match="stream"):
        plan(dx, dy, stream=asnumpy.Stream(device="cpu:1"))


@FLAGS_ON_CPU_ONLY
def test_plan_errors_on_a_user_stream_surface_at_synchronize():
    x = device(numpy.array([0.0, -1.0, 4.0]))
    plan = asnumpy.log.plan(x)
    stream = asnumpy.Stream()
    with asnumpy.errstate(divide="raise"):
        result = plan(x, stream=stream)
    with pytest.raises(FloatingPointError, match="divide by zero"):
        stream.synchronize()
    stream.synchronize()                      # reported once
    with asnumpy.errstate(all="ignore"):
        result = plan(x, stream=stream)
    stream.synchronize()
    check(result, numpy.array([-numpy.inf, numpy.nan, numpy.log(4.0)]))


# -- the implicit cache ------------------------------------------------------------------


def test_cache_same_signature_new_values():
    for dtype in (numpy.int8, numpy.uint64, numpy.float32, numpy.complex128, numpy.bool_):
        for _ in range(3):
            a, b = operand((3, 5), dtype), operand((5,), dtype)
            with numpy.errstate(all="ignore"):
                check(asnumpy.add(device(a), device(b)), numpy.add(a, b))
                check(asnumpy.maximum(device(a)[::-1], device(b)), numpy.maximum(a[::-1], b))


def test_cache_python_scalars_changing_value_and_type():
    host = numpy.array([1, 2, 250], numpy.uint8)
    x = device(host)
    for value in (1, 5, 2.5, True, 1j, 0, 255, -0.5, numpy.float32(2), numpy.int8(3),
                  numpy.uint8(9)):
        with numpy.errstate(all="ignore"):
            check(x + value, host + value)
            check(value * x, value * host)
            check(asnumpy.maximum(x, value), numpy.maximum(host, value))
    for value in (256, -1, 2**64):
        with pytest.raises(OverflowError):
            x + value
    for value in (3, 300, -1, 2**70, 250):
        check(x == value, host == value)
        check(x < value, host < value)
        check(value >= x, value >= host)


def test_cache_with_different_layouts_of_the_same_shape(rng):
    base = rng.standard_normal((6, 6))
    d = device(base)
    for view in (lambda a: a, lambda a: a.T, lambda a: a[::-1], lambda a: a[:, ::-1].T):
        check(asnumpy.subtract(view(d), d), numpy.subtract(view(base), base))
        result = asnumpy.negative(view(d))
        assert result.strides == numpy.negative(view(base)).strides


def test_cache_with_out_arrays(rng):
    host = rng.standard_normal((3, 4))
    x = device(host)
    outs = [asnumpy.empty((3, 4)) for _ in range(3)]
    for index, out in enumerate(outs):
        assert asnumpy.add(x, index, out=out) is out
        assert asnumpy.add(x, index, out=(out,)) is out
    for index, out in enumerate(outs):
        check(out, host + index)
    read_only = asnumpy.empty((3, 4))
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        asnumpy.add(x, 1, out=read_only)
    wide = asnumpy.empty((2, 3, 4))
    asnumpy.add(x, 1, out=wide)
    check(wide, numpy.broadcast_to(host + 1, (2, 3, 4)))


def test_cache_across_devices():
    host = numpy.arange(5.0)
    for name in ("cpu:0", "cpu:1", "cpu:0"):
        x = asnumpy.asarray(host, device=name)
        result = x * 2
        assert result.device == name
        check(result, host * 2)


def test_cache_eviction_keeps_results_right():
    results = []
    for n in range(1, _PLAN_CACHE_SIZE + 40):
        results.append((n, asnumpy.add(asnumpy.ones(n % 300 + 1), n)))
    for n, result in results[-50:]:
        check(result, numpy.ones(n % 300 + 1) + n)
    check(asnumpy.add(asnumpy.ones(1), 1), numpy.ones(1) + 1)
