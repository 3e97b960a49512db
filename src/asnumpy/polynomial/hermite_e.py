"""``asnumpy.polynomial.hermite_e``: HermiteE series on device arrays,
as ``numpy.polynomial.hermite_e``.

Every function and the ``HermiteE`` class come from the basis' entry in
:mod:`._families` (its recurrence); see :mod:`asnumpy.polynomial`.
"""

from ._families import populate

__all__ = populate(globals(), "hermite_e")
