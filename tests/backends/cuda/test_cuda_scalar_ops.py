"""The cuda back end's scalar functions (``backends/cuda/scalar_ops.py``).

Two checks per ufunc loop, neither needing a GPU:

* NVRTC compiles the prelude, every device function and a tiny kernel per
  loop to a cubin for sm_90 (skipped without cuda-core or the CUDA headers);
* the very same functions, compiled as host C++ by ``_cuda_host.build``, run
  on random inputs with edge cases and are compared with NumPy's loop.

Exact equality (NaN positions and the sign of zero included) is required for
integer and bool results and for the correctly rounded float operations.
Transcendental functions may differ from NumPy's by a few ulp, because the C
library (here glibc, on the device CUDA's libdevice) is not NumPy's:

* real results: at most ``ULPS[dtype]`` units in the last place (half results
  are float results rounded once, so 1 ulp);
* complex results: ``abs(got - want) <= CRTOL[dtype] * abs(want)``, checked on
  finite arguments of moderate size (the complex functions are textbook
  formulas, not C99 Annex G for inf/NaN components).
"""

from __future__ import annotations

import ctypes
import os
import warnings
import zlib

import numpy as np
import pytest
from _cuda_host import build, requires_compiler

from asnumpy.ops.ufuncs import UFUNCS
from asnumpy.backends.cpu.math_kernels import STANDARD_VALUES
from asnumpy.backends.cuda import scalar_ops

NAMES = [n for names in UFUNCS.values() for n in names
         if n not in ("matmul", "vecdot", "matvec", "vecmat")]
CASES = [(n, "".join(t.char for t in lp)) for n in NAMES for lp in scalar_ops.loops(n)]

# results compared bit for bit (as values: NaN == NaN, and -0.0 != 0.0)
EXACT = {
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod", "divmod",
    "negative", "positive", "absolute", "fabs", "sign", "reciprocal", "square", "sqrt",
    "conjugate", "rint", "floor", "ceil", "trunc", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "maximum", "minimum", "fmax", "fmin", "logical_and",
    "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "invert", "left_shift", "right_shift", "bitwise_count", "copysign", "nextafter", "spacing",
    "frexp", "ldexp", "modf", "signbit", "isnan", "isinf", "isfinite", "heaviside", "gcd",
    "lcm", "deg2rad", "rad2deg", "degrees", "radians", "hypot",
}
# NumPy's choice between +0 and -0 here depends on its SIMD path: zeros compare by value
SIGNLESS_ZERO = {"maximum", "minimum", "fmax", "fmin"}
# complex loops of these are checked with CRTOL (formulas, not a C library; NumPy's
# complex multiply contracts to FMA where the CPU has it)
COMPLEX_APPROX = {"multiply", "square", "sqrt", "power", "float_power", "absolute", "sign", "reciprocal", "divide"}
ULPS = {"e": 1, "f": 4, "d": 4}
CRTOL = {"F": 2e-6, "D": 8e-15}
N = 1500

_C = {c: np.ctypeslib.ndpointer(dtype=c, flags="C_CONTIGUOUS") for c in scalar_ops.CTYPES}


def _host_source() -> str:
    """PRELUDE, every device function and an ``extern "C"`` host loop per ufunc loop."""
    parts = [scalar_ops.PRELUDE]
    for name, chars in CASES:
        nin = getattr(np, name).nin
        src, fn = scalar_ops.device_function(name, chars)
        ins, outs = chars[:nin], chars[nin:]
        args = [f"const {scalar_ops.CTYPES[c]} *x{k}" for k, c in enumerate(ins)]
        args += [f"{scalar_ops.CTYPES[c]} *y{k}" for k, c in enumerate(outs)]
        call = ", ".join([f"x{k}[j]" for k in range(nin)] + [f"y{k}[j]" for k in range(len(outs))])
        parts.append(src)
        parts.append(f'extern "C" void run_{fn}({", ".join(args)}, long long n) '
                     f"{{ for (long long j = 0; j < n; ++j) {fn}({call}); }}")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def host_lib():
    return build(_host_source())


# -- inputs -----------------------------------------------------------------------------


def _ints(rng, dtype, n):
    info = np.iinfo(dtype)
    edge = [0, 1, 2, 3, info.max, info.max - 1, info.min, info.min + 1]
    if info.min < 0:
        edge += [-1, -2, -3]
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    small = rng.integers(max(info.min, -20), 20, n // 3, dtype=dtype, endpoint=True)
    x[: n // 3] = small
    x[-len(edge):] = np.array(edge, dtype=dtype)
    return rng.permutation(x)


def _floats(rng, dtype, n, moderate=False):
    dtype = np.dtype(dtype)
    if dtype == np.float16 and not moderate:
        # every half, so unary half loops are checked exhaustively
        every = rng.permutation(np.arange(1 << 16, dtype=np.uint16).view(np.float16))
        edge = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, np.inf, -np.inf, np.nan, 65504, 6e-8],
                        dtype=np.float16)
        every[: len(edge)] = edge
        return every[: max(n, len(edge))] if n < 1 << 16 else every
    if moderate:
        return (rng.uniform(-3, 3, n) * 10.0 ** rng.uniform(-3, 0.5, n)).astype(dtype)
    info = np.finfo(dtype)
    mag = 10.0 ** rng.uniform(np.log10(info.tiny) / 2, np.log10(info.max) / 2, n)
    x = np.where(rng.random(n) < 0.5, -mag, mag)
    x[: n // 3] = rng.uniform(-12, 12, n // 3)
    x[n // 3: n // 2] = np.round(rng.uniform(-8, 8, n // 2 - n // 3) * 2) / 2  # halves, ties
    x = x.astype(dtype)
    edge = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, np.inf, -np.inf, np.nan,
                     info.max, -info.max, info.tiny, -info.tiny, info.smallest_subnormal,
                     -info.smallest_subnormal, np.pi, -np.pi / 2], dtype=dtype)
    x[-len(edge):] = edge
    return x


def _complex(rng, dtype, n, moderate):
    real = np.float32 if dtype == np.complex64 else np.float64
    re, im = _floats(rng, real, n, moderate), _floats(rng, real, n, moderate)
    im = rng.permutation(im)
    if not moderate:
        im[: n // 5] = 0
        im[n // 5: n // 4] = re[n // 5: n // 4]
    z = np.empty(n, dtype=dtype)
    z.real, z.imag = re[:n], im[:n]
    return z


def _inputs(name, chars, rng):
    nin = getattr(np, name).nin
    # complex functions get finite arguments of moderate size; arithmetic gets everything
    moderate = chars[0] in "FD" and name not in EXACT - {"sqrt", "power", "float_power"}
    n = N
    if chars[0] == "e" and nin == 1:
        n = 1 << 16
    xs = []
    for k, c in enumerate(chars[:nin]):
        dt = np.dtype(c)
        if c == "?":
            x = rng.random(n) < 0.5
        elif dt.kind in "iu":
            x = _ints(rng, dt, n)
        elif dt.kind == "f":
            x = _floats(rng, dt, n)
            if k == 1:
                x = rng.permutation(x)
        else:
            x = _complex(rng, dt, n, moderate)
        xs.append(x[:n])
    if name in ("left_shift", "right_shift"):
        bits = np.dtype(chars[0]).itemsize * 8
        lo = -3 if np.dtype(chars[0]).kind == "i" else 0
        xs[1] = rng.integers(lo, bits + 3, n).astype(chars[1])
    if name == "power" and np.dtype(chars[0]).kind in "iu":
        xs[1] = rng.integers(0, 70, n).astype(chars[1])  # negative exponents: see below
    if name == "ldexp":
        e = rng.integers(-300, 300, n)
        e[:4] = [2**31 - 1, -2**31, 1000, -1000]
        xs[1] = e.astype(chars[1])
        if chars[1] in "lq":
            xs[1][4:6] = [2**40, -2**40]
    if nin == 2 and name in ("floor_divide", "remainder", "fmod", "divmod", "divide"):
        xs[1][rng.random(n) < 0.05] = 0
    if nin == 2 and np.dtype(chars[1]).kind in "fc":
        same = rng.random(n) < 0.1  # equal operands: ties of maximum, x == y of logaddexp
        xs[1][same] = xs[0][same]
    return xs


# -- running and comparing -----------------------------------------------------------------


def _run(lib, name, chars, xs):
    nin = getattr(np, name).nin
    _, fn = scalar_ops.device_function(name, chars)
    run = getattr(lib, "run_" + fn)
    outs = [np.empty(len(xs[0]), dtype=c) for c in chars[nin:]]
    run.argtypes = [_C[c] for c in chars] + [ctypes.c_longlong]
    run.restype = None
    run(*[np.ascontiguousarray(x) for x in xs], *outs, len(xs[0]))
    return outs


def _ordered(x):
    """Floats as integers in the order of their values (+0 and -0 both 0)."""
    ints = x.view({2: np.int16, 4: np.int32, 8: np.int64}[x.itemsize]).astype(np.int64)
    lo = np.iinfo({2: np.int16, 4: np.int32, 8: np.int64}[x.itemsize]).min
    return np.where(ints < 0, lo - ints, ints)


def _ulps(got, want):
    a, b = _ordered(got), _ordered(want)
    with np.errstate(over="ignore"):
        d = np.abs(a - b)
    return np.where((a < 0) != (b < 0), np.where((a == 0) | (b == 0), d, 2**62), d)


def _check(name, chars, xs, got, want, exact):
    zero_sign = name not in SIGNLESS_ZERO
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype
        bad = np.zeros(len(g), bool)
        if g.dtype.kind in "biu":
            bad = g != w
        elif g.dtype.kind == "f":
            nan = np.isnan(g) != np.isnan(w)
            if exact:
                bad = nan | ~((g == w) & ((np.signbit(g) == np.signbit(w)) | (not zero_sign)) | np.isnan(g) & np.isnan(w))
            else:
                both = ~np.isnan(g) & ~np.isnan(w)
                bad = nan | both & (_ulps(g, w) > ULPS[g.dtype.char])
        else:
            nan = np.isnan(g) != np.isnan(w)
            if exact:
                bad = nan | ~((g == w) | np.isnan(g) & np.isnan(w))
            else:
                # overflow of finite arguments is not reproduced (NumPy's own result
                # depends on its SIMD path): such elements are skipped
                over = ~np.isfinite(w) & np.logical_and.reduce([np.isfinite(x) for x in xs])
                nan &= ~over
                fin = np.isfinite(w) & np.isfinite(g)
                with np.errstate(all="ignore"):
                    err = np.abs(g - w) > CRTOL[g.dtype.char] * np.abs(w) + np.finfo(g.real.dtype).tiny
                inf = ~np.isfinite(w) & ~np.isnan(w)
                bad = nan | fin & err | (inf & (g != w) | (np.isfinite(w) != np.isfinite(g)) & ~nan) & ~over
        if bad.any():
            i = np.flatnonzero(bad)[:8]
            rows = [f"  in={[x[j] for x in xs]} got={g[j]!r} want={w[j]!r}" for j in i]
            raise AssertionError(f"{name} {chars} output {k}: {bad.sum()} of {len(g)} differ\n"
                                 + "\n".join(rows))


def _follow_the_standard(name, chars, xs, want):
    """NumPy's results with the Array API standard's special values that asnumpy
    follows instead (the cpu back end's table; floor_divide by infinity ...)."""
    if name not in STANDARD_VALUES or chars[0] not in STANDARD_VALUES[name][0]:
        return
    _, select, value = STANDARD_VALUES[name]
    with np.errstate(all="ignore"):
        special = select(*xs)
        if special is not None:
            want[0][special] = value(*(x[special] for x in xs))


@requires_compiler
@pytest.mark.parametrize("name,chars", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_host_matches_numpy(host_lib, name, chars):
    rng = np.random.default_rng(zlib.crc32(f"{name}{chars}".encode()))
    xs = _inputs(name, chars, rng)
    ufunc = getattr(np, name)
    sig = chars[:ufunc.nin] + "->" + chars[ufunc.nin:]
    with np.errstate(all="ignore"):
        want = ufunc(*xs, signature=sig)
    want = list(want) if isinstance(want, tuple) else [want]
    _follow_the_standard(name, chars, xs, want)
    got = _run(host_lib, name, chars, xs)
    real_exact = name in EXACT and not (chars[0] in "FD" and name in COMPLEX_APPROX)
    _check(name, chars, xs, got, want, real_exact)


@requires_compiler
@pytest.mark.parametrize("chars", [lp for n, lp in CASES if n == "power" and lp[0] in "bhilq"])
def test_integer_power_negative_exponent(host_lib, chars):
    """NumPy raises ValueError; the device gives the truncated exact value."""
    base = np.array([1, -1, -1, 2, -2, 0, 5], dtype=chars[0])
    exp = np.array([-1, -1, -2, -1, -3, -1, -7], dtype=chars[1])
    with pytest.raises(ValueError):
        np.power(base, exp)
    (got,) = _run(host_lib, "power", chars, [base, exp])
    assert got.tolist() == [1, -1, 1, 0, 0, 0, 0]


# -- NVRTC ------------------------------------------------------------------------------------


def _nvrtc():
    core = pytest.importorskip("cuda.core")
    try:
        from cuda.pathfinder import find_nvidia_header_directory
        include = find_nvidia_header_directory("cudart")
    except Exception:  # noqa: BLE001 - any lookup failure means no headers
        include = None
    if not include or not os.path.exists(os.path.join(include, "cuda_fp16.h")):
        pytest.skip("CUDA runtime headers (cuda_fp16.h) not found")
    return core, include


@pytest.mark.parametrize("name", NAMES)
def test_nvrtc_compiles(name):
    core, include = _nvrtc()
    nin = getattr(np, name).nin
    parts = [scalar_ops.PRELUDE]
    for lp in scalar_ops.loops(name):
        src, fn = scalar_ops.device_function(name, lp)
        chars = "".join(t.char for t in lp)
        args = [f"const {scalar_ops.CTYPES[c]} *x{k}" for k, c in enumerate(chars[:nin])]
        args += [f"{scalar_ops.CTYPES[c]} *y{k}" for k, c in enumerate(chars[nin:])]
        call = ", ".join([f"x{k}[i]" for k in range(nin)] + [f"y{k}[i]" for k in range(len(chars) - nin)])
        parts += [src, (f'extern "C" __global__ void k_{fn}({", ".join(args)}) '
                        f"{{ int i = threadIdx.x; {fn}({call}); }}")]
    options = core.ProgramOptions(arch="sm_90", std="c++17", include_path=[include])
    cubin = core.Program("\n".join(parts), "c++", options).compile("cubin")
    assert cubin is not None


@requires_compiler
def test_casts(host_lib):
    """asn_cast between every pair of dtypes is NumPy's astype (in-range values)."""
    chars = "?bBhHiIlLqQefdFD"
    parts = [scalar_ops.PRELUDE]
    for a in chars:
        for b in chars:
            ta, tb = scalar_ops.CTYPES[a], scalar_ops.CTYPES[b]
            parts.append(f'extern "C" void cast_{ord(a)}_{ord(b)}(const {ta} *x, {tb} *y, long long n)'
                         f" {{ for (long long j = 0; j < n; ++j) y[j] = asn_cast<{tb}>(x[j]); }}")
    lib = build("\n".join(parts))
    rng = np.random.default_rng(7)
    base = np.concatenate([rng.integers(-300, 300, 200), rng.uniform(-120, 120, 200),
                           [0, 1, -1, 0.5, -0.5, 1.5, 2.5, 127, -128, 255, 65504]])
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 1e300, 1e-300])
    for a in chars:
        for b in chars:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                x = base.astype(a) if a not in "FD" else (base + 1j * base[::-1]).astype(a)
                if np.dtype(a).kind in "fc" and np.dtype(b).kind in "fc?":
                    x = np.concatenate([x, specials.astype(a)])
                if np.dtype(a).kind in "fc" and np.dtype(b).kind in "iu":
                    info = np.iinfo(b)  # out-of-range float -> int is undefined
                    x = x[(x.real >= info.min) & (x.real <= info.max)]
                want = x.astype(b)
            got = np.empty(len(x), dtype=b)
            fn = getattr(lib, f"cast_{ord(a)}_{ord(b)}")
            fn.argtypes = [_C[a], _C[b], ctypes.c_longlong]
            fn(np.ascontiguousarray(x), got, len(x))
            same = (got == want) | (np.isnan(got) & np.isnan(want) if got.dtype.kind in "fc" else False)
            assert same.all(), (a, b, x[~same][:5], got[~same][:5], want[~same][:5])


def test_api():
    assert scalar_ops.CTYPES["l"] == scalar_ops.CTYPES["q"] == "long long"
    assert set(scalar_ops.TABLE) == set(NAMES)
    with pytest.raises(TypeError):
        scalar_ops.device_function("add", (np.dtype("O"),) * 3)
    with pytest.raises(TypeError):
        scalar_ops.device_function("negative", "?->?")
    src, fn = scalar_ops.device_function("divmod", (np.dtype("f"),) * 4)
    assert fn in src and "&y1" in src
    assert len(scalar_ops.loops("sqrt")) == len(set(scalar_ops.loops("sqrt")))
