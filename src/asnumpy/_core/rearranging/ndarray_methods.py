"""ndarray methods for the rearranging functions, from a table of NumPy's signatures.

``a.repeat(repeats, axis=None)`` is ``asnumpy.repeat(a, repeats, axis)``;
the methods accept the parameters of ``numpy.ndarray.<name>`` and raise
TypeError for others, as NumPy does.
"""

from __future__ import annotations

from .. import ndarray_members
from . import tiling

__all__ = ["attach_methods"]

# method -> (function, parameters after self, in NumPy's order)
METHODS = {
    "repeat": (tiling.repeat, ("repeats", "axis")),
}


def attach_methods() -> None:
    """Give :class:`asnumpy.ndarray` its rearranging methods."""
    ndarray_members.attach_methods(METHODS)
