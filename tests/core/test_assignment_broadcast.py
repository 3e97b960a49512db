"""NumPy's assignment rule, written once (``_core/_layout.assignable_shape``), against NumPy.

A value is copied into an array when its shape, less leading axes of length
1 beyond the target's, broadcasts to the target's: ``a[...] = v``,
``a[key] = v``, ``full``, ``full_like``, ``copyto``.  A value that does not
fit raises NumPy's ValueError with NumPy's message (after ``asnumpy.<func>: ``
where asnumpy names the function).
"""

import re

import numpy
import pytest

import asnumpy


def _setitem(key):
    def call(xp, target_shape, value):
        target = xp.zeros(target_shape)
        target[key] = value
        return target
    return call


CALLS = {      # name -> (xp, target shape, value) -> the result
    "setitem ...": _setitem(...),
    "setitem slice": _setitem(slice(None)),
    "full": lambda xp, shape, value: xp.full(shape, value),
    "full_like": lambda xp, shape, value: xp.full_like(xp.zeros(shape), value),
    "copyto": lambda xp, shape, value: (lambda out: (xp.copyto(out, value), out)[1])(
        xp.zeros(shape)),
}

SHAPES = [     # (target shape, value shape): fits, or NumPy's ValueError
    ((2, 3), (3,)), ((2, 3), (1, 3)), ((2, 3), (2, 1)), ((2, 3), (1, 1, 2, 3)),
    ((2, 3), ()), ((), (1,)), ((), (1, 1)),
    ((2, 3), (4,)), ((2, 3), (3, 3)), ((2, 3), (1, 2, 2, 3)), ((2, 3), (2, 2, 3)),
    ((), (3,)), ((0, 3), (2, 3)), ((2, 0), (2, 1)),
]


def _outcome(call):
    try:
        return call(), None
    except (ValueError, IndexError) as error:        # IndexError: a slice of a 0-d array
        return None, error


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize(("target", "source"), SHAPES)
@pytest.mark.parametrize("where", ["device", "host"])
def test_assignment_follows_numpys_rule(name, target, source, where):
    call = CALLS[name]
    value = numpy.arange(1, 1 + numpy.prod(source, dtype=int), dtype=float).reshape(source)
    ours = asnumpy.asarray(value) if where == "device" else value
    expected, numpy_error = _outcome(lambda: call(numpy, target, value))
    result, error = _outcome(lambda: call(asnumpy, target, ours))
    if numpy_error is None:
        assert error is None, error
        numpy.testing.assert_array_equal(result.get(), expected)
    else:
        assert error is not None, f"asnumpy accepted what NumPy refuses: {numpy_error}"
        assert type(error) is type(numpy_error)
        assert re.fullmatch(r"(asnumpy\.[\w.]+: )?" + re.escape(str(numpy_error)),
                            str(error)), (error, numpy_error)
