"""Floating-point error reporting matches NumPy's under ``errstate(all="raise")``.

asnumpy's internal work (probes on stand-in data, casts of fill values,
helper products) must never trip the user's ``errstate``; the operations the
user asked for must report exactly what NumPy reports.  Each test runs the
same call with NumPy and with asnumpy under ``numpy.errstate(all="raise")``
and requires the same outcome: both raise ``FloatingPointError`` or neither
does.  Messages may name a
different inner loop (``matmul`` for ``dot``), so only the outcome is compared.

The inputs cover ordinary data and the edges that make floating-point
errors: empty, 0-d, NaN, infinities, subnormals, values near overflow, and
integer, unsigned, bool, float16/32 and complex dtypes.
"""

import warnings

import numpy
import pytest
from _ufunc_data import FLAGS_ON_CPU_ONLY

import asnumpy

# name -> host data; each becomes an array of the module under test
INPUTS = {
    "f64 2-D": numpy.array([[1.0, 2, 3], [4, 5, 7]]),
    "int 2-D": numpy.array([[1, 2, 3], [4, 5, 7]]),
    "empty": numpy.zeros((0,)),
    "empty 2-D": numpy.zeros((0, 3)),
    "0-d": numpy.array(2.5),
    "complex": numpy.array([1 + 2j, 3 - 1j, 0.5j]),
    "bool": numpy.array([True, False, True]),
    "uint8": numpy.array([1, 200, 3], dtype=numpy.uint8),
    "int8": numpy.array([100, -128, 127], dtype=numpy.int8),
    "float16 big": numpy.array([60000.0, 1, 2], dtype=numpy.float16),
    "float32 big": numpy.array([1e30, 2, 3], dtype=numpy.float32),
    "nan": numpy.array([1.0, numpy.nan, 3]),
    "inf": numpy.array([1.0, numpy.inf, -numpy.inf]),
    "subnormal": numpy.array([1e-300, 1e-310, 0.0]),
    "near overflow": numpy.array([1e300, 1e308, 2.0]),
    "reversed view": numpy.array([4.0, 1, 3, 2, 8, 0])[::-2],
}

GRID = numpy.array([0.0, 1, 2])

# name -> call(xp, a) on one operand
UNARY = {
    name: (lambda name: lambda xp, a: getattr(xp, name)(a))(name)
    for name in [
        "sum", "prod", "mean", "std", "var", "max", "min", "ptp", "argmax", "argmin", "all",
        "any", "count_nonzero", "nansum", "nanprod", "nanmean", "nanstd", "nanvar", "nanmax",
        "nanmin", "nanargmax", "nanargmin", "cumsum", "cumprod", "nancumsum", "nancumprod",
        "median", "nanmedian", "average", "cov", "corrcoef", "diff", "ediff1d", "gradient",
        "trapezoid", "sort", "unique", "histogram", "histogram_bin_edges", "round", "sinc",
        "i0", "nan_to_num", "real_if_close", "angle", "unwrap", "fix", "flatnonzero", "trace",
        "diag", "tril", "exp", "log", "sqrt", "cbrt", "square", "reciprocal", "negative",
        "abs", "sign", "floor", "rint", "spacing", "exp2", "log1p", "expm1", "tanh", "sin",
        "isnan", "isfinite", "signbit", "conjugate", "polyder", "polyint", "roots",
    ]
}
UNARY.update({
    "outer": lambda xp, a: xp.outer(a, a),
    "dot": lambda xp, a: xp.dot(a.ravel(), a.ravel()),
    "vdot": lambda xp, a: xp.vdot(a, a),
    "inner": lambda xp, a: xp.inner(a, a),
    "matmul": lambda xp, a: xp.matmul(a, a.T) if a.ndim else a * a,
    "tensordot": lambda xp, a: xp.tensordot(a, a, a.ndim),
    "vecdot": lambda xp, a: xp.vecdot(a, a) if a.ndim else a * a,
    "einsum": lambda xp, a: xp.einsum("...,...->", a, a),
    "kron": lambda xp, a: xp.kron(a, a),
    "convolve": lambda xp, a: xp.convolve(a.ravel(), a.ravel()),
    "correlate": lambda xp, a: xp.correlate(a.ravel(), a.ravel()),
    "polyval": lambda xp, a: xp.polyval(a.ravel(), a.ravel()),
    "polyfit": lambda xp, a: xp.polyfit(a.ravel(), a.ravel(), 1),
    "quantile": lambda xp, a: xp.quantile(a, [0.1, 0.5]),
    "percentile": lambda xp, a: xp.percentile(a, 30),
    "nanquantile": lambda xp, a: xp.nanquantile(a, [0.1, 0.9]),
    "nanpercentile": lambda xp, a: xp.nanpercentile(a, 30),
    "interp": lambda xp, a: xp.interp(a, xp.asarray(GRID), xp.asarray(GRID + 5)),
    "digitize": lambda xp, a: xp.digitize(a, xp.asarray(GRID)),
    "searchsorted": lambda xp, a: xp.searchsorted(xp.asarray(GRID), a),
    "bincount": lambda xp, a: xp.bincount(a.ravel().astype(numpy.intp) % 5),
    "fft": lambda xp, a: xp.fft.fft(a),
    "rfft": lambda xp, a: xp.fft.rfft(a),
    "ifft": lambda xp, a: xp.fft.ifft(a),
    "norm": lambda xp, a: xp.linalg.norm(a),
    "astype uint16": lambda xp, a: a.astype(numpy.uint16),
    "astype int8": lambda xp, a: a.astype(numpy.int8),
    "astype float16": lambda xp, a: a.astype(numpy.float16),
    "full_like 1e10 uint16": lambda xp, a: xp.full_like(a, 1e10, dtype=numpy.uint16),
    "full_like nan int64": lambda xp, a: xp.full_like(a, numpy.nan, dtype=numpy.int64),
    "full 1e10 uint16": lambda xp, a: xp.full(a.shape, 1e10, dtype=numpy.uint16),
    "clip": lambda xp, a: xp.clip(a, 0, 2),
    "around 2": lambda xp, a: xp.around(a, 2),
    "linspace": lambda xp, a: xp.linspace(a, a * 2, 3),
    "std ddof=1": lambda xp, a: xp.std(a, ddof=1),
    "var ddof=5": lambda xp, a: xp.var(a, ddof=5),
    "mean axis=0": lambda xp, a: xp.mean(a, axis=0),
    "cumulative_sum": lambda xp, a: xp.cumulative_sum(a.ravel()),
    "divide by self": lambda xp, a: xp.divide(a, a),
    "multiply by self": lambda xp, a: a * a,
})

# Calls on fixed data: the defects reported in issue 14 and their neighbours.
CALLS = {
    "full((0,), 1e10, uint16)": lambda xp: xp.full((0,), 1e10, dtype=numpy.uint16),
    "full((0, 2), nan, int32)": lambda xp: xp.full((0, 2), numpy.nan, dtype=numpy.int32),
    "full((3,), 1e10, uint16)": lambda xp: xp.full((3,), 1e10, dtype=numpy.uint16),
    "full_like empty inf int64": lambda xp: xp.full_like(xp.zeros(0), numpy.inf,
                                                         dtype=numpy.int64),
    "cov aweights": lambda xp: xp.cov(xp.asarray([[1.0, 2, 3]]),
                                      aweights=xp.asarray([1.0, 2, 3])),
    "cov fweights": lambda xp: xp.cov(xp.asarray([[1.0, 2, 3]]), fweights=xp.asarray([1, 2, 3])),
    "cov one observation": lambda xp: xp.cov(xp.asarray([1.0])),
    "corrcoef constant row": lambda xp: xp.corrcoef(xp.asarray([1.0, 1, 1]),
                                                    xp.asarray([1.0, 2, 3])),
    "vdot complex overflow": lambda xp: xp.vdot(xp.asarray([1e200 + 0j]),
                                                xp.asarray([1e200 + 0j])),
    "vdot inf * 0": lambda xp: xp.vdot(xp.asarray([numpy.inf]), xp.asarray([0.0])),
    "dot overflow": lambda xp: xp.dot(xp.asarray([1e200]), xp.asarray([1e200])),
    "dot inf * 0": lambda xp: xp.dot(xp.asarray([numpy.inf]), xp.asarray([0.0])),
    "median inf": lambda xp: xp.median(xp.asarray([-numpy.inf, numpy.inf])),
    "quantile inf": lambda xp: xp.quantile(xp.asarray([-numpy.inf, numpy.inf]), 0.5),
    "quantile empty": lambda xp: xp.quantile(xp.zeros(0), 0.5),
    "nanquantile empty": lambda xp: xp.nanquantile(xp.zeros(0), [0.1, 0.5]),
    "nanpercentile empty axis": lambda xp: xp.nanpercentile(xp.zeros((0, 3)), [10, 50], axis=0),
    "nanmedian empty": lambda xp: xp.nanmedian(xp.zeros((2, 0)), axis=1),
    "clip signed zeros": lambda xp: xp.clip(xp.asarray([-0.0, numpy.nan, 1]), 0.0, -0.0),
    "clip complex ties": lambda xp: xp.clip(xp.asarray([complex(-0.0, 0), numpy.nan]), 0, 2),
    "dot 0-d": lambda xp: xp.dot(xp.asarray(-0.0), xp.asarray([numpy.inf, 1])),
    "convolve 0-d": lambda xp: xp.convolve(xp.asarray(1e200), xp.asarray([1e200])),
    "interp inf": lambda xp: xp.interp(xp.asarray([1.5]), xp.asarray([1.0, 2]),
                                       xp.asarray([numpy.inf, numpy.inf])),
    "histogram density constant": lambda xp: xp.histogram(xp.asarray([0.0, 0]), density=True),
    "histogram empty density": lambda xp: xp.histogram(xp.zeros(0), density=True),
    "average weights": lambda xp: xp.average(xp.asarray([1.0, 2]), weights=xp.asarray([1.0, 3])),
    "nanvar all-nan column": lambda xp: xp.nanvar(xp.asarray([[numpy.nan, 1.0]]), axis=0),
    "linalg det singular": lambda xp: xp.linalg.det(xp.asarray([[1.0, 2], [2, 4]])),
    "linalg inv": lambda xp: xp.linalg.inv(xp.asarray([[1.0, 2], [3, 4]])),
    "linalg cond singular": lambda xp: xp.linalg.cond(xp.asarray([[1.0, 2], [2, 4]])),
    "linalg pinv": lambda xp: xp.linalg.pinv(xp.asarray([[1.0, 2], [2, 4]])),
    "fftfreq": lambda xp: xp.fft.fftfreq(5, 0.1),
    "logspace overflow": lambda xp: xp.logspace(0, 400, 3),
    "geomspace": lambda xp: xp.geomspace(1e-300, 1e300, 5),
    "isclose inf": lambda xp: xp.isclose(xp.asarray([numpy.inf, 1]), xp.asarray([numpy.inf, 2])),
    "polydiv tiny": lambda xp: xp.polydiv(xp.asarray([1.0, 2]), xp.asarray([1e-300, 1.0])),
    "prod int overflow": lambda xp: xp.prod(xp.asarray([2**40, 2**40])),
    "mean float16 overflow": lambda xp: xp.mean(xp.asarray([60000.0, 60000], dtype=numpy.float16)),
}


def _outcome(xp, call):
    """'ok', 'FloatingPointError: ...' or the other exception's type, under all='raise'."""
    try:
        with numpy.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's own warnings (empty slices) are not errors
            call(xp)
    except FloatingPointError as error:
        return f"FloatingPointError: {error}"
    except Exception as error:  # noqa: BLE001 (only whether it is raised is compared)
        return type(error).__name__
    return "ok"


def _same_outcome(numpy_outcome, asnumpy_outcome):
    """Whether both raised FloatingPointError or neither did.

    Other exceptions are not this file's subject (their agreement is checked
    where each function is tested); they count as "no floating-point error".
    """
    def raised(outcome):
        return outcome.startswith("FloatingPointError")
    return raised(numpy_outcome) == raised(asnumpy_outcome)


@FLAGS_ON_CPU_ONLY
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_calls_raise_where_numpy_raises(name):
    call = UNARY[name]
    mismatches = []
    for label, data in INPUTS.items():
        expected = _outcome(numpy, lambda xp: call(xp, xp.asarray(data)))
        got = _outcome(asnumpy, lambda xp: call(xp, xp.asarray(data)))
        if not _same_outcome(expected, got):
            mismatches.append(f"{label}: numpy {expected!r}, asnumpy {got!r}")
    assert not mismatches, f"{name} under errstate(all='raise'):\n" + "\n".join(mismatches)


@FLAGS_ON_CPU_ONLY
@pytest.mark.parametrize("name", sorted(CALLS))
def test_calls_raise_where_numpy_raises(name):
    expected, got = _outcome(numpy, CALLS[name]), _outcome(asnumpy, CALLS[name])
    assert _same_outcome(expected, got), f"numpy {expected!r}, asnumpy {got!r}"


@FLAGS_ON_CPU_ONLY
def test_user_visible_errors_still_raise():
    """The fixes hide internal work only: the user's own overflow still raises."""
    with numpy.errstate(all="raise"):
        with pytest.raises(FloatingPointError):
            asnumpy.full((3,), 1e10, dtype=numpy.uint16)
        with pytest.raises(FloatingPointError):
            asnumpy.dot(asnumpy.asarray([1e200]), asnumpy.asarray([1e200]))
        with pytest.raises(FloatingPointError):
            asnumpy.cov(asnumpy.asarray([[1e300, 1e308, 2.0]]))
        with pytest.raises(FloatingPointError):
            asnumpy.asarray([1.0]) / 0


@pytest.mark.parametrize("call", [
    lambda xp: xp.cov(xp.asarray([[1.0, 2, 3], [4, 5, 7]])),
    lambda xp: xp.corrcoef(xp.asarray([[1.0, 2, 3], [4, 5, 7]])),
    lambda xp: xp.vdot(xp.asarray([1e200]), xp.asarray([1e200])),
    lambda xp: xp.full((0,), 1e10, dtype=numpy.uint16),
], ids=["cov", "corrcoef", "vdot", "full"])
def test_no_warning_where_numpy_gives_none(call):
    """Under all='warn' the same internal work must not warn either."""
    with numpy.errstate(all="warn"), warnings.catch_warnings():
        warnings.simplefilter("error")
        call(numpy)
        call(asnumpy)


def test_a_user_stream_sees_the_callers_settings_for_internal_work():
    """vdot's overflow, queued on a stream, is as silent as on the default stream."""
    stream = asnumpy.Stream()
    with numpy.errstate(all="raise"), stream:
        result = asnumpy.vdot(asnumpy.asarray([1e200]), asnumpy.asarray([1e200]))
        stream.synchronize()
    assert numpy.isinf(asnumpy.asnumpy(result))
