"""ndarray methods of the indexing functions: take, put, choose, compress,
diagonal and trace (``a.take(...)`` is ``asnumpy.take(a, ...)``)."""

from __future__ import annotations

from .. import ndarray_members
from . import diagonals, taking

__all__ = ["attach_methods"]


def _put(function, self, arguments):
    # numpy.put names its parameters ``ind`` and ``v``; the method says indices, values.
    return function(self, arguments.pop("indices"), arguments.pop("values"), **arguments)


def _compress(function, self, arguments):
    # compress takes the condition first and the array second.
    return function(arguments.pop("condition"), self, **arguments)


# method -> (function, its parameters after ``self`` in NumPy's order[, (), call])
METHODS = {
    "take": (taking.take, ("indices", "axis", "out", "mode")),
    "put": (taking.put, ("indices", "values", "mode"), (), _put),
    "choose": (taking.choose, ("choices", "out", "mode")),
    "compress": (taking.compress, ("condition", "axis", "out"), (), _compress),
    "diagonal": (diagonals.diagonal, ("offset", "axis1", "axis2")),
    "trace": (diagonals.trace, ("offset", "axis1", "axis2", "dtype", "out")),
}


def attach_methods() -> None:
    """Give :class:`asnumpy.ndarray` its indexing methods."""
    ndarray_members.attach_methods(METHODS)
