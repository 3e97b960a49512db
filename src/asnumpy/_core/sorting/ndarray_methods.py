"""ndarray methods for sorting and searching, attached from a table.

``a.sort()`` and ``a.partition(kth)`` work in place (as NumPy's);
``a.argsort()``, ``a.argpartition(kth)`` and ``a.searchsorted(v)`` are the
functions of the same names.
"""

from __future__ import annotations

from ..._errors import check_writeable
from .._launch import launch
from ..ndarray_members import attach, make_method
from . import search
# by name: the package binds ``sort`` to the function once it is imported
from .sort import _probe, argpartition, argsort
from ._numpy_calls import named, normalize_axis, on_device

__all__ = ["NDARRAY_MEMBERS"]


@named("ndarray.sort")
def sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """a.sort(axis=-1, kind=None, order=None, *, stable=None)

    Sort the array in place.  See :func:`asnumpy.sort` for the parameters.
    """
    _probe(self).sort(axis=axis, kind=kind, order=order, stable=stable)
    check_writeable(self, "ndarray.sort", "sort array")
    if self.size:
        launch("sort", self, self, normalize_axis(axis, self.ndim), kind, stable,
               func="ndarray.sort")


@named("ndarray.partition")
def partition(self, kth, axis=-1, kind="introselect", order=None):
    """a.partition(kth, axis=-1, kind='introselect', order=None)

    Partition the array in place.  See :func:`asnumpy.partition`.
    """
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    axis = normalize_axis(axis, self.ndim)
    check_writeable(self, "ndarray.partition", "partition array")
    launch("numpy_function", (self,), "partition", (self, on_device(kth, self._device)),
           {"axis": axis, "kind": kind}, func="ndarray.partition")


_SORT_ARGUMENTS = (("axis", "kind", "order"), ("stable",))
_PARTITION_ARGUMENTS = (("kth", "axis", "kind", "order"),)

# the ndarray members this module gives (ndarray_members.py):
# method -> (function, its parameters after ``self`` in NumPy's order[, keyword-only ones]).
# The in-place methods keep their own docstrings (the generated one would point to the
# copying function).
NDARRAY_MEMBERS = {
    "sort": make_method("sort", sort, *_SORT_ARGUMENTS, doc=sort.__doc__),
    "argsort": (argsort, *_SORT_ARGUMENTS),
    "partition": make_method("partition", partition, *_PARTITION_ARGUMENTS,
                             doc=partition.__doc__),
    "argpartition": (argpartition, *_PARTITION_ARGUMENTS),
    "searchsorted": (search.searchsorted, ("v", "side", "sorter")),
}

attach(__name__, NDARRAY_MEMBERS)
