"""ndarray methods of the manipulation package: ravel, flatten, squeeze, resize.

``a.ravel(order)`` is ``asnumpy.ravel(a, order)`` and so on; ``a.resize``
changes the array in place (see :func:`.shapes.resize_method`).
"""

from __future__ import annotations

from ..ndarray_members import attach, make_method
from . import shapes

__all__ = ["NDARRAY_MEMBERS"]

shapes.resize_method.__name__ = shapes.resize_method.__qualname__ = "resize"

# the ndarray members this module gives (ndarray_members.py):
# method -> (function, its parameters after ``self``, in NumPy's order)
NDARRAY_MEMBERS = {
    "ravel": (shapes.ravel, ("order",)),
    # there is no asnumpy.flatten to refer to: the method documents itself
    "flatten": make_method("flatten", shapes.flatten, ("order",), doc=(
        "a.flatten(order='C')\n\nA copy of the array collapsed into one dimension (see "
        ":func:`asnumpy.ravel`).")),
    "squeeze": (shapes.squeeze, ("axis",)),
    "resize": shapes.resize_method,
}

attach(__name__, NDARRAY_MEMBERS)
