"""ndarray methods for the rearranging functions, from a table of NumPy's signatures.

``a.repeat(repeats, axis=None)`` is ``asnumpy.repeat(a, repeats, axis)``;
the methods accept the parameters of ``numpy.ndarray.<name>`` and raise
TypeError for others, as NumPy does.
"""

from __future__ import annotations

from ..ndarray_members import attach
from . import tiling

__all__ = ["NDARRAY_MEMBERS"]

# the ndarray members this module gives (ndarray_members.py):
# method -> (function, parameters after self, in NumPy's order)
NDARRAY_MEMBERS = {
    "repeat": (tiling.repeat, ("repeats", "axis")),
}

attach(__name__, NDARRAY_MEMBERS)
