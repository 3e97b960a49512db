"""Layout arithmetic of generated loops: array operands and the collapsed iteration space.

Every renderer walks its operands over a collapsed space (size-1 axes
dropped, axes that every operand steps over as one merged), so a
contiguous operand is one flat run whatever its shape.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["ArraySpec", "collapse"]


class ArraySpec(NamedTuple):
    """An array operand: storage dtype, shape and byte strides.

    The kernel receives a pointer to the element at index ``(0, ..., 0)``;
    negative strides are measured from there.
    """

    dtype: np.dtype
    shape: tuple
    strides: tuple


def collapse(shape, strides_list, order_by=0):
    """Drop size-1 dimensions, order and merge the rest for all operands.

    Parameters
    ----------
    shape : tuple of int
        Common shape.
    strides_list : list of tuple of int
        Byte strides of each operand over ``shape``.
    order_by : int or None
        Operand whose strides (by magnitude, largest outermost) order the
        dimensions; None keeps the given order.

    Returns
    -------
    (tuple, list of tuple)
        The collapsed shape and each operand's strides over it.  An empty
        shape (0-d) is returned when every extent is 1; a zero extent gives
        ``(0,)``.
    """
    if 0 in shape:
        return (0,), [(0,) for _ in strides_list]
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if order_by is not None and strides_list:
        key = strides_list[order_by]
        # stable sort: equal strides (e.g. broadcast zeros) keep C order
        dims.sort(key=lambda d: -abs(key[d]))
    new_shape: list[int] = []
    new_strides: list[list[int]] = [[] for _ in strides_list]
    for d in dims:
        if new_shape and all(s[-1] == st[d] * shape[d] for s, st in zip(new_strides, strides_list)):
            # the previous (outer) dimension steps exactly over this one: merge
            new_shape[-1] *= shape[d]
            for s, st in zip(new_strides, strides_list):
                s[-1] = st[d]
            continue
        new_shape.append(shape[d])
        for s, st in zip(new_strides, strides_list):
            s.append(st[d])
    return tuple(new_shape), [tuple(s) for s in new_strides]
