"""Universal functions: the op table (:mod:`asnumpy.ops.ufuncs`) turned into ``asnumpy.ufunc`` objects.

``UFUNCS`` maps every public name (NumPy's names and NumPy 2's aliases) to
its :class:`ufunc`; aliases are the same object, as in NumPy.
"""

from __future__ import annotations

import numpy as np

from ...ops.ufuncs import ALIASES, UFUNCS as _CATALOG
from ..ndarray_members import attach
from .operators import operator_members
from .ufunc import Plan, ufunc

__all__ = ["ufunc", "Plan", "UFUNCS"]

UFUNCS = {name: ufunc(getattr(np, name)) for names in _CATALOG.values() for name in names}
UFUNCS.update({alias: UFUNCS[target] for alias, target in ALIASES.items()})

# ndarray's operators (ndarray_members.py attaches this package's table)
NDARRAY_MEMBERS = operator_members(UFUNCS)
attach(__name__, NDARRAY_MEMBERS)
# each ufunc is also a module attribute, so the namespace imports them by name
globals().update(UFUNCS)
