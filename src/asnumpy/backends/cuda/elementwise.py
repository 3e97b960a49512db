"""Plan and render the CUDA C kernel of one elementwise ufunc call.

Pure Python (no ``cuda`` import): the result is a source string, a kernel
name and the ordered kernel arguments, with the array pointers left as
placeholders for the runtime to fill in.  The steps, in
:func:`plan_elementwise`:

1. broadcast every input to the output shape (zero strides);
2. drop size-1 dimensions, order the rest by the first output's strides and
   merge neighbours that are contiguous for *every* operand, so a contiguous
   ``add`` becomes a 1-D loop (a 0-d call has no dimension at all);
3. pick 32-bit index arithmetic when the element count and every operand's
   byte extent fit in ``int32``, else 64-bit;
4. render ``scalar_ops.PRELUDE``, the ufunc loop's device function and one
   ``extern "C" __global__`` kernel with a grid-stride loop.  Each element is
   loaded from its storage dtype, cast with ``asn_cast`` to the loop dtype,
   computed, cast to the output's storage dtype and stored (NumPy's
   ``casting='unsafe'`` on the ``cpu`` device), where ``where`` is true;
5. when every operand is contiguous (and there is no ``where``), render in
   the same source a second kernel that moves ``lanes`` elements per operand
   with one 16-byte (or narrower) vector load or store, and finishes the
   last ``n % lanes`` elements one by one.  It needs every pointer aligned to
   its vector's size, which only the launch knows (a view may start at any
   element): :attr:`ElementwiseKernel.vector` says what to check, and the
   launch falls back to the scalar kernel when a pointer is misaligned.

Renderings are cached by (ufunc, loop, storage dtypes, operand kinds, number
of collapsed dimensions, contiguity, index width, vector lanes, broadcast
inputs): the shape and strides are kernel arguments, so the same kernel
serves every array of that *layout class* -- contiguous (every operand steps
by its item size, or an input by nothing: a broadcast scalar such as
``x - x.mean()``), or general strides of a given collapsed rank.

Caveats the caller owns: partial overlap between an output and an input
(exact aliasing, e.g. ``add(a, b, out=a)``, is fine) must be resolved by a
copy first, as NumPy does; floating-point error flags are not reported.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...ops.cxx.layout import ArraySpec, collapse
from . import scalar_ops

__all__ = ["ArraySpec", "ElementwiseKernel", "ScalarSpec", "VectorKernel", "broadcast_strides",
           "collapse", "plan_elementwise"]

INT32_MAX = 2**31 - 1
VECTOR_BYTES = 16           # the widest load one thread issues (LDG.128)


class ScalarSpec(NamedTuple):
    """A scalar input, passed by value (cast to the loop dtype on the host)."""

    dtype: np.dtype
    value: object


@dataclass(frozen=True)
class ElementwiseKernel:
    """A rendered elementwise kernel and the arguments of one launch.

    Attributes
    ----------
    source : str
        Complete CUDA C++ translation unit.
    kernel_name : str
        Name of the ``extern "C" __global__`` kernel in ``source``.
    arguments : tuple
        Kernel arguments in order.  Array pointers are placeholders
        ``("pointer", "out", k)``, ``("pointer", "in", k)`` (k counts all
        inputs, scalars included) and ``("pointer", "where")``; every other
        entry is a NumPy scalar of the exact C type the kernel declares.
    parameters : tuple of (str, str)
        The kernel's declared parameters as (C type, name), parallel to
        ``arguments``.
    size : int
        Number of elements (0: nothing to launch).
    index_bits : int
        32 or 64, the width of the kernel's index arithmetic.
    vector : VectorKernel or None
        The vector-load kernel in ``source`` (same parameters and arguments),
        for launches whose pointers are all aligned; None when the layout has
        none.
    """

    source: str
    kernel_name: str
    arguments: tuple
    parameters: tuple
    size: int
    index_bits: int
    vector: VectorKernel | None = None


class VectorKernel(NamedTuple):
    """The vector-load form of a contiguous elementwise kernel.

    ``alignments`` pairs each pointer argument's position with the byte
    alignment its vector accesses need; ``lanes`` is the number of elements
    of each operand one thread moves per step (size the grid by
    ``size / lanes``).
    """

    kernel_name: str
    lanes: int
    alignments: tuple


def broadcast_strides(shape, strides, out_shape):
    """Byte strides of an operand viewed with ``out_shape`` (NumPy broadcasting).

    Raises
    ------
    ValueError
        When ``shape`` does not broadcast to ``out_shape``.
    """
    shape, strides, out_shape = tuple(shape), tuple(strides), tuple(out_shape)
    if len(shape) > len(out_shape):
        raise ValueError(f"operand of shape {shape} does not broadcast to {out_shape}")
    lead = len(out_shape) - len(shape)
    result = [0] * lead
    for extent, stride, target in zip(shape, strides, out_shape[lead:]):
        if extent == target:
            result.append(stride if extent != 1 else 0)
        elif extent == 1:
            result.append(0)
        else:
            raise ValueError(f"operand of shape {shape} does not broadcast to {out_shape}")
    return tuple(result)


def _fits_int32(shape, strides_list, itemsizes):
    if int(np.prod(shape, dtype=object)) > INT32_MAX:
        return False
    for strides, itemsize in zip(strides_list, itemsizes):
        extent = sum((n - 1) * abs(s) for n, s in zip(shape, strides)) + itemsize
        if extent > INT32_MAX:
            return False
    return True


def index_width(shape, strides_list, itemsizes, force_bits=None):
    """32 when every offset fits in int32 (or ``force_bits``), else 64."""
    if force_bits is not None:
        if force_bits not in (32, 64):
            raise ValueError("force_bits must be 32, 64 or None")
        return force_bits
    return 32 if _fits_int32(shape, strides_list, itemsizes) else 64


def _as_dtype(dt):
    return dt if isinstance(dt, np.dtype) else np.dtype(dt)


def plan_elementwise(name, loop, inputs, outputs, where=None, *, index_bits=None):
    """Render the kernel of one ufunc call and the arguments of its launch.

    Parameters
    ----------
    name : str
        NumPy ufunc ``__name__``.
    loop : tuple of numpy.dtype
        The ufunc loop, inputs then outputs (as in ``ufunc.types``).
    inputs : sequence of ArraySpec or ScalarSpec
        One per ufunc input; arrays broadcast to the output shape.
    outputs : sequence of ArraySpec
        One per ufunc output, all of the same shape.
    where : ArraySpec, optional
        Boolean mask broadcast to the output shape; outputs are written only
        where it is true.
    index_bits : {None, 32, 64}
        Force the index width (None: the narrowest that is exact).

    Returns
    -------
    ElementwiseKernel
    """
    loop = tuple(_as_dtype(d) for d in loop)
    nin = len(inputs)
    if len(loop) != nin + len(outputs):
        raise ValueError(f"loop {loop} does not match {nin} inputs and {len(outputs)} outputs")
    out_shape = tuple(outputs[0].shape)
    for spec in outputs:
        if tuple(spec.shape) != out_shape:
            raise ValueError("all outputs must have the same shape")

    # (role, index, ArraySpec) of every operand read through a pointer, in argument order
    arrays = [("out", k, spec) for k, spec in enumerate(outputs)]
    arrays += [("in", k, spec) for k, spec in enumerate(inputs) if isinstance(spec, ArraySpec)]
    if where is not None:
        arrays.append(("where", 0, where))
    strides = [broadcast_strides(spec.shape, spec.strides, out_shape) for _, _, spec in arrays]
    shape, strides = collapse(out_shape, strides)
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    itemsizes = [_as_dtype(spec.dtype).itemsize for _, _, spec in arrays]
    bits = index_width(shape, strides, itemsizes, index_bits)
    # a 1-D loop where every operand steps by exactly its own item size indexes typed
    # pointers; an input may also not step at all (a broadcast scalar: x - x.mean())
    contiguous = len(shape) <= 1 and all(
        (not st) or st[0] == size_ or (st[0] == 0 and role != "out")
        for st, size_, (role, _, _) in zip(strides, itemsizes, arrays))
    broadcast = tuple(bool(st) and st[0] == 0 for st in strides) if contiguous else ()

    kinds = tuple("a" if isinstance(s, ArraySpec) else "s" for s in inputs)
    storage = tuple(_as_dtype(s.dtype).char for s in inputs) + tuple(
        _as_dtype(s.dtype).char for s in outputs)
    # lanes: elements per vector of the widest operand; 1 (no vector kernel) for complex128
    lanes = VECTOR_BYTES // max(itemsizes) if contiguous and shape and where is None else 1
    rendered = _render(name, tuple(d.char for d in loop), storage, kinds, where is not None,
                       len(shape), contiguous, bits, lanes if lanes > 1 else 0, broadcast)

    idx = np.int32 if bits == 32 else np.int64
    arguments: list = [("pointer", "out", k) for k in range(len(outputs))]
    for k, spec in enumerate(inputs):
        if isinstance(spec, ArraySpec):
            arguments.append(("pointer", "in", k))
        else:
            # NumPy casts a scalar operand to the loop dtype (unsafe): do it here, once
            with np.errstate(all="ignore"):  # overflow to inf etc. as NumPy's cast gives it
                value = np.asarray(spec.value, dtype=_as_dtype(spec.dtype))
                arguments.append(scalar_ops.by_value(value.astype(loop[k], casting="unsafe")))
    if where is not None:
        arguments.append(("pointer", "where"))
    arguments.append(idx(size))
    if not contiguous:
        arguments += [idx(n) for n in shape]
        for st in strides:
            arguments += [idx(s) for s in st]
    source, kernel_name, parameters, vector_name = rendered
    vector = None
    if vector_name is not None:
        positions = [k for k, a in enumerate(arguments) if type(a) is tuple]
        vector = VectorKernel(vector_name, lanes, tuple(
            (position, lanes * size_)
            for position, size_, fixed in zip(positions, itemsizes, broadcast) if not fixed))
    return ElementwiseKernel(source, kernel_name, tuple(arguments), parameters, size, bits,
                             vector)


@functools.lru_cache(maxsize=1024)
def _render(name, loop, storage, kinds, has_where, ndim, contiguous, bits, lanes=0,
            broadcast=()):
    """(source, kernel name, parameters, vector kernel name or None) of one layout class.

    ``lanes`` > 0 (contiguous layouts only) adds the vector-load kernel;
    ``broadcast`` (contiguous layouts only) flags the pointer operands read
    at their first element for every element; see plan_elementwise.
    """
    ctype = scalar_ops.CTYPES
    loop_dtypes = tuple(np.dtype(c) for c in loop)
    function_source, function = scalar_ops.device_function(name, loop_dtypes)
    nin = len(kinds)
    nout = len(loop) - nin
    idx_t = "int" if bits == 32 else "long long"

    params: list[tuple[str, str]] = []
    pointers: list[tuple[str, str]] = []  # (variable, storage C type) of each pointer operand
    for k in range(nout):
        params.append((ctype[storage[nin + k]] + "*", f"out{k}"))
        pointers.append((f"out{k}", ctype[storage[nin + k]]))
    for k, kind in enumerate(kinds):
        if kind == "a":
            params.append((f"const {ctype[storage[k]]}*", f"in{k}"))
            pointers.append((f"in{k}", ctype[storage[k]]))
        else:
            params.append((scalar_ops.parameter_type(loop[k]), f"in{k}"))
    if has_where:
        params.append(("const bool*", "where"))
        pointers.append(("where", "bool"))
    params.append((idx_t, "n"))
    if not contiguous:
        params += [(idx_t, f"shape{d}") for d in range(ndim)]
        for var, _ in pointers:
            params += [(idx_t, f"{var}_st{d}") for d in range(ndim)]

    body = []
    if contiguous:
        # typed indexing: the compiler sees unit-stride accesses
        for (var, _), fixed in zip(pointers, broadcast or [False] * len(pointers)):
            body.append(f"        const {idx_t} {var}_off = {'0' if fixed else 'i'};")

        def ref(var, c_type, const=""):
            return f"{var}[{var}_off]"
    else:
        for var, _ in pointers:
            body.append(f"        {idx_t} {var}_off = 0;")
        if ndim:
            body.append(f"        {idx_t} rest = i;")
        for d in reversed(range(ndim)):
            # innermost dimension first; the outermost takes what is left
            if d:
                body.append(f"        {{ const {idx_t} c = rest % shape{d}; rest /= shape{d};")
            else:
                body.append(f"        {{ const {idx_t} c = rest;")
            for var, _ in pointers:
                body.append(f"          {var}_off += c * {var}_st{d};")
            body.append("        }")

        def ref(var, c_type, const=""):
            return (f"*reinterpret_cast<{const}{c_type}*>("
                    f"reinterpret_cast<{const}char*>({var}) + {var}_off)")
    if has_where:
        # read the mask as a byte: any non-zero value counts as true
        # (bool has item size 1, so element and byte offsets agree)
        body.append("        if (!reinterpret_cast<const unsigned char*>(where)[where_off]) continue;")
    def element(load, store, indent="        "):
        """Lines computing one element: ``load(k)`` reads input k, ``store(k)`` output k."""
        lines, args = [], []
        for k, kind in enumerate(kinds):
            lt = ctype[loop[k]]
            if kind == "a":
                value = load(k)
                value = value if storage[k] == loop[k] else f"asn_cast<{lt}>({value})"
                lines.append(f"const {lt} x{k} = {value};")
                args.append(f"x{k}")
            else:
                args.append(scalar_ops.parameter_value(loop[k], f"in{k}"))
        for k in range(nout):
            lines.append(f"{ctype[loop[nin + k]]} y{k};")
            args.append(f"y{k}")
        lines.append(f"{function}({', '.join(args)});")
        for k in range(nout):
            value = f"y{k}" if storage[nin + k] == loop[nin + k] else \
                f"asn_cast<{ctype[storage[nin + k]]}>(y{k})"
            lines.append(f"{store(k)} = {value};")
        return [indent + line for line in lines]

    body += element(lambda k: ref(f"in{k}", ctype[storage[k]], "const "),
                    lambda k: ref(f"out{k}", ctype[storage[nin + k]]))
    signature = ",\n    ".join(f"{t} {v}" for t, v in params)
    # the loop counter is 64-bit even with 32-bit offsets: i + stride may pass INT_MAX
    grid_stride = ("for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < {n};"
                   "\n         t += (long long)blockDim.x * gridDim.x) {{")
    kernel = (
        f'extern "C" __global__ void KERNEL(\n    {signature})\n{{\n'
        f"    {grid_stride.format(n='n')}\n"
        f"        const {idx_t} i = ({idx_t})t;\n"
        + "\n".join(body) + "\n    }\n}\n"
    )
    vector = ""
    if lanes:
        # Each thread moves ``lanes`` elements of every operand with one aligned vector
        # access (asn_vec), then the scalar body finishes the n % lanes left over.
        def vec(k, role):
            return f"asn_vec<{ctype[storage[k if role == 'in' else nin + k]]}, {lanes}>"

        # a broadcast input is read at its first element, no vector of it
        fixed = {var for (var, _), flag in zip(pointers, broadcast) if flag}
        lines = [f"        const {vec(k, 'in')} in{k}_v = "
                 f"reinterpret_cast<const {vec(k, 'in')}*>(in{k})[t];"
                 for k, kind in enumerate(kinds) if kind == "a" and f"in{k}" not in fixed]
        lines += [f"        {vec(k, 'out')} out{k}_v;" for k in range(nout)]
        lines.append("#pragma unroll")
        lines.append(f"        for (int l = 0; l < {lanes}; ++l) {{")
        lines += element(lambda k: f"in{k}[0]" if f"in{k}" in fixed else f"in{k}_v.v[l]",
                         lambda k: f"out{k}_v.v[l]", " " * 12)
        lines.append("        }")
        lines += [f"        reinterpret_cast<{vec(k, 'out')}*>(out{k})[t] = out{k}_v;"
                  for k in range(nout)]
        vector = (
            f'extern "C" __global__ void KERNEL_v{lanes}(\n    {signature})\n{{\n'
            f"    const long long vectors = n / {lanes};\n"
            f"    {grid_stride.format(n='vectors')}\n"
            + "\n".join(lines) + "\n    }\n"
            f"    {grid_stride.format(n='n').replace('t = ', f't = vectors * {lanes} + ', 1)}\n"
            f"        const {idx_t} i = ({idx_t})t;\n"
            + "\n".join(body) + "\n    }\n}\n"
        )
    digest = hashlib.sha256((function_source + kernel + vector).encode()).hexdigest()[:16]
    kernel_name = f"asn_ew_{name}_{digest}"
    source = (scalar_ops.PRELUDE + "\n" + function_source + "\n"
              + kernel.replace("KERNEL", kernel_name, 1)
              + vector.replace("KERNEL", kernel_name, 1))
    return (source, kernel_name, tuple(params),
            f"{kernel_name}_v{lanes}" if lanes else None)
