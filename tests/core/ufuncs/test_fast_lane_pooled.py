"""The fast lane's pooled results (``POOL_MIN_BYTES`` up to the thread split).

From 1 MiB of result on, the lane calls NumPy with ``out=`` a block of the
device's pool.  Non-commutative ops there (operands swapped would change the
values) run against NumPy and against the general path (an open stream block
turns the lane off).
"""

import numpy as np
import pytest

import asnumpy as ap
from asnumpy._core.ufuncs.fast import POOL_MIN_BYTES
from asnumpy.backends.cpu import math_kernels

pytestmark = [pytest.mark.cpu_default("the lane serves devices that run NumPy's loops (cpu)"),
              pytest.mark.usefixtures("on_cpu")]

_FLOATS = POOL_MIN_BYTES // 8                      # 131072 float64: the first pooled size


def _sizes(weight):
    """Pooled float64 sizes below the split for a ufunc of ``weight``.

    A heavy ufunc (power's weight is 16) splits before its result reaches
    ``POOL_MIN_BYTES``: its sizes straddle the split instead.
    """
    top = math_kernels.SPLIT_MIN_WORK // (8 * weight) - 1
    if top < _FLOATS:
        return [top, top + 1]
    return sorted({_FLOATS, _FLOATS + 7, (_FLOATS + top) // 2, top})


CASES = {
    "subtract": (lambda a, b: a - b, np.subtract, 1),
    "divide": (lambda a, b: a / b, np.divide, 1),
    "power": (lambda a, b: b ** a, None, 16),
    "ufunc-subtract": (lambda a, b: ap.subtract(a, b), np.subtract, 1),
    "ufunc-divide": (lambda a, b: ap.divide(b, a), None, 1),
    "ufunc-power": (lambda a, b: ap.power(a, b), np.power, 16),
}
SCALAR_CASES = {
    "3-x": (lambda a: 3 - a, 1),
    "x-3": (lambda a: a - 3, 1),
    "x/3": (lambda a: a / 3, 1),
    "3/x": (lambda a: 3.0 / a, 1),
    "2**x": (lambda a: 2.0 ** a, 16),
    "x**3": (lambda a: a ** 3.5, 16),
}


def _operands(rng, n):
    a = rng.uniform(0.5, 2.0, n)
    b = rng.uniform(2.5, 4.0, n)            # disjoint ranges: a swap changes every element
    return a, b


def _general(call):
    with ap.get_current_stream():
        return call()


def _check(got, want, general):
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(ap.asnumpy(got), want)
    np.testing.assert_array_equal(ap.asnumpy(got), ap.asnumpy(general))


@pytest.mark.parametrize("name", list(CASES))
def test_binary_pooled_results_keep_operand_order(rng, name):
    call, _, weight = CASES[name]
    for n in _sizes(weight):
        a, b = _operands(rng, n)
        da, db = ap.asarray(a), ap.asarray(b)
        got = call(da, db)
        _check(got, call(a, b), _general(lambda: call(da, db)))


@pytest.mark.parametrize("name", list(SCALAR_CASES))
def test_scalar_pooled_results_keep_operand_order(rng, name):
    call, weight = SCALAR_CASES[name]
    for n in _sizes(weight):
        a, _ = _operands(rng, n)
        da = ap.asarray(a)
        _check(call(da), call(a), _general(lambda: call(da)))


@pytest.mark.parametrize("shape", [(512, 256), (256, 1024)], ids=str)
def test_broadcast_pooled_results_keep_operand_order(rng, shape):
    a = rng.uniform(0.5, 2.0, shape)
    row = rng.uniform(2.5, 4.0, shape[-1])
    da, drow = ap.asarray(a), ap.asarray(row)
    for call in (lambda x, y: x - y, lambda x, y: y - x, lambda x, y: x / y, lambda x, y: y ** x):
        _check(call(da, drow), call(a, row), _general(lambda: call(da, drow)))


def test_the_sizes_are_pooled_and_under_the_split():
    assert _sizes(1)[0] * 8 >= POOL_MIN_BYTES
    assert _sizes(1)[-1] * 8 * 1 < math_kernels.SPLIT_MIN_WORK
    assert _sizes(1)[-1] * 8 * 2 >= math_kernels.SPLIT_MIN_WORK    # just under the split
