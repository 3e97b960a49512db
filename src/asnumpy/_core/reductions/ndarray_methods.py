"""ndarray methods for the reductions, generated from a table of NumPy's signatures.

``a.sum(...)`` is ``asnumpy.sum(a, ...)``; each method accepts the
positional and keyword parameters of ``numpy.ndarray.<name>`` (NumPy's
methods make ``keepdims``, ``initial``, ``where`` ... keyword-only) and
raises TypeError for others, as NumPy does.
"""

from __future__ import annotations


from ..ndarray_members import attach, make_method
from .. import compiled
from ..ufuncs import UFUNCS
from . import basic, cumulative, indices, statistics

__all__ = ["NDARRAY_MEMBERS"]

# method -> (function, positional parameters after self, keyword-only parameters).
# The positional ones are those NumPy's methods really accept (its ``_methods``
# functions take keepdims, initial, ... positionally; all/any take a dtype).
_METHODS = {
    "sum": (basic.sum, ("axis", "dtype", "out", "keepdims", "initial", "where"), ()),
    "prod": (basic.prod, ("axis", "dtype", "out", "keepdims", "initial", "where"), ()),
    "min": (basic.min, ("axis", "out", "keepdims", "initial", "where"), ()),
    "max": (basic.max, ("axis", "out", "keepdims", "initial", "where"), ()),
    "all": (basic.all_method, ("axis", "dtype", "out", "keepdims"), ("where",)),
    "any": (basic.any_method, ("axis", "dtype", "out", "keepdims"), ("where",)),
    "argmin": (indices.argmin, ("axis", "out"), ("keepdims",)),
    "argmax": (indices.argmax, ("axis", "out"), ("keepdims",)),
    "mean": (statistics.mean, ("axis", "dtype", "out", "keepdims"), ("where",)),
    "var": (statistics.var, ("axis", "dtype", "out", "ddof", "keepdims"), ("where", "mean")),
    "std": (statistics.std, ("axis", "dtype", "out", "ddof", "keepdims"), ("where", "mean")),
    "cumsum": (cumulative.cumsum, ("axis", "dtype", "out"), ()),
    "cumprod": (cumulative.cumprod, ("axis", "dtype", "out"), ()),
    "nonzero": (indices.nonzero, (), ()),
}


# methods whose argument-free call (``a.sum()``) first tries the fast lane
# of the ufunc they reduce with (ufuncs/fast.py)
_LANES = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}


# the ndarray members this module gives (ndarray_members.py attaches them)
NDARRAY_MEMBERS = {**_METHODS, **{
    name: compiled.shortcut(UFUNCS[ufunc_name]._reduce_lane, make_method(name, *_METHODS[name]))
    for name, ufunc_name in _LANES.items()}}

attach(__name__, NDARRAY_MEMBERS)
