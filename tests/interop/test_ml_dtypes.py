"""bfloat16 and the float8 family (the optional ml_dtypes package) as asnumpy dtypes.

NumPy with ml_dtypes imported is the specification: values (bit for bit
where both run the same loop), result dtypes, promotion and casting rules,
errors.  The inputs cover every bit pattern of the 8-bit types (NaN, inf,
-0 and subnormals included) and all 65536 of bfloat16 for unary work.
NumPy's own ``testing`` does not see NaN in these kind-'V' types, so the
comparisons here go through float64 and the sign bit.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

from _cuda_host import requires_compiler

import asnumpy as ap
from asnumpy import _dtypes

ml_dtypes = pytest.importorskip("ml_dtypes")

NAMES = [n for n in _dtypes.ML_DTYPES_FLOATS if hasattr(ml_dtypes, n)]
DTYPES = [np.dtype(getattr(ml_dtypes, n)) for n in NAMES]
BF16 = np.dtype(ml_dtypes.bfloat16)
# the charset collision the cuda back end must not trust: float8_e4m3b11fnuz is 'L'
E4M3B11 = np.dtype(ml_dtypes.float8_e4m3b11fnuz)


def every_value(dtype):
    """Every bit pattern of ``dtype`` (1 or 2 bytes) as a host array."""
    bits = np.uint8 if dtype.itemsize == 1 else np.uint16
    return np.arange(2 ** (8 * dtype.itemsize), dtype=np.uint32).astype(bits).view(dtype)


def finite_sample(dtype, n=64, seed=0):
    """``n`` finite values of ``dtype`` drawn from all its bit patterns."""
    values = every_value(dtype)
    with np.errstate(invalid="ignore"):
        values = values[np.isfinite(values.astype(np.float64))]
    return np.random.default_rng(seed).choice(values, n)


def assert_same(actual, expected, rtol=0.0):
    """``actual`` (an asnumpy array) equals NumPy's ``expected``: dtype, shape, values.

    Values compare as float64 with NaNs in the same places and the same sign
    bits; ``rtol`` > 0 allows rounding differences (reductions summed in
    another order).
    """
    assert isinstance(actual, ap.ndarray), type(actual)
    host, expected = actual.get(), np.asarray(expected)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    assert host.shape == expected.shape, (host.shape, expected.shape)
    if host.dtype.kind == "b" or host.dtype.kind in "iu":
        np.testing.assert_array_equal(host, expected)
        return
    if host.dtype.kind == "c":
        host, expected = host.view(host.real.dtype), expected.view(expected.real.dtype)
    with np.errstate(invalid="ignore"):
        wide, want = host.astype(np.float64), expected.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(wide), np.isnan(want))
    if rtol:
        np.testing.assert_allclose(wide, want, rtol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(wide, want)
        np.testing.assert_array_equal(np.signbit(wide), np.signbit(want))


def eps(dtype):
    return float(ml_dtypes.finfo(dtype).eps)


# -- the namespace and the optional import --------------------------------------


def test_the_float8_family_and_bfloat16_are_exposed():
    assert {"bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
            "float8_e4m3b11fnuz"} <= set(NAMES)
    for name in NAMES:
        assert getattr(ap, name) is getattr(ml_dtypes, name)
    if hasattr(ml_dtypes, "float8_e8m0fnu"):
        assert ap.float8_e8m0fnu is ml_dtypes.float8_e8m0fnu
    with pytest.raises(AttributeError, match="no attribute 'float9'"):
        ap.float9


def _run_python(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_asnumpy_does_not_import_ml_dtypes():
    out = _run_python("import sys, asnumpy\n"
                      "print('ml_dtypes' in sys.modules)\n"
                      "asnumpy.zeros(2, dtype='bfloat16')\n"     # a name imports it on use
                      "print('ml_dtypes' in sys.modules)\n")
    assert out.split() == ["False", "True"]


def test_without_ml_dtypes_the_errors_say_what_to_install():
    out = _run_python(
        "import sys\n"
        "sys.modules['ml_dtypes'] = None\n"        # as if not installed
        "import asnumpy as ap\n"
        "print(hasattr(ap, 'bfloat16'))\n"
        "try:\n    ap.float8_e4m3fn\n"
        "except AttributeError as e:\n    print(e)\n"
        "try:\n    ap.ones(3, dtype='bfloat16')\n"
        "except TypeError as e:\n    print(e)\n"
        "print(ap.ones(2, dtype='float32').dtype)\n")
    lines = out.splitlines()
    assert lines[0] == "False"
    assert lines[1].startswith("asnumpy.float8_e4m3fn:") and 'asnumpy[ml-dtypes]' in lines[1]
    assert lines[2].startswith("asnumpy.ones:") and 'pip install "asnumpy[ml-dtypes]"' in lines[2]
    assert lines[3] == "float32"


def test_other_void_dtypes_stay_unsupported():
    for dtype in ("V2", np.dtype([("a", "f4")]), ml_dtypes.int4, ml_dtypes.float4_e2m1fn):
        with pytest.raises(TypeError, match="asnumpy.zeros: dtype .* is not supported"):
            ap.zeros(2, dtype=dtype)


# -- creation and transfers ------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_bit_pattern_round_trips(dtype):
    host = every_value(dtype)
    a = ap.asarray(host)
    assert a.dtype == dtype and a.itemsize == dtype.itemsize
    assert a.get().tobytes() == host.tobytes()
    assert ap.asnumpy(a).tobytes() == host.tobytes()
    moved = ap.asarray(a, device="cpu:1")
    assert str(moved.device) == "cpu:1" and moved.get().tobytes() == host.tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_creation(dtype):
    for spelled in (dtype, dtype.type, dtype.name):
        assert_same(ap.zeros((2, 3), dtype=spelled), np.zeros((2, 3), dtype=dtype))
        assert_same(ap.ones(4, dtype=spelled), np.ones(4, dtype=dtype))
    assert_same(ap.full((3,), 2.5, dtype=dtype), np.full((3,), 2.5, dtype=dtype))
    assert_same(ap.full((2,), -1.75, dtype=dtype.name), np.full((2,), -1.75, dtype=dtype))
    assert_same(ap.array([1.0, 0.3, -2.0, 1e9], dtype=dtype),
                np.array([1.0, 0.3, -2.0, 1e9], dtype=dtype))
    assert_same(ap.asarray([[0.1, 7.0]], dtype=dtype.name), np.asarray([[0.1, 7.0]], dtype=dtype))
    assert_same(ap.arange(0, 6, dtype=dtype), np.arange(0, 6, dtype=dtype))
    assert_same(ap.empty((0, 2), dtype=dtype), np.empty((0, 2), dtype=dtype))
    assert_same(ap.zeros_like(ap.ones(3, dtype=dtype)), np.zeros(3, dtype=dtype))
    assert_same(ap.full((), 3.0, dtype=dtype), np.full((), 3.0, dtype=dtype))


@pytest.mark.parametrize("dtype", [BF16, np.dtype(ml_dtypes.float8_e5m2)], ids=str)
def test_swapped_byte_order_is_stored_natively(dtype):
    host = finite_sample(dtype, 9)
    swapped = host.astype(dtype.newbyteorder(">"))
    assert_same(ap.asarray(swapped), host)
    assert_same(ap.asarray(host).astype(swapped.dtype), host)
    assert_same(ap.zeros(2, dtype=swapped.dtype), np.zeros(2, dtype))


def test_repr_and_str_are_numpys():
    host = np.array([1.5, -2, np.nan, np.inf, 0.1], dtype=BF16)
    assert repr(ap.asarray(host)) == repr(host)
    assert str(ap.asarray(host)) == str(host)
    f8 = np.array([[1, 0.5], [-448, 3]], dtype=ml_dtypes.float8_e4m3fn)
    assert repr(ap.asarray(f8)) == repr(f8)
    # off the default device: NumPy's repr (its dtype spelling varies between ml_dtypes
    # releases: "dtype=bfloat16" before 0.7, "dtype=dtype(bfloat16)" from 0.7) plus the device
    assert repr(ap.asarray(host, device="cpu:1")) == repr(host)[:-1] + ", device='cpu:1')"
    assert ap.asarray(host)[0].item() == 1.5 and ap.asarray(host).tolist()[:2] == [1.5, -2.0]


# -- casting and the dtype rules ---------------------------------------------------

CAST_TARGETS = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32,
                np.float64, np.complex64, BF16, np.dtype(ml_dtypes.float8_e5m2)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_astype_every_value_both_ways(dtype):
    host = every_value(dtype)
    with np.errstate(all="ignore"):
        for target in CAST_TARGETS:
            source = np.linspace(-500, 500, 301).astype(target) if target != np.bool_ \
                else np.array([True, False])
            if not np.can_cast(dtype, target, "unsafe"):     # float8_e8m0fnu to float8_*
                for values, to in ((host, target), (source, dtype)):
                    with pytest.raises(TypeError, match="Cannot cast"):
                        values.astype(to)
                    with pytest.raises(TypeError, match="Cannot cast"):
                        ap.asarray(values).astype(to)
                continue
            assert_same(ap.asarray(host).astype(target), host.astype(target))
            assert_same(ap.asarray(source).astype(dtype), source.astype(dtype))
        special = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-30, 6e4], np.float32)
        assert_same(ap.asarray(special).astype(dtype), special.astype(dtype))


def _rule(func, *args, **kwargs):
    """(result, error type) of a dtype rule, for comparing NumPy's and asnumpy's."""
    try:
        return func(*args, **kwargs), None
    except Exception as exc:         # compare the kind of failure too
        return None, type(exc)


PARTNERS = [np.bool_, np.int8, np.int64, np.uint16, np.float16, np.float32, np.float64,
            np.complex64] + DTYPES


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_promotion_and_casting_rules_are_numpys(dtype):
    a = ap.ones(2, dtype=dtype)
    for other in PARTNERS:
        assert _rule(ap.promote_types, dtype, other) == _rule(np.promote_types, dtype, other)
        assert _rule(ap.result_type, a, other) == _rule(np.result_type, dtype, other)
        assert _rule(ap.result_type, ap.ones(1, other), a) == _rule(np.result_type, other, dtype)
        for casting in ("no", "safe", "same_kind", "unsafe"):
            assert ap.can_cast(a, other, casting) == np.can_cast(dtype, other, casting)
            assert ap.can_cast(other, dtype, casting) == np.can_cast(other, dtype, casting)
    for scalar in (1, 1.5, 1j, True):
        assert ap.result_type(a, scalar) == np.result_type(dtype, scalar)


# -- arithmetic through the ufunc catalog ----------------------------------------------

UNARY = ["negative", "positive", "absolute", "sign", "sqrt", "exp", "log", "sin", "tanh",
         "floor", "ceil", "rint", "square", "reciprocal", "isnan", "isinf", "isfinite",
         "signbit", "logical_not", "spacing"]
BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "fmax",
          "fmin", "copysign", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "logical_and", "arctan2", "hypot", "floor_divide", "remainder",
          "nextafter"]


def _both(name, *operands, **kwargs):
    """(asnumpy result, NumPy result) of ufunc ``name`` (NumPy's loops; same errors)."""
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(*operands, **kwargs)
        actual = getattr(ap, name)(*(ap.asarray(x) if isinstance(x, np.ndarray) else x
                                     for x in operands), **kwargs)
    return actual, expected


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs_on_every_value(dtype, name):
    actual, expected = _both(name, every_value(dtype))
    assert_same(actual, expected)


def _binary_grid(dtype):
    """Two operands whose elementwise pairs cover every (x, y) of a 256-value sample."""
    values = every_value(dtype)
    if values.size > 256:
        values = np.concatenate([values[::257], np.array([np.nan, np.inf, -0.0], dtype)])
    return np.repeat(values, values.size), np.tile(values, values.size)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs_on_every_pair(dtype, name):
    x, y = _binary_grid(dtype)
    assert_same(*_both(name, x, y))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_mixed_operands_promote_as_numpy(dtype):
    x = finite_sample(dtype, 12).reshape(3, 4)
    for other in (np.float32, np.float64, np.int8, np.bool_, np.complex64):
        assert_same(*_both("add", x, np.ones(4, other)))
        assert_same(*_both("multiply", np.arange(3).astype(other)[:, None], x))
    for scalar in (2, 0.5, -3.0, True, np.float32(1.5), np.float16(2)):
        assert_same(*_both("add", x, scalar))
        assert_same(*_both("less", scalar, x))
    # no common dtype for bfloat16 and float16, yet ufuncs pick NumPy's float32 loop
    assert_same(*_both("add", x, np.ones(4, np.float16)))


@pytest.mark.parametrize("dtype", [BF16, E4M3B11], ids=str)
def test_operators_layouts_and_devices(dtype):
    host = finite_sample(dtype, 24).reshape(4, 6)
    a = ap.asarray(host)
    with np.errstate(all="ignore"):
        assert_same(a[::-1, ::2] + a[:, 1::2], host[::-1, ::2] + host[:, 1::2])
        assert_same(a.T * 2, host.T * 2)
        assert_same(-a[0], -host[0])
        assert_same(a[1, 2] / a[2, 1], np.asarray(host[1, 2] / host[2, 1]))
        assert_same(a >= 0, host >= 0)
        b = ap.asarray(host, device="cpu:1")
        result = b * b
        assert str(result.device) == "cpu:1"
        assert_same(result, host * host)
        out = ap.empty((4, 6), dtype=np.float32)
        ap.multiply(a, a, out=out)
        assert_same(out, np.multiply(host, host, out=np.empty((4, 6), np.float32)))
        c = ap.asarray(host.copy())
        c += 1
        c[0, :] = 7.0
        expected = host + dtype.type(1)
        expected[0, :] = 7.0
        assert_same(c, expected)
        assert_same(ap.where(a > 0, a, 0), np.where(host > 0, host, dtype.type(0)))


# -- reductions ------------------------------------------------------------------------

REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "ptp", "argmax", "argmin",
              "all", "any", "cumsum", "cumprod", "count_nonzero", "nanmax", "nanmin",
              "nansum"]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions_match_numpy_values_and_dtypes(dtype, name, axis):
    host = finite_sample(dtype, 40, seed=1).reshape(5, 8)
    host = np.abs(host) if name in ("prod", "cumprod") else host
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(host, axis=axis)
        actual = getattr(ap, name)(ap.asarray(host), axis=axis)
    # summing in another order may round differently in these short mantissas
    rtol = 0 if name in ("max", "min", "argmax", "argmin", "all", "any", "ptp",
                         "count_nonzero", "nanmax", "nanmin") else 8 * eps(dtype)
    assert_same(actual, np.asarray(expected), rtol=rtol)


@pytest.mark.parametrize("dtype", [BF16, np.dtype(ml_dtypes.float8_e4m3fn)], ids=str)
def test_reductions_with_nan_empty_and_dtype(dtype):
    host = np.array([[1.0, np.nan, 2.0], [0.5, 0.25, -1.0]], dtype=dtype)
    a = ap.asarray(host)
    with np.errstate(all="ignore"):
        for name in ("sum", "max", "min", "mean", "argmax", "nanmax", "nansum"):
            assert_same(getattr(ap, name)(a, axis=1), getattr(np, name)(host, axis=1))
        assert_same(ap.sum(a, dtype=np.float32), np.asarray(np.sum(host, dtype=np.float32)))
        assert_same(ap.mean(a, axis=0, dtype=np.float64), np.mean(host, axis=0,
                                                                  dtype=np.float64))
        assert_same(ap.sum(a[:, :0], axis=1), np.sum(host[:, :0], axis=1))
        assert_same(ap.add.reduce(a, axis=0, keepdims=True),
                    np.add.reduce(host, axis=0, keepdims=True))
        assert_same(ap.maximum.accumulate(a, axis=1), np.maximum.accumulate(host, axis=1))
    with pytest.raises(ValueError, match="asnumpy"):
        ap.max(a[:, :0], axis=1)


# -- functions beyond the ufuncs (NumPy runs them with ml_dtypes' registered functions)

FUNCTIONS = {
    "sort": lambda xp, x: xp.sort(x, axis=1),
    "argsort": lambda xp, x: xp.argsort(x, axis=1, kind="stable"),
    "unique": lambda xp, x: xp.unique(x, return_counts=True),
    "histogram": lambda xp, x: xp.histogram(x, bins=3),
    "searchsorted": lambda xp, x: xp.searchsorted(xp.sort(x[1]), x[0]),
    "median": lambda xp, x: xp.median(x, axis=1),
    "percentile": lambda xp, x: xp.percentile(x, 30),
    "nanmean": lambda xp, x: xp.nanmean(x, axis=0),
    "nanvar": lambda xp, x: xp.nanvar(x),
    "average": lambda xp, x: xp.average(x, axis=0),
    "dot": lambda xp, x: xp.dot(x, x.T),
    "vdot": lambda xp, x: xp.vdot(x, x),
    "inner": lambda xp, x: xp.inner(x, x),
    "matmul": lambda xp, x: x @ x.T,
    "outer": lambda xp, x: xp.outer(x[0], x[1]),
    "clip": lambda xp, x: xp.clip(x, -1, 2),
    "round": lambda xp, x: xp.round(x, 1),
    "nan_to_num": lambda xp, x: xp.nan_to_num(x),
    "isclose": lambda xp, x: xp.isclose(x, x[::-1]),
    "concatenate": lambda xp, x: xp.concatenate([x, x[::-1]], axis=1),
    "take": lambda xp, x: xp.take(x, [0, 3, 3], axis=1),
    "mask": lambda xp, x: x[x > 0],
    "diff": lambda xp, x: xp.diff(x),
    "pad": lambda xp, x: xp.pad(x, 1),
    "nonzero": lambda xp, x: xp.nonzero(x),
    "view": lambda xp, x: x.view(np.uint8 if x.dtype.itemsize == 1 else np.uint16),
}


@pytest.mark.parametrize("dtype", [BF16, np.dtype(ml_dtypes.float8_e4m3fn), E4M3B11], ids=str)
@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("with_nan", [False, True])
def test_functions_match_numpy(dtype, name, with_nan):
    host = finite_sample(dtype, 12, seed=2).reshape(2, 6)
    if with_nan and name not in ("histogram", "unique") and dtype != E4M3B11:
        host[1, 2] = np.nan
    with np.errstate(all="ignore"):
        expected = FUNCTIONS[name](np, host)
        actual = FUNCTIONS[name](ap, ap.asarray(host))
    if not isinstance(expected, tuple):
        actual, expected = (actual,), (expected,)
    assert len(actual) == len(expected)
    for a, n in zip(actual, expected):
        assert_same(a, np.asarray(n), rtol=4 * eps(dtype))


# -- the cuda back end (host emulation of the driver): never a wrong answer --------------


@pytest.mark.parametrize("dtype", [BF16, E4M3B11, np.dtype(ml_dtypes.float8_e5m2)], ids=str)
@requires_compiler
def test_cuda_arrays_compute_through_the_host_fallback(cuda, dtype):
    host = finite_sample(dtype, 12).reshape(3, 4)
    a = ap.asarray(host, device=cuda)
    f32 = ap.asarray(np.arange(4, dtype=np.float32), device=cuda)
    with np.errstate(all="ignore"):
        assert_same(a + a, host + host)
        assert_same(a + f32, host + np.arange(4, dtype=np.float32))
        assert_same(a.astype(np.float32), host.astype(np.float32))
        assert_same(f32.astype(dtype), np.arange(4, dtype=np.float32).astype(dtype))
        assert_same(ap.sum(a, axis=0), np.sum(host, axis=0))
        assert_same(ap.sum(a, dtype=np.float32), np.asarray(np.sum(host, dtype=np.float32)))
        assert_same(ap.max(a, axis=1), np.max(host, axis=1))
        wide = ap.empty((3, 4), dtype=np.float64, device=cuda)
        wide[...] = a
        assert_same(wide, host.astype(np.float64))
        assert_same(ap.full(3, 1.5, dtype=dtype, device=cuda), np.full(3, 1.5, dtype=dtype))
        scalar = host[0, 1]                                # a NumPy scalar of dtype
        assert_same(f32 * scalar, np.arange(4, dtype=np.float32) * scalar)
        assert_same(a - scalar, host - scalar)
        mask = host > 0
        out = ap.zeros((3, 4), dtype=dtype, device=cuda)
        ap.negative(a, out=out, where=ap.asarray(mask, device=cuda))
        assert_same(out, np.negative(host, out=np.zeros((3, 4), dtype), where=mask))
        assert all(str(x.device) == "cuda:0" for x in (a + a, a.astype(np.float32)))


# -- DLPack exchange (kDLBfloat and DLPack 1.1's float8 codes) ---------------------------


def _torch_dtype(torch, dtype):
    found = getattr(torch, dtype.name, None)
    if found is None:
        pytest.skip(f"torch {torch.__version__} has no {dtype.name}")
    return found


def _bits(tensor, torch):
    """A tensor's bytes, through an integer view (torch's float8 has no numpy())."""
    return tensor.contiguous().view(torch.uint8 if tensor.element_size() == 1
                                    else torch.int16).numpy().tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_torch_from_dlpack_shares_asnumpy_memory(on_cpu, dtype):
    torch = pytest.importorskip("torch")
    torch_dtype = _torch_dtype(torch, dtype)
    host = finite_sample(dtype, 12, seed=3).reshape(3, 4)
    a = ap.asarray(host)
    tensor = torch.from_dlpack(a)
    assert tensor.dtype == torch_dtype and tuple(tensor.shape) == (3, 4)
    assert _bits(tensor, torch) == host.tobytes()
    view = torch.from_dlpack(a[:, ::2].T)
    assert _bits(view, torch) == np.ascontiguousarray(host[:, ::2].T).tobytes()
    one = np.ones((), dtype)
    tensor[0, 0] = torch.from_dlpack(ap.asarray(one))   # zero-copy: a sees the write
    assert a.get()[0, 0].tobytes() == one.tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_from_dlpack_of_torch_tensors_shares_their_memory(dtype):
    torch = pytest.importorskip("torch")
    torch_dtype = _torch_dtype(torch, dtype)
    values = [1.0, 2.0, 0.5, 4.0, 0.25, 8.0]
    tensor = torch.tensor(values).to(torch_dtype).reshape(2, 3)
    a = ap.from_dlpack(tensor)
    assert a.dtype == dtype
    assert_same(a, np.array(values, dtype).reshape(2, 3))
    assert_same(ap.from_dlpack(tensor.T), np.array(values, dtype).reshape(2, 3).T)
    tensor[1, 2] = 16                                      # zero-copy: a sees the write
    assert float(a[1, 2]) == 16.0
    assert_same(ap.sum(a, axis=0), np.sum(np.array(values[:5] + [16], dtype).reshape(2, 3),
                                          axis=0))


def test_jax_exchanges_bfloat16_and_float8(on_cpu):
    jnp = pytest.importorskip("jax.numpy")
    host = finite_sample(BF16, 6, seed=4)
    exported = jnp.from_dlpack(ap.asarray(host))
    assert exported.dtype == BF16 and np.asarray(exported).tobytes() == host.tobytes()
    f8 = jnp.array([1.5, -2.0, 0.25], dtype=jnp.float8_e4m3fn)
    assert_same(ap.from_dlpack(f8), np.asarray(f8))


# -- files --------------------------------------------------------------------------------


def test_npy_files_hold_the_bytes_as_numpy_writes_them(tmp_path):
    # .npy has no code for bfloat16: NumPy writes and reads it back as raw '|V2'
    host = finite_sample(BF16, 10)
    path = tmp_path / "x.npy"
    ap.save(path, ap.asarray(host))
    loaded = np.load(path)
    assert loaded.dtype == np.load(_numpy_saved(tmp_path, host)).dtype
    assert loaded.tobytes() == host.tobytes()


def _numpy_saved(tmp_path, host):
    path = tmp_path / "numpy.npy"
    np.save(path, host)
    return path
