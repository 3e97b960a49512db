"""Sorting, searching, set routines, counting and bit packing.

Modules by topic: :mod:`.sort` (sort, argsort, lexsort, partition,
argpartition, sort_complex), :mod:`.search` (searchsorted, digitize),
:mod:`.sets` (unique and the unique_* forms, isin, intersect1d, union1d,
setdiff1d, setxor1d), :mod:`.counting` (bincount, histogram,
histogram2d, histogramdd, histogram_bin_edges), :mod:`.bits` (packbits,
unpackbits) and :mod:`.ndarray_methods` (the ndarray methods).  NumPy's algorithms
run on the device data, so results equal NumPy's exactly; data-dependent
result sizes are computed first, then the outputs are allocated.
"""

from __future__ import annotations

from . import bits as _bits
from . import counting as _counting
from . import search as _search
from . import sets as _sets
from . import sort as _sort
from .bits import *
from .counting import *
from .search import *
from .sets import *
from .sort import *

__all__ = []
for _module in (_sort, _search, _sets, _counting, _bits):
    __all__ += _module.__all__
del _module
