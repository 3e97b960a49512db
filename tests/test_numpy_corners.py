"""NumPy's corners (issue 24, items 11-21): each a case asnumpy once got wrong.

Differential tests: each body runs with ``xp=numpy`` and ``xp=asnumpy`` and
the results (values, dtypes, shapes, layouts where asked; errors where NumPy
raises) must agree. Each test is named after the item it holds.
"""

import numpy
import pytest

import asnumpy
from asnumpy import testing


def same_as_numpy(**kwargs):
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def raises_as_numpy(error):
    return testing.numpy_asnumpy_array_equal(accept_error=error)


# -- item 12: comparisons with an object of its own ``__eq__`` ---------------------------------

class _Even:
    """Answers ``==`` True for even numbers (and ``!=`` for odd ones)."""

    def __eq__(self, other):
        return other % 2 == 0

    def __ne__(self, other):
        return other % 2 != 0

    __hash__ = None


class _Three:
    """Ordered against numbers as the number 3 is."""

    def __lt__(self, other):
        return other < 3

    def __gt__(self, other):
        return other > 3

    def __le__(self, other):
        return other <= 3

    def __ge__(self, other):
        return other >= 3


class _Always:
    """Equal to everything: NumPy's object loop answers True per element."""

    def __eq__(self, other):
        return True

    __hash__ = None


@same_as_numpy()
def test_item12_comparisons_defer_to_the_objects_own_methods(xp):
    a = xp.asarray([1, 2, 3, 4])
    return (a == _Even(), a != _Even(), a < _Three(), a <= _Three(), a > _Three(),
            a >= _Three(), a == _Always(), a != _Always(), a == [None, 2, 3, 0],
            xp.asarray(2) == _Even())
