"""Sorting a kernel call's arguments: arrays, scalars, outputs, the loop shape.

Before a kernel runs, every array it may write (an output, a ``_non_const``
input, a RawKernel argument for a non-const pointer) is checked here
(:func:`check_written`): read-only memory and layouts whose elements overlap
are refused with ValueError, so nothing is written at all.  Inputs it only
reads that share memory with a written array are copied first
(:func:`separate_inputs`), as NumPy's ufuncs copy an input that partially
overlaps ``out=``.
"""

from __future__ import annotations

import numpy as np

from .._core import _layout
from .._core._launch import empty, launch
from .._core.indexing.memory import may_share_memory
from .._core.ndarray import ndarray
from ._params import resolve_types
from ._runner import device_of

__all__ = ["broadcast_strides", "check_argument", "check_written", "collapse",
           "may_overlap_itself", "prepare_call", "separate_inputs", "split_outputs",
           "writeable"]

_SCALARS = (bool, int, float, complex, np.generic)


def check_argument(value, name: str, where: str):
    """``value`` if a kernel can take it (asnumpy array or scalar), else TypeError."""
    if isinstance(value, (ndarray, *_SCALARS)):
        return value
    hint = (" (move it to a device with asnumpy.asarray first)"
            if isinstance(value, np.ndarray) else "")
    raise TypeError(f"{where}: argument {name!r} must be an asnumpy.ndarray or a scalar, "
                    f"got {type(value).__name__}{hint}")


def split_outputs(args, out, nin: int, nout: int, where: str):
    """``(inputs, outputs)``: outputs given positionally (CuPy) or as ``out=``; None where
    not given."""
    if len(args) not in (nin, nin + nout):
        raise TypeError(f"{where}: takes {nin} arguments or {nin + nout} (with outputs), "
                        f"got {len(args)}")
    inputs, outputs = list(args[:nin]), list(args[nin:])
    if out is not None:
        if outputs:
            raise ValueError(f"{where}: outputs given both positionally and as out=")
        outputs = list(out) if isinstance(out, tuple | list) else [out]
        if len(outputs) != nout:
            raise ValueError(f"{where}: out= must hold {nout} array(s), got {len(outputs)}")
    for value in outputs:
        if not isinstance(value, ndarray):
            raise TypeError(f"{where}: outputs must be asnumpy arrays, got "
                            f"{type(value).__name__}")
    return inputs, outputs or [None] * nout


def prepare_call(in_params, out_params, args, out, where):
    """Sort and type a kernel call's arguments.

    Returns ``(inputs, outputs, device, in_types, out_types, bindings)``;
    outputs not given are None.
    """
    inputs, outputs = split_outputs(args, out, len(in_params), len(out_params), where)
    for param, value in zip(in_params, inputs):
        check_argument(value, param.name, where)
        if param.raw and not isinstance(value, ndarray):
            raise TypeError(f"{where}: raw parameter {param.name!r} needs an array")
    device = device_of([*inputs, *outputs], where)
    in_types, out_types, bound = resolve_types(
        in_params, out_params, [v._dtype if isinstance(v, ndarray) else None for v in inputs],
        [o._dtype if o is not None else None for o in outputs], inputs, where)
    return inputs, outputs, device, in_types, out_types, bound


def broadcast_strides(array, shape) -> tuple:
    """``array``'s byte strides seen as broadcast to ``shape`` (0 on broadcast axes)."""
    lead = len(shape) - array.ndim
    strides = [0] * lead
    for n, stride, target in zip(array._shape, array._strides, shape[lead:]):
        strides.append(0 if n == 1 and target != 1 else stride)
    return tuple(strides)


def collapse(shape, strides_list):
    """Merge adjacent axes that every operand walks as one, and drop length-1 axes.

    Returns ``(shape, strides_list)`` with the same element order (C order
    of the original shape), so the flat index ``i`` still means the same element.
    """
    kept = [(n, [s[d] for s in strides_list]) for d, n in enumerate(shape) if n != 1]
    if not kept:
        return (), [() for _ in strides_list]
    merged = [kept[0]]
    for n, strides in kept[1:]:
        last_n, last_strides = merged[-1]
        if all(ls == s * n for ls, s in zip(last_strides, strides)):
            merged[-1] = (last_n * n, strides)
        else:
            merged.append((n, strides))
    new_shape = tuple(n for n, _ in merged)
    return new_shape, [tuple(strides[k] for _, strides in merged)
                       for k in range(len(strides_list))]


def writeable(array) -> bool:
    """Whether ``array`` may be written: its ``flags.writeable`` (what ufuncs check for
    ``out=``) and its memory's own flag (a read-only memmap, bytes)."""
    return array.flags.writeable and array._buffer_writeable()


def may_overlap_itself(shape, strides, itemsize) -> bool:
    """Whether two elements of the layout may share a byte.

    The axes longer than 1, sorted by ``|stride|``, must each step past
    everything the smaller ones span; a layout that fails this is taken to
    overlap (a zero stride always does).  Conservative, like the bounded
    check NumPy's iterator makes on outputs: a layout it cannot clear (only
    ``as_strided`` makes such a one) is refused rather than solved exactly.
    """
    if 0 in shape:
        return False
    reach = itemsize
    for stride, n in sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1):
        if stride < reach:
            return True
        reach += stride * (n - 1)
    return False


def check_written(where, what, array, shape=None, strides=None) -> None:
    """ValueError, before anything runs, when the kernel may not write ``array``.

    ``what`` names the parameter in the message (``"output 'y'"``);
    ``shape``/``strides`` are the layout the kernel walks (the array's own
    by default; a broadcast input is walked with zero strides).
    """
    if not writeable(array):
        raise ValueError(f"{where}: {what}: output array is read-only")
    shape = array._shape if shape is None else shape
    strides = array._strides if strides is None else strides
    if may_overlap_itself(shape, strides, array.itemsize):
        raise ValueError(f"{where}: {what}: the array's elements overlap (shape "
                         f"{_layout.shape_text(shape)}, byte strides {tuple(strides)}); "
                         "the kernel's threads would race on them: pass a copy")


def separate_inputs(params, values, same, stream, where) -> list:
    """``values`` with each array passed for a const parameter (one the kernel only reads)
    replaced by a copy when it shares memory with an array passed for a non-const one.

    ``same(read, written)`` says when the kernel walks the two element for
    element alike (no copy is needed then).  The copy is made on ``stream``,
    so it is ordered before the kernel.
    """
    written = [v for p, v in zip(params, values) if not p.is_const and isinstance(v, ndarray)]
    result = list(values)
    if not written:
        return result
    for k, (param, value) in enumerate(zip(params, values)):
        if param.is_const and isinstance(value, ndarray) and any(
                may_share_memory(value, out) and not same(value, out) for out in written):
            copy = empty(value._shape, value._dtype, value._device, "K", like=value,
                         stream=stream, func=where)
            launch("copy", copy, value, stream=stream, func=where)
            result[k] = copy
    return result
