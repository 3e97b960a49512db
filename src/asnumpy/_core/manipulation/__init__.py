"""Shape manipulation, joining and splitting.

Modules by topic: :mod:`.shapes` (reshape, ravel, transpose, squeeze,
expand_dims, broadcast_to, atleast_*, require, resize, ...), :mod:`.joining`
(concatenate, stack, hstack, vstack, dstack, column_stack, row_stack,
block), :mod:`.splitting` (split, array_split, hsplit, vsplit, dsplit,
unstack) and :mod:`.ndarray_methods` (the ndarray methods ravel, flatten, squeeze,
resize).  Views where NumPy gives views; joins allocate once from the pool
and copy each piece into a slice of the result.
"""

from __future__ import annotations

from . import joining, shapes, splitting
from .joining import *
from .shapes import *
from .splitting import *

__all__ = []
for _module in (shapes, joining, splitting):
    __all__ += _module.__all__
del _module
