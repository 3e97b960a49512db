"""The six bases as data, and the one function that makes each public module from its entry.

Each entry is the basis' recurrence ``x P_k = up(k) P_{k+1} + diag(k) P_k +
down(k) P_{k-1}`` (exact fractions), its default domain, its weight function
and the weight's integral; :mod:`._family` derives every operation from it.
:func:`populate` fills a module's namespace with the ``<prefix>*`` functions,
the constants and the series class, so the six modules are one line each plus
what only one of them has (``chebpts1``, ``polyvalfromroots``, ...).
"""

from __future__ import annotations

import math
from fractions import Fraction

from .._core.ufuncs import exp, sqrt
from ._family import Family, chebyshev_gauss
from ._public import module_constants, module_functions
from ._series import SeriesBase

__all__ = ["FAMILIES", "populate"]

_HALF = Fraction(1, 2)


def _zero(k):
    return Fraction(0)


def _one(k):
    return Fraction(1)


#: module -> (the Family, the class's name, its basis name)
FAMILIES = {
    "polynomial": (Family(
        "poly", "polynomial", "power", _one, _zero, _zero, (-1, 1), maxpower=None),
        "Polynomial", None),
    "chebyshev": (Family(
        "cheb", "chebyshev", "Chebyshev",
        lambda k: Fraction(1) if k == 0 else _HALF, _zero,
        lambda k: _HALF if k else Fraction(0), (-1, 1),
        weight=lambda x: 1.0 / (sqrt(1.0 + x) * sqrt(1.0 - x)), weight_integral=math.pi,
        even=True, gauss=chebyshev_gauss),
        "Chebyshev", "T"),
    "legendre": (Family(
        "leg", "legendre", "Legendre",
        lambda k: Fraction(k + 1, 2 * k + 1), _zero, lambda k: Fraction(k, 2 * k + 1), (-1, 1),
        weight=lambda x: x * 0.0 + 1.0, weight_integral=2.0, even=True,
        remainder_promotes=True),
        "Legendre", "P"),
    "laguerre": (Family(
        "lag", "laguerre", "Laguerre",
        lambda k: Fraction(-(k + 1)), lambda k: Fraction(2 * k + 1), lambda k: Fraction(-k),
        (0, 1), weight=lambda x: exp(-x), weight_integral=1.0, remainder_promotes=True),
        "Laguerre", "L"),
    "hermite": (Family(
        "herm", "hermite", "Hermite", lambda k: _HALF, _zero, lambda k: Fraction(k), (-1, 1),
        weight=lambda x: exp(-x ** 2), weight_integral=math.sqrt(math.pi), even=True,
        remainder_promotes=True),
        "Hermite", "H"),
    "hermite_e": (Family(
        "herme", "hermite_e", "HermiteE", _one, _zero, lambda k: Fraction(k), (-1, 1),
        weight=lambda x: exp(-0.5 * x ** 2), weight_integral=math.sqrt(2 * math.pi),
        even=True, remainder_promotes=True),
        "HermiteE", "He"),
}

_CLASS_DOC = """A {title} series on the device, as ``numpy.polynomial.{name}``.

    ``coef`` is a device array (lowest degree first); ``domain`` and ``window``
    (default ``{domain}``) are two host numbers each: ``p(x)`` evaluates the
    basis at ``x`` mapped from the domain onto the window.  Arithmetic
    (``+ - * // % divmod **``), calculus (``deriv``, ``integ``), ``roots``,
    ``fit``, ``fromroots``, ``convert``, ``cast`` and printing behave as NumPy's.

    Parameters
    ----------
    coef : array_like
        Coefficients, lowest degree first.
    domain, window : (2,) array_like, optional
        The interval mapped onto the window (default ``{domain}`` both).
    symbol : str, optional
        The variable's name in printed forms (default ``'x'``).

    See Also
    --------
    numpy.polynomial.{name}
    """


def populate(namespace: dict, module: str) -> list[str]:
    """Put `module`'s functions, constants and series class into `namespace`; return
    their names (the module's ``__all__``)."""
    family, class_name, basis_name = FAMILIES[module]
    names = {**module_constants(family), **module_functions(family)}
    domain = list(family.domain)
    names[class_name] = type(class_name, (SeriesBase,), {
        "__module__": f"asnumpy.polynomial.{module}",
        "__doc__": _CLASS_DOC.format(title=family.title, name=class_name, domain=domain),
        "family": family,
        "domain": module_constants(family)[family.prefix + "domain"],
        "window": module_constants(family)[family.prefix + "domain"],
        "basis_name": basis_name,
        "_numpy_name": class_name,
    })
    namespace.update(names)
    return sorted(names)
