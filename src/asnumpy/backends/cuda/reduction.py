"""Plan and render the CUDA C kernels of a ufunc reduction or argmax/argmin.

Pure Python (no ``cuda`` import), in the style of :mod:`.elementwise`.  The
reduced axes are moved inside: the input is seen as ``(n_out, m)`` where the
outer part is collapsed over the kept axes and the inner part over the
reduced axes (C order is kept for argmax/argmin, whose result is the flat
index of the reduced axes).

Kernels (all three in one source; :func:`plan_reduction` picks):

``<name>`` (first pass)
    Work items ``w`` in ``[0, n_out * splits)`` are spread over the blocks
    with a grid-stride loop; item ``w`` reduces the ``chunk``-long part
    ``w % splits`` of output ``w // splits``: its threads stride over the
    part, then combine: warp shuffles (``__shfl_down_sync``) within each warp,
    one shared-memory slot per warp across them.  With ``splits == 1`` thread
    0 writes the output; otherwise it writes a partial to the scratch buffer.
``<name>_final`` (second pass, only when ``splits > 1``)
    One work item per output combines its ``splits`` partials the same way
    and writes the output.
``<name>_threads`` (the ``"thread"`` strategy)
    A grid-stride loop of threads over the outputs, each reducing its
    elements in sequence; no shared memory.

Each accumulator carries a "has a value" flag, so no identity is needed and
masked-out (``where``) elements are simply skipped; a reduction that saw no
element writes ``initial`` (when given) or the ufunc's identity.  The
*caller* must raise NumPy's ValueError first for an empty reduction of a
ufunc without identity and no ``initial`` (maximum, minimum, fmax, fmin,
argmax, argmin) - the kernel would write an unspecified value.  Results do
not depend on ``blockDim`` or ``gridDim`` (the tree works for any block
size), which the host emulation relies on; float sums may round differently
from NumPy's pairwise summation.

Index width, per plan: offsets and coordinates are 32-bit when every byte
offset, the scratch buffer and the counts fit in ``int32`` (faster: the
unravelling divides), else 64-bit; the loop counters that step by
``blockDim``/``gridDim`` are always 64-bit, since a counter may pass
``INT_MAX`` before the loop test stops it.  Arg reductions carry a 64-bit
flat index whatever the width.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import numpy as np

from . import scalar_ops
from .elementwise import broadcast_strides, collapse, index_width

__all__ = ["ARG_REDUCTIONS", "REDUCTIONS", "LaunchConfig", "ReductionKernel", "plan_reduction"]

# ufunc -> identity (None: the ufunc has none); the combine step is the ufunc's own
# (L, L) -> L loop from scalar_ops
REDUCTIONS = {
    "add": 0, "multiply": 1, "maximum": None, "minimum": None, "fmax": None, "fmin": None,
    "logical_and": True, "logical_or": False, "logical_xor": False,
    "bitwise_and": -1, "bitwise_or": 0, "bitwise_xor": 0,
}
# arg reduction -> the comparison that says "the candidate is better"
ARG_REDUCTIONS = {"argmax": "greater", "argmin": "less"}

MAX_BLOCK = 256  # threads per block at most (the static shared arrays have a slot per warp)
WARP = 32
MAX_GRID = 1 << 20  # kernels loop over their work items, so the grid may be smaller


@dataclass(frozen=True)
class LaunchConfig:
    """Grid and block sizes (1-D) and dynamic shared memory bytes of one launch."""

    grid: int
    block: int
    shared_bytes: int = 0  # shared memory is static in these kernels


@dataclass(frozen=True)
class ReductionKernel:
    """Rendered reduction kernels and the arguments of their launches.

    Attributes
    ----------
    source : str
        One CUDA C++ translation unit holding both kernels.
    kernel_name : str
        The kernel launched first (``<name>``, or ``<name>_threads`` for the
        ``"thread"`` strategy).
    arguments, parameters : tuple
        As in :class:`.elementwise.ElementwiseKernel`; pointer placeholders
        are ``("pointer", "out", 0)``, ``("pointer", "in", 0)``,
        ``("pointer", "where")`` and ``("pointer", "scratch")``.
    launch : LaunchConfig
        First-pass launch.
    second : tuple or None
        ``(kernel_name, arguments, parameters, launch)`` of the second pass,
        launched after the first on the same stream; None for one pass.
    scratch_bytes : int
        Size of the device scratch buffer for the partials (0 for one pass;
        the placeholder is then bound to any pointer, e.g. NULL).
    n_out, m : int
        Number of outputs and of reduced elements per output.
    index_bits : int
        32 or 64.
    strategy : str
        ``"block"`` or ``"thread"`` (see :func:`plan_reduction`).
    """

    source: str
    kernel_name: str
    arguments: tuple
    parameters: tuple
    launch: LaunchConfig
    second: tuple | None
    scratch_bytes: int
    n_out: int
    m: int
    index_bits: int
    strategy: str = "block"


def _pow2_at_least(n):
    return 1 << max(0, int(n) - 1).bit_length()


def plan_reduction(name, array, axes, loop_dtype, out, *, initial=None, where=None,
                   block=None, target_blocks=512, splits=None, strategy=None, index_bits=None):
    """Render the kernels of ``ufunc.reduce`` (or argmax/argmin) and their launches.

    Parameters
    ----------
    name : str
        A key of :data:`REDUCTIONS` or :data:`ARG_REDUCTIONS`.
    array : ArraySpec
        The input (pointer to its element ``(0, ..., 0)``).
    axes : sequence of int
        Reduced axes (non-negative, distinct); argmax/argmin flatten them in
        C order.
    loop_dtype : numpy.dtype
        Accumulation dtype (the ufunc must have the loop ``LL->L``; for
        argmax/argmin the compared dtype).  Elements are cast to it.
    out : ArraySpec
        Output; its shape is the input's without the reduced axes, or with
        them as 1 (keepdims).  Its dtype may differ from ``loop_dtype``
        (int64 for argmax/argmin).
    initial : scalar, optional
        Combined once into every output (``ufunc.reduce(initial=...)``).
    where : ArraySpec, optional
        Boolean mask broadcast to the input shape.
    block : int, optional
        Threads per block (at most :data:`MAX_BLOCK`); default: a power of
        two fit to the reduced length.
    target_blocks : int
        Below this many outputs a long reduction is split in two passes.
    splits : int, optional
        Force the number of parts per output (1: one pass) of the ``"block"``
        strategy.
    strategy : {None, "block", "thread"}
        ``"block"``: a block per output (or per part of one, see ``splits``);
        ``"thread"``: a thread per output, reading its elements in sequence
        (chosen for many outputs when the input's kept axes vary faster than
        its reduced axes, e.g. ``sum(axis=0)`` of a C-ordered matrix).
    index_bits : {None, 32, 64}
        Force the index width.

    Returns
    -------
    ReductionKernel
    """
    is_arg = name in ARG_REDUCTIONS
    if not is_arg and name not in REDUCTIONS:
        raise ValueError(f"no reduction kernel for {name!r}")
    if is_arg and initial is not None:
        raise ValueError(f"{name} takes no initial")
    loop_dtype = np.dtype(loop_dtype)
    in_shape, ndim = tuple(array.shape), len(array.shape)
    axes = tuple(sorted(int(a) for a in axes))
    if len(set(axes)) != len(axes) or any(not 0 <= a < ndim for a in axes):
        raise ValueError(f"invalid reduction axes {axes} for {ndim}-d input")
    kept = [d for d in range(ndim) if d not in axes]
    out_strides = _expand(_output_strides(in_shape, axes, kept, out), kept, ndim)

    where_strides = None
    if where is not None:
        where_strides = broadcast_strides(where.shape, where.strides, in_shape)
    operands = [tuple(array.strides), out_strides] + ([where_strides] if where is not None else [])
    # outer part: the kept axes, ordered by the output's strides
    o_shape, o_strides = collapse(tuple(in_shape[d] for d in kept),
                                  [tuple(s[d] for d in kept) for s in operands], order_by=1)
    # inner part: the reduced axes; C order for arg reductions (flat index), else input order
    r_ops = [operands[0]] + ([where_strides] if where is not None else [])
    r_shape, r_strides = collapse(tuple(in_shape[d] for d in axes),
                                  [tuple(s[d] for d in axes) for s in r_ops],
                                  order_by=None if is_arg else 0)
    n_out = int(np.prod(o_shape, dtype=np.int64)) if o_shape else 1
    m = int(np.prod(r_shape, dtype=np.int64)) if r_shape else 1

    if strategy is None:
        # a thread per output when neighbouring outputs are nearer in memory than
        # neighbouring reduced elements and there are outputs enough to fill the GPU
        inner_kept = abs(o_strides[0][-1]) if o_shape else None
        inner_red = abs(r_strides[0][-1]) if r_shape else None
        strategy = "thread" if (splits is None and n_out >= 4 * target_blocks
                                and inner_kept is not None
                                and (inner_red is None or inner_kept < inner_red)) else "block"
    if strategy not in ("block", "thread"):
        raise ValueError(f"unknown strategy {strategy!r}")
    if strategy == "thread":
        splits = 1
    if block is None:
        block = MAX_BLOCK if strategy == "thread" else min(MAX_BLOCK, _pow2_at_least(max(m, 1)))
    if not 1 <= block <= MAX_BLOCK:
        raise ValueError(f"block must be in [1, {MAX_BLOCK}]")
    if splits is None:
        splits = 1
        if n_out < target_blocks and m >= 8 * block:
            splits = min(-(-target_blocks // max(n_out, 1)), -(-m // (4 * block)), 1024)
    splits = max(1, int(splits))
    chunk = -(-m // splits) if m else 0

    itemsize = loop_dtype.itemsize
    parts = n_out * splits if splits > 1 else 0
    k_off = -(-parts * itemsize // 8) * 8
    ok_off = k_off + (8 * parts if is_arg else 0)
    scratch_bytes = ok_off + parts

    # index width: every byte offset of every operand, the scratch buffer and the counts
    full = [tuple(array.strides), out_strides]
    sizes = [np.dtype(array.dtype).itemsize, np.dtype(out.dtype).itemsize]
    if where is not None:
        full.append(where_strides)
        sizes.append(1)
    bits = index_width(in_shape, full, sizes, index_bits)
    if index_bits is None and max(scratch_bytes, n_out * splits, m) > 2**31 - 1:
        bits = 64

    key = (name, np.dtype(array.dtype).char, loop_dtype.char, np.dtype(out.dtype).char,
           where is not None, len(o_shape), len(r_shape), bits)
    source, kernel_name, params1, params2 = _render(*key)

    idx = np.int32 if bits == 32 else np.int64
    common_tail = []
    if not is_arg:
        identity = REDUCTIONS[name]
        start = initial if initial is not None else (identity if identity is not None else 0)
        with np.errstate(all="ignore"):
            start = scalar_ops.by_value(np.asarray(start).astype(loop_dtype, casting="unsafe"))
        common_tail += [start,
                        np.int32(initial is not None)]
    common_tail += [idx(k_off), idx(ok_off)]
    args1 = [("pointer", "out", 0), ("pointer", "in", 0)]
    if where is not None:
        args1.append(("pointer", "where"))
    args1 += [("pointer", "scratch"), idx(n_out), idx(m), idx(splits), idx(chunk), *common_tail]
    args1 += [idx(n) for n in o_shape]
    for st in o_strides:
        args1 += [idx(s) for s in st]
    args1 += [idx(n) for n in r_shape]
    for st in r_strides:
        args1 += [idx(s) for s in st]
    launch1 = LaunchConfig(grid=max(1, min(n_out * splits, MAX_GRID)), block=block)
    if strategy == "thread":
        kernel_name += "_threads"
        launch1 = LaunchConfig(grid=max(1, min(-(-n_out // block), MAX_GRID)), block=block)

    second = None
    if splits > 1:
        args2 = [("pointer", "out", 0), ("pointer", "scratch"), idx(n_out), idx(splits),
                 *common_tail]
        args2 += [idx(n) for n in o_shape] + [idx(s) for s in o_strides[1]]
        launch2 = LaunchConfig(grid=max(1, min(n_out, MAX_GRID)),
                               block=min(MAX_BLOCK, _pow2_at_least(splits)))
        second = (kernel_name + "_final", tuple(args2), params2, launch2)
    return ReductionKernel(source, kernel_name, tuple(args1), params1, launch1, second,
                           scratch_bytes, n_out, m, bits, strategy)


def _output_strides(in_shape, axes, kept, out):
    """The output's byte strides along the kept axes (keepdims or not)."""
    o_shape, o_strides = tuple(out.shape), tuple(out.strides)
    if len(o_shape) == len(in_shape):
        expect = tuple(1 if d in axes else in_shape[d] for d in range(len(in_shape)))
        picked = tuple(o_strides[d] for d in kept)
    else:
        expect = tuple(in_shape[d] for d in kept)
        picked = o_strides
    if o_shape != expect:
        raise ValueError(f"output shape {o_shape} does not match reduction result {expect}")
    return picked


def _expand(kept_strides, kept, ndim):
    full = [0] * ndim
    for d, s in zip(kept, kept_strides):
        full[d] = s
    return tuple(full)


@functools.lru_cache(maxsize=512)
def _render(name, in_char, loop_char, out_char, has_where, o_ndim, r_ndim, bits):
    """(source, kernel name, first-pass parameters, second-pass parameters)."""
    ctype = scalar_ops.CTYPES
    L, S_in, S_out = ctype[loop_char], ctype[in_char], ctype[out_char]
    idx_t = "int" if bits == 32 else "long long"
    is_arg = name in ARG_REDUCTIONS
    ld = np.dtype(loop_char)
    if is_arg:
        fsrc, cmp_fn = scalar_ops.device_function(ARG_REDUCTIONS[name], (ld, ld, np.dtype("?")))
    else:
        fsrc, op_fn = scalar_ops.device_function(name, (ld, ld, ld))

    # --- combine (v, k, ok) <- (v, k, ok) (+) (v2, k2, ok2) --------------------------------
    if is_arg:
        # NumPy: the first NaN wins; otherwise the better value, ties to the lower index
        combine = f"""
__device__ __forceinline__ void KERNEL_combine({L} &v, long long &k, bool &ok,
                                               {L} v2, long long k2, bool ok2)
{{
    if (!ok2) return;
    if (!ok) {{ v = v2; k = k2; ok = true; return; }}
    const bool an = asn_isnan(v), bn = asn_isnan(v2);
    bool take;
    if (an || bn) {{
        take = bn && (!an || k2 < k);
    }} else {{
        bool better, worse;
        {cmp_fn}(v2, v, better);
        {cmp_fn}(v, v2, worse);
        take = better || (!worse && k2 < k);
    }}
    if (take) {{ v = v2; k = k2; }}
}}
"""
        kdecl, kpart, kstore = "long long k = 0;", "pk[w]", " pk[w] = k;"
    else:
        combine = f"""
__device__ __forceinline__ void KERNEL_combine({L} &v, long long &k, bool &ok,
                                               {L} v2, long long k2, bool ok2)
{{
    if (!ok2) return;
    if (!ok) {{ v = v2; ok = true; return; }}
    {L} r;
    {op_fn}(v, v2, r);
    v = r;
}}
"""
        # the index is carried but unused (and has no scratch slot)
        kdecl, kpart, kstore = "long long k = 0;", "0", ""

    # the block combine: warp shuffles within each warp, then shared memory across the warps
    # (one slot per warp); correct for any blockDim, a partial last warp and blockDim == 1
    # included.  Every lane of the block calls it; thread 0 ends with the block's value.
    k_shuffle = ("\n        const long long k2 = KERNEL_shfl_down(mask, k, off);" if is_arg
                 else "\n        const long long k2 = 0;")
    block = f"""
template <class T> __device__ __forceinline__ T KERNEL_shfl_down(unsigned mask, T x, unsigned delta)
{{
    // any trivially copyable T (bool, half, complex, ...) moved as 32-bit words
    unsigned int w[(sizeof(T) + 3) / 4] = {{}};
    unsigned char *bytes = reinterpret_cast<unsigned char*>(w);
    const unsigned char *from = reinterpret_cast<const unsigned char*>(&x);
    for (unsigned i = 0; i < sizeof(T); ++i) bytes[i] = from[i];
    for (unsigned i = 0; i < (sizeof(T) + 3) / 4; ++i) w[i] = __shfl_down_sync(mask, w[i], delta);
    T r = x;
    unsigned char *to = reinterpret_cast<unsigned char*>(&r);
    for (unsigned i = 0; i < sizeof(T); ++i) to[i] = bytes[i];
    return r;
}}

// Lanes [0, count) of the calling warp hold values and all of them call this (the shuffle
// mask names exactly them); lane 0 ends with their combination.  A lane combines the value
// of lane + off only when that lane is one of them: what a shuffle returns past the last
// lane (the caller's own value) is never counted twice.
__device__ __forceinline__ void KERNEL_warp({L} &v, long long &k, bool &ok, unsigned lane,
                                            unsigned count)
{{
    const unsigned mask = count >= {WARP}u ? 0xffffffffu : (1u << count) - 1u;
    for (unsigned off = {WARP // 2}u; off > 0u; off >>= 1) {{
        if (off >= count) continue;  // the same for every lane: all or none shuffle
        const {L} v2 = KERNEL_shfl_down(mask, v, off);{k_shuffle}
        const bool ok2 = KERNEL_shfl_down(mask, ok, off);
        if (lane + off < count) KERNEL_combine(v, k, ok, v2, k2, ok2);
    }}
}}

__device__ __forceinline__ void KERNEL_block({L} &v, long long &k, bool &ok, {L} *sv,
                                             long long *sk, bool *sok)
{{
    const unsigned lane = threadIdx.x % {WARP}u, warp = threadIdx.x / {WARP}u;
    const unsigned warps = (blockDim.x + {WARP - 1}u) / {WARP}u;
    const unsigned here = blockDim.x - warp * {WARP}u;
    KERNEL_warp(v, k, ok, lane, here < {WARP}u ? here : {WARP}u);
    if (warps == 1u) return;  // the same for the whole block
    if (lane == 0u) {{ sv[warp] = v; sk[warp] = k; sok[warp] = ok; }}
    __syncthreads();
    if (threadIdx.x < warps) {{
        v = sv[threadIdx.x]; k = sk[threadIdx.x]; ok = sok[threadIdx.x];
        KERNEL_warp(v, k, ok, threadIdx.x, warps);
    }}
    __syncthreads();  // the slots are read before the next work item writes them
}}
"""
    shared = f"""
    // one slot per warp, raw (no constructors run on shared memory)
    __shared__ KERNEL_slot sv_raw[{MAX_BLOCK // WARP}];
    __shared__ long long sk[{MAX_BLOCK // WARP}];
    __shared__ bool sok[{MAX_BLOCK // WARP}];
    {L} *sv = reinterpret_cast<{L}*>(sv_raw);"""
    # writing one result: the index for arg reductions; else the value, combined with
    # initial when given, or initial/identity when no element was seen
    conv = "res" if out_char == loop_char else f"asn_cast<{S_out}>(res)"
    init_type = scalar_ops.parameter_type(loop_char)
    init_value = scalar_ops.parameter_value(loop_char, "init_arg")
    if is_arg:
        store = f"""
__device__ __forceinline__ void KERNEL_store({S_out} *out, {idx_t} off, {L} v, long long k, bool ok)
{{
    out_ref(out, off) = asn_cast<{S_out}>(k);
}}
"""
        init_params: list[tuple[str, str]] = []
        init_args = ""
    else:
        store = f"""
__device__ __forceinline__ void KERNEL_store({S_out} *out, {idx_t} off, {L} v, long long k, bool ok,
                                             {init_type} init_arg, int init_mode)
{{
    const {L} init = {init_value};
    {L} res = init;
    if (ok) {{
        if (init_mode) {{ {op_fn}(init, v, res); }} else {{ res = v; }}
    }}
    out_ref(out, off) = {conv};
}}
"""
        init_params = [(init_type, "init"), ("int", "init_mode")]
        init_args = ", init, init_mode"
    final = f"""
            if (threadIdx.x == 0) KERNEL_store(out, out_o_off, v, k, ok{init_args});"""
    scratch_ptrs = f"""
    {L} *pv = reinterpret_cast<{L}*>(scratch);
    long long *pk = reinterpret_cast<long long*>(scratch + k_off);
    bool *pok = reinterpret_cast<bool*>(scratch + ok_off);"""

    def unravel(index, dims, prefix, ptrs, indent):
        lines = [f"{indent}{idx_t} {p}_{prefix}off = 0;" for p in ptrs]
        if dims:
            lines.append(f"{indent}{{ {idx_t} rest = {index};")
        for d in reversed(range(dims)):
            c = f"rest % {prefix}shape{d}" if d else "rest"
            lines.append(f"{indent}  {{ const {idx_t} c = {c};"
                         + (f" rest /= {prefix}shape{d};" if d else ""))
            for p in ptrs:
                lines.append(f"{indent}    {p}_{prefix}off += c * {p}_{prefix}st{d};")
            lines.append(f"{indent}  }}")
        if dims:
            lines.append(f"{indent}}}")
        return "\n".join(lines)

    outer_ptrs = ["in", "out"] + (["where"] if has_where else [])
    inner_ptrs = ["in"] + (["where"] if has_where else [])
    p1 = [(f"{S_out}*", "out"), (f"const {S_in}*", "in")]
    if has_where:
        p1.append(("const bool*", "where"))
    p1 += [("char*", "scratch"), (idx_t, "n_out"), (idx_t, "m"), (idx_t, "splits"),
           (idx_t, "chunk"), *init_params, (idx_t, "k_off"), (idx_t, "ok_off")]
    p1 += [(idx_t, f"o_shape{d}") for d in range(o_ndim)]
    for p in outer_ptrs:
        p1 += [(idx_t, f"{p}_o_st{d}") for d in range(o_ndim)]
    p1 += [(idx_t, f"r_shape{d}") for d in range(r_ndim)]
    for p in inner_ptrs:
        p1 += [(idx_t, f"{p}_r_st{d}") for d in range(r_ndim)]
    p2 = [(f"{S_out}*", "out"), ("char*", "scratch"), (idx_t, "n_out"), (idx_t, "splits"),
          *init_params, (idx_t, "k_off"), (idx_t, "ok_off")]
    p2 += [(idx_t, f"o_shape{d}") for d in range(o_ndim)]
    p2 += [(idx_t, f"out_o_st{d}") for d in range(o_ndim)]

    def signature(params):
        return ",\n    ".join(f"{t} {v}" for t, v in params)

    load = f"*reinterpret_cast<const {S_in}*>(reinterpret_cast<const char*>(in) + in_o_off + in_r_off)"
    load = load if in_char == loop_char else f"asn_cast<{L}>({load})"
    mask = ("        if (!reinterpret_cast<const unsigned char*>(where)[where_o_off + where_r_off])"
            " continue;\n" if has_where else "")
    first = f"""
extern "C" __global__ void KERNEL(
    {signature(p1)})
{{{shared}{scratch_ptrs}
    for (long long w = blockIdx.x; w < (long long)n_out * splits; w += gridDim.x) {{
        const {idx_t} o = ({idx_t})(w / splits), part = ({idx_t})(w % splits);
{unravel("o", o_ndim, "o_", outer_ptrs, "        ")}
        const long long lo = (long long)part * chunk;
        const long long hi = (m - lo < chunk) ? m : lo + chunk;
        {L} v{{}}; {kdecl} bool ok = false;
        // the counter is 64-bit even with 32-bit offsets: r + blockDim may pass INT_MAX
        for (long long r = lo + threadIdx.x; r < hi; r += blockDim.x) {{
            const {idx_t} ri = ({idx_t})r;
{unravel("ri", r_ndim, "r_", inner_ptrs, "            ")}
    {mask}        KERNEL_combine(v, k, ok, {load}, r, true);
        }}
        KERNEL_block(v, k, ok, sv, sk, sok);
        if (splits == 1) {{{final}
        }} else if (threadIdx.x == 0) {{
            pv[w] = v;{kstore} pok[w] = ok;
        }}
    }}
}}
"""
    second = f"""
extern "C" __global__ void KERNEL_final(
    {signature(p2)})
{{{shared}{scratch_ptrs}
    for (long long ol = blockIdx.x; ol < n_out; ol += gridDim.x) {{
        const {idx_t} o = ({idx_t})ol;
{unravel("o", o_ndim, "o_", ["out"], "        ")}
        {L} v{{}}; {kdecl} bool ok = false;
        for (long long p = threadIdx.x; p < splits; p += blockDim.x) {{
            const long long w = o * (long long)splits + p;
            KERNEL_combine(v, k, ok, pv[w], {kpart}, pok[w]);
        }}
        KERNEL_block(v, k, ok, sv, sk, sok);{final.replace(chr(10) + "    ", chr(10), 1)}
    }}
}}
"""
    helpers = f"""
struct KERNEL_slot {{ alignas(alignof({L})) unsigned char b[sizeof({L})]; }};
template <class T> __device__ __forceinline__ T &out_ref_KERNEL(T *p, {idx_t} off)
{{
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(p) + off);
}}
"""
    threads = f"""
extern "C" __global__ void KERNEL_threads(
    {signature(p1)})
{{
    // one thread per output, reading the reduced elements in sequence: for reductions
    // over outer axes, neighbouring threads then read neighbouring elements
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < n_out;
         t += (long long)blockDim.x * gridDim.x) {{
        const {idx_t} o = ({idx_t})t;
{unravel("o", o_ndim, "o_", outer_ptrs, "        ")}
        {L} v{{}}; {kdecl} bool ok = false;
        for (long long r = 0; r < m; ++r) {{
            const {idx_t} ri = ({idx_t})r;
{unravel("ri", r_ndim, "r_", inner_ptrs, "            ")}
    {mask}        KERNEL_combine(v, k, ok, {load}, r, true);
        }}
        KERNEL_store(out, out_o_off, v, k, ok{init_args});
    }}
}}
"""
    body = (helpers + combine + block + store + first + second + threads).replace(
        "out_ref(", "out_ref_KERNEL(")
    digest = hashlib.sha256((fsrc + body).encode()).hexdigest()[:16]
    kernel_name = f"asn_red_{name}_{digest}"
    source = scalar_ops.PRELUDE + "\n" + fsrc + "\n" + body.replace("KERNEL", kernel_name)
    return source, kernel_name, tuple(p1), tuple(p2)
