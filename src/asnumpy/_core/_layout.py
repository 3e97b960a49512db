"""Array layout arithmetic: shapes, byte strides, contiguity, basic indexing.

Pure metadata: nothing here touches device memory, so every back end shares
it.  Strides are in bytes, as NumPy's are.
"""

from __future__ import annotations

import operator
import sys

import numpy as np
from numpy.exceptions import AxisError

__all__ = [
    "normalize_shape", "check_order", "contiguous_strides", "contiguous_view_strides",
    "strides_for_order", "iterator_axis_order", "is_c_contiguous", "is_f_contiguous",
    "memory_extent", "basic_index",
    "normalize_axis", "size_of", "nocopy_reshape_strides", "shape_text", "check_ndim",
    "MAX_NDIM", "assignable_shape",
]


def normalize_shape(shape, func: str) -> tuple[int, ...]:
    """Turn an int or a sequence of ints into a shape tuple, NumPy's way."""
    try:
        dims = (operator.index(shape),)
    except TypeError:
        try:
            dims = tuple(operator.index(d) for d in shape)
        except TypeError:
            raise TypeError(
                f"asnumpy.{func}: shape must be an integer or a sequence of integers, got {shape!r}"
            ) from None
    if any(d < 0 for d in dims):
        raise ValueError(f"asnumpy.{func}: negative dimensions are not allowed, got shape {dims}")
    return dims


MAX_NDIM = 64
"""NumPy's ``NPY_MAXDIMS``: no array has more dimensions."""


def check_ndim(ndim: int, func: str) -> None:
    """NumPy's ValueError for a shape of more than :data:`MAX_NDIM` dimensions."""
    if ndim > MAX_NDIM:
        raise ValueError(f"asnumpy.{func}: maximum supported dimension for an ndarray is "
                         f"currently {MAX_NDIM}, found {ndim}")


def check_nbytes(shape, itemsize: int, func: str) -> None:
    """NumPy's "array is too big" ValueError when ``shape`` of ``itemsize`` items overflows.

    As NumPy, the product of the non-zero dimensions counts, so a zero-size
    shape can still be too big; more than 64 dimensions are refused too.
    """
    check_ndim(len(shape), func)
    nbytes = itemsize
    for d in shape:
        if d:
            nbytes *= d
    if nbytes > sys.maxsize:
        raise ValueError(
            f"asnumpy.{func}: array is too big; `arr.size * arr.dtype.itemsize` "
            f"({nbytes:,} bytes for shape {tuple(shape)}) is larger than the maximum possible size"
        )


def size_of(shape) -> int:
    """The number of elements of an array of ``shape``."""
    size = 1
    for d in shape:
        size *= d
    return size


def shape_text(shape) -> str:
    """A shape as NumPy's messages write it: ``(2,3)``, ``(3,)``, ``()``; -1 is ``newaxis``."""
    dims = ["newaxis" if d < 0 else str(d) for d in shape]
    return f"({dims[0]},)" if len(dims) == 1 else f"({','.join(dims)})"


def assignable_shape(source_shape, target_shape, func: str | None = None) -> tuple[int, ...]:
    """``source_shape`` without its leading axes of length 1 beyond the target's: the shape
    a value takes to be copied into an array of ``target_shape`` (NumPy's assignment rule,
    for ``a[...] = v``, ``copyto``, ``full``).

    Raises NumPy's ValueError unless the result broadcasts to ``target_shape``; its message
    is NumPy's, after ``asnumpy.<func>: `` when `func` is given.
    """
    source, target = tuple(source_shape), tuple(target_shape)
    while len(source) > len(target) and source[0] == 1:
        source = source[1:]
    fits = len(source) <= len(target) and all(
        s in (1, t) for s, t in zip(reversed(source), reversed(target)))
    if not fits:
        raise ValueError(("" if func is None else f"asnumpy.{func}: ")
                         + f"could not broadcast input array from shape {shape_text(source)} "
                         f"into shape {shape_text(target)}")
    return source


def contiguous_strides(shape, itemsize: int, order: str = "C") -> tuple[int, ...]:
    """Byte strides NumPy gives a new C- or Fortran-ordered array of ``shape``.

    An empty array gets all-zero strides, as NumPy allocates it.
    """
    if 0 in shape:
        return (0,) * len(shape)
    return contiguous_view_strides(shape, itemsize, order)


def contiguous_view_strides(shape, itemsize: int, order: str = "C") -> tuple[int, ...]:
    """Byte strides NumPy gives a contiguous *view* of ``shape`` (``reshape``).

    Unlike a new allocation, axes of length 0 count as length 1, so an empty
    view keeps non-zero strides.
    """
    strides = [0] * len(shape)
    step = itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for axis in axes:
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def check_order(order, func: str, default: str = "K") -> str:
    """``order`` as its upper-case letter 'C', 'F', 'A' or 'K', as NumPy reads it.

    NumPy takes the letter in either case (``'f'``), as str or bytes, and
    None as the function's ``default``; anything else not a string is a
    TypeError, any other string (``'C '``, ``'fortran'``) a ValueError, both
    naming ``func``.
    """
    if order is None:
        return default
    if isinstance(order, bytes):
        order = order.decode("latin-1")
    if not isinstance(order, str):
        raise TypeError(f"asnumpy.{func}: order must be str, not {type(order).__name__}")
    letter = order.upper()
    if len(letter) != 1 or letter not in "CFAK":
        raise ValueError(
            f"asnumpy.{func}: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return letter


def strides_for_order(shape, itemsize, order, like=None, func="array"):
    """Strides for a new array in ``order`` ('C', 'F', 'A' or 'K').

    ``like`` is the prototype's ``(shape, strides, itemsize)``: 'K' keeps
    its axis order, 'A' means 'F' when it is Fortran- but not C-contiguous.
    """
    order = check_order(order, func, "C")
    if 0 in shape:
        return contiguous_strides(shape, itemsize)      # all zero, whatever the order
    # 'A' follows the prototype whatever its shape; 'K' only one of as many axes
    if order in ("C", "F") or like is None or (order == "K" and len(like[0]) != len(shape)):
        return contiguous_strides(shape, itemsize, "F" if order == "F" else "C")
    like_shape, like_strides, like_itemsize = like
    like_c = is_c_contiguous(like_shape, like_strides, like_itemsize)
    like_f = is_f_contiguous(like_shape, like_strides, like_itemsize)
    if order == "A" or like_c or like_f:
        use_f = like_f and not like_c
        return contiguous_strides(shape, itemsize, "F" if use_f else "C")
    # 'K': lay axes out in decreasing order of the prototype's |stride|
    # (stable, so ties keep C order), as NumPy does.
    perm = sorted(range(len(shape)), key=lambda ax: -abs(like_strides[ax]))
    strides = [0] * len(shape)
    step = itemsize
    for axis in reversed(perm):
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def iterator_axis_order(ndim: int, table) -> list[int]:
    """The axes innermost first, as NumPy's iterator orders them in 'K' order.

    ``table`` holds each operand's byte stride along each axis, 0 where it
    does not count (a broadcast axis, an axis of length 1).  This is
    ``npyiter_find_best_axis_ordering``: a stable insertion sort from C
    order by absolute stride, a pair no operand has both strides of being
    ambiguous (the search goes on past it), C order winning where operands
    disagree.
    """
    perm = list(range(ndim - 1, -1, -1))
    for i0 in range(1, ndim):
        axis0, position = perm[i0], i0
        for i1 in range(i0 - 1, -1, -1):
            axis1 = perm[i1]
            ambiguous, swap = True, False
            for row in table:
                s0, s1 = row[axis0], row[axis1]
                if s0 and s1:
                    if abs(s1) <= abs(s0):
                        swap = False            # where operands disagree, C order wins
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if not swap:
                    break
                position = i1
        if position != i0:
            perm.insert(position, perm.pop(i0))
    return perm


def _contiguous(shape, strides, itemsize, axes):
    if 0 in shape:
        return True
    expected = itemsize
    for axis in axes:
        if shape[axis] == 1:
            continue
        if strides[axis] != expected:
            return False
        expected *= shape[axis]
    return True


def is_c_contiguous(shape, strides, itemsize) -> bool:
    """NumPy's C_CONTIGUOUS rule (axes of length 1 may have any stride)."""
    return _contiguous(shape, strides, itemsize, range(len(shape) - 1, -1, -1))


def is_f_contiguous(shape, strides, itemsize) -> bool:
    """NumPy's F_CONTIGUOUS rule (axes of length 1 may have any stride)."""
    return _contiguous(shape, strides, itemsize, range(len(shape)))


def nocopy_reshape_strides(shape, strides, itemsize, new_shape, order="C"):
    """Strides viewing a layout as ``new_shape`` without copying, or None if impossible.

    NumPy's rule (``_attempt_nocopy_reshape``): groups of old axes that
    multiply to groups of new axes must be contiguous among themselves in
    ``order``; trailing new axes of length 1 take the stride of the axis
    before them.  Both shapes must have the same, non-zero size.
    """
    old = [(d, s) for d, s in zip(shape, strides) if d != 1]
    old_dims = [d for d, _ in old]
    old_strides = [s for _, s in old]
    fortran = order == "F"
    new_strides = [0] * len(new_shape)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new_shape) and oi < len(old_dims):
        new_prod, old_prod = new_shape[ni], old_dims[oi]
        while new_prod != old_prod:
            if new_prod < old_prod:
                new_prod *= new_shape[nj]
                nj += 1
            else:
                old_prod *= old_dims[oj]
                oj += 1
        for k in range(oi, oj - 1):
            if fortran and old_strides[k + 1] != old_dims[k] * old_strides[k]:
                return None
            if not fortran and old_strides[k] != old_dims[k + 1] * old_strides[k + 1]:
                return None
        if fortran:
            new_strides[ni] = old_strides[oi]
            for k in range(ni + 1, nj):
                new_strides[k] = new_strides[k - 1] * new_shape[k - 1]
        else:
            new_strides[nj - 1] = old_strides[oj - 1]
            for k in range(nj - 1, ni, -1):
                new_strides[k - 1] = new_strides[k] * new_shape[k]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
    last = new_strides[ni - 1] if ni else itemsize
    if fortran and ni:
        last *= new_shape[ni - 1]
    for k in range(ni, len(new_shape)):
        new_strides[k] = last
    return tuple(new_strides)


def memory_extent(shape, strides, itemsize) -> tuple[int, int]:
    """The byte range ``[low, high)`` an array spans, relative to its first element."""
    if 0 in shape:
        return 0, 0
    low = high = 0
    for n, s in zip(shape, strides):
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high + itemsize


def normalize_axis(axis, ndim: int, func: str) -> int:
    """An axis in ``[0, ndim)``; raises AxisError naming the function."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"asnumpy.{func}: axis must be an integer, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim, f"asnumpy.{func}")
    return axis % ndim


_INVALID_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
    "or boolean arrays are valid indices"
)


def _is_advanced(item) -> bool:
    if isinstance(item, (bool, np.bool_, list)):
        return True
    shape = getattr(item, "shape", None)
    return shape is not None and (shape != () or getattr(item, "dtype", None) == bool)


def basic_index(key, shape, strides, offset):
    """Apply a basic index (ints, slices, ``...``, ``None``) to a layout.

    Returns ``(shape, strides, offset)`` of the view it selects.  Raises
    IndexError as NumPy does for out-of-range, surplus or invalid indices.
    """
    items = key if isinstance(key, tuple) else (key,)
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    for item in items:
        if _is_advanced(item):
            raise IndexError(
                "asnumpy: integer-array and boolean-mask (advanced) indexing is not "
                f"supported by this version; got index {item!r}"
            )
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    if consumed > len(shape):
        raise IndexError(
            f"too many indices for array: array is {len(shape)}-dimensional, "
            f"but {consumed} were indexed"
        )
    result_ndim = len(shape) - consumed + sum(item is None for item in items) + sum(
        isinstance(item, slice) for item in items)
    if result_ndim > MAX_NDIM:
        raise IndexError(f"number of dimensions must be within [0, {MAX_NDIM}], indexing "
                         f"result would have {result_ndim}")
    if Ellipsis not in items:
        items = items + (Ellipsis,)

    new_shape, new_strides = [], []
    # Views of an empty array address no memory: keep their offset where it
    # is, or it could point past the end of an empty buffer.
    moves = 0 not in shape
    axis = 0
    for item in items:
        if item is None:
            new_shape.append(1)
            new_strides.append(0)
        elif item is Ellipsis:
            for _ in range(len(shape) - consumed):
                new_shape.append(shape[axis])
                new_strides.append(strides[axis])
                axis += 1
        elif isinstance(item, slice):
            start, stop, step = item.indices(shape[axis])
            length = len(range(start, stop, step))
            if not length:
                step = 1            # NumPy: an empty slice keeps the axis' stride
            elif moves:
                offset += start * strides[axis]
            new_shape.append(length)
            new_strides.append(strides[axis] * step)
            axis += 1
        else:
            try:
                index = operator.index(item)
            except TypeError:
                raise IndexError(_INVALID_INDEX) from None
            size = shape[axis]
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
            if moves:
                offset += (index % size) * strides[axis]
            axis += 1
    return tuple(new_shape), tuple(new_strides), offset
