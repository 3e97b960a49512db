"""The compiled call path (src/asnumpy/_core/_compiled.c) against the Python path and NumPy.

Each compiled object holds the Python code it stands for (``.python``): the
fast lane, operator, ``__getitem__``, property or held call that decides
every case the compiled one does not take.  These tests call both on the same
fresh operands and require identical outcomes: values bit for bit, dtype,
shape, strides and type of the result, the same exception with the same
message, and the same state left in ``out=``.  The fast-lane tests
(test_fast_lane.py, test_plans.py, ...) then run once more with
``ASNUMPY_COMPILED=0`` in a subprocess, so that the same differential tests
pass through both paths (CI also installs without a compiler).
"""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asnumpy as ap
from asnumpy._core import compiled
from asnumpy.testing import assert_array_equal

pytestmark = pytest.mark.cpu_default("the compiled lanes serve devices that run NumPy's loops")

_BUILT = any((Path(compiled.__file__).parent / f"_compiled{suffix}").exists()
             for suffix in importlib.machinery.EXTENSION_SUFFIXES)
needs_compiled = pytest.mark.skipif(
    compiled.path() != "compiled", reason=f"the compiled path is not in use ({compiled.path()})")

_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "uint64", "float16", "float32",
           "float64", "complex64", "complex128"]
_BINARY = ["add", "subtract", "multiply", "true_divide", "power", "maximum", "floor_divide",
           "remainder", "left_shift", "bitwise_xor", "less", "equal", "arctan2", "hypot",
           "logaddexp", "copysign", "gcd"]
_UNARY = ["negative", "absolute", "exp", "sqrt", "sin", "floor", "isnan", "invert", "sign",
          "reciprocal", "square", "expm1", "tanh"]
# the compiled operator forms of some of them
_OPERATORS = {"add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"),
              "multiply": ("__mul__",), "less": ("__lt__",), "equal": ("__eq__",),
              "floor_divide": ("__floordiv__",), "left_shift": ("__lshift__",)}
_LAYOUTS = ["contiguous", "reversed", "strided", "fortran", "zero-d", "empty"]
_SCALARS = [0, 1, -3, 2**40, 2**70, -0.0, 1.5, float("nan"), float("inf"), 2 + 1j, True]


def _numpy_values(dtype, layout, rng):
    dtype = np.dtype(dtype)
    shape = {"zero-d": (), "empty": (0, 3), "fortran": (3, 4)}.get(layout, (12,))
    if dtype.kind == "b":
        values = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(max(info.min, -40), min(info.max, 40), shape, endpoint=True,
                              dtype=dtype)
    else:
        values = rng.standard_normal(shape) * 4
        if dtype.kind == "c":
            values = values + 1j * rng.standard_normal(shape)
        values = values.astype(dtype)
        flat = values.reshape(-1)
        if flat.size >= 4:
            flat[:4] = [np.nan, np.inf, -0.0, 0.0]
    if layout == "reversed":
        values = values[::-1]
    elif layout == "strided":
        values = np.repeat(values, 2)[::2]
    elif layout == "fortran":
        values = np.asfortranarray(values)
    return values


def _device_array(values, layout):
    """An asnumpy array of ``values`` with the layout named (a view where it is one)."""
    if layout == "reversed":
        return ap.asarray(values[::-1].copy())[::-1]
    if layout == "strided":
        return ap.asarray(np.repeat(values, 2))[::2]
    if layout == "fortran":
        return ap.asarray(np.asfortranarray(values))
    return ap.asarray(values)


def _outcome(call):
    """(result or None, (exception type, message) or None): what a call did."""
    try:
        return call(), None
    except Exception as error:          # the same error on both paths is the requirement
        return None, (type(error), str(error))


def _general(call):
    """What ``call()`` does on asnumpy's general path: an open stream block turns every
    lane, compiled or not, aside."""
    with ap.get_current_stream():
        return _outcome(call)


# ufuncs whose results on some dtypes are the Array API's special values, not NumPy's
_STANDARD_VALUES = {"floor_divide", "expm1", "tanh"}     # (math_kernels.STANDARD_VALUES)


def _bytes(values):
    """The bytes of each element (bit-for-bit comparisons: NaN payloads, signed zeros)."""
    values = np.ascontiguousarray(values)
    return values.reshape(-1).view(np.uint8).reshape(values.size, values.itemsize)


def _same(compiled_outcome, python_outcome):
    (got, got_error), (want, want_error) = compiled_outcome, python_outcome
    assert got_error == want_error
    if want_error is not None:
        return
    assert type(got) is type(want)
    if isinstance(want, ap.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.strides == want.strides
        np.testing.assert_array_equal(_bytes(got.get()), _bytes(want.get()))
    else:
        assert got == want or (got is None and want is None)


def test_the_path_in_use_is_named():
    path = compiled.path()
    if os.environ.get("ASNUMPY_COMPILED", "1").strip() == "0":
        assert path == "python: turned off by ASNUMPY_COMPILED=0"
    elif _BUILT:
        assert path == "compiled"
    else:
        assert path.startswith("python: not built")
    from asnumpy.check import call_path_line

    assert call_path_line().startswith("call path: " + path.split(":")[0])


@needs_compiled
@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(_BINARY), x_dtype=st.sampled_from(_DTYPES),
       y_dtype=st.sampled_from(_DTYPES), layout=st.sampled_from(_LAYOUTS),
       seed=st.integers(0, 2**32 - 1))
def test_binary_lanes_match_the_python_lanes(name, x_dtype, y_dtype, layout, seed):
    rng = np.random.default_rng(seed)
    x = _numpy_values(x_dtype, layout, rng)
    y = _numpy_values(y_dtype, layout, rng)
    a, b = _device_array(x, layout), _device_array(y, layout)
    ufunc = getattr(ap, name)
    lane = ufunc._lane
    with np.errstate(all="ignore"):
        _same(_outcome(lambda: lane(a, b)), _outcome(lambda: lane.python(a, b)))
        for form in _OPERATORS.get(name, ()):           # its operators, forward and reflected
            operator = getattr(ap.ndarray, form)
            _same(_outcome(lambda: operator(a, b)), _outcome(lambda: operator.python(a, b)))
        result, error = _outcome(lambda: lane(a, b))
        if error is None and result is not None:
            assert_array_equal(result, getattr(np, name)(x, y), strict=True)


@needs_compiled
@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(_BINARY), dtype=st.sampled_from(_DTYPES),
       scalar=st.sampled_from(_SCALARS), reflected=st.booleans(),
       layout=st.sampled_from(_LAYOUTS), seed=st.integers(0, 2**32 - 1))
def test_python_scalars_take_nep50_as_on_the_python_path(name, dtype, scalar, reflected,
                                                           layout, seed):
    x = _numpy_values(dtype, layout, np.random.default_rng(seed))
    a = _device_array(x, layout)
    lane = getattr(ap, name)._lane
    operands = (scalar, a) if reflected else (a, scalar)
    with np.errstate(all="ignore"):
        _same(_outcome(lambda: lane(*operands)), _outcome(lambda: lane.python(*operands)))
        radd = ap.ndarray.__radd__
        _same(_outcome(lambda: radd(a, scalar)), _outcome(lambda: radd.python(a, scalar)))


@needs_compiled
@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(_BINARY), dtype=st.sampled_from(_DTYPES),
       out_dtype=st.sampled_from(_DTYPES), read_only=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_out_calls_leave_the_same_state(name, dtype, out_dtype, read_only, seed):
    rng = np.random.default_rng(seed)
    x, y = _numpy_values(dtype, "contiguous", rng), _numpy_values(dtype, "contiguous", rng)
    start = _numpy_values(out_dtype, "contiguous", rng)
    outs = []
    for _ in range(2):
        host = start.copy()
        if read_only:
            host.flags.writeable = False
        outs.append(ap.asarray(host, copy=False) if read_only else ap.asarray(host))
    a, b = ap.asarray(x), ap.asarray(y)
    lane_out = getattr(ap, name)._lane_out
    with np.errstate(all="ignore"):
        got = _outcome(lambda: lane_out(a, b, outs[0]))
        want = _outcome(lambda: lane_out.python(a, b, outs[1]))
    assert (got[0] is outs[0]) == (want[0] is outs[1])
    assert got[1] == want[1]
    if got[1] is not None and got[1][0] is ValueError and out_dtype != dtype:
        return      # NumPy's loop stopped inside a buffered cast: what it copied back of its
                    # buffer is unspecified (NumPy's own two calls may differ)
    np.testing.assert_array_equal(_bytes(outs[0].get()), _bytes(outs[1].get()))


@needs_compiled
def test_a_loop_error_in_place_is_raised_once_with_numpys_partial_writes():
    # an integer power stops at its first negative exponent, having written what came
    # before: the compiled lane must not hand the call on (that would apply it twice)
    x = ap.asarray(np.array([2, 3, -15, 4], dtype=np.int8))
    y = ap.asarray(np.array([2, 2, -1, 2], dtype=np.int8))
    with pytest.raises(ValueError, match="negative"):
        x **= y
    np.testing.assert_array_equal(x.get(), [4, 9, -15, 4])
    z = ap.asarray(np.array([2, 3, -15, 4], dtype=np.int8))
    with pytest.raises(ValueError, match="negative"):
        ap.power(z, y, out=z)
    np.testing.assert_array_equal(z.get(), [4, 9, -15, 4])


@needs_compiled
@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(_UNARY), dtype=st.sampled_from(_DTYPES),
       layout=st.sampled_from(_LAYOUTS), seed=st.integers(0, 2**32 - 1))
def test_unary_lanes_and_reductions_match_the_python_ones(name, dtype, layout, seed):
    x = _numpy_values(dtype, layout, np.random.default_rng(seed))
    a = _device_array(x, layout)
    ufunc = getattr(ap, name)
    with np.errstate(all="ignore"):
        _same(_outcome(lambda: ufunc._lane(a)), _outcome(lambda: ufunc._lane.python(a)))
        out = ap.empty_like(a)
        _same(_outcome(lambda: ufunc._lane_out(a, out)),
              _outcome(lambda: ufunc._lane_out.python(a, ap.empty_like(a))))
        for reduction in ("add", "multiply", "maximum", "minimum"):
            lane = getattr(ap, reduction)._reduce_lane
            _same(_outcome(lambda: lane(a)), _outcome(lambda: lane.python(a)))
        for method in ("sum", "prod", "max", "min"):
            _same(_outcome(lambda: getattr(a, method)()),
                  _outcome(lambda: getattr(ap.ndarray, method).slow(a)))


_KEYS = [0, 3, -1, -12, 11, 12, -13, 2**63, slice(None), slice(1, 5), slice(None, None, -1),
         slice(-3, None), slice(100, 200), slice(5, 1), slice(None, None, 3),
         slice(1, 10, -2), slice(None, None, 0), slice("a"), True, np.int64(2), (1,)]


@needs_compiled
@pytest.mark.parametrize("layout", ["contiguous", "reversed", "strided", "fortran", "empty",
                                    "zero-d"])
@pytest.mark.parametrize("key", _KEYS, ids=repr)
def test_getitem_matches_the_python_getitem(layout, key):
    x = _numpy_values("float64", layout, np.random.default_rng(7))
    a = _device_array(x, layout)
    getitem = ap.ndarray.__getitem__
    got, want = _outcome(lambda: getitem(a, key)), _outcome(lambda: getitem.python(a, key))
    _same(got, want)
    if got[1] is None:
        assert got[0]._offset == want[0]._offset and got[0]._base is want[0]._base
        assert got[0].flags.writeable == want[0].flags.writeable
        assert_array_equal(got[0], x[key], strict=True)


@needs_compiled
def test_getitem_of_a_read_only_array_gives_read_only_views():
    host = np.arange(6.0)
    host.flags.writeable = False
    a = ap.asarray(host, copy=False)
    for view in (a[2], a[1:4]):
        assert not view.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            view[...] = 1
    np.testing.assert_array_equal(host, np.arange(6.0))


@needs_compiled
def test_attributes_read_the_fields_and_assign_through_python():
    a = ap.arange(12.0)
    assert a.shape == (12,) and a.dtype == np.float64 and a.strides == (8,) and a.ndim == 1
    a.shape = (3, 4)
    assert a.shape == (3, 4) and a.ndim == 2 and a.strides == (32, 8)
    with pytest.raises(AttributeError, match="incompatible shape"):
        a.T.shape = (12,)
    with pytest.raises(AttributeError, match="Cannot delete array shape"):
        del a.shape
    with pytest.raises(AttributeError):
        a.dtype = np.float32
    assert type(ap.ndarray.shape).__name__ == "Field"
    assert ap.ndarray.shape.__doc__ == ap.ndarray.shape.python.__doc__
    assert ap.ndarray.shape.fget is ap.ndarray.shape.python.fget


@needs_compiled
@pytest.mark.parametrize("with_out", [False, True])
def test_held_plans_match_their_python_call(with_out):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(10), rng.standard_normal(10)
    a, b = ap.asarray(x), ap.asarray(y)
    out = ap.empty(10) if with_out else None
    plan = ap.add.plan(a, b, out=out)
    plan(a, b, out=out)                                # the first call prepares the launch
    assert type(plan._lean).__name__ == "Held"
    for _ in range(3):
        got = plan(a, b, out=out)
        want = plan._lean.python((a, b), ap.empty(10) if with_out else None)
        assert_array_equal(got, x + y, strict=True)
        assert_array_equal(want, x + y, strict=True)
    # other operands: the Python call's error, unchanged
    with pytest.raises(ValueError, match="this plan was made for other operands"):
        plan(a[::2], a[::2], out=out)
    with pytest.raises(TypeError, match="Plan.__call__"):
        plan(a, b, bogus=1)


@needs_compiled
def test_lanes_are_thread_safe():
    rng = np.random.default_rng(11)
    pairs = [(rng.standard_normal(16).astype(d), rng.standard_normal(16).astype(d))
             for d in ("float32", "float64", "int64", "complex64")]
    failures = []

    def work(index):
        x, y = pairs[index % len(pairs)]
        a, b = ap.asarray(x), ap.asarray(y)
        for _ in range(2000):
            if not np.array_equal((a + b).get(), x + y) or not np.array_equal(
                    ap.multiply(a, b).get(), x * y):
                failures.append(index)
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


@needs_compiled
def test_an_open_stream_block_turns_the_compiled_lanes_aside():
    a, b = ap.arange(6.0), ap.ones(6)
    stream = ap.Stream()
    with stream:
        c = a + b
        d = ap.add(a, b)
        e = a[2:4]
    stream.synchronize()
    assert_array_equal(c, np.arange(6.0) + 1, strict=True)
    assert_array_equal(d, np.arange(6.0) + 1, strict=True)
    assert_array_equal(e, np.arange(2.0, 4.0), strict=True)


@needs_compiled
def test_calls_leak_no_references():
    a, b = ap.arange(10.0), ap.ones(10)
    o = ap.empty(10)
    plan = ap.add.plan(a, b, out=o)
    plan(a, b, out=o)
    watched = (a, b, o, a._dtype, a._shape, a._native, plan, ap.add)
    calls = [lambda: a + b, lambda: a + 1.0, lambda: 2 * a, lambda: ap.add(a, b),
             lambda: ap.add(a, b, out=o), lambda: a.sum(), lambda: a[3], lambda: a[1:5],
             lambda: a.shape, lambda: plan(a, b, out=o), lambda: plan(a, b), lambda: -a,
             lambda: a < b, lambda: a.__iadd__(0.0)]
    for call in calls:
        call()
    before = [sys.getrefcount(x) for x in watched]
    for call in calls:
        for _ in range(200):
            call()
    assert [sys.getrefcount(x) for x in watched] == before


@needs_compiled
def test_subclasses_and_foreign_operands_take_the_python_path(tmp_path):
    x = np.arange(4.0)
    mapped = ap.memmap(tmp_path / "x.dat", dtype=np.float64, mode="w+", shape=(4,))
    mapped[...] = ap.asarray(x)
    assert type(mapped) is not ap.ndarray and isinstance(mapped, ap.ndarray)
    assert_array_equal(mapped + 1, x + 1, strict=True)
    assert_array_equal(mapped[1:3], x[1:3], strict=True)
    assert mapped.shape == (4,)
    a = ap.asarray(x)

    class Other:
        __array_ufunc__ = None

        def __radd__(self, other):
            return "reflected"

    assert a + Other() == "reflected"
    assert_array_equal(a + [1, 2, 3, 4], x + [1, 2, 3, 4], strict=True)
    assert_array_equal(a + np.float32(1), x + np.float32(1), strict=True)


@needs_compiled
@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(_BINARY + _UNARY), dtype=st.sampled_from(_DTYPES),
       shape=st.sampled_from([(1,), (7,), (3, 5), (2, 1, 4), (300,)]),
       seed=st.integers(0, 2**32 - 1))
def test_inner_loops_called_directly_give_numpys_bits(name, dtype, shape, seed):
    # contiguous operands of one dtype: the lane's own call of NumPy's inner loop (after
    # its first call, which checks it against NumPy's); every later call is compared too
    rng = np.random.default_rng(seed)
    ufunc, numpy_ufunc = getattr(ap, name), getattr(np, name)
    for _ in range(3):
        # (12 fresh values, special ones among them, repeated to the shape's size)
        x = _numpy_values(dtype, "contiguous", rng)[np.arange(int(np.prod(shape))) % 12]
        hosts = [x.reshape(shape)] + ([rng.permutation(x).reshape(shape)]
                                      if numpy_ufunc.nin == 2 else [])
        arrays = [ap.asarray(h) for h in hosts]
        with np.errstate(all="ignore"):
            got = _outcome(lambda: ufunc(*arrays))
            _same(got, _general(lambda: ufunc(*arrays)))      # asnumpy's own path
            expected, error = _outcome(lambda: numpy_ufunc(*hosts))
        if got[1] is None and error is None and name not in _STANDARD_VALUES:   # NumPy's bits
            np.testing.assert_array_equal(_bytes(got[0].get()), _bytes(expected))


@needs_compiled
@pytest.mark.parametrize("repeat", range(3))     # the first call checks the loop, later ones use it
def test_inner_loops_called_directly_keep_errstate(repeat):
    x = np.array([1.0, -2.0, 0.0, 4.0])
    y = np.array([0.0, 1.0, 0.0, 2.0])
    a, b = ap.asarray(x), ap.asarray(y)
    with np.errstate(divide="raise", invalid="ignore"):
        with pytest.raises(FloatingPointError, match="divide by zero"):
            ap.divide(a, b)
        with pytest.raises(FloatingPointError, match="divide by zero"):
            a / b
    with np.errstate(all="warn"):
        with pytest.warns(RuntimeWarning) as caught:
            result = a / b
    assert sorted(str(w.message) for w in caught) == sorted(
        str(w.message) for w in _numpy_warnings(lambda: x / y))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_bytes(result.get()), _bytes(np.divide(x, y)))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_bytes(ap.sqrt(a - 3).get()), _bytes(np.sqrt(x - 3)))
    i = ap.asarray(np.array([2, 3, 4], dtype=np.int64))
    j = ap.asarray(np.array([1, -1, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        i ** j
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            i // ap.asarray(np.array([1, 0, 2], dtype=np.int64))


def _numpy_warnings(call):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            call()
    return caught


_SMALL_FUNCTIONS = {"sort": 1, "argsort": 1, "argmax": 1, "argmin": 1, "mean": 1, "where": 3,
                    "matmul": 2}


def test_small_calls_follow_the_loop_kernels_limits(monkeypatch):
    # NumpyCall takes a call only under the limits of the kernels' own single call, read
    # at each call: with the sort split lowered, an unstable argsort with ties gives
    # asnumpy's split (stable) order, not NumPy's single call's
    from asnumpy.backends.cpu import math_kernels, parallel, sort_kernels

    assert set(math_kernels.SINGLE_CALL_LIMITS) == set(_SMALL_FUNCTIONS)
    for limits in math_kernels.SINGLE_CALL_LIMITS.values():
        for module, attribute, _ in limits:
            assert isinstance(getattr(module, attribute), int)
    host = np.random.default_rng(5).integers(0, 4, 3000).astype(np.float32)
    a = ap.asarray(host)
    threads = parallel.thread_count()
    parallel.set_thread_count(2)
    try:
        monkeypatch.setattr(sort_kernels, "SPLIT_MIN", 256)
        monkeypatch.setattr(sort_kernels, "SINGLE_ARGSORTS", frozenset())
        np.testing.assert_array_equal(ap.argsort(a).get(), np.argsort(host, kind="stable"))
        monkeypatch.setattr(sort_kernels, "SPLIT_MIN", 1 << 15)
        np.testing.assert_array_equal(ap.argsort(a).get(), _general(lambda: ap.argsort(a))[0]
                                      .get())
    finally:
        parallel.set_thread_count(threads)


@needs_compiled
@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(sorted(_SMALL_FUNCTIONS)), dtype=st.sampled_from(_DTYPES),
       layout=st.sampled_from(_LAYOUTS), scalar=st.sampled_from([None, 0, 2.5, -1]),
       seed=st.integers(0, 2**32 - 1))
def test_small_calls_match_asnumpys_own_path_and_numpy(name, dtype, layout, scalar, seed):
    rng = np.random.default_rng(seed)
    function, numpy_function = getattr(ap, name), getattr(np, name)
    count = _SMALL_FUNCTIONS[name]
    hosts = [_numpy_values(dtype if i or name != "where" else "bool", layout, rng)
             for i in range(count)]
    if name == "matmul" and layout != "zero-d":
        hosts = [h.reshape(-1)[:9].reshape(3, -1) if h.size >= 9 else h for h in hosts]
    arrays = [_device_array(h, layout) if h.ndim == _numpy_values("bool", layout, rng).ndim
              else ap.asarray(h) for h in hosts]
    if name == "where" and scalar is not None:
        hosts[2], arrays[2] = scalar, scalar
    with np.errstate(all="ignore"):
        got, want = _outcome(lambda: function(*arrays)), _general(lambda: function(*arrays))
        expected, expected_error = _outcome(lambda: numpy_function(*hosts))
    assert got[1] == want[1]
    if want[1] is not None:
        return
    assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
    np.testing.assert_array_equal(_bytes(got[0].get()), _bytes(want[0].get()))
    assert expected_error is None
    np.testing.assert_array_equal(got[0].get(), np.asarray(expected))


@pytest.mark.skipif(os.environ.get("ASNUMPY_COMPILED", "1").strip() == "0",
                    reason="already on the Python path")
def test_the_fast_lane_tests_pass_on_the_python_path():
    """The lanes' differential tests once more, in a subprocess with ASNUMPY_COMPILED=0."""
    root = Path(__file__).resolve().parents[3]
    files = ["tests/core/ufuncs/test_fast_lane.py", "tests/core/ufuncs/test_plans.py",
             "tests/core/ufuncs/test_compiled_path.py", "tests/core/test_indexing.py"]
    environment = {**os.environ, "ASNUMPY_COMPILED": "0"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-x", "-n", "0", *files], cwd=root, env=environment,
                         capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout
