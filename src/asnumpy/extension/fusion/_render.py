"""C++ / CUDA C source of a fused function, rendered from its :class:`~._schedule.Schedule`.

One translation unit per schedule class and target: the prelude of the ufunc
loops' device functions (``target.forms``, the same table every cuda ufunc
kernel is rendered from), one device function per ufunc loop used and a
*task* function.  A task is

* ``map``: a block of consecutive elements of the iteration space (every
  output written, nothing stored in between): :data:`MAP_BLOCK` elements
  on cpu, one on cuda (a thread per element);
* ``chunked``: one chunk of :data:`CHUNK` elements of one row's reduction,
  leaving one partial result per reduction; ``finish`` then combines a row's
  partials (pairwise, in chunk order) and evaluates what follows the
  reductions;
* ``rows``: one whole row: a pass over the row per reduction, then a pass
  storing the elementwise outputs.  On cpu, values a later pass needs again
  (a softmax's ``exp``) are kept in a row-long buffer
  (:func:`_kept_values`); cuda recomputes them.

Reductions accumulate in :data:`LANES` independent lanes (SIMD-friendly, no
``-ffast-math`` needed) combined pairwise at the end of a task, so the
association depends on the shape only, never on threads or devices.

Targets (``device.backend.cxx``, :mod:`asnumpy.ops.cxx.targets`) differ in
the wrapper only: on the host target an entry runs tasks ``[lo, hi)`` (the
blocks the cpu program hands each thread); on ``cuda`` an ``extern "C"
__global__`` kernel runs them grid-stride.  The host target also overrides ``exp`` of float32/float16 with :data:`VEXP`, a
branch-free form that vectorises (see its comment for the accuracy), and
``maximum``/``minimum`` of floats with :data:`VSELECT` (the same values,
without the short-circuit that keeps GCC from vectorising); where the
toolchain's probe finds glibc's libmvec (:func:`vector_math`), the real loops
of the other transcendental functions call its vector routines
(:mod:`asnumpy.ops.cxx.vecmath`) and the code is linked with it
(:func:`cpu_options`); the probe is the back end's, reached through the target.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ...ops.cxx import vecmath
from ...ops.cxx.types import CTYPES, parameter_type, parameter_value
from ._nodes import Input, Reduce, Scalar

__all__ = ["CHUNK", "CPU_OPTIONS", "LANES", "MAP_BLOCK", "cpu_options", "map_block", "render"]

MAP_BLOCK = 1 << 15        # elements per task of an elementwise fusion
CHUNK = 1 << 14            # elements per task of a chunked reduction
LANES = 16                 # accumulators per reduction (the association is fixed by this)
IDX = "long long"
# Added to the toolchain's flags for fused cpu code.  Values are unchanged (no -ffast-math,
# no contraction); without trapping math GCC may turn selects such as a clamp or NaN-aware
# max into vector blends (it would not speculate a comparison that could trap otherwise).
# A loop is vectorised behind a run-time check that its outputs overlap none of its
# operands; GCC makes at most 10 such checks by default (a kernel of 8 inputs and 2
# outputs needs 16, and would stay scalar), so the limit is raised (clang, which has no
# such limit, ignores the option).
CPU_OPTIONS = ("-fno-trapping-math", "--param=vect-max-version-for-alias-checks=256")


def vector_math(target) -> bool:
    """Whether fused loops on host ``target`` call libmvec's vector functions (the back
    end's probe, once per process:
    :meth:`asnumpy.ops.cxx.targets.HostTarget.vector_math_options`)."""
    return target.vector_math_options(CPU_OPTIONS) is not None


def cpu_options(target) -> tuple:
    """The options fused code on host ``target`` is compiled with: :data:`CPU_OPTIONS`,
    and libmvec's link options where :func:`vector_math`."""
    return target.vector_math_options(CPU_OPTIONS) or CPU_OPTIONS


CPU_HEADER = r"""
#define __device__
#define __global__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define ASN_UNROLL _Pragma("GCC unroll 16")
#define ASN_INLINE_LAMBDA __attribute__((always_inline))
#include <cstdlib>
"""
# ASN_INLINE_LAMBDA: the element lambda inlined into its loop however long its body is (on
# the host, GCC leaves a long one a call, and a loop with a call does not vectorise)
CUDA_HEADER = '#define ASN_UNROLL _Pragma("unroll")\n#define ASN_INLINE_LAMBDA\n'

# exp on float32 (and float16, computed in float), branch-free so loops vectorise: x is
# clamped to [-104, 89] (beyond, the result is 0 or inf anyway; NaN passes the clamps),
# reduced as x = k ln2 + r with ln2 in two parts (the first with trailing zero bits, so
# k * ln2_hi is exact; |r| <= ln2/2), exp(r) by its degree-7 Taylor polynomial (truncation
# 5e-9, below float's rounding) and scaled by 2^k in two halves, so subnormal results are
# rounded once.  Measured against the correctly rounded exp (exhaustively on [80, 89],
# [-104, -80] and 1e-6 <= |x| <= 2, and 2^26 random points): never more than 1 ulp off;
# NumPy's own AVX-512 float32 exp is up to 3 ulp off, so the two differ by up to 3 ulp.
VEXP = r"""
__device__ __forceinline__ float asn_vexp(float x) {
    x = x < -104.0f ? -104.0f : x;
    x = x > 89.0f ? 89.0f : x;
    const float shifter = 12582912.0f;                  /* 1.5 * 2^23 */
    const float t = x * 1.44269502f + shifter;
    const float k = t - shifter;                        /* round(x / ln2) */
    int bits; __builtin_memcpy(&bits, &t, 4);
    const int n = bits - 0x4B400000;                    /* k as an integer */
    float r = x - k * 0.693145751953125f;
    r = r - k * 1.42860677e-06f;
    float p = 1.98412698e-4f;
    p = p * r + 1.38888889e-3f;
    p = p * r + 8.33333333e-3f;
    p = p * r + 4.16666667e-2f;
    p = p * r + 1.66666667e-1f;
    p = p * r + 0.5f;
    p = p * r;
    p = p * r + r;
    p = p + 1.0f;
    const int n1 = n >> 1, n2 = n - n1;                 /* 2^n = 2^n1 * 2^n2, both normal */
    const int b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
    float s1, s2; __builtin_memcpy(&s1, &b1, 4); __builtin_memcpy(&s2, &b2, 4);
    return (p * s1) * s2;                               /* NaN stays NaN throughout */
}
"""
# maximum/minimum with the prelude's values but no short-circuit (which blocks vectorising)
VSELECT = r"""
template <class T> __device__ __forceinline__ T asn_vmaximum(T a, T b) {
    return ((a > b) | (a != a)) ? a : b;
}
template <class T> __device__ __forceinline__ T asn_vminimum(T a, T b) {
    return ((a < b) | (a != a)) ? a : b;
}
"""
# (ufunc, first input's dtype char) -> (text of the generic form, the cpu form)
_CPU_OVERRIDES = {("exp", "f"): ("asn_exp(a)", "asn_vexp(a)"),
                  ("exp", "e"): ("asn_exp(a)", "asn_vexp(a)")}
_CPU_OVERRIDES.update({(name, char): (f"asn_{name}(a, b)", f"asn_v{name}(a, b)")
                       for name in ("maximum", "minimum") for char in "efd"})


def _ctype(dtype) -> str:
    return CTYPES[np.dtype(dtype).char]


def map_block(target) -> int:
    """Elements per task of an elementwise fusion on ``target``: :data:`MAP_BLOCK` on the
    host (a block of consecutive elements per task), 1 on cuda (a thread per element)."""
    return MAP_BLOCK if target.host else 1


def compute_dtype(dtype) -> np.dtype:
    """The dtype a reduction accumulates in (float16 in float32, as NumPy's half loops)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype.char == "e" else dtype


def identity_literal(name, dtype) -> str:
    """C expression of the identity of reduction ``name`` in compute type ``dtype``."""
    dtype = np.dtype(dtype)
    ctype = _ctype(dtype)
    if name == "add":
        return f"asn_cast<{ctype}>(0)"
    if name == "multiply":
        return f"asn_cast<{ctype}>(1)"
    lowest = name == "maximum"
    if dtype.kind == "b":
        return "false" if lowest else "true"
    if dtype.kind == "f":
        return f"asn_fused_inf<{ctype}>({'true' if lowest else 'false'})"
    info = np.iinfo(dtype)
    value = info.min if lowest else info.max
    suffix = "ULL" if dtype.kind == "u" else "LL"
    if value == np.iinfo(np.int64).min:
        return f"({ctype})(-9223372036854775807LL - 1)"
    return f"({ctype})({value}{suffix})"


_HELPERS = r"""
template <class T> __device__ __forceinline__ T asn_fused_inf(bool negative) {
    if constexpr (sizeof(T) == 4) {
        union { unsigned int u; float f; } v; v.u = negative ? 0xff800000u : 0x7f800000u;
        return v.f;
    } else {
        union { unsigned long long u; double f; } v;
        v.u = negative ? 0xfff0000000000000ULL : 0x7ff0000000000000ULL;
        return v.f;
    }
}
__device__ __forceinline__ long long asn_fused_min(long long a, long long b) {
    return a < b ? a : b;
}
"""


def _cpu_override(name, char, target):
    """(text of the generic form, the cpu form) of ufunc ``name``'s loop whose first input
    has dtype char ``char``, on host ``target``; None to keep the generic form."""
    found = _CPU_OVERRIDES.get((name, char))
    if found is None and char in "efd" and name in vecmath.FUNCTIONS and vector_math(target):
        c, arity = vecmath.FUNCTIONS[name]
        args = "a, b" if arity == 2 else "a"
        found = (f"asn_{c}({args})", f"asn_simd_{c}({args})")
    return found


def _function(name, loop, target):
    """(source, C name) of a ufunc loop's device function, with the target's overrides."""
    source, fn = target.forms.device_function(name, loop)
    chars = "".join(np.dtype(d).char for d in loop)
    override = _cpu_override(name, chars[0], target) if target.host else None
    if override is not None:
        source = source.replace(*override)
    return source, fn


class _Writer:
    """Collects the device functions a rendering needs, each once."""

    def __init__(self, target):
        self.target = target
        self.functions: dict[str, str] = {}

    def ufunc(self, name, loop) -> str:
        source, fn = _function(name, tuple(np.dtype(d) for d in loop), self.target)
        self.functions.setdefault(fn, source)
        return fn

    def combine(self, name, dtype) -> str:
        """A value-returning combine function of reduction ``name`` in compute ``dtype``."""
        fn = self.ufunc(name, (dtype,) * 3)
        ctype = _ctype(dtype)
        wrapper = f"{fn}_value"
        self.functions.setdefault(wrapper, (
            f"__device__ __forceinline__ {ctype} {wrapper}({ctype} a, {ctype} b) "
            f"{{ {ctype} y; {fn}(a, b, y); return y; }}\n"))
        return wrapper


def _value(schedule, index, context):
    """The C name of node ``index``'s value inside ``context`` ('e' element, 'r' row)."""
    node = schedule.nodes[index]
    if isinstance(node, Scalar):            # a kernel parameter
        return f"s{index}"
    if context == "r" or index in schedule.row_nodes:
        return f"r{index}"
    return f"v{index}"


class _Code:
    """What a node's ``statement`` needs (see :mod:`._nodes`): C values of nodes in
    ``context``, input loads, the ufunc loops' device functions."""

    def __init__(self, schedule, writer, context, load):
        self.schedule, self.writer, self.context, self._load = schedule, writer, context, load

    def value(self, index) -> str:
        return _value(self.schedule, index, self.context)

    def dtype(self, index):
        return self.schedule.nodes[index].dtype

    def load(self, index, ctype) -> str:
        return self._load(self.schedule.input_slot[index], ctype)

    def ufunc(self, name, loop) -> str:
        return self.writer.ufunc(name, loop)


def _statements(schedule, writer, targets, context, load, done=None, cached=(), run=""):
    """(lines, row values referenced) computing ``targets`` in ``context`` ('e' or 'r').

    ``load(slot, ctype)`` reads an input.  In the element context row-level
    values are referenced (and returned), not recomputed; in the row context
    nodes in ``done`` are already computed, and each node computed is added.
    """
    nodes = schedule.nodes
    wanted, refs = set(), set()
    done = set() if done is None else done

    def visit(index):
        node = nodes[index]
        if index in wanted or index in done or isinstance(node, Scalar):
            return
        if context == "e" and index in schedule.row_nodes:
            refs.add(index)
            return
        if index in cached:                   # kept from an earlier pass over the row
            wanted.add(index)
            return
        if isinstance(node, Reduce):
            raise AssertionError(f"reduction {index} used before its pass")
        wanted.add(index)
        for arg in node.args:
            visit(arg)

    for target in targets:
        visit(target)
    code = _Code(schedule, writer, context, load)
    lines = []
    prefix = "r" if context == "r" else "v"
    for index in sorted(wanted):
        node = nodes[index]
        ctype = _ctype(node.dtype)
        name = f"{prefix}{index}"
        if index in cached:
            lines.append(f"const {ctype} {name} = row_cache{index}[i_{run} + jj];")
        else:                                 # the node's kind renders its statement
            lines.append(node.statement(name, ctype, code))
    if context == "r":
        done.update(wanted)
    return lines, refs


def _kept_values(schedule):
    """Element values (not plain loads) a reduction pass computes that later passes reuse.

    On cpu a ``rows`` task keeps them in a row-long buffer (a softmax's ``exp``
    is then computed once); cuda recomputes them.
    """
    nodes = schedule.nodes
    later = [nodes[r].args[0] for r in schedule.reductions[1:]]
    later += [op.node for op in schedule.operands if op.role == "out"]
    keep = set()
    for position, red in enumerate(schedule.reductions):
        operand = nodes[red].args[0]
        if isinstance(nodes[operand], (Input, Scalar)) or operand in schedule.row_nodes:
            continue
        uses = later[position:]
        if any(_reaches(nodes, schedule.row_nodes, use, operand) for use in uses):
            keep.add(operand)
    return keep


def _reaches(nodes, row_nodes, start, target):
    """Whether element value ``start`` is computed from ``target`` (within the row)."""
    stack, seen = [start], set()
    while stack:
        index = stack.pop()
        if index == target:
            return True
        if index in seen or index in row_nodes:
            continue
        seen.add(index)
        stack.extend(nodes[index].args)
    return False


def _load(pointer, ctype, stride_class, stride, index):
    if stride_class == 0:
        return f"*reinterpret_cast<const {ctype}*>({pointer})"
    if stride_class == 1:
        return f"reinterpret_cast<const {ctype}*>({pointer})[{index}]"
    return f"*reinterpret_cast<const {ctype}*>({pointer} + {index} * {stride})"


def _store_ref(pointer, ctype, stride_class, stride, index):
    if stride_class == 1:
        return f"reinterpret_cast<{ctype}*>({pointer})[{index}]"
    return f"*reinterpret_cast<{ctype}*>({pointer} + {index} * {stride})"


def _decompose(var, dims, prefix, operands, offset_of, stride_name):
    """Lines adding the coordinates of flat index ``var`` over ``dims`` to each offset."""
    lines = [f"{{ {IDX} rest = {var};"]
    for d in reversed(range(dims)):
        if d:
            lines.append(f"  {{ const {IDX} c = rest % {prefix}{d}; rest /= {prefix}{d};")
        else:
            lines.append("  { const " + IDX + " c = rest;")
        for k in operands:
            lines.append(f"    {offset_of(k)} += c * {stride_name(k, d)};")
        lines.append("  }")
    lines.append("}")
    return lines


def _segments(space, dims, operands, base, lo, hi, body, label):
    """A loop over flat indices [lo, hi) of ``space`` ('k' or 'r') in runs of its last axis.

    For each run, ``b{k}`` points at the run's first element of operand k and
    ``cnt`` is its length; ``body`` is the code of one run.
    """
    last = dims - 1
    lines = [f"for ({IDX} i_{label} = {lo}; i_{label} < {hi}; ) {{",
             f"  const {IDX} j0 = i_{label} % {space.upper()}{last};",
             f"  const {IDX} outer = i_{label} / {space.upper()}{last};",
             f"  const {IDX} cnt = asn_fused_min({space.upper()}{last} - j0, {hi} - i_{label});"]
    for k in operands:
        lines.append(f"  {IDX} off{k} = {base(k)} + j0 * {space}st{k}_{last};")
    if last:
        lines += ["  " + line for line in _decompose(
            "outer", last, space.upper(), operands, lambda k: f"off{k}",
            lambda k, d: f"{space}st{k}_{d}")]
    for k in operands:
        lines.append(f"  char* b{k} = p{k} + off{k}; (void)b{k};")
    lines += ["  " + line for line in body]
    lines += [f"  i_{label} += cnt;", "}"]
    return lines


_RENDERED: dict = {}


def render(schedule, target: str):
    """(source, {role: C function name}, parameter C types) of ``schedule`` for ``target``."""
    key = (schedule.key, target.name)
    found = _RENDERED.get(key)
    if found is None:
        if len(_RENDERED) >= 512:
            _RENDERED.clear()
        found = _RENDERED[key] = _render(schedule, target)
    return found


def _render(schedule, target):
    writer = _Writer(target)
    nodes = schedule.nodes
    operands = schedule.operands                    # slot -> Operand
    slots = range(len(operands))
    kk, rr = len(schedule.kshape), len(schedule.rshape)

    params = [("char*", f"p{k}") for k in slots]
    params += [("char*", f"P{red}") for red in schedule.reductions] \
        if schedule.mode == "chunked" else []
    params += [(parameter_type(nodes[i].dtype.char), f"sp{i}")
               for i in schedule.scalar_nodes]
    params += [(IDX, f"K{d}") for d in range(kk)] + [(IDX, f"R{d}") for d in range(rr)]
    for k in slots:
        params += [(IDX, f"kst{k}_{d}") for d in range(kk)]
        params += [(IDX, f"rst{k}_{d}") for d in range(rr)]
    params += [(IDX, "nchunk"), (IDX, "mapblock")]

    head = [f"const {_ctype(nodes[i].dtype)} s{i} = "
            f"{parameter_value(nodes[i].dtype.char, f'sp{i}')}; (void)s{i};"
            for i in schedule.scalar_nodes]

    def inner_load(space):
        last = (kk if space == "k" else rr) - 1

        def load(slot, ctype):
            return _load(f"b{slot}", ctype, operands[slot].inner_class[space],
                         f"{space}st{slot}_{last}", "jj")
        return load

    def row_load(slot, ctype):
        return f"*reinterpret_cast<const {ctype}*>(p{slot} + o{slot})"

    cached = {}                # node -> run label of the pass that keeps it (cpu rows mode)

    def element_lambda(name, targets, space, tail, returns="", run=""):
        """(row values it reads, lines defining lambda ``name``(jj) over the current run)."""
        lines, refs = _statements(schedule, writer, targets, "e", inner_load(space),
                                  cached=cached, run=run)
        return refs, ([f"auto {name} = [&]({IDX} jj) ASN_INLINE_LAMBDA{returns} {{"]
                      + ["    " + line for line in lines + tail] + ["};"])

    def element_stores(space):
        last = (kk if space == "k" else rr) - 1
        lines = []
        for slot, op in enumerate(operands):
            if op.role == "out":
                ref = _store_ref(f"b{slot}", _ctype(op.dtype), op.inner_class[space],
                                 f"{space}st{slot}_{last}", "jj")
                lines.append(f"{ref} = {_value(schedule, op.node, 'e')};")
        return lines

    def row_offsets():
        lines = [f"{IDX} o{k} = 0; (void)o{k};" for k in slots]
        lines += _decompose("row", kk, "K", list(slots), lambda k: f"o{k}",
                            lambda k, d: f"kst{k}_{d}")
        return lines

    def row_stores(done):
        lines = []
        outs = [(slot, op) for slot, op in enumerate(operands) if op.role == "rowout"]
        lines += _statements(schedule, writer, [op.node for _, op in outs], "r", row_load,
                             done)[0]
        for slot, op in outs:
            ctype = _ctype(op.dtype)
            lines.append(f"*reinterpret_cast<{ctype}*>(p{slot} + o{slot}) = "
                         f"{_value(schedule, op.node, 'r')};")
        return lines

    def reduction_pass(red, lo, hi, done):
        """Lines leaving the combined lanes of reduction ``red`` over [lo, hi) in acc{red}."""
        node = nodes[red]
        name = node.attrs[0]
        cdt = compute_dtype(node.dtype)
        ct = _ctype(cdt)
        comb = writer.combine(name, cdt)
        operand = node.args[0]
        value = _value(schedule, operand, "e")
        if nodes[operand].dtype != cdt:
            value = f"asn_cast<{ct}>({value})"
        tail = [f"return {value};"]
        if operand in keep:
            tail.insert(0, f"row_cache{operand}[i_r{red} + jj] = v{operand};")
        refs, lam = element_lambda(f"elem{red}", [operand], "r", tail, f" -> {ct}",
                                   run=f"r{red}")
        lines = _statements(schedule, writer, sorted(refs), "r", row_load, done)[0]
        lines += [f"{ct} lane{red}[{LANES}];",
                  (f"for (int l = 0; l < {LANES}; ++l) lane{red}[l] = "
                  f"{identity_literal(name, cdt)};")]
        body = lam + [f"{IDX} j = 0;",
                      f"for (; j + {LANES} <= cnt; j += {LANES}) {{",
                      "  ASN_UNROLL",
                      (f"  for (int l = 0; l < {LANES}; ++l) "
                      f"lane{red}[l] = {comb}(lane{red}[l], elem{red}(j + l));"),
                      "}",
                      f"for (; j < cnt; ++j) lane{red}[0] = {comb}(lane{red}[0], elem{red}(j));"]
        lines += _segments("r", rr, list(slots), lambda k: f"o{k}", lo, hi, body, f"r{red}")
        if operand in keep:
            cached[operand] = True
        lines += [f"for (int w = {LANES // 2}; w; w >>= 1)",
                  (f"  for (int l = 0; l < w; ++l) lane{red}[l] = "
                  f"{comb}(lane{red}[l], lane{red}[l + w]);"),
                  f"const {ct} acc{red} = lane{red}[0];"]
        return lines

    def reduction_value(red, acc, done):
        ctype = _ctype(nodes[red].dtype)
        done.add(red)
        return f"const {ctype} r{red} = asn_cast<{ctype}>({acc});"

    functions = {}
    bodies = {}
    keep = set()               # element values a later pass reads from the row cache
    n = " * ".join(f"R{d}" for d in range(rr))
    element_outputs = [op.node for op in operands if op.role == "out"]
    if schedule.mode == "map":
        _, lam = element_lambda("elem", element_outputs, "k", element_stores("k"))
        body = lam + [f"for ({IDX} jj = 0; jj < cnt; ++jj) elem(jj);"]
        total = " * ".join(f"K{d}" for d in range(kk))
        lines = [f"const {IDX} total = {total};",
                 f"const {IDX} lo = t * mapblock;",
                 f"const {IDX} hi = asn_fused_min(lo + mapblock, total);"]
        lines += _segments("k", kk, list(slots), lambda k: "0", "lo", "hi", body, "k")
        bodies["task"] = lines
    elif schedule.mode == "chunked":
        done = set()
        lines = [f"const {IDX} row = t / nchunk, chunk = t % nchunk;",
                 f"const {IDX} n = {n};",
                 f"const {IDX} lo = chunk * {CHUNK};",
                 f"const {IDX} hi = asn_fused_min(lo + {CHUNK}, n);"]
        lines += row_offsets()
        for red in schedule.reductions:
            lines += reduction_pass(red, "lo", "hi", done)
            ct = _ctype(compute_dtype(nodes[red].dtype))
            lines.append(f"reinterpret_cast<{ct}*>(P{red})[t] = acc{red};")
        bodies["task"] = lines
        done = set()
        finish = [f"const {IDX} row = t;"] + row_offsets()
        for red in schedule.reductions:
            node = nodes[red]
            cdt = compute_dtype(node.dtype)
            ct = _ctype(cdt)
            comb = writer.combine(node.attrs[0], cdt)
            finish += [f"{ct}* part{red} = reinterpret_cast<{ct}*>(P{red}) + row * nchunk;",
                       f"for ({IDX} w = 1; w < nchunk; w *= 2)",
                       (f"  for ({IDX} c = 0; c + w < nchunk; c += 2 * w) "
                       f"part{red}[c] = {comb}(part{red}[c], part{red}[c + w]);"),
                       reduction_value(red, f"part{red}[0]", done)]
        finish += row_stores(done)
        bodies["finish"] = finish
    else:                                             # rows
        done = set()
        if target.host:
            keep.update(_kept_values(schedule))
        lines = [f"const {IDX} row = t;", f"const {IDX} n = {n};"] + row_offsets()
        for index in sorted(keep):
            ctype = _ctype(nodes[index].dtype)
            lines.append(f"{ctype}* row_cache{index} = static_cast<{ctype}*>("
                         f"std::malloc(n * sizeof({ctype})));")
        if keep:
            lines.append("if (" + " || ".join(f"!row_cache{i}" for i in sorted(keep))
                         + ") return 1;   /* out of memory */")
        for red in schedule.reductions:
            lines += reduction_pass(red, "0", "n", done)
            lines.append(reduction_value(red, f"acc{red}", done))
        if element_outputs:
            refs, lam = element_lambda("elem", element_outputs, "r", element_stores("r"),
                                       run="out")
            lines += _statements(schedule, writer, sorted(refs), "r", row_load, done)[0]
            body = lam + [f"for ({IDX} jj = 0; jj < cnt; ++jj) elem(jj);"]
            lines += _segments("r", rr, list(slots), lambda k: f"o{k}", "0", "n", body, "out")
        lines += row_stores(done)
        lines += [f"std::free(row_cache{i});" for i in sorted(keep)]
        bodies["task"] = lines

    signature = ", ".join(f"{t} {v}" for t, v in params)
    arguments = ", ".join(v for _, v in params)
    digest = hashlib.sha256(repr((schedule.key, target.name)).encode()).hexdigest()[:16]
    parts = []
    for role, lines in bodies.items():
        fn = f"asn_{schedule.name}_{role}_{digest}"
        functions[role] = fn
        inner = "\n".join("    " + line for line in head + lines + ["return 0;"])
        parts.append(f"__device__ __forceinline__ int {fn}_one({IDX} t, {signature}) {{\n"
                     f"{inner}\n}}\n")
        if target.host:
            # returns 1 when a task could not get its row buffer; kept out of line (inlined
            # into the entry, which reads its arguments from the table, GCC's code for the
            # tasks ran 5x slower: a softmax, measured)
            parts.append(f"__attribute__((noinline)) static int {fn}_tasks({IDX} lo, {IDX} hi, "
                         f"{signature}) {{\n"
                         f"    for ({IDX} t = lo; t < hi; ++t)\n"
                         f"        if ({fn}_one(t, {arguments})) return 1;\n"
                         f"    return 0;\n}}\n")
            parts.append(target.entry(fn, f"{fn}_tasks", [f"{t} {v}" for t, v in params],
                                      before=("asn_b0", "asn_b1"), returns=True))
        else:
            parts.append(
                f'extern "C" __global__ void {fn}({signature}, {IDX} ntasks) {{\n'
                f"    for ({IDX} t = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
                f"t < ntasks;\n         t += (long long)blockDim.x * gridDim.x)\n"
                f"        (void){fn}_one(t, {arguments});\n}}\n")
    header = CPU_HEADER if target.host else CUDA_HEADER
    host = VEXP + VSELECT + vecmath.declarations(vector_math(target)) if target.host else ""
    source = (header + target.forms.prelude + _HELPERS + host
              + "\n".join(writer.functions.values()) + '\n#line 1 "fused.cu"\n'
              + "\n".join(parts))
    return source, functions, tuple(t for t, _ in params)
