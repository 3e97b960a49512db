"""``asnumpy.polynomial.laguerre``: Laguerre series on device arrays,
as ``numpy.polynomial.laguerre``.

Every function and the ``Laguerre`` class come from the basis' entry in
:mod:`._families` (its recurrence); see :mod:`asnumpy.polynomial`.
"""

from ._families import populate

__all__ = populate(globals(), "laguerre")
