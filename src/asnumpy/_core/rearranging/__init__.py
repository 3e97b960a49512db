"""Rearranging and building arrays: flip, rot90, roll, tile, repeat, pad, insert, delete, ...

Modules by topic: :mod:`.flipping` (flip, fliplr, flipud, rot90, roll),
:mod:`.tiling` (tile, repeat), :mod:`.padding` (pad, every NumPy mode),
:mod:`.editing` (append, insert, delete, trim_zeros), :mod:`.applying`
(apply_along_axis, apply_over_axes, piecewise) and :mod:`.ndarray_methods` (the
``ndarray.repeat`` method).  Flips and rotations are views with negative
strides; the other results are new arrays assembled from views, copies and
ufuncs, with NumPy's kernels (``numpy_function``) where NumPy's algorithm is
the specification (pad's data-reading modes, per-element repeats).
"""

from __future__ import annotations

from .applying import apply_along_axis, apply_over_axes, piecewise
from .editing import append, delete, insert, trim_zeros
from .flipping import flip, fliplr, flipud, roll, rot90
from .padding import pad
from .tiling import repeat, tile

__all__ = [
    "append",
    "apply_along_axis",
    "apply_over_axes",
    "delete",
    "flip",
    "fliplr",
    "flipud",
    "insert",
    "pad",
    "piecewise",
    "repeat",
    "roll",
    "rot90",
    "tile",
    "trim_zeros",
]
