"""Polynomial functions on coefficient arrays (highest power first), as NumPy's.

``polyval`` is Horner's rule with ufuncs; ``polyadd``/``polysub``/
``polymul``/``polyder``/``polyint``/``polydiv`` compose ufuncs, views,
``concatenate`` and ``convolve`` exactly as NumPy does; ``poly``, ``roots``
and ``polyfit`` run NumPy's routine (eigenvalues, least squares) on the
device data through the ``numpy_function`` kernel.  Data-dependent result
shapes (trimmed zeros) and dtypes (real when the roots come in conjugate
pairs) are settled by small device reductions read back to the host.
"""

from __future__ import annotations

import operator

import numpy as np

from .._launch import empty, launch
from ..creation import arange, ones, zeros, zeros_like
from ..math_functions._operands import device_of, to_device
from ..manipulation import concatenate
from ..order_statistics import convolve
from ..reductions._operands import any_true, named
from ..ufuncs import UFUNCS

__all__ = [
    "PolynomialObject", "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul",
    "polysub", "polyval", "roots",
]


class PolynomialObject:
    """The base of :class:`~asnumpy.poly1d`: what these functions take as a polynomial object.

    poly1d.py (the class, built on these functions) sits above this module, so a
    result is made a polynomial object again through its operand's own class.
    """

    __slots__ = ()


def _is_poly1d(value):
    return isinstance(value, PolynomialObject)


def _poly_class(*values):
    """The class of the first polynomial object among ``values`` (results take it), or None."""
    for value in values:
        if isinstance(value, PolynomialObject):
            return type(value)
    return None


def _array(value, device, func):
    """``value`` (a poly1d's coefficients, device or host data) as a device array."""
    if _is_poly1d(value):
        value = value.coeffs
    return to_device(value, device, func)


def _atleast_1d(value, device, func):
    value = _array(value, device, func)
    return value.reshape((1,)) if value.ndim == 0 else value


def _padded(a, length):
    """``a`` with ``length - len(a)`` leading zeros of its dtype."""
    missing = length - a.shape[0]
    if missing <= 0:
        return a
    return concatenate((zeros((missing,), a.dtype, device=a.device), a), 0)


def _trimmed(value, device, func):
    """``numpy.poly1d(value).coeffs``: 1-D, leading zeros dropped, ``[0]`` if nothing is left."""
    value = _atleast_1d(value, device, func)
    if value.ndim > 1:
        raise ValueError("Polynomial must be 1d only.")
    value = value[_first_nonzero(value):]
    if value.shape[0] == 0:
        value = zeros((1,), value.dtype, device=device)
    return value


def _first_nonzero(a):
    """Index of the first nonzero element of 1-D device ``a`` (``len(a)`` if none)."""
    from ..reductions import nonzero

    (indices,) = nonzero(a)
    return int(indices[0].item()) if indices.shape[0] else a.shape[0]


@named("polyval")
def polyval(p, x):
    """Evaluate a polynomial at ``x`` (Horner's rule), as ``numpy.polyval``.

    Parameters
    ----------
    p : array_like or poly1d
        1-D coefficients, highest power first.
    x : array_like or poly1d
        Where to evaluate (a poly1d gives the composition ``p(x)``).

    Returns
    -------
    asnumpy.ndarray or poly1d
        ``p[0]*x**(N-1) + ... + p[N-1]``, of ``x``'s shape.

    See Also
    --------
    numpy.polyval
    """
    device = device_of(p, x, getattr(p, "coeffs", None), getattr(x, "coeffs", None))
    p = _array(p, device, "polyval")
    if _is_poly1d(x):
        y = 0
        for k in range(p.shape[0] if p.ndim else 0):
            y = y * x + p[k]
        return y
    x = to_device(x, device, "polyval")
    y = zeros_like(x)
    for k in range(p.shape[0]):
        y = UFUNCS["add"](UFUNCS["multiply"](y, x), p[k])
    return y


def _wrap_marker(result, truepoly):
    """``result`` as a ``truepoly`` (a polynomial class, from :func:`_poly_class`), or as is."""
    return result if truepoly is None else truepoly(result)


def _pair(a1, a2, convert, func):
    """``(truepoly, device, a1, a2)``: the class of a poly1d among them (else None), and
    both ``convert``-ed."""
    truepoly = _poly_class(a1, a2)
    device = device_of(a1, a2, getattr(a1, "coeffs", None), getattr(a2, "coeffs", None))
    return truepoly, device, convert(a1, device, func), convert(a2, device, func)


_ADD_OR_SUBTRACT_DOC = """{summary}

    Parameters
    ----------
    a1, a2 : array_like or poly1d
        {operands}, highest power first.

    Returns
    -------
    asnumpy.ndarray or poly1d
        The coefficients of the {result}.

    See Also
    --------
    numpy.{name}
    """

#: polyadd and polysub: name, ufunc, and the parts of their docstring.
_ADD_OR_SUBTRACT = (
    ("polyadd", "add", "Sum of two polynomials, as ``numpy.polyadd``.", "Coefficients",
     "sum (a poly1d if an input is one)"),
    ("polysub", "subtract", "Difference ``a1 - a2`` of two polynomials, as ``numpy.polysub``.",
     "Minuend and subtrahend coefficients", "difference"),
)


def _make_add_or_subtract(name, ufunc, summary, operands, result):
    """The public ``name``: the coefficients of ``a1`` and ``a2``, padded, combined by ``ufunc``."""

    def function(a1, a2):
        truepoly, _, a1, a2 = _pair(a1, a2, _atleast_1d, name)
        length = max(a1.shape[0], a2.shape[0])
        return _wrap_marker(UFUNCS[ufunc](_padded(a1, length), _padded(a2, length)), truepoly)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = _ADD_OR_SUBTRACT_DOC.format(
        summary=summary, operands=operands, result=result, name=name)
    return named(name)(function)


polyadd, polysub = (_make_add_or_subtract(*row) for row in _ADD_OR_SUBTRACT)


@named("polymul")
def polymul(a1, a2):
    """Product of two polynomials, as ``numpy.polymul`` (a convolution).

    Parameters
    ----------
    a1, a2 : array_like or poly1d
        Coefficients, highest power first.

    Returns
    -------
    asnumpy.ndarray or poly1d
        The coefficients of the product.

    Raises
    ------
    ValueError
        For empty coefficients (as ``numpy.convolve``).

    See Also
    --------
    numpy.polymul
    """
    truepoly, _, a1, a2 = _pair(a1, a2, _trimmed, "polymul")
    return _wrap_marker(convolve(a1, a2), truepoly)


def _order(m, what, other):
    """``m`` as an int, or NumPy's ValueError for a negative order of ``what``."""
    m = int(m)
    if m < 0:
        raise ValueError(f"Order of {what} must be positive (see {other})")
    return m


@named("polyder")
def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial, as ``numpy.polyder``.

    Parameters
    ----------
    p : array_like or poly1d
        Coefficients, highest power first.
    m : int, optional
        Order of differentiation (non-negative).

    Returns
    -------
    asnumpy.ndarray or poly1d
        Coefficients of the derivative.

    Raises
    ------
    ValueError
        For a negative ``m``.

    See Also
    --------
    numpy.polyder, polyint
    """
    m = _order(m, "derivative", "polyint")
    truepoly = _poly_class(p)
    device = device_of(p, getattr(p, "coeffs", None))
    p = _array(p, device, "polyder")
    if p.ndim == 0:
        p = p.reshape((1,))
    for _ in range(m):
        n = p.shape[0] - 1
        p = UFUNCS["multiply"](p[:-1], arange(n, 0, -1, device=device))
    return _wrap_marker(p, truepoly)


@named("polyint")
def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial, as ``numpy.polyint``.

    Parameters
    ----------
    p : array_like or poly1d
        Coefficients, highest power first.
    m : int, optional
        Order of the antiderivative (non-negative).
    k : list of m scalars or scalar, optional
        Integration constants, first for the first integration (default zeros).

    Returns
    -------
    asnumpy.ndarray or poly1d
        Coefficients of the antiderivative.

    Raises
    ------
    ValueError
        For a negative ``m`` or too few constants.

    See Also
    --------
    numpy.polyint, polyder
    """
    m = _order(m, "integral", "polyder")
    truepoly = _poly_class(p)
    device = device_of(p, getattr(p, "coeffs", None), k)
    if k is None:
        k = zeros((m,), float, device=device)
    k = _atleast_1d(k, device, "polyint")
    if k.shape[0] == 1 and m > 1:
        k = UFUNCS["multiply"](k[0], ones((m,), float, device=device))
    if k.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _array(p, device, "polyint")
    for i in range(m):
        if p.ndim == 0:
            p = p.reshape((1,))
        quotient = UFUNCS["divide"](p, arange(p.shape[0], 0, -1, device=device))
        p = concatenate((quotient, k[i:i + 1]), 0)
    return _wrap_marker(p, truepoly)


@named("polydiv")
def polydiv(u, v):
    """Quotient and remainder of polynomial division, as ``numpy.polydiv``.

    Parameters
    ----------
    u : array_like or poly1d
        Dividend coefficients, highest power first.
    v : array_like or poly1d
        Divisor coefficients.

    Returns
    -------
    q, r : asnumpy.ndarray or poly1d
        Quotient and remainder (leading near-zeros of ``r`` trimmed as NumPy trims them).

    See Also
    --------
    numpy.polydiv
    """
    truepoly, device, u, v = _pair(u, v, _atleast_1d, "polydiv")
    u, v = UFUNCS["add"](u, 0.0), UFUNCS["add"](v, 0.0)
    for operand in (u, v):
        if operand.shape[0] == 0:
            raise IndexError("index 0 is out of bounds for axis 0 with size 0")
    w_dtype = np.result_type(u.dtype, v.dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = UFUNCS["divide"](1.0, v[0])
    q = zeros((max(m - n + 1, 1),), w_dtype, device=device)
    r = u.astype(w_dtype)
    for k in range(m - n + 1):
        d = UFUNCS["multiply"](scale, r[k])
        q[k] = d
        window = r[k:k + n + 1]
        UFUNCS["subtract"](window, UFUNCS["multiply"](d, v), out=window)
    # numpy.allclose(r[0], 0, rtol=1e-14): |r| <= 1e-8 (NaN never close)
    if r.shape[0] > 1:
        far = UFUNCS["logical_not"](UFUNCS["less_equal"](UFUNCS["absolute"](r[:-1]), 1e-8))
        r = r[min(_first_nonzero(far), r.shape[0] - 1):]
    if truepoly is not None:
        return truepoly(q), truepoly(r)
    return q, r


def _mintype(dtype):
    """``numpy.mintypecode(dtype.char)`` as a dtype."""
    return np.dtype(np.mintypecode(dtype.char))


def _conjugate_pairs(values):
    """NumPy's test in ``poly``: ``all(sort(roots) == sort(roots.conjugate()))``."""
    from ..sorting import sort

    roots = values.astype(np.complex128)
    same = UFUNCS["equal"](sort(roots), sort(UFUNCS["conjugate"](roots)))
    return not any_true(UFUNCS["logical_not"](same))


@named("poly")
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots, as ``numpy.poly``.

    Parameters
    ----------
    seq_of_zeros : array_like
        1-D roots, or a square matrix (its characteristic polynomial).

    Returns
    -------
    asnumpy.ndarray
        ``N + 1`` coefficients, highest power first; real when the roots
        come in conjugate pairs; a 0-d ``1.0`` for no roots.

    Raises
    ------
    ValueError
        For input that is neither 1-D nor a non-empty square matrix.

    See Also
    --------
    numpy.poly, roots, polyval
    """
    device = device_of(seq_of_zeros, getattr(seq_of_zeros, "coeffs", None))
    seq = _atleast_1d(seq_of_zeros, device, "poly")
    shape = seq.shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        real = np.linalg.eigvals(np.ones((1, 1), seq.dtype)).dtype
        eig = empty((shape[0],), np.result_type(real, np.complex64), device, func="poly")
        launch("numpy_function", (eig,), "linalg.eigvals", (seq,), {}, func="poly")
        if real.kind != "c" and not any_true(UFUNCS["not_equal"](eig.imag, 0)):
            eig = eig.real.copy()
        seq = eig
    elif len(shape) == 1:
        seq = seq.astype(_mintype(seq.dtype))
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if seq.shape[0] == 0:
        return ones((), np.float64, device=device)
    dtype = seq.dtype
    out = empty((seq.shape[0] + 1,), dtype, device, func="poly")
    launch("numpy_function", (out,), "poly", (seq,), {}, func="poly")
    if dtype.kind == "c" and _conjugate_pairs(seq):
        return out.real.copy()
    return out


@named("roots")
def roots(p):
    """The roots of a polynomial, as ``numpy.roots`` (eigenvalues of the companion matrix).

    Parameters
    ----------
    p : array_like
        1-D coefficients, highest power first.

    Returns
    -------
    asnumpy.ndarray
        The roots: real when all are real, else complex.

    Raises
    ------
    ValueError
        For input that is not 1-D.

    See Also
    --------
    numpy.roots, poly, polyval
    """
    device = device_of(p, getattr(p, "coeffs", None))
    p = _atleast_1d(p, device, "roots")
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    from ..reductions import nonzero

    (indices,) = nonzero(p)
    if indices.shape[0] == 0:
        return zeros((0,), np.float64, device=device)
    first, last = int(indices[0].item()), int(indices[-1].item())
    trailing = p.shape[0] - last - 1
    p = p[first:last + 1]
    if p.dtype.kind not in "fc":
        p = p.astype(np.float64)
    n = p.shape[0]
    complex_dtype = np.result_type(p.dtype, np.complex64)
    if n > 1:
        found = empty((n - 1,), complex_dtype, device, func="roots")
        launch("numpy_function", (found,), "linalg.eigvals",
               (_companion(p, device),), {}, func="roots")
        if p.dtype.kind != "c" and not any_true(UFUNCS["not_equal"](found.imag, 0)):
            found = found.real.copy()
    else:
        found = zeros((0,), p.dtype, device=device)
    if trailing:
        found = concatenate((found, zeros((trailing,), found.dtype, device=device)), 0)
    return found


def _companion(p, device):
    """NumPy's companion matrix: ones below the diagonal, ``-p[1:]/p[0]`` on top."""
    n = p.shape[0]
    a = zeros((n - 1, n - 1), p.dtype, device=device)
    if n > 2:
        sub = a.reshape(((n - 1) * (n - 1),))[n - 1::n]
        UFUNCS["positive"](np.ones((), p.dtype)[()], out=sub)
    UFUNCS["divide"](UFUNCS["negative"](p[1:]), p[0], out=a[0])
    return a


@named("polyfit")
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit, as ``numpy.polyfit``.

    Parameters
    ----------
    x : array_like, shape (M,)
        Sample x-coordinates.
    y : array_like, shape (M,) or (M, K)
        Sample values (several data sets by columns).
    deg : int
        Degree of the fitting polynomial.
    rcond : float, optional
        Relative condition number of the fit (default ``len(x) * eps``).
    full : bool, optional
        Also return residuals, rank, singular values and ``rcond``.
    w : array_like, shape (M,), optional
        Weights applied to the unsquared residuals.
    cov : bool or str, optional
        Also return the covariance matrix of the estimate (``'unscaled'``:
        not scaled by ``chi2 / dof``).

    Returns
    -------
    p : asnumpy.ndarray, shape (deg + 1,) or (deg + 1, K)
        Coefficients, highest power first.
    residuals, rank, singular_values, rcond
        With ``full=True`` (as NumPy: residuals and singular values as
        arrays, rank and rcond as host scalars).
    V : asnumpy.ndarray, shape (deg + 1, deg + 1) or (deg + 1, deg + 1, K)
        With ``cov`` and not ``full``.

    Raises
    ------
    ValueError
        For ``deg < 0`` or too few points for the covariance.
    TypeError
        For inputs of the wrong shape.

    Warns
    -----
    RankWarning
        When the fit is rank deficient (and not ``full``).

    See Also
    --------
    numpy.polyfit, polyval
    """
    device = device_of(x, y, w)
    deg = operator.index(deg)
    x = UFUNCS["add"](to_device(x, device, "polyfit"), 0.0)
    y = UFUNCS["add"](to_device(y, device, "polyfit"), 0.0)
    if w is not None:
        w = UFUNCS["add"](to_device(w, device, "polyfit"), 0.0)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if w is not None:
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
    if full:
        return _polyfit_full(x, y, deg, rcond, w, device)
    if cov and cov != "unscaled" and x.shape[0] <= order:
        raise ValueError("the number of data points must exceed order "
                         "to scale the covariance matrix")
    # dtype from a probe with enough points for a fit of this degree
    points = order + 3
    probe_y = np.ones((points,) + y.shape[1:2], y.dtype)
    probe_w = None if w is None else np.ones(points, w.dtype)
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe = np.polyfit(np.arange(points, dtype=x.dtype), probe_y, deg, w=probe_w,
                               cov=bool(cov) and cov)
    probe_c = probe[0] if cov else probe
    c = empty((order,) + y.shape[1:2], probe_c.dtype, device, func="polyfit")
    outs = (c,)
    if cov:
        # (order, order), (order, order, K); (order, order, 1) for "unscaled" with 2-D y
        outs += (empty(probe[1].shape, probe[1].dtype, device, func="polyfit"),)
    launch("numpy_function", outs, "polyfit", (x, y, deg),
           {"rcond": rcond, "w": w, "cov": cov}, func="polyfit")
    return outs if cov else c


def _polyfit_full(x, y, deg, rcond, w, device):
    """``numpy.polyfit(..., full=True)``: residuals' length depends on the rank."""
    from ..transfer import asarray

    host = np.polyfit(x.get(), y.get(), deg, rcond=rcond, full=True,
                      w=None if w is None else w.get())
    c, residuals, rank, singular, rcond = host
    return (asarray(c, device=device), asarray(residuals, device=device), rank,
            asarray(singular, device=device), rcond)
