"""A one-dimensional polynomial class holding its coefficients on the device."""

from __future__ import annotations

import numpy as np

from ..creation import zeros
from ..math_functions._operands import device_of, to_device
from ..manipulation import concatenate
from ..ndarray import ndarray
from ..reductions._operands import any_true
from ..ufuncs import UFUNCS
from .poly import (
    PolynomialObject,
    _trimmed,
    poly,
    polyadd,
    polyder,
    polydiv,
    polyint,
    polymul,
    polysub,
    polyval,
)
from .poly import roots as _roots

__all__ = ["poly1d"]


class poly1d(PolynomialObject):
    """A one-dimensional polynomial, as ``numpy.poly1d``; coefficients live on the device.

    Parameters
    ----------
    c_or_r : array_like or poly1d
        Coefficients, highest power first (leading zeros are dropped), or
        the roots when ``r`` is true.
    r : bool, optional
        ``c_or_r`` holds the roots.
    variable : str, optional
        The variable's name in the printed form (default ``'x'``).

    Attributes
    ----------
    coeffs, c, coef, coefficients : asnumpy.ndarray
        The coefficients.
    order : int
        The degree.
    roots, r : asnumpy.ndarray
        The roots.
    variable : str
        The variable's name.

    Raises
    ------
    ValueError
        For coefficients of more than one dimension.

    See Also
    --------
    numpy.poly1d, polyval, roots
    """

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable
            self._coeffs = c_or_r._coeffs
            self.__dict__.update(c_or_r.__dict__)
            if variable is not None:
                self._variable = variable
            return
        device = device_of(c_or_r)
        if r:
            c_or_r = poly(c_or_r)
        self._coeffs = _trimmed(c_or_r, device, "poly1d")
        self._variable = "x" if variable is None else variable

    # -- attributes
    @property
    def coeffs(self):
        """The coefficients, highest power first."""
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value):
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    c = coef = coefficients = coeffs

    @property
    def variable(self):
        """The name of the polynomial variable."""
        return self._variable

    @property
    def order(self):
        """The order (degree) of the polynomial."""
        return self._coeffs.shape[0] - 1

    @property
    def roots(self):
        """The roots of the polynomial."""
        return _roots(self._coeffs)

    r = roots

    # -- conversions and printing
    def _host(self):
        return np.poly1d(self._coeffs.get(), variable=self._variable)

    def __array__(self, dtype=None, copy=None):
        values = self._coeffs.get()
        return values if dtype is None else values.astype(dtype)

    def __repr__(self):
        return repr(self._host())

    def __str__(self):
        return str(self._host())

    def __len__(self):
        return self.order

    def __iter__(self):
        return (self._coeffs[k] for k in range(self._coeffs.shape[0]))

    # -- evaluation and calculus
    def __call__(self, val):
        return polyval(self._coeffs, val)

    def integ(self, m=1, k=0):
        """The ``m``-th antiderivative with integration constants ``k``, as a poly1d."""
        return poly1d(polyint(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        """The ``m``-th derivative, as a poly1d."""
        return poly1d(polyder(self._coeffs, m=m))

    # -- arithmetic
    def __neg__(self):
        return poly1d(UFUNCS["negative"](self._coeffs))

    def __pos__(self):
        return self

    def __mul__(self, other):
        if np.isscalar(other):
            return poly1d(UFUNCS["multiply"](self._coeffs, other))
        return poly1d(polymul(self._coeffs, _other(other, self)))

    def __rmul__(self, other):
        if np.isscalar(other):
            return poly1d(UFUNCS["multiply"](other, self._coeffs))
        return poly1d(polymul(_other(other, self), self._coeffs))

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, _other(other, self)))

    def __radd__(self, other):
        return poly1d(polyadd(_other(other, self), self._coeffs))

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, _other(other, self)))

    def __rsub__(self, other):
        return poly1d(polysub(_other(other, self), self._coeffs))

    def __pow__(self, val):
        if not np.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        result = to_device([1], self._coeffs.device, "poly1d")
        for _ in range(int(val)):
            result = polymul(self._coeffs, result)
        return poly1d(result)

    def __truediv__(self, other):
        if np.isscalar(other):
            return poly1d(UFUNCS["divide"](self._coeffs, other))
        return polydiv(self, _as_poly1d(other, self))

    def __rtruediv__(self, other):
        if np.isscalar(other):
            return poly1d(UFUNCS["divide"](other, self._coeffs))
        return polydiv(_as_poly1d(other, self), self)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return not any_true(UFUNCS["not_equal"](self._coeffs, other._coeffs))

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    # -- coefficients by power
    def __getitem__(self, val):
        if val > self.order or val < 0:
            return zeros((), self._coeffs.dtype, device=self._coeffs.device)
        return self._coeffs[self.order - val]

    def __setitem__(self, key, val):
        ind = self.order - key
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            zr = zeros((key - self.order,), self._coeffs.dtype, device=self._coeffs.device)
            self._coeffs = concatenate((zr, self._coeffs), 0)
            ind = 0
        self._coeffs[ind] = val


def _other(other, like):
    """The coefficients of ``other`` (a poly1d, device or host data) on ``like``'s device."""
    if isinstance(other, poly1d):
        return other.coeffs
    if isinstance(other, ndarray):
        return other
    return to_device(other, like.coeffs.device, "poly1d")


def _as_poly1d(other, like):
    return other if isinstance(other, poly1d) else poly1d(_other(other, like))
