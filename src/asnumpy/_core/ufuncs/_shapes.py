"""Result shapes of ufunc calls: broadcasting and generalized-ufunc core dimensions.

Error types and texts follow NumPy's, with the function named.
"""

from __future__ import annotations

import functools
import re

from .._layout import iterator_axis_order, shape_text

__all__ = ["broadcast", "check_out_shape", "gufunc_shape"]


def broadcast(name, shapes):
    """The broadcast of ``shapes``; ValueError naming them when they don't fit."""
    if len(shapes) == 1:
        return shapes[0]
    ndim = max(len(s) for s in shapes)
    result = [1] * ndim
    for shape in shapes:
        for i, n in enumerate(shape, ndim - len(shape)):
            if n != result[i]:
                if result[i] != 1 and n != 1:
                    texts = " ".join(shape_text(s) for s in shapes)
                    raise ValueError(
                        f"asnumpy.{name}: operands could not be broadcast together "
                        f"with shapes {texts}")
                if n != 1:
                    result[i] = n
    return tuple(result)


def check_out_shape(name, out_shape, result_shape):
    """NumPy lets inputs broadcast up to ``out``'s shape, never ``out`` itself."""
    try:
        full = broadcast(name, [result_shape, out_shape])
    except ValueError:
        full = None
    if full != tuple(out_shape):
        raise ValueError(
            f"asnumpy.{name}: non-broadcastable output operand with shape "
            f"{shape_text(out_shape)} doesn't match the broadcast shape {shape_text(result_shape)}")
    return full


@functools.cache
def _parse(signature):
    """'(n?,k),(k,m?)->(n?,m?)' -> (inputs, outputs): tuples of (name, optional) per core dim."""
    def operands(text):
        return tuple(
            tuple((dim.rstrip("?"), dim.endswith("?")) for dim in group.split(",") if dim)
            for group in re.findall(r"\(([^)]*)\)", text))

    ins, outs = signature.replace(" ", "").split("->")
    return operands(ins), operands(outs)


def gufunc_shape(name, signature, shapes):
    """Output shapes of a generalized ufunc called on inputs of ``shapes``."""
    core_in, core_out = _parse(signature)
    sizes, missing, loop_shapes = {}, set(), []
    for index, (shape, dims) in enumerate(zip(shapes, core_in)):
        required = sum(not optional for _, optional in dims)
        if len(shape) < required:
            raise ValueError(
                f"asnumpy.{name}: Input operand {index} does not have enough dimensions "
                f"(has {len(shape)}, gufunc core with signature {signature} requires {required})")
        if len(shape) < len(dims):
            # too few axes: the optional core dimensions are absent (matmul on 1-D)
            missing.update(dim for dim, optional in dims if optional)
            dims = tuple(d for d in dims if not d[1])
        core = shape[len(shape) - len(dims):]
        loop_shapes.append(shape[:len(shape) - len(dims)])
        for position, ((dim, _), size) in enumerate(zip(dims, core)):
            known = sizes.setdefault(dim, size)
            if known != size:
                raise ValueError(
                    f"asnumpy.{name}: Input operand {index} has a mismatch in its core "
                    f"dimension {position}, with gufunc signature {signature} "
                    f"(size {size} is different from {known})")
    loop = broadcast(name, loop_shapes)
    return [loop + tuple(sizes[dim] for dim, _ in dims if dim not in missing) for dims in core_out]


def _core_ndims(signature, inputs):
    """(core ndim of each input, core ndim of the first output) after absent optional dims."""
    core_in, core_out = _parse(signature)
    ins, missing = [], set()
    for value, dims in zip(inputs, core_in):
        ndim = len(getattr(value, "shape", ()))
        if ndim < len(dims):
            missing.update(dim for dim, optional in dims if optional)
            ins.append(sum(not optional for _, optional in dims))
        else:
            ins.append(len(dims))
    return ins, sum(dim not in missing for dim, _ in core_out[0])


def _array_like(value):
    return hasattr(value, "strides") and hasattr(value, "flags")


def output_strides(shape, itemsize, order, inputs, others=(), signature=None):
    """Byte strides NumPy's iterator gives a new output of ``shape``.

    ``inputs`` are the call's inputs (Python scalars are skipped),
    ``others`` the arrays given as outputs and the ``where`` mask; for a
    generalized ufunc ``signature`` tells the core dimensions.  'C' and
    'F' are plain; 'A' is 'F' when every array operand is F-contiguous;
    'K' orders the axes as NumPy's ``npyiter_find_best_axis_ordering``:
    by the operands' absolute strides, broadcast axes and axes of length 1
    not counting, C order winning where operands disagree.  The output
    core dimensions of a generalized ufunc take part in the sort with no
    input strides (so they stay C-ordered); the inputs' core dimensions
    do not take part.
    """
    from .._layout import contiguous_strides

    ndim = len(shape)
    arrays = [x for x in (*inputs, *others) if _array_like(x)]
    if order == "A":
        order = "F" if all(x.flags.f_contiguous for x in arrays) else "C"
    if order in ("C", "F") or ndim < 2 or 0 in shape:
        return contiguous_strides(shape, itemsize, "F" if order == "F" else "C")
    if signature is None:
        in_cores, out_core = [0] * len(inputs), 0
    else:
        in_cores, out_core = _core_ndims(signature, inputs)
    loop_ndim = ndim - out_core
    table = []          # each operand's stride along each output axis (0: does not count)
    parts = [(x, core, loop_ndim) for x, core in zip(inputs, in_cores)]
    parts += [(x, 0, ndim) for x in others]
    for value, core, span in parts:
        if not _array_like(value):
            continue
        op_shape = value.shape[:len(value.shape) - core]
        op_strides = value.strides[:len(value.shape) - core]
        row = [0] * ndim
        for axis, (n, stride) in enumerate(zip(op_shape, op_strides), span - len(op_shape)):
            if n != 1 and shape[axis] != 1:
                row[axis] = stride
        table.append(row)
    perm = iterator_axis_order(ndim, table)         # innermost first
    strides = [0] * ndim
    step = itemsize
    for axis in perm:
        strides[axis] = step
        step *= shape[axis]
    return tuple(strides)
