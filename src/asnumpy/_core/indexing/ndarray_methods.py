"""ndarray methods of the indexing functions: take, put, choose, compress,
diagonal and trace (``a.take(...)`` is ``asnumpy.take(a, ...)``)."""

from __future__ import annotations

from ..ndarray_members import attach
from . import diagonals, taking

__all__ = ["NDARRAY_MEMBERS"]


def _put(function, self, arguments):
    # numpy.put names its parameters ``ind`` and ``v``; the method says indices, values.
    return function(self, arguments.pop("indices"), arguments.pop("values"), **arguments)


def _compress(function, self, arguments):
    # compress takes the condition first and the array second.
    return function(arguments.pop("condition"), self, **arguments)


# the ndarray members this module gives (ndarray_members.py):
# method -> (function, its parameters after ``self`` in NumPy's order[, (), call])
NDARRAY_MEMBERS = {
    "take": (taking.take, ("indices", "axis", "out", "mode")),
    "put": (taking.put, ("indices", "values", "mode"), (), _put),
    "choose": (taking.choose, ("choices", "out", "mode")),
    "compress": (taking.compress, ("condition", "axis", "out"), (), _compress),
    "diagonal": (diagonals.diagonal, ("offset", "axis1", "axis2")),
    "trace": (diagonals.trace, ("offset", "axis1", "axis2", "dtype", "out")),
}

attach(__name__, NDARRAY_MEMBERS)
