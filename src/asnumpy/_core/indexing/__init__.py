"""Indexing: advanced ``a[key]`` get and set, and NumPy's indexing functions.

Modules by topic: :mod:`.getset` (integer-array and boolean-mask indexing of
``asnumpy.ndarray``), :mod:`.taking` (take, put, take_along_axis,
put_along_axis, choose, compress, extract, place, putmask), :mod:`.selection`
(where, select, copyto, argwhere, flatnonzero), :mod:`.diagonals`
(diagonal, trace, fill_diagonal), :mod:`.indices` (diag/tril/triu/mask
indices, ix_, ravel_multi_index, unravel_index), :mod:`.memory`
(may_share_memory, shares_memory) and :mod:`.ndarray_methods` (ndarray methods).
"""

from __future__ import annotations

from . import diagonals, indices, memory, selection, taking
from .diagonals import *
from .indices import *
from .memory import *
from .selection import *
from .taking import *

__all__ = []
for _module in (taking, selection, diagonals, indices, memory):
    __all__ += _module.__all__
del _module
