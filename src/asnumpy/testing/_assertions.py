"""NumPy's general assertions (``assert_equal``, ``assert_almost_equal`` ...) and
AsNumpy's exception assertions, accepting asnumpy arrays anywhere in the values.

Asnumpy arrays (also inside lists, tuples and dicts) are copied to the host
and NumPy's own ``numpy.testing`` function decides, with all its options
(``strict=`` where NumPy has it).
"""

from __future__ import annotations

import numpy

from ._compare import to_host

__all__ = ["assert_", "assert_equal", "assert_almost_equal", "assert_approx_equal",
           "assert_string_equal", "assert_raises", "assert_raises_regex"]

assert_ = numpy.testing.assert_
assert_string_equal = numpy.testing.assert_string_equal
assert_raises = numpy.testing.assert_raises
assert_raises_regex = numpy.testing.assert_raises_regex


def assert_equal(actual, desired, err_msg="", verbose=True, *, strict=False):
    """Raise AssertionError unless two objects are equal (``numpy.testing.assert_equal``).

    Parameters
    ----------
    actual, desired : object
        Arrays of either kind, scalars, or lists, tuples and dicts of them.
    err_msg : str, optional
    verbose : bool, optional
    strict : bool, optional
        Also require equal shapes and dtypes of arrays (no scalar broadcasting).
    """
    numpy.testing.assert_equal(to_host(actual), to_host(desired), err_msg=err_msg,
                               verbose=verbose, strict=strict)


def assert_almost_equal(actual, desired, decimal=7, err_msg="", verbose=True):
    """Raise AssertionError unless ``abs(desired - actual) < 1.5 * 10**(-decimal)``
    (``numpy.testing.assert_almost_equal``); asnumpy arrays are copied to the host."""
    numpy.testing.assert_almost_equal(to_host(actual), to_host(desired), decimal=decimal,
                                      err_msg=err_msg, verbose=verbose)


def assert_approx_equal(actual, desired, significant=7, err_msg="", verbose=True):
    """Raise AssertionError unless two scalars agree to ``significant`` digits
    (``numpy.testing.assert_approx_equal``); 0-d asnumpy arrays are accepted."""
    numpy.testing.assert_approx_equal(to_host(actual), to_host(desired),
                                      significant=significant, err_msg=err_msg,
                                      verbose=verbose)
