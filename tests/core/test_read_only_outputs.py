"""A write into a read-only array raises NumPy's ValueError, naming asnumpy's function.

Every such check goes through ``asnumpy._errors.check_writeable`` (or its
``read_only_error``); NumPy raises ValueError for each case too, and
``a[key] = v`` has NumPy's message word for word.
"""

import numpy
import pytest

import asnumpy

CASES = {      # case -> (the call on a read-only array ``ro`` of shape (2, 3), the function named)
    "ufunc out": (lambda xp, ro: xp.add(ro, 1, out=ro), "add"),
    "reduce out": (lambda xp, ro: xp.add.reduce(xp.ones((2, 3)), axis=0, out=ro[0]),
                   "add.reduce"),
    "ufunc.at": (lambda xp, ro: xp.add.at(ro, [0], 1), "add.at"),
    "sum out": (lambda xp, ro: xp.sum(xp.ones((2, 3)), axis=0, out=ro[0]), "sum"),
    "cumsum out": (lambda xp, ro: xp.cumsum(xp.ones((2, 3)), axis=0, out=ro), "cumsum"),
    "clip out": (lambda xp, ro: xp.clip(xp.ones((2, 3)), 0, 1, out=ro), "clip"),
    "concatenate out": (lambda xp, ro: xp.concatenate([xp.ones((1, 3))] * 2, out=ro),
                        "concatenate"),
    "sort": (lambda xp, ro: ro.sort(), "ndarray.sort"),
    "partition": (lambda xp, ro: ro.partition(1), "ndarray.partition"),
    "setitem": (lambda xp, ro: ro.__setitem__(..., 1), None),      # NumPy's message exactly
    "advanced setitem": (lambda xp, ro: ro.__setitem__([0], 1), None),
    "fill": (lambda xp, ro: ro.fill(1), "ndarray.fill"),
    "fill_diagonal": (lambda xp, ro: xp.fill_diagonal(ro, 1), "fill_diagonal"),
    "put": (lambda xp, ro: xp.put(ro, [0], 1), "put"),
    "copyto": (lambda xp, ro: xp.copyto(ro, 1), "copyto"),
}


def _read_only(xp):
    array = xp.zeros((2, 3))
    array.flags.writeable = False
    return array


@pytest.mark.parametrize("case", CASES)
def test_read_only_target_raises_numpys_error_naming_the_function(case):
    call, func = CASES[case]
    with pytest.raises(ValueError, match="read-only") as expected:
        call(numpy, _read_only(numpy))
    named = "^" if func is None else rf"^asnumpy\.{func}: "
    with pytest.raises(ValueError, match=named + ".* is read-only$") as raised:
        call(asnumpy, _read_only(asnumpy))
    if func is None:
        assert str(raised.value) == str(expected.value)


def test_read_only_host_out_of_get():
    out = numpy.empty(3)
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"^asnumpy\.ndarray\.get: output array is read-only$"):
        asnumpy.arange(3.0).get(out=out)
