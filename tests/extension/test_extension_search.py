"""User kernels and fused functions on searched programs and layouts (hypothesis).

The user kernels: broadcasting, strides, axes, keepdims.  ``asnumpy.fuse``:
random functions mixing elementwise ufuncs and reductions whose results are
broadcast back to a larger shape, along their own axes or others, compared
with the same function run by NumPy.  CI runs ``ASNUMPY_FUSE_PROGRAMS``
functions (default 60) on cpu and a quarter as many on cuda (a GPU, else the
emulated driver); the long run is
``ASNUMPY_FUSE_PROGRAMS=2000 python -m pytest tests/extension/test_extension_search.py -k fuse``.
"""

import os
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import asnumpy as ap
from asnumpy.backends.cpu import compiler as _toolchain
from asnumpy.extension import ElementwiseKernel, ReductionKernel
from asnumpy.extension.fusion import FusionFallbackWarning, fuse
from asnumpy.testing._differential import public_error_type

try:
    _toolchain.compiler_command()
except _toolchain.CompilerNotFoundError:
    pytest.skip("no C++ compiler for cpu kernels", allow_module_level=True)

MULADD = ElementwiseKernel("T x, T y", "T z", "z = x * y + (T)1", "muladd_search")
TOTAL = ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total_search")
MAX = ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "max_search")


@st.composite
def strided(draw, shape):
    """``(host view, device view)`` of ``shape``: the same view, with arbitrary steps
    (negative ones too), of one int64 array on the host and on cpu:0."""
    steps = [draw(st.sampled_from([-2, -1, 1, 2])) for _ in shape]
    base = draw(hnp.arrays(np.int64, [max(1, n * abs(s)) for n, s in zip(shape, steps)],
                           elements=st.integers(-1000, 1000)))
    step = tuple(slice(None, None, s) for s in steps)
    crop = tuple(slice(0, n) for n in shape)
    return base[step][crop], ap.asarray(base, device="cpu:0")[step][crop]


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_elementwise_matches_numpy_on_searched_layouts(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4,
                                                         min_side=0, max_side=4))
    (x, dx), (y, dy) = (data.draw(strided(shape)) for shape in shapes.input_shapes)
    got = MULADD(dx, dy)
    assert got.shape == shapes.result_shape
    np.testing.assert_array_equal(ap.asnumpy(got), x * y + 1)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_reductions_match_numpy_on_searched_axes(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5))
    x, dx = data.draw(strided(shape))
    axis = data.draw(st.none() | hnp.valid_tuple_axes(len(shape), min_size=1))
    keepdims = data.draw(st.booleans())
    np.testing.assert_array_equal(ap.asnumpy(TOTAL(dx, axis=axis, keepdims=keepdims)),
                                  x.sum(axis=axis, keepdims=keepdims))
    np.testing.assert_array_equal(ap.asnumpy(MAX(dx, axis=axis, keepdims=keepdims)),
                                  x.max(axis=axis, keepdims=keepdims))


# -- asnumpy.fuse: searched functions ---------------------------------------------------------

FUSE_PROGRAMS = int(os.environ.get("ASNUMPY_FUSE_PROGRAMS", "60"))
_FUSE_DTYPES = ("bool", "int8", "uint8", "int32", "int64", "float32", "float64")
_FUSE_UNARY = ("negative", "absolute", "square")
_FUSE_BINARY = ("add", "subtract", "multiply", "maximum", "minimum")
_FUSE_REDUCTIONS = ("sum", "prod", "max", "min", "mean")
_LAYOUTS = ("contiguous", "reversed", "strided", "transposed")


def _broadcastable(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


@st.composite
def _reduction(draw, code, shape, back=False):
    """(code, shape) of a reduction of ``code``: any axes (negative, out of order), keepdims.

    ``back``: to be broadcast back against its operand; most of these reduce the last axis
    without keepdims, so that the kept axes come back shifted, along other axes.
    """
    ndim = len(shape)
    name = draw(st.sampled_from(_FUSE_REDUCTIONS))
    if back and ndim and draw(st.integers(0, 3)):
        return f"xp.{name}({code}, axis=-1)", shape[:-1]
    kind = draw(st.sampled_from(["all", "one", "one", "several", "none"] if ndim
                                else ["all", "none"]))
    if kind == "all":
        axis, reduced = draw(st.sampled_from(["None", repr(tuple(range(ndim)))])), range(ndim)
    elif kind == "one":
        axis = draw(st.integers(-ndim, ndim - 1))
        axis, reduced = str(axis), {axis % ndim}
    elif kind == "several":                   # out of order, some negative
        order = draw(st.permutations(range(ndim)))[:draw(st.integers(1, ndim))]
        axis = repr(tuple(a - ndim if draw(st.booleans()) else a for a in order))
        reduced = set(order)
    else:
        axis, reduced = "()", set()
    keepdims = draw(st.booleans())
    result = tuple(1 if d in reduced else n for d, n in enumerate(shape)
                   if keepdims or d not in reduced)
    form = draw(st.sampled_from(["function", "method"]))
    if form == "method":
        return f"({code}).{name}(axis={axis}, keepdims={keepdims})", result
    return f"xp.{name}({code}, axis={axis}, keepdims={keepdims})", result


@st.composite
def _fused_expression(draw, leaves, depth, computed=False):
    """(code, shape) of a random expression over ``leaves`` ({name: shape}) NumPy accepts.

    Besides nested ufuncs and reductions, ``back`` draws a reduction broadcast
    back against a larger operand: its own operand (along the axes it keeps),
    an argument, or a value of another rank (along other axes).
    """
    kinds = ["leaf"] if depth == 0 else ["leaf", "unary", "binary", "reduce", "back", "back"]
    kind = draw(st.sampled_from(kinds[1:] if computed else kinds))
    if kind == "leaf":
        name = draw(st.sampled_from(sorted(leaves) + ["2"]))
        return name, leaves.get(name, ())
    # what a function, a reduction or the first operand works on is computed from an argument
    # (asnumpy computes a function of constants alone on the default device, as it should)
    operand = _fused_expression(leaves, depth - 1).flatmap(
        lambda e: st.just(e) if re.search(r"\b[ab]\b", e[0])
        else st.sampled_from(sorted(leaves.items())))
    if kind == "unary":
        code, shape = draw(operand)
        return f"xp.{draw(st.sampled_from(_FUSE_UNARY))}({code})", shape
    if kind == "reduce":
        return draw(_reduction(*draw(operand)))
    left = draw(operand)
    if kind == "binary":
        right = draw(_fused_expression(leaves, depth - 1))
    elif draw(st.booleans()):                 # against its operand, shifted by one axis
        left, right = draw(_reduction(*left, back=True)), left
    else:
        others = [left] + [(name, shape) for name, shape in sorted(leaves.items())]
        left, right = draw(_reduction(*left)), draw(st.sampled_from(others))
    if _broadcastable(left[1], right[1]) is None:
        right = ("3", ())
    if draw(st.booleans()):
        left, right = right, left
    code = f"xp.{draw(st.sampled_from(_FUSE_BINARY))}({left[0]}, {right[0]})"
    return code, _broadcastable(left[1], right[1])


@st.composite
def fused_functions(draw):
    """(source of ``f(xp, a, b)``, host arguments, layouts) of a random function."""
    # extents 1 and 3 mostly, and shapes such as (3, 1), so that a reduced value broadcasts
    # back along other axes than its own (sum(a, axis=-1) + a for a of shape (3, 1) is a
    # (3, 3) outer sum)
    side = st.sampled_from([1, 1, 1, 3, 3, 2])
    shapes = [draw(st.sampled_from([(3, 1), (1, 3, 1), (3, 1, 1), (2, 3, 1)])) if draw(
        st.booleans()) else tuple(draw(side) for _ in range(draw(st.sampled_from([0, 1, 2, 3]))))
        for _ in "ab"]
    leaves = dict(zip("ab", shapes))
    bodies = [draw(_fused_expression(leaves, 3, computed=True))[0]
              for _ in range(1 + (draw(st.integers(0, 3)) == 0))]
    dtype = draw(st.sampled_from(_FUSE_DTYPES))
    hosts = [draw(hnp.arrays(dtype, shape, elements=st.integers(-3, 3).map(
        lambda v, dtype=dtype: np.array(v).astype(dtype)[()]))) for shape in shapes]
    layouts = [draw(st.sampled_from(_LAYOUTS)) for _ in shapes]
    return f"def f(xp, a, b):\n    return {', '.join(bodies)}\n", hosts, layouts


def _laid_out(host, layout, device):
    """``host`` on ``device`` as a view of the given layout (the same values)."""
    if layout == "reversed" and host.ndim:
        return ap.asarray(np.ascontiguousarray(host[::-1]), device=device)[::-1]
    if layout == "strided" and host.ndim:
        return ap.asarray(np.repeat(host, 2, axis=-1), device=device)[..., ::2]
    if layout == "transposed" and host.ndim > 1:
        return ap.asarray(np.ascontiguousarray(host.T), device=device).T
    return ap.asarray(host, device=device)


def _outcome(function, args):
    """(result, error) of ``function(*args)``; whether it fused is a hypothesis event."""
    with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("always", FusionFallbackWarning)
        try:
            outcome = function(*args), None
        except Exception as error:      # noqa: BLE001 (compared with NumPy's below)
            outcome = None, error
    for warning in caught:
        if issubclass(warning.category, FusionFallbackWarning):
            event(re.sub(r".*cannot fuse (.*?)( at `.*)?; the function.*", r"op by op: \1",
                         str(warning.message)))
    return outcome


def _check_fused_function(case, device):
    source, hosts, layouts = case
    note(source)
    namespace = {}
    exec(source, namespace)          # noqa: S102 (generated test code)
    body = namespace["f"]
    want, numpy_error = _outcome(lambda a, b: body(np, a, b), hosts)
    fused = fuse(lambda a, b: body(ap, a, b))
    got, error = _outcome(fused, [_laid_out(h, lay, device) for h, lay in zip(hosts, layouts)])
    for entry in fused._schedules.values():
        fused_entry = hasattr(entry, "schedule")
        stages = getattr(entry.schedule, "stages", None) if fused_entry else None
        event("one kernel" if fused_entry and stages is None
              else f"{len(stages)} kernels" if stages else "op by op")
    if numpy_error is not None or error is not None:
        assert error is not None and numpy_error is not None, (error, numpy_error)
        assert isinstance(error, public_error_type(type(numpy_error))), (error, numpy_error)
        return
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert isinstance(g, ap.ndarray) and g.device == ap.Device(device)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        g = ap.asnumpy(g)
        if w.dtype.kind == "f":
            tolerance = 1e-5 if w.dtype == np.float32 else 1e-12
            scale = max(1.0, float(np.max(np.abs(w), initial=0, where=np.isfinite(w))))
            np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance * scale,
                                       equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


@settings(max_examples=FUSE_PROGRAMS, deadline=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fused_functions())
def test_fused_functions_match_numpy(case):
    _check_fused_function(case, "cpu:0")


@settings(max_examples=max(1, FUSE_PROGRAMS // 4), deadline=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=fused_functions())
def test_fused_functions_match_numpy_on_cuda(cuda, case):
    _check_fused_function(case, str(cuda))
