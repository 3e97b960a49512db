"""Reductions on the cuda back end (issue 15, item 8), checked without a GPU.

* Index width: each plan picks 32-bit offsets when its sizes allow and 64-bit
  otherwise; the loop counters that step by ``blockDim`` are 64-bit always.
  A sum over more than 2**31 elements (a zero-stride view of one byte) runs
  on the emulated driver.
* The block combine is a warp-shuffle tree (shared memory only across warps):
  run with real threads per block (``test_cuda_codegen``'s harness plus
  ``_cuda_host.THREADED_SHUFFLES``) for block sizes from 1 to 256, partial
  warps included; the one-thread shim's shuffles are checked on their own.
* argmax/argmin (and nanargmax/nanargmin, which reach them) are device
  kernels: counted launches, no host fallback, NumPy's results and errors.
* Differential tests against NumPy for sum, prod, min, max and the arg
  reductions over axes, dtypes, NaN, negative strides, empty, 0-d, keepdims.
"""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from _cuda_host import build, requires_compiler
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes
from test_cuda_codegen import _host_launch, _host_library, _spec, run_reduction

import asnumpy as ap
from asnumpy.backends.cuda import reduction as red
from asnumpy.backends.cuda.elementwise import ArraySpec
from asnumpy.ops.cxx.prelude import PRELUDE

ALL_DTYPES = "?bBhHiIlLqQefdFD"
INT32_MAX = 2**31 - 1


def _first_pass(source, kernel_name):
    """The text of the first-pass kernel ``kernel_name`` in ``source``."""
    start = source.index(f'extern "C" __global__ void {kernel_name}(')
    end = source.index('extern "C" __global__', start + 1)
    return source[start:end]


# --------------------------------------------------------------------------------------------
# index width
# --------------------------------------------------------------------------------------------

def test_index_width_is_chosen_per_plan():
    small = np.zeros((3, 1000))
    plan = red.plan_reduction("add", _spec(small), (1,), np.dtype("d"), _spec(np.zeros(3)))
    assert plan.index_bits == 32 and ("int", "m") in plan.parameters
    assert all(np.asarray(a).dtype == np.int32 for a in plan.arguments if type(a) is not tuple
               and np.asarray(a).dtype.kind == "i")

    count = 2**31 + 5                            # a zero-stride view: no memory needed
    one_byte = ArraySpec(np.dtype("B"), (count,), (0,))
    out = ArraySpec(np.dtype("Q"), (), ())
    plan = red.plan_reduction("add", one_byte, (0,), np.dtype("Q"), out)
    assert plan.index_bits == 64 and plan.m == count
    assert ("long long", "m") in plan.parameters
    assert np.int64(count) in [a for a in plan.arguments if type(a) is not tuple]

    # argmax's flat index runs past int32 over the whole of (3, 2**30)
    rows = ArraySpec(np.dtype("?"), (3, 2**30), (1, 0))
    plan = red.plan_reduction("argmax", rows, (0, 1), np.dtype("?"),
                              ArraySpec(np.dtype("q"), (), ()))
    assert plan.index_bits == 64 and plan.m == 3 * 2**30
    # few elements, but byte offsets past int32
    far = ArraySpec(np.dtype("d"), (4,), (2**30,))
    assert red.plan_reduction("maximum", far, (0,), np.dtype("d"),
                              ArraySpec(np.dtype("d"), (), ())).index_bits == 64


def test_loop_counters_are_64_bit_when_offsets_are_32_bit():
    # 2**31 - 2 elements: offsets fit int32, but r + blockDim passes INT_MAX on the last step
    a = ArraySpec(np.dtype("B"), (INT32_MAX - 1,), (1,))
    plan = red.plan_reduction("add", a, (0,), np.dtype("Q"), ArraySpec(np.dtype("Q"), (), ()))
    assert plan.index_bits == 32 and plan.second is not None
    source = plan.source
    first = _first_pass(source, plan.kernel_name)
    assert "for (long long r = lo + threadIdx.x; r < hi; r += blockDim.x)" in first
    final = source[source.index("_final("):]
    assert "for (long long p = threadIdx.x; p < splits; p += blockDim.x)" in final
    assert "for (long long r = 0; r < m; ++r)" in source[source.index("_threads("):]
    # every loop counter of the kernel is 64-bit (the prelude's loop over a CArray's
    # dimensions counts dimensions, not elements)
    assert source.startswith(PRELUDE)
    assert not re.search(r"for \(int ", source[len(PRELUDE):])


# --------------------------------------------------------------------------------------------
# warp-shuffle block combine
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, dtype", [("add", "d"), ("argmax", "D"), ("minimum", "e"),
                                         ("logical_or", "?")])
def test_block_combine_is_a_warp_shuffle_tree(name, dtype):
    a = np.zeros((3, 500), dtype)
    out = np.zeros(3, "q" if name in red.ARG_REDUCTIONS else dtype)
    plan = red.plan_reduction(name, _spec(a), (1,), np.dtype(dtype), _spec(out))
    source = plan.source
    assert "__shfl_down_sync(mask, " in source
    # shared memory holds one slot per warp, not one per thread
    slots = re.findall(r"__shared__ [\w ]+ s\w+\[(\d+)\];", source)
    assert slots and {int(n) for n in slots} == {red.MAX_BLOCK // red.WARP}
    assert "threadIdx.x + s]" not in source       # no shared-memory pairwise tree
    # both passes combine through the block function
    assert source.count(f"{plan.kernel_name}_block(v, k, ok, sv, sk, sok);") == 2


def _reduce_threads(name, a, axes, loop, block, **plan_kw):
    """Run a reduction with ``block`` real threads per block; compare with NumPy."""
    loop = np.dtype(loop)
    if name in red.ARG_REDUCTIONS:
        want = getattr(np, name)(a.reshape(-1) if len(axes) == a.ndim else a,
                                 axis=None if len(axes) == a.ndim else axes[0])
        out = np.full(np.shape(want), -9, np.int64)
    else:
        with np.errstate(all="ignore"):
            want = getattr(np, name).reduce(a, axis=axes, dtype=loop)
        out = np.full(np.shape(want), 77, loop)
    plan = red.plan_reduction(name, _spec(a), axes, loop, _spec(out), block=block, **plan_kw)
    assert plan.launch.block == block
    run_reduction(plan, out, a, threads=True)
    if loop.kind in "fc" and name in ("add", "multiply"):
        np.testing.assert_allclose(out, want, rtol=1e-12)
    else:
        np.testing.assert_array_equal(out, want, err_msg=f"{name} {loop} block={block}")
    return plan


@requires_compiler
@pytest.mark.parametrize("block", [1, 2, 7, 32, 33, 64, 100, 256])
def test_shuffle_tree_with_real_threads(block):
    rng = np.random.default_rng(block)
    ints = rng.integers(-2**40, 2**40, (3, 700))           # 64-bit values: two words each
    _reduce_threads("add", ints, (1,), "q", block, splits=1)
    _reduce_threads("add", ints[:, ::-3], (0, 1), "q", block, splits=3)     # two passes
    cplx = (rng.integers(-2, 3, (2, 300)) + 1j * rng.integers(-2, 3, (2, 300))).astype("D")
    cplx[1, 150:] = complex(2, 2)                           # ties: the first one wins
    cplx[0, 77], cplx[0, 200] = complex(np.nan, 0), complex(1, np.nan)      # first NaN wins
    _reduce_threads("argmax", cplx, (1,), "D", block, splits=1)
    _reduce_threads("argmin", cplx, (0, 1), "D", block, splits=2)
    half = rng.standard_normal((2, 333)).astype("e")
    _reduce_threads("maximum", half, (1,), "e", block, splits=1)          # 2-byte values
    _reduce_threads("logical_or", np.eye(2, 90, 89, dtype=bool), (1,), "?", block, splits=1)


SHUFFLE_PROBE = r"""
extern "C" void asn_probe(long long *out, unsigned threads)
{
    blockDim.x = threads; threadIdx.x = 0u;
    out[0] = __shfl_down_sync(1u, 7LL, 1u);           /* past the named lanes: own value */
    out[1] = __shfl_down_sync(0xffffffffu, 8LL, 5u);  /* lanes that do not exist: own */
    out[2] = __shfl_xor_sync(1u, 9LL, 1);
    out[3] = __shfl_up_sync(1u, 10LL, 1u);             /* below lane 0: own */
    out[4] = __shfl_sync(1u, 11LL, 0);
    out[5] = __shfl_down_sync(1u, 12LL, 31u, 8);       /* past the width segment: own */
    if (threads > 1) out[0] = __shfl_down_sync(3u, 13LL, 1u);     /* lane 1 is live */
}
"""


@requires_compiler
def test_one_thread_shim_shuffles_give_the_callers_value():
    lib = build(SHUFFLE_PROBE)
    out = np.zeros(6, np.int64)
    lib.asn_probe(ctypes.c_void_p(out.ctypes.data), ctypes.c_uint(1))
    np.testing.assert_array_equal(out, [7, 8, 9, 10, 11, 12])


@requires_compiler
def test_one_thread_shim_refuses_a_live_lanes_value():
    # two threads run one after the other: lane 1's value is not there when lane 0 reads it
    script = ("import ctypes, numpy as np; from _cuda_host import build; "
              f"from test_cuda_reductions import SHUFFLE_PROBE as S; lib = build(S); "
              "out = np.zeros(6, np.int64); "
              "lib.asn_probe(ctypes.c_void_p(out.ctypes.data), ctypes.c_uint(2))")
    tests = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(         # tests/, for _cuda_host
        p for p in (tests, os.environ.get("PYTHONPATH")) if p)}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=os.path.dirname(__file__), env=env, check=False)
    assert run.returncode != 0 and "reads live lane 1" in run.stderr


THREADED_PROBE = r"""
extern "C" __global__ void asn_lanes(long long *out, int delta, int width)
{
    const unsigned t = threadIdx.x, here = blockDim.x - t / 32u * 32u;
    const unsigned mask = here >= 32u ? 0xffffffffu : (1u << here) - 1u;
    out[t] = __shfl_down_sync(mask, 100LL * t, (unsigned)delta, width);
    out[blockDim.x + t] = __shfl_xor_sync(mask, (int)t, 1, width);
}
"""


@requires_compiler
@pytest.mark.parametrize("block, width", [(32, 32), (40, 32), (16, 8)])
def test_threaded_shuffles_read_the_source_lane(block, width):
    params = (("long long*", "out"), ("int", "delta"), ("int", "width"))
    lib = _host_library(THREADED_PROBE, [("asn_lanes", params)], threads=True)
    out = np.full(2 * block, -1, np.int64)
    _host_launch(lib, "asn_lanes", [("pointer", "out", 0), np.int32(3), np.int32(width)],
                 {("pointer", "out", 0): out.ctypes.data}, 1, block)
    lanes = np.arange(block)
    warp_end = np.minimum((lanes // 32 + 1) * 32, block)
    segment_end = np.minimum(lanes - lanes % width + width, warp_end)
    down = np.where(lanes + 3 < segment_end, lanes + 3, lanes) * 100
    xor = np.where((lanes ^ 1) < warp_end, lanes ^ 1, lanes)
    np.testing.assert_array_equal(out[:block], down)
    np.testing.assert_array_equal(out[block:], xor)


# --------------------------------------------------------------------------------------------
# on the emulated driver (or a GPU): device kernels, NumPy's results
# --------------------------------------------------------------------------------------------

def _data(dtype, shape, seed=0):
    """Many ties, and NaN, infinities and signed zeros for the inexact types."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    a = rng.integers(-3, 4, shape)
    if dtype.kind == "c":
        a = a + 1j * rng.integers(-2, 3, shape)
    a = a.astype(dtype) if dtype.kind != "b" else a > 0
    if dtype.kind in "fc" and a.size > 8:
        flat = a.reshape(-1)
        flat[[1, 5]] = np.nan
        flat[2], flat[3], flat[4] = np.inf, -np.inf, -0.0
        if dtype.kind == "c":
            flat[6] = complex(1, np.nan)
    return a


def _same(func, host, device, rtol=0.0):
    """``func(np, host)`` and ``func(ap, <host on device>)`` agree: value, dtype, shape, error."""
    try:
        with np.errstate(all="ignore"):
            want = func(np, host)
    except Exception as error:  # noqa: BLE001 - NumPy's error is the specification
        with pytest.raises(type(error)) as raised:
            func(ap, ap.asarray(host, device=device))
        assert str(error) in str(raised.value)
        return
    got = func(ap, ap.asarray(host, device=device))
    assert isinstance(got, ap.ndarray) and got.device == device
    got = got.get()
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


def _device_arg_launches(emulated_driver, before):
    return [k for k in emulated_driver.launches[before:] if k.startswith("asn_red_arg")]


@pytest.fixture
def no_host_fallback(cuda, monkeypatch):
    """Fail a test that sends any kernel of ``cuda`` to the host fallback."""
    def refuse(name):
        raise AssertionError(f"kernel {name!r} took the host fallback")

    from asnumpy.ops.host_fallback import HostFallback

    table = cuda.backend.kernels
    monkeypatch.setattr(table, "fallback", refuse)
    for name, kernel in list(table.items()):       # fallbacks earlier tests made and kept
        if isinstance(kernel, HostFallback):
            monkeypatch.delitem(table, name)


@requires_compiler
@pytest.mark.parametrize("name", ["argmax", "argmin", "nanargmax", "nanargmin"])
def test_arg_reductions_run_on_the_device(cuda, emulated_driver, no_host_fallback, name):
    host = _data("d", (4, 6, 5))
    a = ap.asarray(host, device=cuda)
    for axis, keepdims in [(None, False), (1, True), (-1, False)]:
        before = len(emulated_driver.launches)
        got = getattr(ap, name)(a, axis=axis, keepdims=keepdims)
        assert len(_device_arg_launches(emulated_driver, before)) == 1
        np.testing.assert_array_equal(got.get(),
                                      getattr(np, name)(host, axis=axis, keepdims=keepdims))


@requires_compiler
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_every_dtype(cuda, no_host_fallback, name, dtype):
    host = _data(dtype, (5, 7, 4), seed=3)
    _same(lambda xp, x: getattr(xp, name)(x[::-1, :, ::-2], axis=1, keepdims=True), host, cuda)
    _same(lambda xp, x: getattr(xp, name)(x), host, cuda)


@requires_compiler
@pytest.mark.parametrize("name", ["argmax", "argmin", "nanargmax", "nanargmin"])
def test_arg_reductions_layouts_and_errors(cuda, name):
    host = _data("f", (4, 5, 6), seed=5)
    cases = [
        lambda xp, x: getattr(xp, name)(x, axis=0),
        lambda xp, x: getattr(xp, name)(x[:, ::-1], axis=None, keepdims=True),
        lambda xp, x: getattr(xp, name)(x.transpose(2, 0, 1), axis=2),
        lambda xp, x: getattr(xp, name)(x[1, 2, 3]),                        # 0-d
        lambda xp, x: getattr(xp, name)(x[:, :0], axis=1),                  # empty: raises
        lambda xp, x: getattr(xp, name)(x[:0], axis=1),                     # empty result
        lambda xp, x: getattr(xp, name)(x, axis=3),                         # bad axis
    ]
    for case in cases:
        _same(case, host, cuda)
    all_nan = np.full((3, 4), np.nan, np.float32)
    all_nan[1] = 1.0
    _same(lambda xp, x: getattr(xp, name)(x, axis=0), all_nan, cuda)   # nan*: All-NaN slice
    _same(lambda xp, x: getattr(xp, name)(x, axis=1), all_nan, cuda)


@requires_compiler
def test_arg_reduction_into_strided_out_and_second_device(cuda):
    host = _data("i", (3, 4, 5), seed=9)
    a = ap.asarray(host, device=cuda)
    out = ap.zeros((5, 3), dtype=np.intp, device=cuda).T                 # F-ordered view
    assert ap.argmin(a, axis=1, out=out) is out
    np.testing.assert_array_equal(out.get(), np.argmin(host, axis=1))
    try:
        other = ap.Device(f"cuda:{cuda.index + 1}")
    except ap.DeviceUnavailableError:
        pytest.skip("one cuda device only")
    _same(lambda xp, x: xp.argmax(x, axis=2), host, other)


@requires_compiler
def test_arg_reduction_outputs_zero_d_and_overlap(cuda):
    host = _data("d", (3, 4), seed=2)
    for axis, keepdims in [(0, False), (-1, True), (None, True)]:
        _same(lambda xp, x: xp.argmax(x[1, 2], axis=axis, keepdims=keepdims), host, cuda)
    _same(lambda xp, x: xp.argmin(x[1, 2], axis=1), host, cuda)             # AxisError
    a = ap.asarray(host, device=cuda)
    narrow = ap.zeros(3, dtype=np.int32, device=cuda)                       # NumPy casts
    ap.argmax(a, axis=1, out=narrow)
    np.testing.assert_array_equal(narrow.get(), np.argmax(host, axis=1).astype(np.int32))
    # an output sharing the input's memory: NumPy's answer (through the host path)
    ints = np.arange(4, dtype=np.intp)
    expect = ints.copy()
    np.argmax(expect.reshape(2, 2)[:, ::-1], axis=1, out=expect[1:3])
    shared = ap.asarray(ints, device=cuda)
    ap.argmax(shared.reshape(2, 2)[:, ::-1], axis=1, out=shared[1:3])
    np.testing.assert_array_equal(shared.get(), expect)


@requires_compiler
@settings(max_examples=30, deadline=None, derandomize=True)
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
       dtype=st.sampled_from("?hIfdF"), name=st.sampled_from(["argmax", "argmin"]),
       steps=st.lists(st.sampled_from([-2, -1, 1, 2]), min_size=3, max_size=3),
       data=st.data())
def test_arg_reductions_searched(cuda, shape, dtype, name, steps, data):
    host = _data(dtype, shape, seed=len(shape))
    view = tuple(slice(None, None, step) for step in steps[:len(shape)])
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]))
    keepdims = data.draw(st.booleans())
    _same(lambda xp, x: getattr(xp, name)(x[view], axis=axis, keepdims=keepdims), host, cuda)


@requires_compiler
@pytest.mark.parametrize("dtype", "?bHilLfdFD")
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max"])
def test_reductions_match_numpy(cuda, name, dtype):
    host = _data(dtype, (4, 3, 5), seed=11)
    rtol = 1e-6 if np.dtype(dtype).kind in "fc" and name in ("sum", "prod") else 0.0
    _same(lambda xp, x: getattr(xp, name)(x[::-1, :, ::-2], axis=(0, 2), keepdims=True),
          host, cuda, rtol)
    _same(lambda xp, x: getattr(xp, name)(x, axis=1), host, cuda, rtol)


@requires_compiler
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max"])
def test_reductions_layouts_and_errors(cuda, name):
    host = _data("d", (4, 5, 6), seed=13)
    cases = [
        lambda xp, x: getattr(xp, name)(x),
        lambda xp, x: getattr(xp, name)(x[::-2, ::-1], axis=-1, keepdims=True),
        lambda xp, x: getattr(xp, name)(x[2, 3, 4]),                        # 0-d
        lambda xp, x: getattr(xp, name)(x[:, :0], axis=1),                  # empty reduction
        lambda xp, x: getattr(xp, name)(x[:, :0], axis=0),                  # empty result
        lambda xp, x: getattr(xp, name)(x, axis=(0, 0)),                    # repeated axis
    ]
    for case in cases:
        _same(case, host, cuda, 1e-12)


@requires_compiler
def test_sum_over_more_than_2_31_elements(cuda):
    count = 2**31 + 5
    one = ap.ones(1, dtype=np.uint8, device=cuda)
    total = ap.broadcast_to(one, (count,)).sum()       # a zero-stride view: one byte of memory
    assert total.dtype == np.uint64 and int(total.get()) == count


@requires_compiler
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_reduction_without_identity_into_an_out_of_another_dtype(cuda, name):
    # NumPy starts a reduction without identity from the first element *cast to out's
    # dtype*, then reduces in the loop dtype (float64 for uint64 into int64): 2**63 + 5
    # becomes negative before it is compared, so max(2**63 + 5, 7571295199990059008)
    # is the second value
    host = np.array([[1, 2**63 + 5], [3, 7571295199990059008], [2, 1]], dtype=np.uint64)
    ufunc = getattr(np, name)
    with np.errstate(all="ignore"):
        want = ufunc.reduce(host, axis=0, keepdims=True, out=(np.zeros((1, 2), np.int64),))
        out = ap.zeros((1, 2), np.int64, device=cuda)
        got = getattr(ap, name).reduce(ap.asarray(host, device=cuda), axis=0, keepdims=True,
                                       out=(out,))
    assert got is out
    np.testing.assert_array_equal(out.get(), want)
