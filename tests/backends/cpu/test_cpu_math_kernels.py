"""The cpu back end's math kernels, called directly and compared with NumPy.

Splitting is forced on small arrays by lowering the module's thresholds and
using four threads (``split`` fixture), so every path runs quickly:
elementwise results must be bit-identical to one NumPy call, reductions must
be deterministic (the same bits for any thread count and on every run) and as
accurate as NumPy's, and floating-point errors raised in worker threads must
be reported once, under the caller's ``numpy.errstate``, as NumPy reports them.
"""

import math
import threading
import warnings
import weakref

import numpy as np
import pytest
from _inputs import random_data

import asnumpy
from asnumpy.backends.cpu import fpstatus, parallel
from asnumpy.backends.cpu import math_kernels as mk
from asnumpy.backends.cpu.math_kernels import MATH_KERNELS

# These tests call the cpu back end's kernels, so their arrays live on cpu:0.
pytestmark = pytest.mark.usefixtures("on_cpu")


ufunc_kernel = MATH_KERNELS["ufunc"]
reduce_kernel = MATH_KERNELS["reduce"]

DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]
FLOATS = [np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.fixture
def split(monkeypatch):
    """Split everything bigger than a few dozen elements, across 4 threads."""
    monkeypatch.setattr(mk, "SPLIT_MIN_WORK", 64)
    monkeypatch.setattr(mk, "REDUCE_SPLIT_MIN", 64)
    monkeypatch.setattr(mk, "REDUCE_STREAMING_SPLIT_MIN", 64)
    monkeypatch.setattr(mk, "REDUCE_CHUNK", 16)
    before = parallel.thread_count()
    parallel.set_thread_count(4)
    yield
    parallel.set_thread_count(before)


@pytest.fixture
def runs(monkeypatch):
    """How many times a math kernel split its work (ran parallel.run), as a one-item list."""
    count = [0]
    real = parallel.run

    def counting(task, *args, **kwargs):
        count[0] += task.__module__ == mk.__name__
        return real(task, *args, **kwargs)

    monkeypatch.setattr(parallel, "run", counting)
    return count


def dev(array):
    return asnumpy.asarray(array)


def same_bits(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert np.ascontiguousarray(actual).tobytes() == np.ascontiguousarray(expected).tobytes()


def run_ufunc(f, inputs, out_dtypes, shape, where=None, prefill=None, loop=None):
    """The kernel's outputs and NumPy's for the same call (or the error types)."""
    if loop is None:
        loop = f.resolve_dtypes(tuple(x.dtype for x in inputs) + (None,) * f.nout)
    hosts = [np.zeros(shape, d) if prefill is None else np.full(shape, prefill, d)
             for d in out_dtypes or loop[f.nin:]]
    expected = [h.copy() for h in hosts]
    extra = {} if where is None else {"where": where}
    with np.errstate(all="ignore"):
        try:
            f(*inputs, out=tuple(expected), signature=loop, casting="unsafe", **extra)
        except (ValueError, TypeError) as error:
            expected = type(error)
        outs = tuple(dev(h) for h in hosts)
        args = [dev(x) if x.ndim else x for x in inputs]
        w = None if where is None else (dev(where) if where.ndim else where)
        try:
            ufunc_kernel(outs, f.__name__, loop, args, w)
        except (ValueError, TypeError) as error:
            return type(error), expected
    return [o.get() for o in outs], expected


def check_identical(f, inputs, shape, **kwargs):
    actual, expected = run_ufunc(f, inputs, None, shape, **kwargs)
    if isinstance(expected, type):
        assert actual is expected
        return
    for a, e in zip(actual, expected):
        same_bits(a, e)


UNARY = ["negative", "absolute", "sqrt", "exp", "log", "sin", "arctanh", "sign", "isnan",
         "invert", "frexp", "modf", "spacing", "rint", "square", "cbrt"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
          "arctan2", "maximum", "fmin", "logical_xor", "bitwise_and", "left_shift", "divmod",
          "hypot", "logaddexp", "less_equal", "copysign", "heaviside", "ldexp", "nextafter"]


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_split_elementwise_is_bit_identical(rng, split, runs, name):
    f = mk.UFUNCS[name]
    shape = (37, 53)
    tried = 0
    for dtype in DTYPES:
        inputs = [random_data(rng, shape, dtype) for _ in range(f.nin)]
        if name == "ldexp":
            inputs[1] = rng.integers(-20, 20, shape, dtype=np.int32)
        try:
            f.resolve_dtypes(tuple(x.dtype for x in inputs) + (None,) * f.nout)
        except TypeError:
            continue
        tried += 1
        check_identical(f, inputs, shape)
    assert tried
    assert runs[0] > 0


@pytest.mark.parametrize("layout", ["strided", "negative", "transposed", "broadcast", "scalar",
                                    "column", "three-d", "where", "where-scalar"])
@pytest.mark.parametrize("name", ["add", "exp", "arctan2", "divmod", "frexp"])
def test_split_layouts(rng, split, runs, layout, name):
    f = mk.UFUNCS[name]
    dtype = np.float32 if name != "add" else np.int16
    base = random_data(rng, (80, 66), dtype)
    shape = (40, 33)
    where = None
    if layout == "strided":
        operands = [base[::2, ::2], random_data(rng, (80, 66), dtype)[1::2, ::2]]
    elif layout == "negative":
        operands = [base[::-2, ::-2], base[40:, 33:]]
    elif layout == "transposed":
        operands = [np.asfortranarray(base[:40, :33]), random_data(rng, (33, 40), dtype).T]
    elif layout == "broadcast":
        operands = [base[:40, :1], random_data(rng, 33, dtype)]
    elif layout == "scalar":
        operands = [base[:40, :33], np.asarray(random_data(rng, (), dtype))]
    elif layout == "column":
        shape = (4000, 1)
        operands = [random_data(rng, shape, dtype), random_data(rng, (4000, 1), dtype)]
    elif layout == "three-d":
        shape = (3, 20, 33)
        operands = [random_data(rng, (20, 33), dtype), random_data(rng, (3, 1, 33), dtype)[..., ::-1]]
    elif layout == "where":
        operands = [base[:40, :33], base[40:, 33:]]
        where = rng.random(33) < 0.5
    else:
        operands = [base[:40, :33], base[40:, 33:]]
        where = np.asarray(False)
    operands = operands[:f.nin]
    actual, expected = run_ufunc(f, operands, None, shape, where=where, prefill=7)
    for a, e in zip(actual, expected):
        same_bits(a, e)
    assert runs[0] == 1


def test_python_scalar_operand(rng, split):
    x = random_data(rng, (50, 40), np.float64)
    out = dev(np.empty_like(x))
    loop = (np.dtype(np.float64),) * 3
    ufunc_kernel((out,), "multiply", loop, (dev(x), 2.5), None)
    same_bits(out.get(), x * 2.5)
    small = dev(np.empty(3))
    ufunc_kernel((small,), "multiply", loop, (dev(x[0, :3]), 2.5), None)
    same_bits(small.get(), x[0, :3] * 2.5)


def test_in_place_is_split(rng, split, runs):
    host = random_data(rng, (60, 70), np.float64)
    x = dev(host)
    loop = (np.dtype(np.float64),) * 2
    ufunc_kernel((x,), "exp", loop, (x,), None)
    assert runs[0] == 1
    same_bits(x.get(), np.exp(host))
    y = dev(host)                       # in place through equal views
    ufunc_kernel((y[::-1],), "negative", loop, (y[::-1],), None)
    assert runs[0] == 2
    same_bits(y.get(), -host)


@pytest.mark.parametrize("dst, src", [
    (slice(1, None), slice(None, -1)),
    (slice(None, -1), slice(1, None)),
    (slice(None, -7), slice(-1, 6, -1)),
    (slice(None, None, -1), slice(None)),     # same memory, another layout
])
def test_overlapping_output_is_not_split(rng, split, runs, dst, src):
    host = random_data(rng, 5000, np.float64)
    expected = host.copy()
    np.add(expected[src], 1.5, out=expected[dst])
    x = dev(host)
    ufunc_kernel((x[dst],), "add", (np.dtype(np.float64),) * 3, (x[src], np.asarray(1.5)), None)
    assert runs[0] == 0
    same_bits(x.get(), expected)


def test_outputs_overlapping_each_other_are_not_split(rng, split, runs):
    host = random_data(rng, 4000, np.float64)
    buffer = dev(np.zeros(4001))
    loop = (np.dtype(np.float64),) * 3
    ufunc_kernel((buffer[1:], buffer[:-1]), "modf", loop, (dev(host),), None)
    assert runs[0] == 0
    expected = np.zeros(4001)
    np.modf(host, out=(expected[1:], expected[:-1]))
    same_bits(buffer.get(), expected)


@pytest.mark.parametrize("shape", [(), (0,), (5, 0), (1,)])
def test_zero_d_and_empty(rng, split, shape):
    for name in ["add", "divmod"]:
        f = mk.UFUNCS[name]
        inputs = [random_data(rng, shape, np.float64) for _ in range(f.nin)]
        check_identical(f, inputs, shape)


def test_gufunc_runs_directly(rng, split, runs):
    a, b = random_data(rng, (30, 40), np.float64), random_data(rng, (40, 20), np.float64)
    out = dev(np.empty((30, 20)))
    ufunc_kernel((out,), "matmul", (np.dtype(np.float64),) * 3, (dev(a), dev(b)), None)
    assert runs[0] == 0
    same_bits(out.get(), np.matmul(a, b))


def test_small_calls_are_not_split(rng, runs):
    x = random_data(rng, 1000, np.float32)
    out = dev(np.empty(1000, np.float32))
    ufunc_kernel((out,), "sin", (np.dtype(np.float32),) * 2, (dev(x),), None)
    assert runs[0] == 0
    same_bits(out.get(), np.sin(x))


# ---------------------------------------------------------------------------
# Floating-point errors raised in worker threads

def divide_by_zero_data():
    x = np.linspace(-1, 1, 3000)        # x / 0 -> divide by zero, 0 / 0 -> invalid
    x[::3] = 0.0
    y = np.zeros(3000)
    y[::2] = 1.0
    return x, y


def split_divide(x, y):
    out = dev(np.empty_like(x))
    ufunc_kernel((out,), "divide", (np.dtype(np.float64),) * 3, (dev(x), dev(y)), None)
    return out.get()


@pytest.mark.parametrize("mode", ["warn", "ignore"])
def test_fp_errors_warn_once_like_numpy(split, runs, mode):
    x, y = divide_by_zero_data()
    with warnings.catch_warnings(record=True) as numpy_warnings, np.errstate(all=mode):
        warnings.simplefilter("always")
        expected = np.divide(x, y)
    with warnings.catch_warnings(record=True) as our_warnings, np.errstate(all=mode):
        warnings.simplefilter("always")
        actual = split_divide(x, y)
    assert runs[0] == 1
    same_bits(actual, expected)
    texts = [(w.category, str(w.message)) for w in our_warnings]
    assert texts == [(w.category, str(w.message)) for w in numpy_warnings]
    if mode == "warn":
        assert texts == [(RuntimeWarning, "divide by zero encountered in divide"),
                         (RuntimeWarning, "invalid value encountered in divide")]
    else:
        assert texts == []


def test_fp_errors_raise(split, runs):
    x, y = divide_by_zero_data()
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError) as numpy_error:
        np.divide(x, y)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError) as our_error:
        split_divide(x, y)
    assert runs[0] == 1
    assert str(our_error.value) == str(numpy_error.value) == "divide by zero encountered in divide"
    # invalid is raised while divide only warns: the warning comes first, as in NumPy
    with np.errstate(divide="warn", invalid="raise"), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pytest.raises(FloatingPointError, match="invalid value encountered in divide"):
            split_divide(x, y)
    assert [str(m.message) for m in w] == ["divide by zero encountered in divide"]


def test_fp_errors_call_and_log_like_numpy(split, runs, capfd):
    x, y = divide_by_zero_data()
    big = np.full(3000, 1e300)

    def record(calls):
        return lambda *args: calls.append(args)

    class Log:
        def __init__(self):
            self.lines = []

        def write(self, text):
            self.lines.append(text)

    for a, b in [(x, y), (big, big)]:
        numpy_calls, our_calls = [], []
        with np.errstate(all="call", call=record(numpy_calls)):
            np.multiply(a, b) if a is big else np.divide(a, b)
        with np.errstate(all="call", call=record(our_calls)):
            out = dev(np.empty(3000))
            ufunc_kernel((out,), "multiply" if a is big else "divide",
                         (np.dtype(np.float64),) * 3, (dev(a), dev(b)), None)
        assert our_calls == numpy_calls and our_calls
    numpy_log, our_log = Log(), Log()
    with np.errstate(all="log", call=numpy_log):
        np.divide(x, y)
    with np.errstate(all="log", call=our_log):
        split_divide(x, y)
    assert our_log.lines == numpy_log.lines == [
        "Warning: divide by zero encountered in divide\n",
        "Warning: invalid value encountered in divide\n"]
    capfd.readouterr()
    with np.errstate(all="print"):
        np.divide(x, y)
    numpy_printed = capfd.readouterr().err
    with np.errstate(all="print"):
        split_divide(x, y)
    assert capfd.readouterr().err == numpy_printed
    assert runs[0] == 4


def test_fp_errors_use_the_callers_settings_not_the_workers(split):
    """A worker thread's own errstate must not leak into the caller's report."""
    x, y = divide_by_zero_data()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        split_divide(x, y)              # nothing reported, nothing raised


def test_replay_without_handler_raises_numpys_error():
    before = np.geterrcall()
    try:
        np.seterrcall(None)
        for mode in ["call", "log"]:
            with np.errstate(divide=mode):
                with pytest.raises(NameError) as numpy_error:
                    np.divide(np.ones(1), 0.0)
                with pytest.raises(NameError) as our_error:
                    fpstatus.replay(fpstatus.DIVIDE, "divide")
            assert str(our_error.value) == str(numpy_error.value)
    finally:
        np.seterrcall(before)


def test_fp_flags_match_numpys():
    from numpy._core import umath
    assert (fpstatus.DIVIDE, fpstatus.OVERFLOW, fpstatus.UNDERFLOW, fpstatus.INVALID) == (
        umath.FPE_DIVIDEBYZERO, umath.FPE_OVERFLOW, umath.FPE_UNDERFLOW, umath.FPE_INVALID)


# ---------------------------------------------------------------------------
# Reductions

def reduce_on_device(name, host, axes, dtype, keepdims=False, initial=None, where=None,
                     out_dtype=None):
    f = mk.UFUNCS[name]
    ndim = host.ndim
    axes = tuple(range(ndim)) if axes is None else axes
    options = {} if initial is None else {"initial": initial}
    if where is not None:
        options["where"] = where
    with np.errstate(all="ignore"):
        expected = np.asarray(f.reduce(host, axis=axes, dtype=dtype, keepdims=keepdims, **options))
    out = dev(np.zeros(expected.shape, out_dtype or expected.dtype))
    reduce_kernel(out, name, dev(host), axes, None if dtype is None else np.dtype(dtype),
                  keepdims, None if initial is None else np.asarray(initial),
                  None if where is None else (dev(where) if where.ndim else where))
    return out.get(), expected


def assert_close_to_numpy(actual, expected, host, name):
    if actual.dtype.kind in "fc" and name == "multiply":
        rtol = np.finfo(actual.dtype).eps * host.size
        assert np.allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True)
    elif actual.dtype.kind in "fc" and name in ("add", "subtract"):
        scale = np.abs(host.astype(np.complex128 if host.dtype.kind == "c" else np.float64))
        bound = np.finfo(actual.dtype).eps * 4 * max(float(scale.max()), 1.0) * host.size
        assert np.allclose(actual, expected, rtol=1e-3, atol=bound, equal_nan=True)
    else:
        assert np.array_equal(actual, expected, equal_nan=actual.dtype.kind in "fc")


REDUCE_CASES = [
    ((60, 70), None), ((60, 70), (0,)), ((60, 70), (1,)), ((3, 900), (1,)), ((900, 3), (0,)),
    ((6, 20, 30), (0, 2)), ((6, 20, 30), (1,)), ((4, 5, 300), (0, 1)), ((2000,), (0,)),
]


@pytest.mark.parametrize("shape, axes", REDUCE_CASES)
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "fmin", "logical_or",
                                  "bitwise_xor", "subtract"])
def test_split_reduction_is_deterministic(rng, split, runs, shape, axes, name):
    f = mk.UFUNCS[name]
    if name == "subtract" and (axes is None or len(axes) > 1):
        return
    for dtype in [np.int32, np.uint8, np.float16, np.float32, np.float64, np.complex64, np.bool_]:
        order = rng.integers(3)
        host = random_data(rng, tuple(2 * n for n in shape) if order == 2 else shape, dtype)
        if name == "multiply" and host.dtype.kind in "fc":
            host = (1 + host / 1e4).astype(dtype)     # keep products finite
        if order == 1:
            host = np.asfortranarray(host)
        elif order == 2:
            host = host[(slice(None, None, -2),) * len(shape)]
        keepdims = bool(rng.integers(2))
        try:
            acc = np.asarray(f.reduce(host[(slice(0, 1),) * host.ndim], axis=axes)).dtype
        except TypeError:
            continue
        results = []
        with np.errstate(all="ignore"):
            for threads in [1, 2, 3, 4, 4, 2]:
                parallel.set_thread_count(threads)
                actual, expected = reduce_on_device(name, host, axes, acc, keepdims)
                results.append(actual)
        for other in results[1:]:
            same_bits(other, results[0])
        assert_close_to_numpy(results[0], expected, host, name)
    # subtract is split only along a non-reduced axis outermost in memory
    assert runs[0] > 0 or name == "subtract"


@pytest.mark.parametrize("name", ["add", "maximum", "subtract"])
def test_split_reduction_with_where_and_initial(rng, split, runs, name):
    host = random_data(rng, (40, 50), np.float64)
    where = rng.random(50) < 0.7
    initial = 3.0
    for axes in [(0,), (1,)]:
        if name == "subtract":
            actual, expected = reduce_on_device(name, host, axes, np.float64)
        else:
            actual, expected = reduce_on_device(name, host, axes, np.float64, initial=initial,
                                                where=where)
        assert_close_to_numpy(actual, expected, host, name)
    ints = random_data(rng, (40, 50), np.int64)
    actual, expected = reduce_on_device("add", ints, (1,), np.int64, where=where, initial=5)
    same_bits(actual, expected)
    # all axes reduced with a mask: one NumPy call
    actual, expected = reduce_on_device("add", ints, None, np.int64, where=np.asarray(True))
    same_bits(actual, expected)
    assert runs[0] > 0


def test_reduction_into_its_own_input_is_not_split(rng, split, runs):
    host = random_data(rng, (60, 70), np.int64)
    expected = host.copy()
    np.add.reduce(expected, axis=0, out=expected[0])
    x = dev(host)
    reduce_kernel(x[0], "add", x, (0,), np.dtype(np.int64), False, None, None)
    assert runs[0] == 0
    same_bits(x.get(), expected)


def test_reduction_dtype_and_out_cast(rng, split):
    host = random_data(rng, (50, 60), np.float16)
    actual, expected = reduce_on_device("add", host, None, np.float32)
    assert actual.dtype == np.float32
    assert np.allclose(actual, expected, rtol=1e-3)
    ints = random_data(rng, (50, 60), np.int8)
    actual, expected = reduce_on_device("add", ints, (0, 1), np.int64, out_dtype=np.int32)
    assert actual == expected.astype(np.int32)


def test_reduction_fp_errors_reported_once(split, runs):
    host = np.full((40, 50), 3e38, np.float32)
    for axes in [None, (0,), (1,)]:
        numpy_calls, our_calls = [], []
        with np.errstate(all="call", call=lambda *a, calls=numpy_calls: calls.append(a)):
            np.add.reduce(host, axis=axes)
        with np.errstate(all="call", call=lambda *a, calls=our_calls: calls.append(a)):
            reduce_on_device("add", host, axes, np.float32)
        assert our_calls == numpy_calls == [("overflow", fpstatus.OVERFLOW)]
        with warnings.catch_warnings(record=True) as w, np.errstate(over="warn"):
            warnings.simplefilter("always")
            out = dev(np.zeros(() if axes is None else (50 if axes == (0,) else 40), np.float32))
            reduce_kernel(out, "add", dev(host), axes or (0, 1), np.dtype(np.float32), False,
                          None, None)
        assert [str(m.message) for m in w] == ["overflow encountered in reduce"]
    assert runs[0] >= 6


def fsum_error(total, host):
    return abs(float(total) - math.fsum(host.astype(np.float64).ravel()))


def test_float32_sum_accuracy(rng, monkeypatch, runs):
    """Real chunk size: a large float32 sum is as accurate as NumPy's pairwise sum."""
    monkeypatch.setattr(mk, "REDUCE_SPLIT_MIN", mk.REDUCE_CHUNK)
    monkeypatch.setattr(mk, "REDUCE_STREAMING_SPLIT_MIN", mk.REDUCE_CHUNK)
    n = 3 * mk.REDUCE_CHUNK + 12345
    for host in [rng.random(n, np.float32), (rng.random(n) + 100).astype(np.float32),
                 rng.lognormal(0, 2, n).astype(np.float32)]:
        actual, expected = reduce_on_device("add", host, None, np.float32)
        ulp = float(np.spacing(np.float32(math.fsum(host.astype(np.float64)))))
        ours, numpy_error = fsum_error(actual, host), fsum_error(expected, host)
        # the same pairwise sums, cut elsewhere: as accurate, give or take rounding
        assert ours <= numpy_error + 2 * ulp
    mixed = (rng.standard_normal(n) * 100).astype(np.float32)
    actual, _ = reduce_on_device("add", mixed, None, np.float32)
    bound = np.finfo(np.float32).eps * math.log2(n) * float(np.abs(mixed).astype(np.float64).sum())
    assert fsum_error(actual, mixed) <= bound
    assert runs[0] == 4


def test_mean_sized_sum_is_split_and_deterministic(rng, monkeypatch, runs):
    """3000 x 3000 float32 split as the real thresholds split a converting sum (streaming
    ones are not split): same bits for any thread count."""
    monkeypatch.setattr(mk, "REDUCE_STREAMING_SPLIT_MIN", mk.REDUCE_SPLIT_MIN)
    host = rng.standard_normal((3000, 3000), np.float32)
    before = parallel.thread_count()
    results = []
    try:
        for threads in [1, 2, 3]:
            parallel.set_thread_count(threads)
            results.append(reduce_on_device("add", host, None, np.float32)[0])
    finally:
        parallel.set_thread_count(before)
    assert runs[0] == 3
    for other in results[1:]:
        same_bits(other, results[0])
    assert abs(float(results[0]) - math.fsum(host.astype(np.float64).ravel())) < 1e-2 * 3000


# ---------------------------------------------------------------------------
# accumulate, reduceat, outer, at, numpy_function

def test_accumulate_and_reduceat(rng):
    host = random_data(rng, (20, 30), np.float32)
    out = dev(np.empty((20, 30), np.float64))
    MATH_KERNELS["accumulate"](out, "add", dev(host[:, ::-1]), 1, np.dtype(np.float64))
    same_bits(out.get(), np.add.accumulate(host[:, ::-1], axis=1, dtype=np.float64))
    indices = np.array([0, 4, 4, 10, 2], np.intp)
    out = dev(np.empty((5, 30), np.float32))
    MATH_KERNELS["reduceat"](out, "maximum", dev(host), indices, 0, np.dtype(np.float32))
    same_bits(out.get(), np.maximum.reduceat(host, indices, axis=0))


def test_outer(rng):
    a, b = random_data(rng, (4, 5), np.int16), random_data(rng, 7, np.float32)
    loop = np.multiply.resolve_dtypes((a.dtype, b.dtype, None))
    out = dev(np.empty((4, 5, 7), np.float64))
    MATH_KERNELS["outer"]((out,), "multiply", loop, dev(a), dev(b))
    expected = np.empty((4, 5, 7))
    np.multiply.outer(a, b, out=expected, signature=loop, casting="unsafe")
    same_bits(out.get(), expected)
    q, r = dev(np.empty((5, 7), np.float32)), dev(np.empty((5, 7), np.float32))
    loop = np.divmod.resolve_dtypes((b.dtype, b.dtype, None, None))
    MATH_KERNELS["outer"]((q, r), "divmod", loop, dev(b[:5]), dev(b))
    with np.errstate(all="ignore"):
        eq, er = np.divmod.outer(b[:5], b)
    same_bits(q.get(), eq)
    same_bits(r.get(), er)


def test_at(rng):
    host = random_data(rng, (6, 8), np.int64)
    rows = np.array([0, 2, 2, 5])
    b = random_data(rng, (4, 8), np.int64)
    for indices, value in [((rows,), b), ((dev(rows), slice(None)), dev(b)), (rows, 3),
                           ((1, slice(2, 6)), np.int64(9))]:
        target = dev(host)
        expected = host.copy()
        np.add.at(expected, tuple(i.get() if hasattr(i, "get") else i for i in indices)
                  if isinstance(indices, tuple) else indices,
                  value.get() if hasattr(value, "get") else value)
        MATH_KERNELS["at"](target, "add", indices, value)
        same_bits(target.get(), expected)
    target = dev(host)
    MATH_KERNELS["at"](target, "negative", (rows,), None)
    expected = host.copy()
    np.negative.at(expected, rows)
    same_bits(target.get(), expected)


def test_numpy_function(rng):
    a = random_data(rng, (30, 40), np.float64)
    a[3, 4] = np.nan
    out = dev(np.empty(40, np.float32))
    MATH_KERNELS["numpy_function"]((out,), "nanmean", (dev(a),), {"axis": 0})
    same_bits(out.get(), np.nanmean(a, axis=0).astype(np.float32))
    out = dev(np.empty((), np.float64))
    MATH_KERNELS["numpy_function"]((out,), "linalg.norm", (dev(a[:, :5]),), {"ord": "fro"})
    same_bits(out.get(), np.asarray(np.linalg.norm(a[:, :5], ord="fro")))
    b = random_data(rng, (30, 40), np.float64)
    out = dev(np.empty((60, 40)))
    MATH_KERNELS["numpy_function"]((out,), "concatenate", ([dev(a), (dev(b))],), {"axis": 0})
    same_bits(out.get(), np.concatenate([a, b]))
    out = dev(np.empty((30, 40)))
    MATH_KERNELS["numpy_function"]((out,), "clip", (dev(a),), {"a_min": dev(b), "a_max": 50.0})
    same_bits(out.get(), np.clip(a, b, 50.0))
    mask = a > 0
    outs = tuple(dev(np.empty(int(mask.sum()), np.intp)) for _ in range(2))
    MATH_KERNELS["numpy_function"](outs, "nonzero", (dev(mask),), {})
    for o, e in zip(outs, np.nonzero(mask)):
        same_bits(o.get(), e)
    with pytest.raises(ValueError, match="2 results for 1 outputs"):
        MATH_KERNELS["numpy_function"]((outs[0],), "nonzero", (dev(mask),), {})


def test_every_numpy_ufunc_is_known():
    for value in vars(np).values():
        if isinstance(value, np.ufunc):
            assert mk.UFUNCS[value.__name__] is value


# ---------------------------------------------------------------------------
# The thread pool

def test_run_calls_every_piece_once_and_waits():
    before = parallel.thread_count()
    try:
        for threads in [1, 2, 4]:
            parallel.set_thread_count(threads)
            seen = []
            lock = threading.Lock()

            def task(i, lock=lock, seen=seen):
                np.sin(np.ones(20000))
                with lock:
                    seen.append(i)

            assert parallel.run(task, 37) == 0
            assert sorted(seen) == list(range(37))
    finally:
        parallel.set_thread_count(before)


def test_run_reraises_after_all_threads_stop():
    before = parallel.thread_count()
    active = [0]
    lock = threading.Lock()
    try:
        parallel.set_thread_count(3)

        def task(i):
            with lock:
                active[0] += 1
            try:
                np.sin(np.ones(50000))
                if i == 5:
                    raise KeyError("piece 5")
            finally:
                with lock:
                    active[0] -= 1

        with pytest.raises(KeyError, match="piece 5"):
            parallel.run(task, 40)
        assert active[0] == 0
    finally:
        parallel.set_thread_count(before)


def test_run_returns_fp_flags_raised_in_any_thread():
    before = parallel.thread_count()
    try:
        parallel.set_thread_count(2)
        zeros = np.zeros(10)

        def task(i):
            np.divide(1.0, zeros) if i == 7 else np.multiply(1e300, np.full(10, 1e300 * (i == 3)))

        with np.errstate(all="raise"):          # the caller's settings do not apply inside
            flags = parallel.run(task, 8)
        assert flags == fpstatus.DIVIDE | fpstatus.OVERFLOW
    finally:
        parallel.set_thread_count(before)


def test_run_keeps_no_reference_to_the_work():
    """Once run() returns, no worker holds the task (or the arrays it uses)."""

    class Payload:
        pass

    before = parallel.thread_count()
    try:
        for threads, work in [(2, 20000), (4, 20000), (2, 0), (4, 0)]:   # 0: workers called off
            parallel.set_thread_count(threads)
            payload = Payload()
            ref = weakref.ref(payload)

            def task(i, payload=payload, work=work):
                np.sin(np.ones(work))

            parallel.run(task, 8)
            del task, payload
            assert ref() is None
    finally:
        parallel.set_thread_count(before)
