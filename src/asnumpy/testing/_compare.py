"""Array assertions that accept asnumpy arrays, NumPy arrays and scalars.

asnumpy arrays are copied to the host explicitly with ``.get()`` (NumPy may
not convert them implicitly: ``numpy.asarray(asnumpy_array)`` raises
TypeError by design), then NumPy's own ``numpy.testing`` functions compare.
"""

from __future__ import annotations

import numpy

from .._core.ndarray import ndarray

__all__ = [
    "assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_array_less",
    "assert_array_almost_equal_nulp", "assert_array_max_ulp", "assert_array_list_equal",
    "to_host",
]


def to_host(value):
    """``value`` with every asnumpy array (also inside lists/tuples/dicts) copied to the host."""
    if isinstance(value, ndarray):
        return value.get()
    if isinstance(value, (list, tuple)) and _contains_device_array(value):
        items = [to_host(item) for item in value]
        if hasattr(value, "_fields"):             # a named tuple (EigResult, SVDResult ...)
            return type(value)(*items)
        return type(value)(items)
    if isinstance(value, dict) and _contains_device_array(value.values()):
        return {key: to_host(item) for key, item in value.items()}
    return value


def _contains_device_array(items) -> bool:
    return any(isinstance(item, ndarray)
               or (isinstance(item, (list, tuple)) and _contains_device_array(item))
               or (isinstance(item, dict) and _contains_device_array(item.values()))
               for item in items)


def assert_allclose(actual, desired, rtol=1e-7, atol=0, err_msg="", verbose=True, *,
                    equal_nan=True, strict=False):
    """Raise AssertionError unless ``actual`` and ``desired`` are close.

    Elementwise ``|actual - desired| <= atol + rtol * |desired|``, as
    :func:`numpy.testing.assert_allclose`.

    Parameters
    ----------
    actual, desired : asnumpy.ndarray, numpy.ndarray, scalar or sequence
        The values to compare; asnumpy arrays are copied to the host.
    rtol, atol : float, optional
        Relative and absolute tolerance.
    err_msg : str, optional
        Printed with the failure.
    verbose : bool, optional
        Whether the conflicting values are shown.
    equal_nan : bool, optional
        Whether NaNs in the same places compare equal (default True).
    strict : bool, optional
        Also require equal shapes and dtypes (no scalar broadcasting).

    Raises
    ------
    AssertionError
        If the values are not close (or, with ``strict``, shapes or dtypes
        differ).
    """
    numpy.testing.assert_allclose(to_host(actual), to_host(desired), rtol=rtol, atol=atol,
                                  equal_nan=equal_nan, err_msg=err_msg, verbose=verbose,
                                  strict=strict)


def assert_array_equal(x, y, err_msg="", verbose=True, strict=False):
    """Raise AssertionError unless ``x`` and ``y`` are equal elementwise.

    NaNs in the same places compare equal; scalars broadcast unless
    ``strict``, as :func:`numpy.testing.assert_array_equal`.

    Parameters
    ----------
    x, y : asnumpy.ndarray, numpy.ndarray, scalar or sequence
        The values to compare; asnumpy arrays are copied to the host.
    err_msg : str, optional
        Printed with the failure.
    verbose : bool, optional
        Whether the conflicting values are shown.
    strict : bool, optional
        Also require equal shapes and dtypes.

    Raises
    ------
    AssertionError
        If shapes or values differ.
    """
    numpy.testing.assert_array_equal(to_host(x), to_host(y), err_msg=err_msg, verbose=verbose,
                                     strict=strict)


def assert_array_almost_equal(x, y, decimal=6, err_msg="", verbose=True):
    """Raise AssertionError unless ``abs(y - x) < 1.5 * 10**(-decimal)`` elementwise.

    Parameters
    ----------
    x, y : asnumpy.ndarray, numpy.ndarray, scalar or sequence
        The values to compare; asnumpy arrays are copied to the host.
    decimal : int, optional
        Number of decimals that must agree.
    err_msg : str, optional
        Printed with the failure.
    verbose : bool, optional
        Whether the conflicting values are shown.

    Raises
    ------
    AssertionError
        If shapes differ or the values are not almost equal.
    """
    numpy.testing.assert_array_almost_equal(to_host(x), to_host(y), decimal=decimal,
                                            err_msg=err_msg, verbose=verbose)


def assert_array_less(x, y, err_msg="", verbose=True, *, strict=False):
    """Raise AssertionError unless ``x < y`` elementwise.

    Parameters
    ----------
    x, y : asnumpy.ndarray, numpy.ndarray, scalar or sequence
        The values to compare; asnumpy arrays are copied to the host.
    err_msg : str, optional
        Printed with the failure.
    verbose : bool, optional
        Whether the conflicting values are shown.
    strict : bool, optional
        Also require equal shapes and dtypes.

    Raises
    ------
    AssertionError
        If some element of ``x`` is not less than the one of ``y``.
    """
    numpy.testing.assert_array_less(to_host(x), to_host(y), err_msg=err_msg, verbose=verbose,
                                    strict=strict)


def assert_array_almost_equal_nulp(x, y, nulp=1):
    """Raise AssertionError unless ``x`` and ``y`` are within ``nulp`` units in the last place.

    Parameters
    ----------
    x, y : asnumpy.ndarray, numpy.ndarray or scalar
        Floating-point values; asnumpy arrays are copied to the host.
    nulp : int, optional
        Maximum number of units in the last place, relative to the larger
        magnitude of the pair.

    Raises
    ------
    AssertionError
        If some pair is further apart.
    """
    numpy.testing.assert_array_almost_equal_nulp(to_host(x), to_host(y), nulp=nulp)


def assert_array_max_ulp(a, b, maxulp=1, dtype=None):
    """Raise AssertionError unless ``a`` and ``b`` differ by at most ``maxulp`` ULPs.

    Parameters
    ----------
    a, b : asnumpy.ndarray, numpy.ndarray or scalar
        Floating-point values; asnumpy arrays are copied to the host.
    maxulp : int, optional
        Maximum number of units in the last place.
    dtype : data-type, optional
        The dtype to compare in.

    Returns
    -------
    numpy.ndarray
        The ULP differences.

    Raises
    ------
    AssertionError
        If some pair differs by more.
    """
    return numpy.testing.assert_array_max_ulp(to_host(a), to_host(b), maxulp=maxulp, dtype=dtype)


def assert_array_list_equal(xlist, ylist, err_msg="", verbose=True):
    """Raise AssertionError unless two sequences of arrays are equal pairwise.

    Parameters
    ----------
    xlist, ylist : sequence of array_like
        Sequences of asnumpy arrays, NumPy arrays or scalars.
    err_msg : str, optional
        Printed with the failure.
    verbose : bool, optional
        Whether the conflicting values are shown.

    Raises
    ------
    AssertionError
        If the lengths differ or any pair differs.
    """
    if len(xlist) != len(ylist):
        raise AssertionError(f"List size is different: {len(xlist)} != {len(ylist)}")
    for index, (x, y) in enumerate(zip(xlist, ylist)):
        assert_array_equal(x, y, err_msg=f"{err_msg}\nat index {index}".lstrip("\n"),
                           verbose=verbose)
