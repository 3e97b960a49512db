"""The series classes' common base: NumPy's ``ABCPolyBase`` behaviour on device coefficients.

A class (``Polynomial``, ``Chebyshev``, ...) is this base plus a
:class:`~asnumpy.polynomial._family.Family` (its arithmetic), a default
domain/window and a basis name.  ``coef`` is a device array; ``domain`` and
``window`` are two host numbers each (the affine map's parameters, as in
NumPy).  Printing (``str``, ``repr``, ``format``, ``_repr_latex_``) reads the
coefficients back and formats them with NumPy's own class of the same name,
so the text is NumPy's to the character.
"""

from __future__ import annotations

import numbers
import os

import numpy as np

from .._core._launch import check_same_device
from .._core.creation import linspace as _linspace
from .._core.math_functions._operands import to_device
from .._core.ndarray import ndarray
from .polyutils import as_series, getdomain, host_interval, mapdomain, mapparms

__all__ = ["SeriesBase", "set_default_printstyle"]

_STYLE = {"unicode": os.name != "nt"}


def set_default_printstyle(style):
    """Set how ``str`` of a series prints its terms: ``'unicode'`` or ``'ascii'``.

    Parameters
    ----------
    style : str
        ``'unicode'`` (``1.0 + 2.0·x²``) or ``'ascii'`` (``1.0 + 2.0 x**2``).

    Raises
    ------
    ValueError
        For any other style.

    See Also
    --------
    numpy.polynomial.set_default_printstyle
    """
    if style not in ("unicode", "ascii"):
        raise ValueError(f"Unsupported format string '{style}'. Valid options are 'ascii' "
                         f"and 'unicode'")
    _STYLE["unicode"] = style == "unicode"


class SeriesBase:
    """A polynomial series in one basis, with a domain mapped onto a window.

    Parameters
    ----------
    coef : array_like
        Coefficients, lowest degree first (a device array; host data is copied to
        the current device).
    domain, window : (2,) array_like, optional
        ``x`` in `domain` is evaluated as the basis at the mapped point in `window`.
    symbol : str, optional
        The variable's name in printed forms.
    """

    __asnumpy_series__ = True
    __hash__ = None
    __array_ufunc__ = None        # NumPy's and asnumpy's operators defer to ours
    maxpower = 100
    family = None                 # set by each class
    domain = window = None
    basis_name = None
    _numpy_name = None            # NumPy's class of the same basis (for printing)

    def __init__(self, coef, domain=None, window=None, symbol="x"):
        [self.coef] = as_series([coef], trim=False)
        if domain is not None:
            self.domain = host_interval(domain, "Domain")
        if window is not None:
            self.window = host_interval(window, "Window")
        try:
            if not symbol.isidentifier():
                raise ValueError("Symbol string must be a valid Python identifier")
        except AttributeError:
            raise TypeError("Symbol must be a non-empty string") from None
        self._symbol = symbol

    @property
    def symbol(self):
        return self._symbol

    # -- comparisons ---------------------------------------------------------------------

    def has_samecoef(self, other):
        """Whether `other` has the same coefficients."""
        return (len(self.coef) == len(other.coef)
                and bool((self.coef == other.coef).all()))

    def has_samedomain(self, other):
        """Whether `other` has the same domain."""
        return bool(np.all(self.domain == other.domain))

    def has_samewindow(self, other):
        """Whether `other` has the same window."""
        return bool(np.all(self.window == other.window))

    def has_sametype(self, other):
        """Whether `other` is of the same class."""
        return isinstance(other, self.__class__)

    def __eq__(self, other):
        return (isinstance(other, self.__class__) and self.has_samedomain(other)
                and self.has_samewindow(other) and self.coef.shape == other.coef.shape
                and self.has_samecoef(other) and self.symbol == other.symbol)

    def __ne__(self, other):
        return not self.__eq__(other)

    def _coefficients(self, other):
        """The coefficients of `other` for arithmetic (a series must match this one)."""
        if getattr(type(other), "__asnumpy_series__", False):
            if not isinstance(other, self.__class__):
                raise TypeError("Polynomial types differ")
            if not self.has_samedomain(other):
                raise TypeError("Domains differ")
            if not self.has_samewindow(other):
                raise TypeError("Windows differ")
            if self.symbol != other.symbol:
                raise ValueError("Polynomial symbols differ")
            return other.coef
        return other

    def _new(self, coef):
        return self.__class__(coef, self.domain, self.window, self.symbol)

    # -- printing (NumPy's formatter on a host copy) ------------------------------------

    def _numpy_twin(self):
        twin_class = getattr(np.polynomial, self._numpy_name)
        return twin_class(self.coef.get(), self.domain, self.window, self.symbol)

    def __repr__(self):
        text = repr(self._numpy_twin())
        return type(self).__name__ + text[text.index("("):]

    def __format__(self, fmt_str):
        if fmt_str == "":
            fmt_str = "unicode" if _STYLE["unicode"] else "ascii"
        return format(self._numpy_twin(), fmt_str)

    def __str__(self):
        return self.__format__("")

    def _repr_latex_(self):
        return self._numpy_twin()._repr_latex_()

    # -- the series as a container and a function --------------------------------------

    def __len__(self):
        return len(self.coef)

    def __iter__(self):
        return iter(self.coef)

    def __call__(self, arg):
        if isinstance(arg, (list, tuple, np.ndarray)):
            arg = to_device(arg, self.coef.device, "polynomial.SeriesBase.__call__")
        return self.family.val(mapdomain(arg, self.domain, self.window), self.coef)

    def __getstate__(self):
        return {"coef": self.coef.copy(), "domain": self.domain.copy(),
                "window": self.window.copy(), "symbol": self.symbol}

    def __setstate__(self, state):
        self.coef, self.domain, self.window = state["coef"], state["domain"], state["window"]
        self._symbol = state["symbol"]

    # -- arithmetic ------------------------------------------------------------------------

    def __neg__(self):
        return self._new(-self.coef)

    def __pos__(self):
        return self

    def _same_device(self, func, *values):
        """The mixing rule for coefficient operands (NumPy's rule below would hide it)."""
        check_same_device(func, self.coef.device,
                          *(v for v in values if isinstance(v, ndarray)))

    def _binary(self, operation, first, second):
        """``operation(first, second)`` as a series, NotImplemented where it fails (NumPy's
        rule); coefficients on another device raise as everywhere (the mixing rule)."""
        self._same_device(operation.__name__, first, second)
        try:
            return self._new(operation(first, second))
        except Exception:
            return NotImplemented

    def __add__(self, other):
        return self._binary(self.family.add, self.coef, self._coefficients(other))

    def __sub__(self, other):
        return self._binary(self.family.sub, self.coef, self._coefficients(other))

    def __mul__(self, other):
        return self._binary(self.family.mul, self.coef, self._coefficients(other))

    def __truediv__(self, other):
        if not isinstance(other, numbers.Number) or isinstance(other, bool):
            raise TypeError(f"unsupported types for true division: '{type(self)}', "
                            f"'{type(other)}'")
        return self.__floordiv__(other)

    @staticmethod
    def _part(res, index):
        return res if res is NotImplemented else res[index]

    def __floordiv__(self, other):
        return self._part(self.__divmod__(other), 0)

    def __mod__(self, other):
        return self._part(self.__divmod__(other), 1)

    def __divmod__(self, other):
        othercoef = self._coefficients(other)
        return self._division(self.coef, othercoef)

    def _division(self, first, second):
        self._same_device("divmod", first, second)
        try:
            quo, rem = self.family.div(first, second)
        except ZeroDivisionError:
            raise
        except Exception:
            return NotImplemented
        return self._new(quo), self._new(rem)

    def __pow__(self, other):
        return self._new(self.family.pow(self.coef, other, maxpower=self.maxpower))

    def __radd__(self, other):
        return self._binary(self.family.add, other, self.coef)

    def __rsub__(self, other):
        return self._binary(self.family.sub, other, self.coef)

    def __rmul__(self, other):
        return self._binary(self.family.mul, other, self.coef)

    def __rtruediv__(self, other):
        return NotImplemented       # a number divided by a series is no series

    def __rfloordiv__(self, other):
        return self._part(self.__rdivmod__(other), 0)

    def __rmod__(self, other):
        return self._part(self.__rdivmod__(other), 1)

    def __rdivmod__(self, other):
        return self._division(other, self.coef)

    # -- methods ---------------------------------------------------------------------------

    def copy(self):
        """A copy of the series."""
        return self._new(self.coef.copy())

    def degree(self):
        """The degree (``len(coef) - 1``)."""
        return len(self) - 1

    def cutdeg(self, deg):
        """The series truncated to degree `deg`."""
        return self.truncate(deg + 1)

    def trim(self, tol=0):
        """The series without trailing coefficients of magnitude at most `tol`."""
        return self._new(self.family.trim(self.coef, tol))

    def truncate(self, size):
        """The first `size` coefficients."""
        isize = int(size)
        if isize != size or isize < 1:
            raise ValueError("size must be a positive integer")
        return self._new(self.coef if isize >= len(self.coef) else self.coef[:isize])

    def convert(self, domain=None, kind=None, window=None):
        """The same function as a series of class `kind` with `domain` and `window`."""
        kind = self.__class__ if kind is None else kind
        domain = kind.domain if domain is None else domain
        window = kind.window if window is None else window
        return self(kind.identity(domain, window=window, symbol=self.symbol))

    def mapparms(self):
        """``(off, scl)`` of the map from domain to window."""
        return mapparms(self.domain, self.window)

    def integ(self, m=1, k=[], lbnd=None):  # noqa: B006 (NumPy's signature)
        """The `m`-th antiderivative, with integration constants `k` at `lbnd`."""
        off, scl = self.mapparms()
        lbnd = 0 if lbnd is None else off + scl * lbnd
        return self._new(self.family.int(self.coef, m, k, lbnd, 1.0 / scl))

    def deriv(self, m=1):
        """The `m`-th derivative."""
        off, scl = self.mapparms()
        return self._new(self.family.der(self.coef, m, scl))

    def roots(self):
        """The roots, in the domain (a device array)."""
        return mapdomain(self.family.roots(self.coef), self.window, self.domain)

    def linspace(self, n=100, domain=None):
        """`n` equally spaced points of `domain` and the series' values there."""
        domain = self.domain if domain is None else domain
        x = _linspace(domain[0], domain[1], n, device=self.coef.device)
        return x, self(x)

    @classmethod
    def fit(cls, x, y, deg, domain=None, rcond=None, full=False, w=None, window=None,
            symbol="x"):
        """The least-squares fit of a series of degree `deg` to the data ``(x, y)``."""
        if domain is None:
            domain = host_interval(getdomain(x), "Domain")
            if domain[0] == domain[1]:
                domain[0] -= 1
                domain[1] += 1
        elif isinstance(domain, list) and len(domain) == 0:
            domain = cls.domain
        window = cls.window if window is None else window
        res = cls.family.fit(mapdomain(x, domain, window), y, deg, w=w, rcond=rcond,
                             full=full)
        if full:
            coef, status = res
            return cls(coef, domain=domain, window=window, symbol=symbol), status
        return cls(res, domain=domain, window=window, symbol=symbol)

    @classmethod
    def fromroots(cls, roots, domain=[], window=None, symbol="x"):  # noqa: B006
        """The series with the given roots."""
        [roots] = as_series([roots], trim=False)
        if domain is None:
            domain = host_interval(getdomain(roots), "Domain")
        elif isinstance(domain, list) and len(domain) == 0:
            domain = cls.domain
        window = cls.window if window is None else window
        off, scl = mapparms(domain, window)
        coef = cls.family.fromroots(off + scl * roots) / scl ** len(roots)
        return cls(coef, domain=domain, window=window, symbol=symbol)

    @classmethod
    def identity(cls, domain=None, window=None, symbol="x"):
        """The series of ``x`` (mapped by domain and window)."""
        domain = cls.domain if domain is None else domain
        window = cls.window if window is None else window
        off, scl = mapparms(window, domain)
        return cls(cls.family.line(off, scl), domain, window, symbol)

    @classmethod
    def basis(cls, deg, domain=None, window=None, symbol="x"):
        """The basis polynomial of degree `deg`."""
        ideg = int(deg)
        if ideg != deg or ideg < 0:
            raise ValueError("deg must be non-negative integer")
        return cls([0] * ideg + [1], domain, window, symbol)

    @classmethod
    def cast(cls, series, domain=None, window=None):
        """`series` (of any class) converted to this class."""
        domain = cls.domain if domain is None else domain
        window = cls.window if window is None else window
        return series.convert(domain, cls, window)

