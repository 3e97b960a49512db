"""ndarray methods of the manipulation package: ravel, flatten, squeeze, resize.

``a.ravel(order)`` is ``asnumpy.ravel(a, order)`` and so on; ``a.resize``
changes the array in place (see :func:`.shapes.resize_method`).
"""

from __future__ import annotations

from .. import ndarray_members
from ..ndarray import ndarray
from . import shapes

__all__ = ["attach_methods"]

# method -> (function, its parameters after ``self``, in NumPy's order)
METHODS = {
    "ravel": (shapes.ravel, ("order",)),
    "flatten": (shapes.flatten, ("order",)),
    "squeeze": (shapes.squeeze, ("axis",)),
}


def attach_methods() -> None:
    """Give :class:`asnumpy.ndarray` its shape-manipulation methods."""
    ndarray_members.attach_methods(METHODS)
    # There is no asnumpy.flatten to refer to: the method documents itself.
    ndarray.flatten.__doc__ = ("a.flatten(order='C')\n\nA copy of the array collapsed "
                               "into one dimension (see :func:`asnumpy.ravel`).")
    shapes.resize_method.__name__ = shapes.resize_method.__qualname__ = "resize"
    ndarray.resize = shapes.resize_method
