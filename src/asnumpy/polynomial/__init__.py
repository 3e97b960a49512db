"""``asnumpy.polynomial``: NumPy's ``numpy.polynomial`` package on device arrays.

Six bases, each a module with the same functions under its prefix and a
series class: ``polynomial`` (``poly*``, ``Polynomial``), ``chebyshev``
(``cheb*``, ``Chebyshev``), ``legendre`` (``leg*``, ``Legendre``),
``laguerre`` (``lag*``, ``Laguerre``), ``hermite`` (``herm*``, ``Hermite``)
and ``hermite_e`` (``herme*``, ``HermiteE``), plus ``polyutils``.  Values,
dtypes, shapes and exception types are NumPy 2.4's; coefficient arrays and
results are device arrays on the arguments' device (host data is copied
there, arrays on two devices raise ValueError).

How it is built: the bases differ only by data.  A basis is its three-term
recurrence ``x P_k = up(k) P_{k+1} + diag(k) P_k + down(k) P_{k-1}`` plus a
domain, a weight and its integral (``_families.FAMILIES``); one class,
``_family.Family``, derives every operation from that entry (Clenshaw
evaluation, Vandermonde matrices, products through the ``mulx`` operator,
long division, calculus and basis conversions as small exact constant
matrices, companion matrices, roots, Gauss quadrature, least-squares fits),
and one base class, ``_series.SeriesBase``, gives each series class NumPy's
``ABCPolyBase`` behaviour.  The device work is asnumpy's own functions
(``matmul``, ``convolve``, ``asnumpy.linalg.lstsq``/``eigvals``/``eigvalsh``,
broadcasting arithmetic); only data-dependent shapes (trimmed trailing
zeros) and checks read one number back.

Domains, windows and the module constants (``polydomain``, ``chebone``,
...) are small host NumPy arrays, as in NumPy: they parametrize the map,
they are not data.  Printing formats a host copy with NumPy's own class.

NumPy's functions are not dispatched (they are plain Python, without
``__array_function__``): ``numpy.polynomial`` calls ``numpy.array`` on its
inputs: it takes an asnumpy array where ``numpy.asarray`` does (and then
computes on the host) and raises TypeError where it does not; these
functions are the device version.
"""

from . import chebyshev, hermite, hermite_e, laguerre, legendre, polynomial, polyutils
from ._series import set_default_printstyle
from .chebyshev import Chebyshev
from .hermite import Hermite
from .hermite_e import HermiteE
from .laguerre import Laguerre
from .legendre import Legendre
from .polynomial import Polynomial

__all__ = [
    "set_default_printstyle", "polynomial", "Polynomial", "chebyshev", "Chebyshev",
    "legendre", "Legendre", "hermite", "Hermite", "hermite_e", "HermiteE", "laguerre",
    "Laguerre", "polyutils",
]
