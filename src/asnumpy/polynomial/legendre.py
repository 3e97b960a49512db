"""``asnumpy.polynomial.legendre``: Legendre series on device arrays,
as ``numpy.polynomial.legendre``.

Every function and the ``Legendre`` class come from the basis' entry in
:mod:`._families` (its recurrence); see :mod:`asnumpy.polynomial`.
"""

from ._families import populate

__all__ = populate(globals(), "legendre")
