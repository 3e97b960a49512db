"""Fused cpu kernels' vectorised transcendental functions (libmvec) against NumPy.

The bounds are docs/extension.md's ("Fusion numerics"): within 8 ulp of
NumPy's float32 result, 5 ulp of its float64 result and 1 ulp of its float16
result, with NumPy's NaN, inf and signed-zero results.  The kernels must run
fused (``MEASURE[0] = False``), on cpu whatever ``$ASNUMPY_DEVICE`` says.
"""

import warnings

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.cpu import compiler
from asnumpy.extension import CompilerNotFoundError, fusion
from asnumpy.extension.fusion import FusionFallbackWarning, _render, fuse
from asnumpy.ops.cxx import vecmath

try:
    compiler.compiler_command()
except CompilerNotFoundError:
    pytest.skip("no C++ compiler for fused cpu kernels", allow_module_level=True)

MAX_ULP = {"float16": 1, "float32": 8, "float64": 5}
TWO = {name for name, (_, arity) in vecmath.FUNCTIONS.items() if arity == 2}


@pytest.fixture(autouse=True)
def _fused(monkeypatch):
    monkeypatch.setattr(fusion, "MEASURE", [False])


def _ordered(values):
    """Integers whose differences are distances in ulps (sign-magnitude bits made linear)."""
    kind = {2: np.int16, 4: np.int32, 8: np.int64}[values.dtype.itemsize]
    bits = values.view(kind).astype(np.int64)
    return np.where(bits < 0, np.int64(np.iinfo(kind).min) - bits, bits)


def _inputs(dtype, seed):
    """Random values over every function's interesting ranges, and the edge cases."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    n = 20_000
    wide = np.exp(rng.uniform(np.log(float(info.tiny)) - 8, np.log(float(info.max)), n))
    parts = [rng.uniform(-1, 1, n), rng.uniform(-12, 12, n), rng.uniform(-120, 120, n),
             wide * rng.choice([-1, 1], n), rng.uniform(-1e5, 1e5, n)]
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, np.pi,
             float(info.smallest_subnormal), -float(info.smallest_subnormal), float(info.tiny),
             float(info.max), -float(info.max), 1e10, -1e10, 1e22, 3e38, 1e300,   # huge sin/cos
             88.72, 89.0, -103.9, -104.0, 709.78, 710.0, -745.0, -746.0,           # exp limits
             11.0, 20.0, -20.0, 1e-30]
    with np.errstate(all="ignore"):
        return np.concatenate([np.array(edges), *parts]).astype(dtype)


def _assert_matches_numpy(got, want, dtype):
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg="NaN where NumPy's is")
    infinite = np.isinf(want) | np.isinf(got)
    np.testing.assert_array_equal(got[infinite], want[infinite], err_msg="infinities")
    zero = (want == 0) & (got == 0)
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]),
                                  err_msg="signs of zeros")
    finite = ~nan & ~infinite
    worst = np.abs(_ordered(got[finite]) - _ordered(want[finite])).max(initial=0)
    assert worst <= MAX_ULP[np.dtype(dtype).name], f"{worst} ulp from NumPy"


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", sorted(vecmath.FUNCTIONS))
def test_fused_functions_match_numpy_within_the_documented_bound(name, dtype):
    ufunc = getattr(ap, name)
    function = fuse((lambda a, b: ufunc(a, b)) if name in TWO else (lambda a: ufunc(a)))
    x = _inputs(dtype, 1)
    args = (x, np.random.default_rng(2).permutation(x)) if name in TWO else (x,)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FusionFallbackWarning)
        got = ap.asnumpy(function(*[ap.asarray(a, device="cpu") for a in args]))
        # every other element of a doubled array: a strided run of the same kernel source
        doubled = [ap.asarray(np.repeat(a, 2), device="cpu")[::2] for a in args]
        strided = ap.asnumpy(function(*doubled))
    assert got.dtype == want.dtype
    _assert_matches_numpy(got, want, dtype)
    _assert_matches_numpy(strided, want, dtype)


def test_special_values_are_numpys():
    cases = {"log": [-1.0, -0.0, 0.0, -np.inf], "exp": [1000.0, -1000.0, np.inf, -np.inf],
             "sin": [np.inf, -np.inf, 1e30, -0.0], "cos": [np.inf, 1e30], "tanh": [-0.0, np.inf],
             "log1p": [-1.0, -2.0, -0.0], "expm1": [-0.0, 1000.0, -np.inf], "arcsin": [2.0, -0.0],
             "arctanh": [1.0, -1.0, 2.0], "arccosh": [0.5, 1.0], "cbrt": [-0.0, -np.inf]}
    for dtype in ("float32", "float64"):
        for name, values in cases.items():
            host = np.array(values + [np.nan], dtype=dtype)
            function = fuse(lambda a, ufunc=getattr(ap, name): ufunc(a))
            got = ap.asnumpy(function(ap.asarray(host, device="cpu")))
            with np.errstate(all="ignore"):
                want = getattr(np, name)(host)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {dtype}")
            number = ~np.isnan(want)                # (a NaN's sign bit is no result)
            np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]),
                                          err_msg=f"{name} {dtype} signs")


def test_arithmetic_stays_exact_next_to_vector_calls():
    # + - * / and sqrt are rounded as NumPy's (no -ffast-math) in a kernel calling libmvec
    function = fuse(lambda a, b: (ap.sin(a) * 0 + a * b - b / a) + ap.sqrt(ap.absolute(b)))
    rng = np.random.default_rng(3)
    a = rng.standard_normal(10_001).astype(np.float32)
    b = rng.standard_normal(10_001).astype(np.float32)
    got = ap.asnumpy(function(ap.asarray(a, device="cpu"), ap.asarray(b, device="cpu")))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got, (np.sin(a) * 0 + a * b - b / a) + np.sqrt(np.abs(b)))


def test_the_probe_decides_what_the_source_calls():
    options = compiler.vector_math_options(_render.CPU_OPTIONS)
    assert options is None or options[-len(vecmath.LINK_OPTIONS):] == vecmath.LINK_OPTIONS
    target = ap.Device("cpu").backend.cxx
    assert target.vector_math_options(_render.CPU_OPTIONS) == options
    assert _render.cpu_options(target) == (options or _render.CPU_OPTIONS)
    source = _render._function("sin", (np.dtype("float32"),) * 2, target)[0]
    assert ("asn_simd_sin(a)" in source) is (options is not None)
    # float32 exp keeps its own vectorised form (within 1 ulp, needs no libmvec)
    source = _render._function("exp", (np.dtype("float32"),) * 2, target)[0]
    assert "asn_vexp(a)" in source


def test_vector_math_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("ASNUMPY_VECTOR_MATH", "0")
    monkeypatch.setattr(compiler, "_vector_math", [])
    assert compiler.vector_math_options(_render.CPU_OPTIONS) is None


def test_scalar_declarations_compile_where_vector_math_is_absent():
    # the fallback spelling of the same names (no libmvec): the prelude's scalar calls
    text = vecmath.declarations(False)
    assert "asn_libmvec" not in text and "asn_simd_sin(float x) { return asn_sin(x); }" in text
