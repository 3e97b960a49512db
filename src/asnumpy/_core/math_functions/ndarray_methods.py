"""ndarray methods of the mathematical functions: clip, round and dot.

``a.clip(...)`` is ``asnumpy.clip(a, ...)`` and so on; each topic module
defines its method beside the function (its ``METHODS`` table), with
NumPy's method signature.
"""

from __future__ import annotations

from ..ndarray_members import attach
from . import clipping, products, rounding

__all__ = ["NDARRAY_MEMBERS"]

# the ndarray members this module gives (ndarray_members.py): method -> the function
NDARRAY_MEMBERS = {**clipping.METHODS, **rounding.METHODS, **products.METHODS}
for _name, _method in NDARRAY_MEMBERS.items():
    _method.__name__ = _name
    _method.__qualname__ = f"ndarray.{_name}"
del _name, _method

attach(__name__, NDARRAY_MEMBERS)
