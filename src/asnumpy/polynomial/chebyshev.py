"""``asnumpy.polynomial.chebyshev``: Chebyshev series on device arrays, as NumPy's module.

The ``cheb*`` functions and ``Chebyshev`` come from the basis' entry in
:mod:`._families`; what only this basis has is below: the Chebyshev points
(``chebpts1``, ``chebpts2``) and interpolation at them (``chebinterpolate``,
``Chebyshev.interpolate``).  See :mod:`asnumpy.polynomial`.
"""

import numpy as np

from .._core.creation import arange, linspace
from .._core.reductions._operands import named
from .._core.ufuncs import cos, matmul, sin
from ._families import populate
from .polyutils import as_int, mapdomain

__all__ = populate(globals(), "chebyshev")


_POINTS_DOC = """Chebyshev points of the {kind} kind: ``{formula}``.

    Parameters
    ----------
    npts : int
        The number of points (at least {least}).

    Returns
    -------
    asnumpy.ndarray
        ``npts`` points in ascending order, on the current device.

    See Also
    --------
    numpy.polynomial.chebyshev.{name}
    """


def _points(name, kind, least, formula, make):
    """The public ``chebpts1``/``chebpts2``: `make(npts)` after NumPy's check of `npts`."""

    def points(npts):
        npts = as_int(npts, "npts")
        if npts < least:
            raise ValueError(f"npts must be >= {least}")
        return make(npts)

    points.__name__ = points.__qualname__ = name
    points.__doc__ = _POINTS_DOC.format(kind=kind, formula=formula, least=least, name=name)
    return named(f"polynomial.chebyshev.{name}")(points)


chebpts1 = _points("chebpts1", "first", 1, "sin(0.5*pi/npts * arange(-npts+1, npts+1, 2))",
                   lambda n: sin(0.5 * np.pi / n * arange(-n + 1, n + 1, 2)))
chebpts2 = _points("chebpts2", "second", 2, "cos(linspace(-pi, 0, npts))",
                   lambda n: cos(linspace(-np.pi, 0, n)))


@named("polynomial.chebyshev.chebinterpolate")
def chebinterpolate(func, deg, args=()):
    """The Chebyshev series of degree `deg` interpolating `func` at the first-kind points.

    Parameters
    ----------
    func : callable
        ``func(x, *args)`` for a device array `x` of points in [-1, 1].
    deg : int
        The degree of the interpolant.
    args : tuple, optional
        Further arguments of `func`.

    Returns
    -------
    asnumpy.ndarray
        The coefficients, lowest degree first.

    See Also
    --------
    numpy.polynomial.chebyshev.chebinterpolate
    """
    deg = np.asarray(deg)
    if deg.ndim > 0 or deg.dtype.kind not in "iu":
        raise TypeError("deg must be an int")
    if deg < 0:
        raise ValueError("expected deg >= 0")
    order = int(deg) + 1
    xcheb = chebpts1(order)
    m = chebvander(xcheb, int(deg))                     # noqa: F821 (made by populate)
    c = matmul(m.T, func(xcheb, *args))
    scale = np.full(order, 0.5 * order)
    scale[0] = order
    return c / scale.reshape((order,) + (1,) * (c.ndim - 1)).astype(c.dtype)


def _interpolate(cls, func, deg, domain=None, args=()):
    """The Chebyshev series of degree `deg` interpolating `func` on `domain`.

    Parameters
    ----------
    func : callable
        ``func(x, *args)`` for device arrays of points in `domain`.
    deg : int
        The degree.
    domain : (2,) array_like, optional
        The interval (default ``[-1, 1]``).
    args : tuple, optional
        Further arguments of `func`.

    Returns
    -------
    Chebyshev

    See Also
    --------
    numpy.polynomial.Chebyshev.interpolate
    """
    domain = cls.domain if domain is None else domain

    def mapped(x):
        return func(mapdomain(x, cls.window, domain), *args)

    return cls(chebinterpolate(mapped, deg), domain=domain)


Chebyshev.interpolate = classmethod(_interpolate)    # noqa: F821 (made by populate)
__all__ += ["chebinterpolate", "chebpts1", "chebpts2"]
