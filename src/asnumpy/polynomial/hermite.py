"""``asnumpy.polynomial.hermite``: Hermite series on device arrays,
as ``numpy.polynomial.hermite``.

Every function and the ``Hermite`` class come from the basis' entry in
:mod:`._families` (its recurrence); see :mod:`asnumpy.polynomial`.
"""

from ._families import populate

__all__ = populate(globals(), "hermite")
