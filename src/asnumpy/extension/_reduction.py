"""ReductionKernel: map each element, reduce along axes, post-map into the outputs."""

from __future__ import annotations

import operator

import numpy as np
from numpy.exceptions import AxisError

from .._core._launch import empty
from .._core.ndarray import ndarray
from . import _runner
from ._arguments import broadcast_strides, collapse, prepare_call, separate_inputs
from ._base import MAX_GRID, NAME_MARK, UserKernel, typedefs, unique_name
from ._codegen import Operand
from ._params import c_type

__all__ = ["ReductionKernel"]

BLOCK = 256                  # cuda threads per output (a power of two: tree reduction)
SPLIT_OUTPUTS = 16           # host: fewer outputs than this split the reduced range instead
MAX_PIECES = 64              # ... into at most this many pieces,
PIECE_WORK = 1 << 15         # ... each of at least this many elements
RBLOCK = 32                  # host: elements reduced in order before pairwise combination
# the host entries' launch values after the kernel's own: the split's partial results
SPLIT_VALUES = ("unsigned long long asn_partial", "unsigned long long asn_has",
                "long long asn_parts")


def _set_index(indexer: str, flat: str, ndim: int) -> str:
    """C code setting ``indexer``'s multi-index to flat index ``flat`` (no division in 1-D)."""
    if ndim == 0:
        return ""
    return f"{indexer}.index_[0] = {flat};" if ndim == 1 else f"{indexer}.set({flat});"


class ReductionKernel(UserKernel):
    """A user-defined reduction kernel (CuPy's ``ReductionKernel``).

    Parameters
    ----------
    in_params, out_params : str
        Parameter lists, as for :class:`ElementwiseKernel` (no ``raw``).
    map_expr : str
        C++ expression of the inputs' current elements, giving the value reduced.
    reduce_expr : str
        C++ expression combining two partial results ``a`` and ``b``; it must
        be associative and commutative (the order of combination is not fixed).
    post_map_expr : str
        C++ statement storing the result ``a`` into the outputs (``y = a``).
    identity : str or None
        C++ expression of the reduction's identity; None reduces from the first
        element (an empty reduction then raises ValueError).
    name : str
        The kernel's name.
    reduce_type : str, optional
        Type of ``a`` and ``b`` (a C type, a dtype name or a placeholder);
        the first output's type by default.
    reduce_dims : bool
        Merge axes that every array walks as one.
    preamble : str
        Code placed before the kernel.
    options : sequence of str
        Extra options for the cpu compiler.

    Notes
    -----
    Call as ``kernel(*inputs, out=None, axis=None, keepdims=False,
    stream=None)``; inputs are broadcast together and reduced along ``axis``
    (all axes by default).  A read-only ``out=``, or one whose elements
    overlap, raises ValueError before anything runs; an input sharing memory
    with an output is copied first.
    """

    kind = "ReductionKernel"

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="",
                 options=()):
        self._setup(in_params, out_params, name, preamble, reduce_dims, options)
        raw = [p.name for p in self.in_params + self.out_params if p.raw]
        if raw:
            raise ValueError(f"{self._where}: raw parameters ({', '.join(raw)}) are not "
                             "supported by reduction kernels; use an ElementwiseKernel")
        if not self.out_params:
            raise ValueError(f"{self._where}: a reduction needs at least one output")
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = None if identity is None else str(identity)
        self.reduce_type = reduce_type

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        where = self._where
        inputs, outputs, device, in_types, out_types, bound = prepare_call(
            self.in_params, self.out_params, args, out, where)
        arrays = [v for v in inputs if isinstance(v, ndarray)]
        if not arrays:
            raise ValueError(f"{where}: at least one input must be an array")
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            shapes = ", ".join(str(a.shape) for a in arrays)
            raise ValueError(f"{where}: inputs could not be broadcast together with shapes "
                             f"{shapes}") from None
        axes = self._axes(axis, len(shape))
        kept = [d for d in range(len(shape)) if d not in axes]
        out_shape = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keepdims \
            else tuple(shape[d] for d in kept)
        for param, given in zip(self.out_params, outputs):
            if given is not None and given.shape != out_shape:
                raise ValueError(f"{where}: output {param.name!r} has shape "
                                 f"{given.shape}, the reduction gives {out_shape}")
        self._check_written(inputs + outputs, [shape] * self.nin + [out_shape] * self.nout)
        for k, dtype in enumerate(out_types):
            if outputs[k] is None:
                outputs[k] = empty(out_shape, dtype, device, func=where)
        result = outputs[0] if self.nout == 1 else tuple(outputs)
        out_size = int(np.prod(out_shape, dtype=np.int64))
        red_size = int(np.prod([shape[d] for d in axes], dtype=np.int64))
        if out_size == 0:
            return result
        if red_size == 0 and self.identity is None:
            raise ValueError(f"{where}: zero-size array to reduction operation {self.name} "
                             "which has no identity")
        # an output is written while other outputs' inputs are still read: an input
        # sharing memory with any written array is copied first (as NumPy's reduce does)
        inputs = separate_inputs(self.params, inputs + outputs, lambda a, b: False, stream,
                                 where)[:self.nin]
        self._launch(device, stream, inputs, outputs, in_types + out_types, bound, shape,
                     kept, list(axes), keepdims)
        return result

    def _axes(self, axis, ndim):
        if axis is None:
            return tuple(range(ndim))
        items = axis if isinstance(axis, tuple | list) else (axis,)
        axes = []
        for item in items:
            item = operator.index(item)
            if not -ndim <= item < ndim:
                raise AxisError(item, ndim)
            axes.append(item % ndim)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{self._where}: duplicate value in 'axis'")
        return tuple(sorted(axes))

    def _launch(self, device, stream, inputs, outputs, types, bound, shape, kept, axes,
                keepdims):
        in_arrays = [k for k, v in enumerate(inputs) if isinstance(v, ndarray)]
        in_strides = [broadcast_strides(inputs[k], shape) for k in in_arrays]
        out_strides = [tuple(o._strides[d] for d in kept) if keepdims else o._strides
                       for o in outputs]
        kept_shape, kept_strides = ([shape[d] for d in kept],
                                    [[s[d] for d in kept] for s in in_strides] + out_strides)
        red_shape, red_strides = [shape[d] for d in axes], [[s[d] for d in axes]
                                                            for s in in_strides]
        if self.reduce_dims:
            kept_shape, kept_strides = collapse(kept_shape, kept_strides)
            red_shape, red_strides = collapse(red_shape, red_strides)
        kept_shape, red_shape = tuple(kept_shape), tuple(red_shape)
        nk, nr = len(kept_shape), len(red_shape)
        strides = {}
        for n, k in enumerate(in_arrays):
            strides[k] = tuple(kept_strides[n]) + tuple(red_strides[n])
        for n in range(self.nout):
            strides[self.nin + n] = tuple(kept_strides[len(in_arrays) + n])
        values = inputs + outputs
        operands = []
        for k, (value, dtype) in enumerate(zip(values, types)):
            if not isinstance(value, ndarray):
                operands.append(Operand("scalar", dtype))
            else:
                operands.append(Operand("array", dtype, len(strides[k])))
        program, entries = self._kernel(device, tuple(operands), nk, nr,
                                        tuple(sorted(bound.items())))
        out_size = int(np.prod(kept_shape, dtype=np.int64))
        red_size = int(np.prod(red_shape, dtype=np.int64))

        def flat_values():
            return [*_runner.launch_values(operands, values, strides), np.int64(out_size),
                    *(np.int64(n) for n in kept_shape),
                    np.int64(red_size), *(np.int64(n) for n in red_shape)]

        if device.backend.cxx.host:
            def work():
                self._run_host(program, flat_values(), out_size, red_size)
        else:
            grid = max(1, min(out_size, MAX_GRID))

            def work():
                program.launch(entries, (grid,), (BLOCK,), flat_values())
        _runner.launch(device, stream, work, [v for v in values if isinstance(v, ndarray)],
                       name=self.name, writes=values[self.nin:])

    @staticmethod
    def _run_host(program, values, out_size, red_size):
        """The host target's launches: blocks of outputs, each reduced whole; or, for few
        outputs, pieces of the reduced range (cut by shape alone, so the result never
        depends on the thread count) combined in order by ``asn_finish``.  A host
        program's memory is host memory: the partial results are NumPy arrays."""
        work = out_size * red_size
        pieces = 1
        if out_size < SPLIT_OUTPUTS:
            pieces = min(MAX_PIECES, max(1, work // PIECE_WORK))
        if pieces == 1:
            program.launch("asn_rows", (out_size,), (1,), values, work=work)
            return
        reduce_size = program.signature("asn_reduce_type")[0][0]
        partial = np.empty(pieces * out_size * reduce_size, np.uint8)
        has = np.zeros(pieces * out_size, np.uint8)
        split = [*values, np.uint64(partial.ctypes.data), np.uint64(has.ctypes.data),
                 np.int64(pieces)]
        program.launch("asn_split", (pieces,), (1,), split, work=work)
        program.launch("asn_finish", (1,), (1,), split, work=1)
        del partial, has

    def _reduce_ctype(self):
        if self.reduce_type is None:
            return self.out_params[0].ctype
        try:
            dtype = np.dtype(self.reduce_type)
        except TypeError:
            return str(self.reduce_type)
        return c_type(dtype) if isinstance(self.reduce_type, type) or \
            dtype.name == self.reduce_type else str(self.reduce_type)

    def _build(self, target, operands, nk, nr, bound):
        bound = dict(bound)
        decls, setup, inputs, outputs = [], [], [], []
        for n, (param, operand) in enumerate(zip(self.params, operands)):
            decls += operand.declarations(param.name)
            setup.append(operand.setup(param.name, param.ctype))
            if operand.kind != "array":
                continue
            kept = [f"_out_ind.index_[{d}] * _s_{param.name}_{d}" for d in range(nk)]
            if n < self.nin:
                red = [f"_red_ind.index_[{d}] * _s_{param.name}_{nk + d}" for d in range(nr)]
                offset = " + ".join(kept + red) or "0"
                inputs.append(f"const {param.ctype}& {param.name} = *({param.ctype}*)"
                              f"((char*)_p_{param.name} + ({offset}));")
            else:
                offset = " + ".join(kept) or "0"
                outputs.append(f"{param.ctype}& {param.name} = *({param.ctype}*)"
                               f"((char*)_p_{param.name} + ({offset}));")
        decls += ["long long _out_size", *(f"long long _out_shape_{d}" for d in range(nk)),
                  "long long _red_size", *(f"long long _red_shape_{d}" for d in range(nr))]
        identity = "false" if self.identity is None else "true"
        # user fragments end with a newline: a trailing // comment ends there
        initial = "_type_reduce()" if self.identity is None else \
            f"_type_reduce({self.identity}\n)"
        head = (f"{typedefs(bound)}typedef {self._reduce_ctype()} _type_reduce;\n"
                f"{self.preamble}\n")
        indexers = (
            f"CIndexer<{nk}> _out_ind; _out_ind.size_ = _out_size; "
            + "".join(f"_out_ind.shape_[{d}] = _out_shape_{d}; " for d in range(nk))
            + f"\n    CIndexer<{nr}> _red_ind; _red_ind.size_ = _red_size; "
            + "".join(f"_red_ind.shape_[{d}] = _red_shape_{d}; " for d in range(nr))
            + "\n    " + "\n    ".join(s for s in setup if s))
        set_out = _set_index("_out_ind", "_j", nk)
        # on the cpu each output walks a range of the reduced space: an odometer there
        odometer = target.host and nr > 1
        set_red = "" if odometer else _set_index("_red_ind", "_r", nr)
        red_start = "_red_ind.set(_r0);" if odometer else ""
        red_step = ", _red_ind.next()" if odometer else ""
        accumulate = (
            f"{set_red}\n            " + "\n            ".join(inputs)
            + f"\n            _type_reduce _m = static_cast<_type_reduce>({self.map_expr}\n);"
            + "\n            if (_has) { _type_reduce a = _acc, b = _m; _acc = ("
            + f"{self.reduce_expr}\n); }} else {{ _acc = _m; _has = true; }}")
        combine = ("if (_has2) { if (_has) { _type_reduce a = _acc, b = @B@; _acc = ("
                   + self.reduce_expr + "\n); } else { _acc = @B@; _has = true; } }")
        post = ("{ " + " ".join(outputs) + " _type_reduce a = _acc; "
                + self.post_map_expr + "\n; }")
        if target.host:
            body = head + self._host_body(target, decls, indexers, set_out, identity, initial,
                                          (red_start, red_step), accumulate, combine, post,
                                          self.reduce_expr)
            return target.source(body), None
        body = head + self._cuda_body(decls, indexers, set_out, identity, initial,
                                      accumulate, combine, post)
        name = unique_name(self.name, body)
        return target.source(body.replace(NAME_MARK, name, 1)), name

    @staticmethod
    def _host_body(target, decls, indexers, set_out, identity, initial, red_walk, accumulate,
                   combine, post, reduce_expr):
        """The host entries (``asn_rows``, ``asn_split``, ``asn_finish``).  Each output's range is reduced in blocks of RBLOCK elements
        (in order), and the blocks' results pairwise (a binary counter of partial
        results), as NumPy sums: rounding errors grow with log(n), not n."""
        red_start, red_step = red_walk
        params = ", ".join(decls)
        names = ", ".join(decl.rsplit(" ", 1)[1] for decl in decls)
        partial_params = ["long long _j0", "long long _j1", "long long _r0", "long long _r1",
                          "void* _partial", "void* _partial_has"]
        finish_params = ["long long _j0", "long long _j1", "void* _partial",
                         "void* _partial_has", "long long _parts"]
        b = "((_type_reduce*)_partial)[_k * (_j1 - _j0) + (_j - _j0)]"
        return f"""
static void asn_body({params}, {', '.join(partial_params)}) {{
    {indexers}
    for (long long _j = _j0; _j < _j1; ++_j) {{
        {set_out}
        bool _has = {identity};
        _type_reduce _acc = {initial};
        _type_reduce _level[64];               /* _level[l]: 2**l blocks, when bit l is set */
        unsigned long long _blocks = 0;
        {red_start}
        for (long long _b0 = _r0; _b0 < _r1; _b0 += {RBLOCK}) {{
            const long long _b1 = _b0 + {RBLOCK} < _r1 ? _b0 + {RBLOCK} : _r1;
            bool _has = false;
            _type_reduce _acc = {initial};
            for (long long _r = _b0; _r < _b1; ++_r{red_step}) {{
                {accumulate}
            }}
            int _l = 0;                        /* carry: merge equal-sized neighbours */
            for (unsigned long long _n = _blocks++; _n & 1; _n >>= 1, ++_l) {{
                _type_reduce a = _level[_l], b = _acc;
                _acc = ({reduce_expr}
);
            }}
            _level[_l] = _acc;
        }}
        for (int _l = 63; _l >= 0; --_l) {{     /* earlier blocks sit at higher levels */
            bool _has2 = (_blocks >> _l) & 1;
            {combine.replace('@B@', '_level[_l]')}
        }}
        if (_partial) {{
            ((_type_reduce*)_partial)[_j - _j0] = _acc;
            ((unsigned char*)_partial_has)[_j - _j0] = _has;
        }} else {post}
    }}
}}
static void asn_finish_body({params}, {', '.join(finish_params)}) {{
    {indexers}
    for (long long _j = _j0; _j < _j1; ++_j) {{
        {set_out}
        bool _has = false;
        _type_reduce _acc = {initial};
        for (long long _k = 0; _k < _parts; ++_k) {{
            bool _has2 = ((unsigned char*)_partial_has)[_k * (_j1 - _j0) + (_j - _j0)];
            {combine.replace('@B@', b)}
        }}
        {post}
    }}
}}
static void asn_split_body({params}, long long asn_b0, long long asn_b1,
                           unsigned long long asn_partial, unsigned long long asn_has,
                           long long asn_parts) {{
    for (long long _k = asn_b0; _k < asn_b1; ++_k)
        asn_body({names}, 0, _out_size, _red_size * _k / asn_parts,
                 _red_size * (_k + 1) / asn_parts,
                 (void*)(asn_partial + _k * _out_size * sizeof(_type_reduce)),
                 (void*)(asn_has + _k * _out_size));
}}
/* the size of _type_reduce, for the partial results (program.signature) */
static void asn_reduce_type(_type_reduce) {{}}
extern "C" int asn_params_asn_reduce_type(long long* s, char* k, int c) {{
    return asn_param_info(asn_reduce_type, s, k, c);
}}
""" + target.entry("asn_rows", "asn_body", decls,
                   after=("asn_b0", "asn_b1", "0", "_red_size", "0", "0")) + target.entry(
            "asn_split", "asn_split_body", decls, SPLIT_VALUES,
            after=("asn_b0", "asn_b1", "asn_partial", "asn_has", "asn_parts")) + target.entry(
            "asn_finish", "asn_finish_body", decls, SPLIT_VALUES,
            after=("0", "_out_size", "(void*)asn_partial", "(void*)asn_has", "asn_parts"))

    @staticmethod
    def _cuda_body(decls, indexers, set_out, identity, initial, accumulate, combine, post):
        b = "_sh[_t + _s]"
        return f"""
extern "C" __global__ void {NAME_MARK}({', '.join(decls)}) {{
    {indexers}
    /* raw storage: __shared__ variables cannot have constructors */
    alignas(16) __shared__ unsigned char _sh_raw[{BLOCK} * sizeof(_type_reduce)];
    __shared__ bool _sh_has[{BLOCK}];
    _type_reduce* _sh = (_type_reduce*)_sh_raw;
    const long long _t = threadIdx.x;
    for (long long _j = blockIdx.x; _j < _out_size; _j += gridDim.x) {{
        {set_out}
        bool _has = {identity};
        _type_reduce _acc = {initial};
        for (long long _r = _t; _r < _red_size; _r += blockDim.x) {{
            {accumulate}
        }}
        _sh[_t] = _acc; _sh_has[_t] = _has;
        __syncthreads();
        for (long long _s = blockDim.x / 2; _s > 0; _s >>= 1) {{
            if (_t < _s) {{
                _acc = _sh[_t]; _has = _sh_has[_t];
                bool _has2 = _sh_has[_t + _s];
                {combine.replace('@B@', b)}
                _sh[_t] = _acc; _sh_has[_t] = _has;
            }}
            __syncthreads();
        }}
        if (_t == 0) {{
            _acc = _sh[0];
            {post}
        }}
        __syncthreads();
    }}
}}
"""
