"""One implementation of the series operations, parametrized by a basis' recurrence.

Every basis of ``asnumpy.polynomial`` is a sequence ``P_0 = 1, P_1, P_2, ...``
whose product with ``x`` is a three-term recurrence::

    x * P_k = up(k) * P_{k+1} + diag(k) * P_k + down(k) * P_{k-1}

(power series: ``up = 1``, ``diag = down = 0``; Chebyshev: ``1/2, 0, 1/2``; ...).
A :class:`Family` holds those three functions (exact fractions) and a few
facts (domain, weight function, the weight's integral, whether the weight is
even); everything else follows from them:

* evaluation is Clenshaw's backward recurrence and the Vandermonde matrix
  the forward one, on the device, broadcasting like NumPy;
* ``mulx`` is the recurrence itself applied to a coefficient vector
  (shifted slices times constant vectors); a product ``c1 * c2`` runs
  Clenshaw's recurrence with ``x`` replaced by that ``mulx`` operator (the
  power basis uses ``convolve``); division is long division by the basis
  products ``P_i * c2``, themselves made with the forward recurrence;
* derivative, antiderivative and the conversions to and from the power basis
  are small host matrices of constants (built once per length, exactly, with
  fractions), applied to the device coefficients with ``matmul``;
* the companion matrix is the recurrence's tridiagonal matrix, scaled to be
  symmetric where the basis is orthogonal, with the series in its last
  column; ``roots`` are its eigenvalues (``asnumpy.linalg.eigvals``); Gauss
  nodes are the eigenvalues of the orthonormal basis' Jacobi matrix
  (``eigvalsh``) polished by one Newton step, the weights Christoffel's
  function there (kept as logarithms: no degree overflows); fits are
  ``asnumpy.linalg.lstsq`` of the column-scaled Vandermonde matrix.

User data stays on its device; constants are made in the data's dtype so the
result dtypes are NumPy's.  Data-dependent shapes (trailing zeros trimmed,
``ZeroDivisionError`` for a zero divisor) read one number back to the host.
"""

from __future__ import annotations

import threading
import warnings
from fractions import Fraction

import numpy as np
from numpy.exceptions import RankWarning
from numpy.lib.array_utils import normalize_axis_index

from .._core.creation import arange, empty, zeros
from .._core.math_functions._operands import device_of
from .._core.manipulation import concatenate, moveaxis, stack
from .._core.ndarray import ndarray
from .._core.order_statistics import convolve
from .._core.reductions import sum as asum
from .._core.sorting import sort
from .._core.transfer import asarray
from .._core.ufuncs import cos, exp, log, matmul, multiply, sqrt, square
from ..linalg import eigvals, eigvalsh, lstsq
from .polyutils import as_int, as_series, device_array, trimcoef, trimseq
from .._errors import user_stacklevel

__all__ = ["DEFAULT", "Family", "chebyshev_gauss"]

_INTEGER_KINDS = "biu"


def _inexact(c):
    """NumPy's rule for evaluated/differentiated coefficients: integers become float64."""
    return c.astype(np.float64) if c.dtype.kind in _INTEGER_KINDS else c


def _scales(scl) -> bool:
    """Whether multiplying by `scl` can change anything (it is not the Python number 1)."""
    return not (type(scl) in (int, float) and scl == 1)


def _number(value: Fraction):
    """A fraction as the Python int it is, else as a float (NumPy's constant arrays)."""
    return int(value) if value.denominator == 1 else float(value)


#: how many constant tables (derivative, antiderivative, conversion, companion) a family keeps
_TABLES_KEPT = 64

#: ``pow``'s maxpower when none is given: the family's (NumPy's modules differ: 16 or None)
DEFAULT = object()

#: fit's checks of its data (NumPy's order and messages; each raises TypeError)
_FIT_CHECKS = (
    (lambda x, y: x.ndim != 1, "expected 1D vector for x"),
    (lambda x, y: x.size == 0, "expected non-empty vector for x"),
    (lambda x, y: not 1 <= y.ndim <= 2, "expected 1D or 2D array for y"),
    (lambda x, y: x.shape[0] != y.shape[0], "expected x and y to have same length"),
)


class Family:
    """A basis of polynomial series, as data: its recurrence and a few facts.

    Parameters
    ----------
    prefix : str
        The functions' prefix (``"cheb"``: ``chebval``, ``chebfit``, ...).
    module : str
        The public module under ``asnumpy.polynomial`` (``"chebyshev"``).
    title : str
        The basis' name in docstrings.
    up, diag, down : callable
        ``k -> Fraction``: ``x P_k = up(k) P_{k+1} + diag(k) P_k + down(k) P_{k-1}``.
    domain : tuple of float
        The default domain (and window) of the series class.
    maxpower : int or None
        The default ``maxpower`` of the ``pow`` function.
    weight : callable, optional
        ``x -> w(x)`` on device arrays, for orthogonal bases.
    weight_integral : float, optional
        The integral of the weight over the domain of orthogonality (Gauss weights sum to it).
    even : bool, optional
        Whether the weight is even (Gauss nodes and weights are then symmetrized).
    gauss : callable, optional
        ``deg -> (x, w)`` in closed form, used instead of the eigenvalue method.
    remainder_promotes : bool, optional
        Whether ``div``'s remainder is at least float64 (NumPy's generic division, used
        by the Legendre, Laguerre and both Hermite modules, promotes it).
    """

    def __init__(self, prefix, module, title, up, diag, down, domain, *, maxpower=16,
                 weight=None, weight_integral=None, even=False, gauss=None,
                 remainder_promotes=False):
        self.prefix, self.module, self.title = prefix, module, title
        self.up, self.diag, self.down = up, diag, down
        self.domain = tuple(float(d) for d in domain)
        self.maxpower = maxpower
        self.weight_function, self.weight_integral, self.even = weight, weight_integral, even
        self._closed_gauss = gauss
        self.remainder_promotes = remainder_promotes
        self.orthogonal = weight is not None
        self._tables: dict = {}        # (key, n) -> host table, in order of use
        self._lock = threading.Lock()
        # forward form: P_{k+1} = (alpha_k x + beta_k) P_k - gamma_k P_{k-1}
        self._forward = {}
        # the series of x itself: x = diag(0) P_0 + up(0) P_1
        self.x_series = (_number(diag(0)), _number(up(0)))

    def __repr__(self):
        return f"<polynomial family {self.title} ({self.prefix}*)>"

    def name(self, op: str) -> str:
        """The public function's qualified name, for messages."""
        return f"polynomial.{self.module}.{self.prefix}{op}"

    # -- constants (host, exact fractions turned into float64) ---------------------------

    def forward(self, k):
        """``(alpha_k, beta_k, gamma_k)`` as floats (gamma_0 = 0)."""
        if k not in self._forward:
            up = Fraction(self.up(k))
            self._forward[k] = (float(1 / up), float(-Fraction(self.diag(k)) / up),
                                float(Fraction(self.down(k)) / up) if k else 0.0)
        return self._forward[k]

    def _table(self, key, n, build):
        """The constant table `key` for length `n`, built once (the most recent kept)."""
        with self._lock:
            table = self._tables.pop((key, n), None)
        if table is None:
            table = build(n)            # outside the lock: a table may ask for another
        with self._lock:
            self._tables.pop((key, n), None)
            if len(self._tables) >= _TABLES_KEPT:
                del self._tables[next(iter(self._tables))]      # the least recently used
            self._tables[(key, n)] = table
        return table

    def _mulx_exact(self, v):
        out = [Fraction(0)] * (len(v) + 1)
        for k, vk in enumerate(v):
            if vk:
                out[k + 1] += self.up(k) * vk
                out[k] += self.diag(k) * vk
                if k:
                    out[k - 1] += self.down(k) * vk
        return out

    def _recurrence_vectors(self, n):
        """Host vectors of ``up(k)``, ``diag(k)``, ``down(k)`` for ``k < n``."""
        return tuple(np.array([float(f(k)) for k in range(n)]) for f in (self.up, self.diag,
                                                                           self.down))

    def _exact_recur(self, k, times_x, current, previous):
        """``(times_x - diag(k) current - down(k) previous) / up(k)`` on lists of fractions:
        the forward recurrence, with ``times_x`` standing for ``x * current``."""
        up, diag, down = (Fraction(f(k)) for f in (self.up, self.diag, self.down))
        out = list(times_x)
        for j, v in enumerate(current):
            out[j] -= diag * v
        for j, v in enumerate(previous if k else ()):
            out[j] -= down * v
        return [v / up for v in out]

    def _power_columns(self, n):
        """``n x n``: column k holds the power-series coefficients of ``P_k``."""
        columns = [[], [Fraction(1)]]           # P_{-1} = 0, P_0 = 1
        for k in range(n - 1):
            columns.append(self._exact_recur(k, [Fraction(0)] + columns[-1], columns[-1],
                                             columns[-2]))
        return self._matrix(columns[1:], n)

    def _basis_columns(self, n):
        """``n x n``: column k holds the coefficients of ``x**k`` in this basis."""
        columns = [[Fraction(1)]]
        for _ in range(n - 1):
            columns.append(self._mulx_exact(columns[-1]))
        return self._matrix(columns, n)

    def _derivative_columns(self, n):
        """``(n-1) x n``: column k holds the coefficients of ``P_k'``.

        Differentiating the recurrence: ``x P_k`` becomes ``P_k + x P_k'``.
        """
        columns = [[], []]                       # P_{-1}' = P_0' = 0
        for k in range(n - 1):
            times_x = self._mulx_exact(columns[-1])
            times_x[k] += 1
            columns.append(self._exact_recur(k, times_x, columns[-1], columns[-2]))
        return self._matrix(columns[1:], n - 1)

    def _antiderivative_columns(self, n):
        """``(n+1) x n``: column k holds an antiderivative of ``P_k`` with no ``P_0`` term."""
        derivative = self._table("der", n + 1, self._derivative_columns)
        out = np.zeros((n + 1, n))
        out[1:] = np.linalg.solve(derivative[:, 1:], np.eye(n))
        return out

    @staticmethod
    def _matrix(columns, rows):
        out = np.zeros((rows, len(columns)))
        for k, column in enumerate(columns):
            for j, v in enumerate(column[:rows]):
                out[j, k] = float(v)
        return out

    # -- device building blocks ------------------------------------------------------------

    @staticmethod
    def _const(host, like):
        """Host constants as a device array in `like`'s dtype, on its device."""
        return asarray(np.asarray(host).astype(like.dtype), device=like.device)

    def _apply(self, matrix, c):
        """``matrix @ c`` along c's first axis (device matmul)."""
        rest = c.shape[1:]
        flat = c.reshape((c.shape[0], int(np.prod(rest, dtype=np.int64))))
        return matmul(self._const(matrix, c), flat).reshape((matrix.shape[0],) + rest)

    def _times_x(self, b):
        """``x * b`` for a 1-D coefficient vector whose top coefficient is zero (same length)."""
        n = b.shape[0]
        up, diag, down = self._table("vectors", n, self._recurrence_vectors)
        zero = zeros((1,), b.dtype, device=b.device)
        head = b[:-1] if np.all(up[:-1] == 1) else self._const(up[:-1], b) * b[:-1]
        out = concatenate((zero, head))
        if diag.any():
            out = out + self._const(diag, b) * b
        if down.any():
            out = out + concatenate((self._const(down[1:], b) * b[1:], zero))
        return out

    @staticmethod
    def _pad(c, n):
        if c.shape[0] >= n:
            return c
        return concatenate((c, zeros((n - c.shape[0],) + c.shape[1:], c.dtype, device=c.device)))

    def _recur(self, times_x, k, current, previous, gamma=None):
        """``(alpha_k X + beta_k) current - gamma previous``, given ``times_x = X current``.

        X is multiplication by a point (evaluation, Vandermonde columns) or the ``mulx``
        operator (products of series); `gamma` is ``gamma_k`` for the forward recurrence
        (the default) and ``gamma_{k+1}`` in Clenshaw's backward one.
        """
        alpha, beta, gamma_k = self.forward(k)
        gamma = gamma_k if gamma is None else gamma
        out = times_x if alpha == 1 else times_x * alpha
        if beta:
            out = out + current * beta
        if gamma and previous is not None:
            out = out - previous * gamma
        return out

    def _clenshaw(self, x, c):
        """``sum_k c[k] P_k(x)``; `c`'s trailing axes broadcast against `x`."""
        n = c.shape[0]
        b1 = x * 0 + c[n - 1]           # x on the left: a series x defers to its own class
        b2 = None
        for k in range(n - 2, -1, -1):
            t = self._recur(b1 * x, k, b1, b2, gamma=self.forward(k + 1)[2])
            b1, b2 = t + c[k], b1
        return b1

    def _basis_products(self, c, n):
        """``[P_0*c, P_1*c, ...]`` up to degree ``n - 1`` in all, each padded to length `n`."""
        out = [self._pad(c, n)]
        for i in range(n - c.shape[0]):
            out.append(self._recur(self._times_x(out[-1]), i, out[-1], out[-2] if i else None))
        return out

    def _product(self, v, s):
        """``v * s`` (1-D, same dtype), untrimmed, length ``len(v) + len(s) - 1``.

        Clenshaw's recurrence for the series `s` with x replaced by the ``mulx`` operator,
        applied to `v` (the power basis: a convolution).
        """
        if self.prefix == "poly":
            return convolve(v, s)
        if s.shape[0] > v.shape[0]:
            v, s = s, v
        v = self._pad(v, v.shape[0] + s.shape[0] - 1)
        b1, b2 = s[-1] * v, None
        for k in range(s.shape[0] - 2, -1, -1):
            t = self._recur(self._times_x(b1), k, b1, b2, gamma=self.forward(k + 1)[2])
            b1, b2 = t + s[k] * v, b1
        return b1

    def _symmetric_ratios(self, n):
        """``r_k = d_{k+1} / d_k`` of the diagonal scaling ``d`` that makes the recurrence
        matrix symmetric (ones for the power basis).  Ratios, not ``d`` itself: ``d``
        overflows for long Hermite series."""
        if not self.orthogonal:
            return np.ones(max(n - 1, 0))
        return np.array([np.sqrt(float(Fraction(self.down(k + 1)) / self.up(k)))
                         for k in range(n - 1)])

    def _companion_parts(self, n):
        """The scaled ``n x n`` recurrence matrix and the last column's weights."""
        mat = np.zeros((n, n))
        ratios = self._symmetric_ratios(n)
        for k in range(n):
            mat[k, k] = float(self.diag(k))
            if k + 1 < n:
                mat[k + 1, k] = float(self.up(k)) * ratios[k]
                mat[k, k + 1] = float(self.down(k + 1)) / ratios[k]
        # weight j is up(n-1) * d_j / d_{n-1}: divide by the ratios from j on (long Hermite
        # series underflow to 0 there, which is no error of the user's)
        weights = np.full(n, float(self.up(n - 1)))
        with np.errstate(under="ignore"):
            for j in range(n - 2, -1, -1):
                weights[j] = weights[j + 1] / ratios[j]
        return mat, weights

    def _jacobi(self, n):
        """The orthonormal recurrence ``x p_k = a_{k+1} p_{k+1} + b_k p_k + a_k p_{k-1}``:
        ``(a_1 .. a_n, b_0 .. b_{n-1})`` and the symmetric (Jacobi) ``n x n`` matrix."""
        a = np.array([np.sqrt(float(Fraction(self.up(k - 1)) * self.down(k)))
                      for k in range(1, n + 1)])
        b = np.array([float(self.diag(k)) for k in range(n)])
        return a, b, np.diag(b) + np.diag(a[:-1], 1) + np.diag(a[:-1], -1)

    def _orthonormal_at(self, x, n):
        """At points `x`: ``p_n(x)`` and ``p_n'(x)`` (one common scale per point) and the
        logarithm of ``1 / sum_{k<n} p_k(x)**2`` (Christoffel's function: the Gauss
        weight), for the orthonormal polynomials of the basis.

        The recurrence is rescaled at every step and the scales kept as logarithms, so no
        degree overflows (NumPy's own quadrature overflows beyond a few hundred nodes).
        """
        a, b, _ = self._table("jacobi", n, self._jacobi)
        p_prev = zeros_like = x * 0.0
        p = zeros_like + 1 / np.sqrt(self.weight_integral)
        dp_prev = dp = zeros_like
        total, log_scale = p * p, zeros_like
        for k in range(n):
            shifted = x - b[k]
            p_next = shifted * p - a[k - 1] * p_prev if k else shifted * p
            dp_next = shifted * dp + p - a[k - 1] * dp_prev if k else shifted * dp + p
            p_prev, p = p, p_next / a[k]
            dp_prev, dp = dp, dp_next / a[k]
            scale = abs(p) + abs(p_prev)
            p, p_prev, dp, dp_prev = p / scale, p_prev / scale, dp / scale, dp_prev / scale
            total = total / (scale * scale)
            log_scale = log_scale + log(scale)
            if k + 1 < n:
                total = total + p * p
        return p, dp, -log(total) - 2 * log_scale

    # -- the public operations --------------------------------------------------------------

    def val(self, x, c, tensor=True):
        device = device_of(x, c)
        c = _inexact(device_array(c, device, self.name("val"), ndmin=1))
        if isinstance(x, (tuple, list, np.ndarray)):
            x = device_array(x, device, self.name("val"))
        if isinstance(x, ndarray) and tensor:
            c = c.reshape(c.shape + (1,) * x.ndim)
        return self._clenshaw(x, c)

    def _points(self, points, op):
        names = {2: "x, y", 3: "x, y, z"}.get(len(points), "ordinates")
        device = device_of(*points)
        points = [device_array(p, device, self.name(op)) for p in points]
        if any(p.shape != points[0].shape for p in points[1:]):
            raise ValueError(f"{names} are incompatible")
        return points

    def _valnd(self, op, c, points):
        points = self._points(points, op)
        c = self.val(points[0], c)
        for p in points[1:]:
            c = self.val(p, c, tensor=False)
        return c

    def _gridnd(self, c, points):
        for p in points:
            c = self.val(p, c)
        return c

    def val2d(self, x, y, c):
        return self._valnd("val2d", c, (x, y))

    def val3d(self, x, y, z, c):
        return self._valnd("val3d", c, (x, y, z))

    def grid2d(self, x, y, c):
        return self._gridnd(c, (x, y))

    def grid3d(self, x, y, z, c):
        return self._gridnd(c, (x, y, z))

    def vander(self, x, deg):
        ideg = as_int(deg, "deg")
        if ideg < 0:
            raise ValueError("deg must be non-negative")
        x = device_array(x, device_of(x), self.name("vander"), ndmin=1) + 0.0
        columns = [x * 0 + 1]
        for k in range(ideg):
            columns.append(self._recur(columns[-1] * x, k, columns[-1],
                                       columns[-2] if k else None))
        return stack(columns, axis=-1)

    def _vandernd(self, op, points, deg):
        n = len(points)
        if n != len(deg):
            raise ValueError(f"Expected {n} dimensions of degrees, got {len(deg)}")
        device = device_of(*points)
        points = stack([device_array(p, device, self.name(op)) for p in points]) + 0.0
        out = None
        for i in range(n):
            v = self.vander(points[i], deg[i])
            index = [None] * n
            index[i] = slice(None)
            v = v[(Ellipsis, *index)]
            out = v if out is None else out * v
        return out.reshape(out.shape[:-n] + (-1,))

    def vander2d(self, x, y, deg):
        return self._vandernd("vander2d", (x, y), deg)

    def vander3d(self, x, y, z, deg):
        return self._vandernd("vander3d", (x, y, z), deg)

    def fit(self, x, y, deg, rcond=None, full=False, w=None):
        device = device_of(x, y, w)
        x = device_array(x, device, self.name("fit")) + 0.0
        y = device_array(y, device, self.name("fit")) + 0.0
        deg = np.asarray(deg.get() if isinstance(deg, ndarray) else deg)
        if deg.ndim > 1 or deg.dtype.kind not in "iu" or deg.size == 0:
            raise TypeError("deg must be an int or non-empty 1-D array of int")
        if deg.min() < 0:
            raise ValueError("expected deg >= 0")
        for wrong, message in _FIT_CHECKS:
            if wrong(x, y):
                raise TypeError(message)
        if deg.ndim == 0:
            lmax = int(deg)
            order = lmax + 1
            van = self.vander(x, lmax)
        else:
            deg = np.sort(deg)
            lmax, order = int(deg[-1]), len(deg)
            van = self.vander(x, lmax)[:, deg]
        lhs, rhs = van.T, y.T
        if w is not None:
            w = device_array(w, device, self.name("fit")) + 0.0
            if w.ndim != 1:
                raise TypeError("expected 1D vector for w")
            if w.shape[0] != x.shape[0]:
                raise TypeError("expected x and w to have same length")
            lhs, rhs = lhs * w, rhs * w
        if rcond is None:
            rcond = x.shape[0] * np.finfo(x.dtype).eps
        if lhs.dtype.kind == "c":
            scl = sqrt(asum(square(lhs.real) + square(lhs.imag), axis=1))
        else:
            scl = sqrt(asum(square(lhs), axis=1))
        scl = scl + (scl == 0)          # NumPy's scl[scl == 0] = 1
        c, resids, rank, s = lstsq(lhs.T / scl, rhs.T, rcond)
        c = (c.T / scl).T
        if deg.ndim > 0:
            full_c = zeros((lmax + 1,) + c.shape[1:], c.dtype, device=c.device)
            full_c[deg] = c
            c = full_c
        if int(rank) != order and not full:
            warnings.warn("The fit may be poorly conditioned", RankWarning,
                          stacklevel=user_stacklevel())
        return (c, [resids, rank, s, rcond]) if full else c

    def der(self, c, m=1, scl=1, axis=0):
        c = _inexact(device_array(c, device_of(c), self.name("der"), ndmin=1)).copy()
        cnt = as_int(m, "the order of derivation")
        iaxis = as_int(axis, "the axis")
        if cnt < 0:
            raise ValueError("The order of derivation must be non-negative")
        iaxis = normalize_axis_index(iaxis, c.ndim)
        if cnt == 0:
            return c
        c = moveaxis(c, iaxis, 0)
        n = c.shape[0]
        if cnt >= n:
            c = c[:1] * 0
        else:
            matrix = np.eye(n)
            for size in range(n, n - cnt, -1):
                matrix = self._table("der", size, self._derivative_columns) @ matrix
            for _ in range(cnt if _scales(scl) else 0):
                multiply(c, scl, out=c)      # NumPy's in-place ``c *= scl``: c's dtype stays
            c = self._apply(matrix, c)
        return moveaxis(c, 0, iaxis)

    def int(self, c, m=1, k=[], lbnd=0, scl=1, axis=0):  # noqa: B006 (NumPy's signature)
        c = _inexact(device_array(c, device_of(c, lbnd), self.name("int"), ndmin=1)).copy()
        if not np.iterable(k) or isinstance(k, ndarray) and k.ndim == 0:
            k = [k]
        cnt = as_int(m, "the order of integration")
        iaxis = as_int(axis, "the axis")
        if cnt < 0:
            raise ValueError("The order of integration must be non-negative")
        if len(k) > cnt:
            raise ValueError("Too many integration constants")
        if np.ndim(lbnd) != 0:
            raise ValueError("lbnd must be a scalar.")
        if np.ndim(scl) != 0:
            raise ValueError("scl must be a scalar.")
        iaxis = normalize_axis_index(iaxis, c.ndim)
        if cnt == 0:
            return c
        c = moveaxis(c, iaxis, 0)
        k = list(k) + [0] * (cnt - len(k))
        for i in range(cnt):
            n = c.shape[0]
            if _scales(scl):
                multiply(c, scl, out=c)      # in place, as NumPy's: c's dtype stays
            if n == 1 and not bool((c[0] != 0).any()):
                c[0] += k[i]
                continue
            c = self._apply(self._table("int", n, self._antiderivative_columns), c)
            c[0] += k[i] - self._clenshaw(lbnd, c)
        return moveaxis(c, 0, iaxis)

    def add(self, c1, c2):
        c1, c2 = as_series([c1, c2])
        n = max(c1.shape[0], c2.shape[0])
        return trimseq(self._pad(c1, n) + self._pad(c2, n))

    def sub(self, c1, c2):
        c1, c2 = as_series([c1, c2])
        n = max(c1.shape[0], c2.shape[0])
        return trimseq(self._pad(c1, n) - self._pad(c2, n))

    def mulx(self, c):
        [c] = as_series([c])
        if c.shape[0] == 1 and not bool(c[0] != 0):
            return c
        return self._times_x(self._pad(c, c.shape[0] + 1))

    def mul(self, c1, c2):
        c1, c2 = as_series([c1, c2])
        return trimseq(self._product(c1, c2))

    def div(self, c1, c2):
        c1, c2 = as_series([c1, c2])
        if not bool(c2[-1] != 0):
            raise ZeroDivisionError("division by a zero series")
        n1, n2 = c1.shape[0], c2.shape[0]
        if n1 < n2:
            return c1[:1] * 0, c1
        if n2 == 1:
            return c1 / c2[-1], c1[:1] * 0
        products = self._basis_products(c2, n1)
        rem, quo = c1, []
        if self.remainder_promotes:
            # NumPy divides by the products P_i * c2 made from integer unit series, which
            # are float64: the remainder (not the quotient) is promoted
            rem = rem.astype(np.promote_types(rem.dtype, np.float64))
        for i in range(n1 - n2, -1, -1):
            p = products[i][:i + n2]
            q = rem[-1] / p[-1]
            rem = rem[:-1] - q * p[:-1]
            quo.append(q)
        return stack(quo[::-1]).astype(c1.dtype), trimseq(rem)

    def pow(self, c, pow, maxpower=DEFAULT):  # noqa: A002 (NumPy's signature)
        maxpower = self.maxpower if maxpower is DEFAULT else maxpower
        [c] = as_series([c])
        power = int(pow)
        if power != pow or power < 0:
            raise ValueError("Power must be a non-negative integer.")
        if maxpower is not None and power > maxpower:
            raise ValueError("Power is too large")
        if power == 0:
            return asarray(np.ones(1, c.dtype), device=c.device)
        out = c
        for _ in range(power - 1):
            out = trimseq(self._product(out, c))
        return out

    def line(self, off, scl):
        x0, x1 = self.x_series
        values = [off + scl * x0 if x0 else off, scl * x1]
        if scl == 0:
            values = values[:1]
        if any(isinstance(v, ndarray) for v in values):
            return stack([asarray(v) for v in values])
        return asarray(values, device=device_of(off, scl))

    def fromroots(self, roots):
        if len(roots) == 0:
            return asarray(np.ones(1), device=device_of(roots))
        [roots] = as_series([roots], trim=False)
        # NumPy's factors are arrays of a root and a Python number: at least float64
        roots = sort(roots.astype(np.promote_types(roots.dtype, np.float64)))
        x0, x1 = self.x_series
        factors = [stack([x0 - r, r * 0 + x1]) for r in roots]
        while len(factors) > 1:
            half, odd = divmod(len(factors), 2)
            products = [self.mul(factors[i], factors[i + half]) for i in range(half)]
            if odd:
                products[0] = self.mul(products[0], factors[-1])
            factors = products
        return factors[0]

    def roots(self, c):
        [c] = as_series([c])
        if c.shape[0] < 2:
            return empty((0,), c.dtype, device=c.device)
        if c.shape[0] == 2:
            ratio = c[:1] / c[1]
            up = float(self.up(0))
            root = -ratio if up == 1 else ratio * (-up)
            return root + float(self.diag(0)) if self.diag(0) else root
        return sort(eigvals(self.companion(c)[::-1, ::-1]))

    def companion(self, c):
        [c] = as_series([c])
        if c.shape[0] < 2:
            raise ValueError("Series must have maximum degree of at least 1.")
        n = c.shape[0] - 1
        host, weights = self._table("companion", n, self._companion_parts)
        mat = self._const(host, c)
        mat[:, -1] = mat[:, -1] - (c[:-1] / c[-1]) * self._const(weights, c)
        return mat

    def trim(self, c, tol=0):
        return trimcoef(c, tol)

    def to_power(self, c):
        [c] = as_series([c])
        return trimseq(self._apply(self._table("power", c.shape[0], self._power_columns), c))

    def from_power(self, pol):
        [pol] = as_series([pol])
        # NumPy builds the result up from the integer 0 series: at least float64
        pol = pol.astype(np.promote_types(pol.dtype, np.float64))
        return trimseq(self._apply(self._table("basis", pol.shape[0], self._basis_columns),
                                   pol))

    def weight(self, x):
        return self.weight_function(device_array(x, device_of(x), self.name("weight")))

    def gauss(self, deg):
        ideg = as_int(deg, "deg")
        if ideg <= 0:
            raise ValueError("deg must be a positive integer")
        if self._closed_gauss is not None:
            return self._closed_gauss(ideg)
        # nodes: eigenvalues of the Jacobi matrix, polished by one Newton step on p_n;
        # weights: Christoffel's function at the nodes, scaled to sum to the weight's
        # integral (as logarithms until then: tiny weights underflow to 0, never to nan)
        x = eigvalsh(asarray(self._table("jacobi", ideg, self._jacobi)[2]))
        with np.errstate(under="ignore"):       # tiny weights are 0: not the user's error
            p, dp, _ = self._orthonormal_at(x, ideg)
            x = x - p / dp
            log_w = self._orthonormal_at(x, ideg)[2]
            w = exp(log_w - log_w.max())
            if self.even:
                w = (w + w[::-1]) / 2
                x = (x - x[::-1]) / 2
            return x, w * (self.weight_integral / asum(w))


def chebyshev_gauss(deg):
    """Gauss-Chebyshev nodes and weights in closed form (NumPy's order: descending nodes)."""
    x = cos(np.pi * arange(1, 2 * deg, 2) / (2.0 * deg))
    return x, zeros(deg) + np.pi / deg
