"""The cuda back end's kernel generators and NVRTC cache, checked without a GPU.

* NVRTC: every supported loop of every catalog ufunc and every reduction
  renders to a source that NVRTC compiles to CUBIN for sm_90 (skipped
  without cuda-core / NVRTC).
* Host emulation: the very same sources are compiled as host C++ with the
  shim of ``_cuda_host`` and run through ctypes, differentially against
  NumPy (skipped without g++).  Reductions are also run with real threads
  per block (a barrier for ``__syncthreads``) to exercise the shared-memory
  tree, which ``ASN_HOST_LAUNCH`` (one thread at a time) cannot.
* The compile cache: memory and disk hits, corrupt entries, the env var.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from _cuda_host import THREADED_SHUFFLES, build, requires_compiler

from asnumpy.ops.ufuncs import UFUNCS

SUPPORTED = set("?bBhHiIlLqQefdFD")
GUFUNCS = {"matmul", "vecdot", "matvec", "vecmat"}


# the code generators import without a driver (the package builds BACKEND lazily)
from asnumpy.backends.cuda import compiler, scalar_ops  # noqa: E402
from asnumpy.backends.cuda import elementwise as ew  # noqa: E402
from asnumpy.backends.cuda import reduction as red  # noqa: E402

ArraySpec, ScalarSpec = ew.ArraySpec, ew.ScalarSpec


def _spec(a):
    return ArraySpec(a.dtype, a.shape, a.strides)


def _catalog_loops():
    for names in UFUNCS.values():
        for name in names:
            if name in GUFUNCS:
                continue
            for loop in scalar_ops.loops(name):
                yield name, tuple(np.dtype(d) for d in loop)


# --------------------------------------------------------------------------------------------
# host emulation: a launcher per kernel taking its arguments as an array of pointers
# --------------------------------------------------------------------------------------------

# Real threads per block: threadIdx is thread-local and __syncthreads a barrier, so the
# shared-memory tree of the reduction kernels runs as on a GPU (static __shared__ arrays
# are shared by the threads of the process).  Added after the shim of _cuda_host.
MT_SHIM = r"""
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
static thread_local asn_dim3 asn_mt_threadIdx = {0u, 0u, 0u};
#define threadIdx asn_mt_threadIdx
struct asn_mt_barrier {
    std::mutex m; std::condition_variable cv; unsigned n = 1, count = 0, gen = 0;
    void wait() {
        std::unique_lock<std::mutex> lock(m);
        unsigned g = gen;
        if (++count == n) { count = 0; ++gen; cv.notify_all(); }
        else cv.wait(lock, [&] { return g != gen; });
    }
};
static asn_mt_barrier asn_mt_bar;
#undef __syncthreads
#define __syncthreads() asn_mt_bar.wait()
#define ASN_MT_LAUNCH(kernel, grid, block, ...)                                    \
    do {                                                                           \
        gridDim.x = (unsigned)(grid); blockDim.x = (unsigned)(block);              \
        asn_mt_bar.n = blockDim.x;                                                 \
        for (unsigned b = 0; b < gridDim.x; ++b) {                                 \
            blockIdx.x = b;                                                        \
            std::vector<std::thread> team;                                         \
            for (unsigned t = 0; t < blockDim.x; ++t)                              \
                team.emplace_back([&, t] { asn_mt_threadIdx.x = t; kernel(__VA_ARGS__); }); \
            for (auto &th : team) th.join();                                       \
        }                                                                          \
    } while (0)
"""
MT_SHIM += THREADED_SHUFFLES  # warp shuffles among the real threads


def _launcher(kernel_name, parameters, macro):
    args = ", ".join(f"*reinterpret_cast<{t}*>(a[{i}])" for i, (t, _) in enumerate(parameters))
    return (f'extern "C" void launch_{kernel_name}(unsigned grid, unsigned block, void **a)\n'
            f"{{ {macro}({kernel_name}, grid, block, {args}); }}\n")


def _host_library(source, kernels, threads=False):
    """Build ``source`` for the host with a launcher per (name, parameters) in ``kernels``."""
    prefix = MT_SHIM if threads else ""
    macro = "ASN_MT_LAUNCH" if threads else "ASN_HOST_LAUNCH"
    text = prefix + source + "\n" + "".join(_launcher(k, p, macro) for k, p in kernels)
    return build(text)


def _host_launch(lib, kernel_name, arguments, pointers, grid, block):
    """Run one kernel; ``pointers`` maps placeholder tuples to addresses."""
    keep = []
    slots = (ctypes.c_void_p * max(1, len(arguments)))()
    for i, arg in enumerate(arguments):
        if isinstance(arg, tuple):
            box = ctypes.c_void_p(pointers[arg])
        else:
            box = ctypes.create_string_buffer(np.asarray(arg).tobytes(), max(8, arg.nbytes))
        keep.append(box)
        slots[i] = ctypes.addressof(box)
    getattr(lib, f"launch_{kernel_name}")(ctypes.c_uint(grid), ctypes.c_uint(block), slots)


def run_elementwise(plan, outs, ins, where=None, grid=3, block=1):
    lib = _host_library(plan.source, [(plan.kernel_name, plan.parameters)])
    pointers = {("pointer", "out", k): a.ctypes.data for k, a in enumerate(outs)}
    pointers.update({("pointer", "in", k): a.ctypes.data for k, a in enumerate(ins)
                     if isinstance(a, np.ndarray)})
    if where is not None:
        pointers[("pointer", "where")] = where.ctypes.data
    if plan.size:
        _host_launch(lib, plan.kernel_name, plan.arguments, pointers, grid, block)


def run_reduction(plan, out, a, where=None, threads=False, grid=None):
    kernels = [(plan.kernel_name, plan.parameters)]
    if plan.second is not None:
        kernels.append((plan.second[0], plan.second[2]))
    lib = _host_library(plan.source, kernels, threads)
    scratch = np.zeros(max(plan.scratch_bytes, 8), np.uint8)
    pointers = {("pointer", "out", 0): out.ctypes.data, ("pointer", "in", 0): a.ctypes.data,
                ("pointer", "scratch"): scratch.ctypes.data}
    if where is not None:
        pointers[("pointer", "where")] = where.ctypes.data
    # one thread at a time is only faithful with blockDim == 1 (see _cuda_host)
    launch = plan.launch
    _host_launch(lib, plan.kernel_name, plan.arguments, pointers,
                 grid or launch.grid, launch.block if threads else 1)
    if plan.second is not None:
        name, args, _, launch2 = plan.second
        _host_launch(lib, name, args, pointers, grid or launch2.grid,
                     launch2.block if threads else 1)


def _random(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        a = rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True)
        a = a.astype(dtype)
        if a.size > 3:  # the extremes
            a.flat[0], a.flat[-1] = info.min, info.max
        return a
    a = rng.standard_normal(shape) * 10
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    if a.size > 4:
        a.flat[1], a.flat[2], a.flat[3] = np.nan, np.inf, -0.0
    return a


# --------------------------------------------------------------------------------------------
# planner (pure Python)
# --------------------------------------------------------------------------------------------

def test_contiguous_add_collapses_to_one_dimension():
    a = np.zeros((4, 5, 6), np.float32)
    plan = ew.plan_elementwise("add", (a.dtype,) * 3, [_spec(a), _spec(a)], [_spec(a)])
    assert plan.size == 120 and plan.index_bits == 32
    # out, in0, in1 and n only: the contiguous form has no shape or strides
    assert plan.arguments[:3] == (("pointer", "out", 0), ("pointer", "in", 0),
                                  ("pointer", "in", 1))
    assert plan.arguments[3] == np.int32(120) and type(plan.arguments[3]) is np.int32
    assert len(plan.arguments) == 4 == len(plan.parameters)


def test_collapse_and_broadcast_strides():
    a = np.zeros((4, 5, 6))
    shape, strides = ew.collapse(a.shape, [a.strides, ew.broadcast_strides((6,), (8,), a.shape)])
    assert shape == (20, 6) and strides == [(48, 8), (0, 8)]
    f = np.asfortranarray(a)  # ordered by the output's strides, then merged
    assert ew.collapse(f.shape, [f.strides])[0] == (120,)
    assert ew.collapse((1, 1), [(0, 0)]) == ((), [()])
    assert ew.collapse((3, 0), [(8, 8)])[0] == (0,)
    with pytest.raises(ValueError):
        ew.broadcast_strides((3,), (8,), (4,))


def test_index_width_and_rendering_cache():
    a = np.zeros((7, 3), np.int16)[:, ::2]
    spec = [_spec(a), _spec(a)]
    p32 = ew.plan_elementwise("add", (a.dtype,) * 3, spec, [_spec(a)])
    p64 = ew.plan_elementwise("add", (a.dtype,) * 3, spec, [_spec(a)], index_bits=64)
    assert (p32.index_bits, p64.index_bits) == (32, 64)
    assert all(type(x) is np.int64 for x in p64.arguments if not isinstance(x, tuple))
    assert p32.kernel_name != p64.kernel_name
    big = ArraySpec(np.dtype(np.float64), (2**28 + 1,), (8,))  # 2 GiB extent
    assert ew.plan_elementwise("negative", ("d", "d"), [big], [big]).index_bits == 64
    # a different shape of the same layout class reuses the rendering
    b = np.zeros((9, 5), np.int16)[:, ::2]
    again = ew.plan_elementwise("add", (a.dtype,) * 3, [_spec(b), _spec(b)], [_spec(b)])
    assert again.source is p32.source and again.kernel_name == p32.kernel_name


def test_scalar_operand_is_cast_to_loop_type():
    a = np.zeros(5, np.float32)
    plan = ew.plan_elementwise("add", ("f", "f", "f"), [_spec(a), ScalarSpec(np.dtype("d"), 1e40)],
                               [_spec(a)])
    value = plan.arguments[2]
    assert type(value) is np.float32 and np.isinf(value)
    assert plan.parameters[2] == (scalar_ops.CTYPES["f"], "in1")


def test_half_scalars_travel_as_their_bits():
    a = np.zeros(5, np.float16)
    plan = ew.plan_elementwise("add", ("e", "e", "e"), [_spec(a), ScalarSpec(np.dtype("d"), 1.5)],
                               [_spec(a)])
    value = plan.arguments[2]
    assert type(value) is np.uint16 and value == np.float16(1.5).view(np.uint16)
    assert plan.parameters[2] == ("unsigned short", "in1")
    assert "asn_hfrom(in1)" in plan.source
    reduction = red.plan_reduction("maximum", _spec(a), (0,), np.dtype("e"),
                                   ArraySpec(np.dtype("e"), (), ()), initial=-2.0)
    halves = [v for v in reduction.arguments if type(v) is np.uint16]
    assert halves == [np.float16(-2.0).view(np.uint16)]


def test_reduction_plan_two_pass_and_launch():
    a = np.zeros((3, 100000), np.float32)
    out = np.zeros(3, np.float32)
    plan = red.plan_reduction("add", _spec(a), (1,), np.dtype("f"), _spec(out))
    assert plan.n_out == 3 and plan.m == 100000 and plan.second is not None
    assert plan.scratch_bytes > 0 and plan.launch.block == red.MAX_BLOCK
    one = red.plan_reduction("add", _spec(a), (1,), np.dtype("f"), _spec(out), splits=1)
    assert one.second is None and one.scratch_bytes == 0 and one.launch.grid == 3
    assert one.source == plan.source  # one source serves both forms
    with pytest.raises(ValueError):
        red.plan_reduction("add", _spec(a), (1,), np.dtype("f"), _spec(np.zeros(4, np.float32)))
    with pytest.raises(ValueError):
        red.plan_reduction("argmax", _spec(a), (1,), np.dtype("f"), _spec(out), initial=0)


# --------------------------------------------------------------------------------------------
# NVRTC: everything renders and compiles
# --------------------------------------------------------------------------------------------

def _strip(source):
    assert source.startswith(scalar_ops.PRELUDE)
    return source[len(scalar_ops.PRELUDE):]


def _layouts(name, loop, variant):
    """Operands of one loop in one of four layout variants (all kinds get compiled)."""
    nin = getattr(np, name).nin
    ins, outs = loop[:nin], loop[nin:]
    where = None
    if variant == 0:  # contiguous
        ins_s = [ArraySpec(d, (8,), (d.itemsize,)) for d in ins]
        outs_s = [ArraySpec(d, (8,), (d.itemsize,)) for d in outs]
    else:  # strided 2-D, storage dtype of the first input differs from the loop
        ins_s = [ArraySpec(d, (4, 3), (6 * d.itemsize, -d.itemsize)) for d in ins]
        if variant == 2:
            ins_s[0] = ArraySpec(np.dtype("d") if ins[0].char != "d" else np.dtype("h"),
                                 (3,), (8,))
        if variant == 3 and nin > 1:
            ins_s[-1] = ScalarSpec(ins[-1], 1)
        outs_s = [ArraySpec(d, (4, 3), (3 * d.itemsize * 2, d.itemsize * 2)) for d in outs]
        where = ArraySpec(np.dtype("?"), (3,), (1,)) if variant == 1 else None
    return ins_s, outs_s, where


@pytest.fixture(scope="module")
def nvrtc_cache(tmp_path_factory):
    pytest.importorskip("cuda.core")
    if not compiler.nvrtc_available():
        pytest.skip("NVRTC is not available")
    directory = tmp_path_factory.mktemp("cubin")
    saved = os.environ.get("ASNUMPY_CUDA_CACHE_DIR")
    os.environ["ASNUMPY_CUDA_CACHE_DIR"] = str(directory)
    yield directory
    if saved is None:
        del os.environ["ASNUMPY_CUDA_CACHE_DIR"]
    else:
        os.environ["ASNUMPY_CUDA_CACHE_DIR"] = saved


FAST = {"ptxas_options": "-O0", "device_code_optimize": False}


def _compile_batches(sources, per_module=40):
    """Compile many rendered sources, ``per_module`` to one NVRTC translation unit."""
    bodies = sorted({_strip(s) for s in sources})
    batches = [scalar_ops.PRELUDE + "\n".join(bodies[i:i + per_module])
               for i in range(0, len(bodies), per_module)]
    # optimisation off: this checks that NVRTC and ptxas accept the code, twice as fast
    cubins = [compiler.compile_module(s, "sm_90", FAST) for s in batches]
    assert all(c[:4] == b"\x7fELF" for c in cubins)
    return len(bodies)


def test_nvrtc_compiles_every_elementwise_loop(nvrtc_cache):
    sources = []
    for i, (name, loop) in enumerate(_catalog_loops()):
        ins, outs, where = _layouts(name, loop, i % 4)
        plan = ew.plan_elementwise(name, loop, ins, outs, where, index_bits=64 if i % 5 == 0 else None)
        sources.append(plan.source)
    assert len(sources) > 500
    assert _compile_batches(sources) == len(sources)


def _reduction_loops():
    for name in red.REDUCTIONS:
        for loop in scalar_ops.loops(name):
            if len(set(loop)) == 1:
                yield name, np.dtype(loop[0])
    for name in red.ARG_REDUCTIONS:
        for char in "?bBhHiIlLqQefdFD":
            yield name, np.dtype(char)


def test_nvrtc_compiles_every_reduction(nvrtc_cache):
    sources = []
    for i, (name, dt) in enumerate(_reduction_loops()):
        a = ArraySpec(np.dtype("d") if i % 3 == 0 else dt, (5, 6, 7), (336, 56, 8))
        where = ArraySpec(np.dtype("?"), (6, 7), (7, 1)) if i % 2 else None
        out_dt = np.dtype("q") if name in red.ARG_REDUCTIONS else dt
        out = ArraySpec(out_dt, (6,), (out_dt.itemsize,))
        plan = red.plan_reduction(name, a, (0, 2), dt, out, where=where,
                                  index_bits=64 if i % 4 == 0 else None)
        sources.append(plan.source)
    assert len(sources) > 100
    assert _compile_batches(sources, per_module=25) == len(sources)


# --------------------------------------------------------------------------------------------
# host emulation: elementwise
# --------------------------------------------------------------------------------------------

def _expected(name, loop, ins, outs, where=None):
    nin = len(ins)
    result = [o.copy() for o in outs]
    kwargs = {"where": where} if where is not None else {}
    with np.errstate(all="ignore"):
        getattr(np, name)(*ins, out=tuple(result), casting="unsafe",
                          signature=tuple(d.char for d in loop[:nin] + loop[nin:]), **kwargs)
    return result


def _check(name, loop, ins, outs, where=None, **plan_kw):
    """Plan, run on the host and compare with NumPy (outputs start as a sentinel)."""
    in_specs = [ScalarSpec(np.asarray(x).dtype, x) if not isinstance(x, np.ndarray) else _spec(x)
                for x in ins]
    np_ins = [x if isinstance(x, np.ndarray) else np.asarray(x)[()] for x in ins]
    expect = _expected(name, loop, np_ins, outs, where)
    plan = ew.plan_elementwise(name, loop, in_specs, [_spec(o) for o in outs],
                               None if where is None else _spec(where), **plan_kw)
    run_elementwise(plan, outs, ins, where)
    for got, want in zip(outs, expect):
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {loop}")
    return plan


def _loop(spec):
    return tuple(np.dtype(c) for c in spec.replace("->", ""))


@requires_compiler
@pytest.mark.parametrize("bits", [None, 64])
def test_host_broadcast_strided_negative(bits):
    rng = np.random.default_rng(1)
    a = _random(rng, "i", (6, 1, 5))
    b = _random(rng, "i", (4, 10))[:, ::-2]  # negative strides, base at the first element
    out = np.full((6, 4, 5), -7, np.int32)
    plan = _check("add", _loop("ii->i"), [a, b], [out], index_bits=bits)
    assert plan.index_bits == (bits or 32)
    big = np.full((8, 9), 3, np.int64)
    _check("subtract", _loop("qq->q"), [_random(rng, "q", (8,)), big.T[::-1]], [big[:, ::-1].T])


@requires_compiler
def test_host_zero_d_empty_and_scalars():
    rng = np.random.default_rng(2)
    x, out = np.array(2.5), np.array(0.0)
    _check("multiply", _loop("dd->d"), [x, 4.0], [out])
    assert out == 10.0
    empty = np.zeros((3, 0), np.float32)
    plan = _check("add", _loop("ff->f"), [empty, empty], [empty.copy()])
    assert plan.size == 0
    a = _random(rng, "f", (5, 3))
    _check("subtract", _loop("ff->f"), [np.float32(1.5), a], [np.zeros((5, 3), np.float32)])
    _check("add", _loop("ff->f"), [a, 1e40], [np.zeros((5, 3), np.float32)])  # inf after the cast


@requires_compiler
def test_host_mixed_storage_and_loop_dtypes():
    rng = np.random.default_rng(3)
    a = _random(rng, "h", (4, 6))                      # int16 storage, int32 loop
    b = (rng.standard_normal((4, 6)) * 1e3)[:, ::-1]   # float64 storage, int32 loop (finite:
                                                       # NaN to int is undefined)
    out = np.zeros((4, 6), np.float32)                 # int32 result stored as float32
    _check("add", _loop("ii->i"), [a, b], [out])
    h = _random(rng, "e", (7,))
    _check("multiply", _loop("ff->f"), [h, np.float16(2)], [np.zeros(7, np.float16)])
    c = _random(rng, "D", (5,))
    _check("add", _loop("DD->D"), [c, _random(rng, "B", (5,))], [np.zeros(5, np.complex64)])
    _check("less", _loop("dd->?"), [_random(rng, "f", (3, 4)), _random(rng, "d", (4,))],
           [np.zeros((3, 4), np.int8)])


@requires_compiler
def test_host_where_and_two_outputs():
    rng = np.random.default_rng(4)
    a, b = _random(rng, "l", (5, 6)), _random(rng, "l", (6,))
    b[b == 0] = 3
    mask = rng.integers(0, 2, (5, 1)).astype(bool)
    outs = [np.full((5, 6), 99, np.int64), np.full((5, 6), 98, np.int64)]
    _check("divmod", _loop("ll->ll"), [a, b], outs, mask)
    flat = _random(rng, "f", (9,))  # the contiguous (typed indexing) form with a mask
    _check("add", _loop("ff->f"), [flat, flat[::-1].copy()], [np.full(9, 5, np.float32)],
           rng.integers(0, 2, 9).astype(bool))
    q = np.full((3, 4), -1.0)
    _check("frexp", _loop("d->di"), [_random(rng, "d", (3, 4))],
           [q[:, ::-1], np.zeros((3, 4), np.int32)], rng.integers(0, 2, (3, 4)).astype(bool))


@requires_compiler
def test_host_many_threads_and_blocks():
    rng = np.random.default_rng(5)
    a = _random(rng, "f", (33, 17))[::2, 1:]
    out = np.zeros(a.shape, np.float32)
    expect = -a
    plan = ew.plan_elementwise("negative", _loop("f->f"), [_spec(a)], [_spec(out)])
    run_elementwise(plan, [out], [a], grid=2, block=7)
    np.testing.assert_array_equal(out, expect)


# --------------------------------------------------------------------------------------------
# host emulation: reductions
# --------------------------------------------------------------------------------------------

def _reduce_case(name, a, axes, loop, out_dtype=None, keepdims=False, initial=None, where=None,
                 threads=False, **plan_kw):
    loop = np.dtype(loop)
    out_dtype = np.dtype(out_dtype or loop)
    kwargs = {}
    if initial is not None:
        kwargs["initial"] = initial
    if where is not None:
        kwargs["where"] = where
    with np.errstate(all="ignore"):
        want = getattr(np, name).reduce(a, axis=tuple(axes), dtype=loop, keepdims=keepdims,
                                        **kwargs).astype(out_dtype)
    out = np.full(want.shape, 77, out_dtype)
    w_spec = None if where is None else _spec(np.broadcast_to(where, a.shape))
    plan = red.plan_reduction(name, _spec(a), axes, loop, _spec(out), initial=initial,
                              where=w_spec, **plan_kw)
    run_reduction(plan, out, a, None if where is None else np.broadcast_to(where, a.shape),
                  threads=threads)
    if loop.kind in "fc" and name in ("add", "multiply"):
        np.testing.assert_allclose(out, want, rtol=1e-5 if loop.itemsize <= 8 else 1e-12)
    else:
        np.testing.assert_array_equal(out, want, err_msg=f"{name} {axes}")
    return plan


@requires_compiler
@pytest.mark.parametrize("name,loop", [
    ("add", "q"), ("add", "d"), ("multiply", "l"), ("maximum", "d"), ("minimum", "f"),
    ("fmax", "d"), ("fmin", "e"), ("logical_and", "?"), ("logical_or", "?"),
    ("logical_xor", "?"), ("bitwise_and", "B"), ("bitwise_or", "h"), ("bitwise_xor", "Q"),
    ("add", "D"), ("maximum", "F"),
])
def test_host_reductions_several_axes(name, loop):
    rng = np.random.default_rng(6)
    a = _random(rng, loop if loop not in "?" else "?", (4, 5, 6))
    if name == "multiply":
        a = (a % 3).astype(loop)
    _reduce_case(name, a, (0, 2), loop)
    _reduce_case(name, a.transpose(2, 0, 1)[::-1], (1,), loop, keepdims=True)
    _reduce_case(name, a, (0, 1, 2), loop)  # to a 0-d output


@requires_compiler
def test_host_reduction_dtype_initial_where():
    rng = np.random.default_rng(7)
    a = _random(rng, "b", (6, 7))
    _reduce_case("add", a, (1,), "q")                        # int8 summed in int64
    _reduce_case("add", a, (0,), "q", out_dtype="d", initial=1000)
    mask = rng.integers(0, 2, (7,)).astype(bool)
    _reduce_case("add", a, (0,), "l", where=mask)
    _reduce_case("add", a[::-1], (0,), "l", where=mask, keepdims=True, index_bits=64)
    _reduce_case("maximum", _random(rng, "d", (5, 4)), (0,), "d", initial=-50.0,
                 where=rng.integers(0, 2, (5, 4)).astype(bool))
    _reduce_case("multiply", np.ones((3, 0)), (1,), "d")      # empty: the identity
    _reduce_case("add", np.ones((3, 0)), (1,), "d", initial=2.5)
    _reduce_case("bitwise_and", _random(rng, "I", (0, 4)), (0,), "I")  # all ones


@requires_compiler
@pytest.mark.parametrize("splits", [1, 3, 16])
def test_host_reduction_two_pass(splits):
    rng = np.random.default_rng(8)
    a = _random(rng, "l", (3, 1000))
    plan = _reduce_case("add", a, (1,), "l", splits=splits, block=4, threads=True)
    assert (plan.second is None) == (splits == 1)
    _reduce_case("maximum", _random(rng, "f", (2, 501))[:, ::-1], (1,), "f", splits=splits,
                 initial=None)
    auto = _reduce_case("add", _random(rng, "q", (2, 40000)), (1,), "q")
    assert auto.second is not None


@requires_compiler
@pytest.mark.parametrize("block", [1, 3, 8])
def test_host_reduction_shared_tree_with_threads(block):
    rng = np.random.default_rng(9)
    a = _random(rng, "d", (3, 37, 4))
    _reduce_case("add", a, (1,), "d", block=block, threads=True)
    _reduce_case("minimum", a, (0, 2), "d", block=block, threads=True)
    _reduce_case("logical_or", np.zeros((5, 9), bool), (1,), "?", block=block, threads=True)


@requires_compiler
def test_host_reduction_thread_per_output():
    rng = np.random.default_rng(11)
    a = _random(rng, "d", (300, 16))
    auto = _reduce_case("add", _random(rng, "l", (40, 4096)), (0,), "l")
    assert auto.strategy == "thread" and auto.kernel_name.endswith("_threads")
    assert auto.launch.grid * auto.launch.block >= auto.n_out
    _reduce_case("maximum", a, (0,), "d", strategy="thread", initial=3.0)
    _reduce_case("add", a[::-2], (0,), "d", strategy="thread", threads=True, block=5)
    _reduce_case("logical_xor", a > 0, (1,), "?", strategy="thread",
                 where=rng.integers(0, 2, 16).astype(bool))
    _reduce_case("multiply", np.ones((0, 3)), (0,), "d", strategy="thread")
    _argcase("argmin", a.T, 1, strategy="thread")
    assert red.plan_reduction("add", _spec(a), (1,), np.dtype("d"),
                              _spec(np.zeros(300))).strategy == "block"


def _argcase(name, a, axis, threads=False, **plan_kw):
    want = getattr(np, name)(a, axis=axis)
    axes = tuple(range(a.ndim)) if axis is None else (axis,)
    out = np.full(np.shape(want), -9, np.int64)
    plan = red.plan_reduction(name, _spec(a), axes, a.dtype, _spec(out), **plan_kw)
    run_reduction(plan, out, a, threads=threads)
    np.testing.assert_array_equal(out, want, err_msg=f"{name} axis={axis} {a.dtype}")


@requires_compiler
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["d", "e", "F", "i", "B", "?"])
def test_host_argmax_argmin_ties_and_nan(name, dtype):
    rng = np.random.default_rng(10)
    a = rng.integers(-2, 3, (6, 7, 5)).astype(dtype)  # many ties
    if np.dtype(dtype).kind in "fc":
        a[1, 3, 2] = a[1, 5, 2] = a[4, 0, 0] = np.nan  # first NaN wins
        a[2, :, 1] = np.nan
    for axis in (None, 0, 1, 2):
        _argcase(name, a, axis)
    _argcase(name, a[::-1, :, ::2], 0, index_bits=64)
    _argcase(name, a[:, ::-1], 1, splits=4, block=2, threads=True)
    _argcase(name, a, None, splits=5, block=3, threads=True)
    if np.dtype(dtype).kind == "c":
        a.imag = rng.integers(-2, 3, a.shape)
        a[3, 3, 3] = complex(1, np.nan)
        _argcase(name, a, 1)


# --------------------------------------------------------------------------------------------
# the compile cache
# --------------------------------------------------------------------------------------------

TINY = 'extern "C" __global__ void asn_tiny(float *x) { x[0] = x[1] * x[2] + x[3]; }\n'


@pytest.fixture()
def counted(monkeypatch, tmp_path):
    pytest.importorskip("cuda.core")
    if not compiler.nvrtc_available():
        pytest.skip("NVRTC is not available")
    monkeypatch.setenv("ASNUMPY_CUDA_CACHE_DIR", str(tmp_path / "cache"))
    calls = []
    real = compiler._nvrtc_compile

    def spy(source, arch, options):
        calls.append(arch)
        return real(source, arch, options)

    monkeypatch.setattr(compiler, "_nvrtc_compile", spy)
    compiler.clear_memory_cache()
    yield calls
    compiler.clear_memory_cache()


def test_cache_memory_and_disk_hits(counted, tmp_path):
    first = compiler.compile_module(TINY, "sm_90")
    assert compiler.compile_module(TINY, "sm_90") == first and len(counted) == 1
    entries = list((tmp_path / "cache").glob("*.cubin"))
    assert len(entries) == 1  # the env var is honoured
    compiler.clear_memory_cache()  # a new process: the disk entry is used
    assert compiler.compile_module(TINY, "sm_90") == first and len(counted) == 1
    compiler.compile_module(TINY, "90")  # same arch spelled differently
    assert len(counted) == 1
    compiler.compile_module(TINY, "sm_80")  # another arch is another entry
    assert len(counted) == 2


def test_cache_corrupt_entry_is_rebuilt(counted, tmp_path):
    first = compiler.compile_module(TINY, "sm_90")
    (entry,) = (tmp_path / "cache").glob("*.cubin")
    for damage in (b"garbage", entry.read_bytes()[:-10], b""):
        entry.write_bytes(damage)
        compiler.clear_memory_cache()
        assert compiler.compile_module(TINY, "sm_90") == first
    assert len(counted) == 4
    compiler.clear_memory_cache()
    assert compiler.compile_module(TINY, "sm_90") == first and len(counted) == 4


def test_cache_unwritable_directory_and_locations(counted, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("ASNUMPY_CUDA_CACHE_DIR", str(blocker / "sub"))
    compiler.compile_module(TINY, "sm_90")
    compiler.compile_module(TINY, "sm_90")
    assert len(counted) == 1  # memory only
    monkeypatch.delenv("ASNUMPY_CUDA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert compiler.cache_dir() == tmp_path / "xdg" / "asnumpy" / "cuda"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert compiler.cache_dir() == Path.home() / ".cache" / "asnumpy" / "cuda"


def test_real_kernels_compile_with_default_options(counted):
    a = ArraySpec(np.dtype("e"), (4, 3), (6, -2))
    plan = ew.plan_elementwise("multiply", _loop("ff->f"), [a, ScalarSpec(np.dtype("f"), 2)],
                               [ArraySpec(np.dtype("d"), (4, 3), (24, 8))])
    r = red.plan_reduction("argmin", a, (1,), np.dtype("e"), ArraySpec(np.dtype("q"), (4,), (8,)))
    for source in (plan.source, r.source):
        assert compiler.compile_module(source, "sm_90")[:4] == b"\x7fELF"
    assert len(counted) == 2


def test_compile_error_names_kernel_and_log(counted):
    bad = 'extern "C" __global__ void asn_broken(float *x) { x[0] = undefined_thing; }\n'
    with pytest.raises(RuntimeError, match=r"(?s)asn_broken.*undefined_thing"):
        compiler.compile_module(bad, "sm_90")


def test_importing_asnumpy_does_not_import_cuda_core():
    import subprocess

    code = ("import sys, asnumpy; import asnumpy.backends; "
            "assert not any(m.startswith('cuda.core') for m in sys.modules), 'cuda.core imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
