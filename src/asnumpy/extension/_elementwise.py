"""ElementwiseKernel: a C++ body run once per element of the broadcast arguments."""

from __future__ import annotations

import numpy as np

from .._core._launch import empty
from .._core.ndarray import ndarray
from . import _runner
from ._arguments import broadcast_strides, collapse, prepare_call, separate_inputs
from ._base import MAX_GRID, NAME_MARK, UserKernel, typedefs, unique_name
from ._codegen import Operand, element

__all__ = ["ElementwiseKernel"]

BLOCK = 128                  # cuda threads per block (CuPy's default block_size)


class ElementwiseKernel(UserKernel):
    """A user-defined elementwise kernel (CuPy's ``ElementwiseKernel``).

    Parameters
    ----------
    in_params, out_params : str
        Parameter lists such as ``"T x, raw T y, float32 z"``: one-letter
        types are placeholders bound to the dtypes of the arrays passed;
        ``raw`` parameters are whole arrays (a ``CArray``: ``y[k]``,
        ``y.size()``, ``y.shape()``), others are the current element.
    operation : str
        The C++ body, run for every element; ``i`` is the element's flat index
        and ``_ind.size()`` the number of elements.
    name : str
        The kernel's name.
    reduce_dims : bool
        Merge axes that every array walks as one (faster index arithmetic);
        ``False`` keeps the broadcast shape in ``_ind``.
    preamble : str
        Code placed before the kernel (helper functions, constants).
    no_return, return_tuple : bool
        Return None, or always a tuple of outputs.
    loop_prep, after_loop : str
        Code before and after the element loop (on cpu: once per piece of work).
    options : sequence of str
        Extra compiler options (NVRTC's on cuda, the C++ compiler's on cpu).

    Notes
    -----
    Call as ``kernel(*inputs)`` or ``kernel(*inputs, *outputs)`` (or with
    ``out=``), plus ``size=`` (the loop size when every array is raw),
    ``stream=`` and ``block_size=`` (cuda).  Arrays are broadcast together;
    outputs not given are allocated with the placeholders' dtypes.  Python
    scalars take their parameter's type.  An array for an output or a
    ``_non_const`` input that is read-only or whose elements overlap raises
    ValueError before anything runs; an input sharing memory with a written
    array is copied first.  See ``docs/extension.md``.
    """

    kind = "ElementwiseKernel"

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, loop_prep="",
                 after_loop="", options=()):
        self._setup(in_params, out_params, name, preamble, reduce_dims, options)
        self.operation, self.no_return, self.return_tuple = operation, no_return, return_tuple
        self.loop_prep, self.after_loop = loop_prep, after_loop

    def __call__(self, *args, out=None, size=None, stream=None, block_size=None):
        where = self._where
        inputs, outputs, device, in_types, out_types, bound = prepare_call(
            self.in_params, self.out_params, args, out, where)
        shape = self._loop_shape(inputs, outputs, size)
        for param, given in zip(self.out_params, outputs):
            if given is None and param.raw and size is None:
                raise ValueError(f"{where}: the size of raw output {param.name!r} is "
                                 "undecided; pass it, or size=")
            if given is not None and not param.raw and given.shape != shape:
                raise ValueError(f"{where}: output {param.name!r} has shape "
                                 f"{given.shape}, the arguments broadcast to {shape}")
        self._check_written(inputs + outputs, [shape] * self.nargs)
        for k, dtype in enumerate(out_types):
            if outputs[k] is None:
                outputs[k] = empty(shape, dtype, device, func=where)
        result = (None if self.no_return else
                  outputs[0] if self.nout == 1 and not self.return_tuple else tuple(outputs))
        count = int(np.prod(shape, dtype=np.int64))
        if count == 0:
            return result
        values = self._separate(inputs + outputs, shape, stream)
        self._launch(device, values, in_types + out_types, bound, shape, count,
                     stream, block_size)
        return result

    def _separate(self, values, shape, stream):
        """``values`` with each input the kernel only reads copied when it shares memory
        with an array the kernel writes, unless the two are walked element for element
        alike (NumPy's ufuncs copy such a partially overlapping input too)."""
        raw = {id(v) for p, v in zip(self.params, values) if p.raw}

        def same(a, b):
            return (id(a) not in raw and id(b) not in raw and a._offset == b._offset
                    and broadcast_strides(a, shape) == broadcast_strides(b, shape))

        return separate_inputs(self.params, values, same, stream, self._where)

    def _loop_shape(self, inputs, outputs, size):
        arrays = [v for p, v in zip(self.params, inputs + outputs)
                  if not p.raw and isinstance(v, ndarray)]
        if size is not None:
            if arrays:
                raise ValueError(f"{self._where}: size= can be given only when every array "
                                 "argument is raw")
            return (int(size),)
        if not arrays:
            raise ValueError(f"{self._where}: the loop size is undecided (every argument is "
                             "raw or a scalar); pass size=")
        try:
            return np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            shapes = ", ".join(str(a.shape) for a in arrays)
            raise ValueError(f"{self._where}: arguments could not be broadcast together "
                             f"with shapes {shapes}") from None

    def _launch(self, device, values, types, bound, shape, count, stream, block_size):
        arrays = [k for k, (p, v) in enumerate(zip(self.params, values))
                  if not p.raw and isinstance(v, ndarray)]
        strides = [broadcast_strides(values[k], shape) for k in arrays]
        loop_shape = tuple(shape)
        if self.reduce_dims:
            loop_shape, strides = collapse(shape, strides)
        ndim = len(loop_shape)
        stride_of = dict(zip(arrays, strides))
        operands = []
        for k, (param, value, dtype) in enumerate(zip(self.params, values, types)):
            if k in stride_of:
                contiguous = ndim == 1 and stride_of[k][0] == dtype.itemsize
                operands.append(Operand("array", dtype, ndim, contiguous))
            elif isinstance(value, ndarray):
                operands.append(Operand("raw", dtype, value.ndim))
            else:
                operands.append(Operand("scalar", dtype))
        program, entry = self._kernel(device, tuple(operands), ndim,
                                      tuple(sorted(bound.items())))
        # one thread per element (the host target: one block per element, cut into pieces)
        grid, block = device.backend.cxx.geometry(count, int(block_size or BLOCK), MAX_GRID)

        def work():
            values_now = [*_runner.launch_values(operands, values, stride_of),
                          np.int64(count), *(np.int64(n) for n in loop_shape)]
            program.launch(entry, grid, block, values_now, work=count)

        _runner.launch(device, stream, work, [v for v in values if isinstance(v, ndarray)],
                       name=self.name, writes=values[self.nin:])

    def _build(self, target, operands, ndim, bound):
        bound = dict(bound)
        decls, setup, access = [], [], []
        for param, operand in zip(self.params, operands):
            ctype = param.ctype
            decls += operand.declarations(param.name)
            setup.append(operand.setup(param.name, ctype, param.is_const))
            if operand.kind == "array":
                const = "const " if param.is_const else ""
                lvalue = element(param.name, ctype, operand, "i", "_ind.index_")
                access.append(f"{const}{ctype}& {param.name} = {lvalue};")
        decls += ["long long _size", *(f"long long _shape_{d}" for d in range(ndim))]
        # the multi-index of element i: on the cpu, where each piece walks a range, an
        # odometer advanced with i; in a grid-stride loop, computed from i
        odometer = target.host and ndim > 1
        index = ("" if ndim == 0 or odometer else
                 "_ind.index_[0] = i;" if ndim == 1 else "_ind.set(i);")
        body_head = (f"CIndexer<{ndim}> _ind; _ind.size_ = _size;\n    "
                     + "".join(f"_ind.shape_[{d}] = _shape_{d}; " for d in range(ndim))
                     + "\n    " + "\n    ".join(s for s in setup if s))
        loop_body = (f"        {index}\n        " + "\n        ".join(access)
                     + f"\n        {self.operation}\n        ;")
        if target.host:
            head = (f"static void asn_body({', '.join(decls)}, long long _begin, "
                    "long long _end)")
            loop = ("_ind.set(_begin);\n    for (long long i = _begin; i < _end; ++i, _ind.next())"
                    if odometer else "for (long long i = _begin; i < _end; ++i)")
        else:
            head = f'extern "C" __global__ void {NAME_MARK}({", ".join(decls)})'
            loop = ("for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
                    "i < _size; i += (long long)blockDim.x * gridDim.x)")
        body = (f"{typedefs(bound)}{self.preamble}\n{head} {{\n    {body_head}\n"
                f"    {self.loop_prep};\n    {loop} {{\n{loop_body}\n    }}\n"
                f"    {self.after_loop};\n}}\n")
        if target.host:
            body += target.entry("asn_entry", "asn_body", decls, after=("asn_b0", "asn_b1"))
            return target.source(body), "asn_entry"
        name = unique_name(self.name, body)
        return target.source(body.replace(NAME_MARK, name, 1)), name
