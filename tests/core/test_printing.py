"""Printing: array2string / array_repr / array_str take asnumpy arrays and every NumPy
keyword, print options are NumPy's own state, and the repr names a non-default device."""

import numpy
import pytest

import asnumpy


def pair(values, dtype=None):
    host = numpy.asarray(values, dtype=dtype)
    return host, asnumpy.asarray(host)


KEYWORDS = [
    {},
    {"precision": 2},
    {"separator": ", ", "prefix": "x = "},
    {"max_line_width": 20, "suppress_small": True},
    {"threshold": 5, "edgeitems": 1},
    {"sign": "+", "floatmode": "fixed"},
    {"formatter": {"float": lambda v: f"<{v:.1f}>"}},
    {"suffix": ")", "legacy": "1.25"},
]


@pytest.mark.parametrize("kwargs", KEYWORDS)
@pytest.mark.parametrize("values", [numpy.linspace(-1, 1, 12).reshape(3, 4) / 3,
                                    [1e-9, 1.0, 1e9], []])
def test_array2string_matches_numpy(values, kwargs):
    host, dev = pair(values)
    assert asnumpy.array2string(dev, **kwargs) == numpy.array2string(host, **kwargs)


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint64, numpy.float16,
                                   numpy.float32, numpy.complex64, numpy.complex128])
def test_repr_and_str_match_numpy_on_default_device(dtype):
    host, dev = pair(numpy.arange(-3, 3), dtype)
    assert repr(dev) == repr(host) == asnumpy.array_repr(dev)
    assert str(dev) == str(host) == asnumpy.array_str(dev)


def test_repr_names_a_non_default_device():
    a = asnumpy.arange(3.0, device="cpu:1")
    assert repr(a) == "array([0., 1., 2.], device='cpu:1')"
    assert asnumpy.array_repr(a, precision=1) == "array([0., 1., 2.], device='cpu:1')"
    assert asnumpy.array_str(a) == "[0. 1. 2.]"


@pytest.mark.parametrize("kwargs", [{"precision": 3}, {"max_line_width": 15},
                                    {"suppress_small": True}])
def test_array_repr_and_str_keywords(kwargs):
    host, dev = pair(numpy.array([1 / 3, 1e-12, 2 / 3, 5.0]))
    assert asnumpy.array_repr(dev, **kwargs) == numpy.array_repr(host, **kwargs)
    assert asnumpy.array_str(dev, **kwargs) == numpy.array_str(host, **kwargs)


def test_repr_of_non_contiguous_and_zero_d():
    host = numpy.arange(12.0).reshape(3, 4)[::-1, ::2]
    dev = asnumpy.asarray(numpy.arange(12.0).reshape(3, 4))[::-1, ::2]
    assert repr(dev) == repr(host)
    assert repr(asnumpy.asarray(2.5)) == repr(numpy.asarray(2.5))


def test_print_options_are_numpys_own_state():
    assert asnumpy.set_printoptions is numpy.set_printoptions
    assert asnumpy.get_printoptions is numpy.get_printoptions
    a = asnumpy.asarray([1 / 3, 2 / 3])
    with asnumpy.printoptions(precision=2):
        assert numpy.get_printoptions()["precision"] == 2
        assert repr(a) == "array([0.33, 0.67])"
    old = asnumpy.get_printoptions()
    try:
        numpy.set_printoptions(threshold=3, edgeitems=1)
        assert str(asnumpy.arange(10)) == "[0 ... 9]"
    finally:
        asnumpy.set_printoptions(**old)


def test_printing_functions_accept_numpy_arrays():
    host = numpy.arange(3)
    assert asnumpy.array_repr(host) == numpy.array_repr(host)
    assert asnumpy.array2string(host) == numpy.array2string(host)
    with pytest.raises(TypeError, match="asnumpy.array_str"):
        asnumpy.array_str([1, 2])


@pytest.mark.parametrize("func", ["format_float_positional", "format_float_scientific"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("kwargs", [{}, {"precision": 3}, {"unique": False, "precision": 5},
                                    {"sign": True}])
def test_format_float_takes_zero_d_arrays_in_their_dtype(func, dtype, kwargs):
    value = dtype(0.1)
    expected = getattr(numpy, func)(value, **kwargs)
    assert getattr(asnumpy, func)(asnumpy.asarray(value), **kwargs) == expected
    assert getattr(asnumpy, func)(value, **kwargs) == expected


def test_format_float_rejects_arrays():
    with pytest.raises(TypeError, match="asnumpy.format_float_positional"):
        asnumpy.format_float_positional(asnumpy.zeros(2))


def test_printing_inside_a_stream_block_sees_its_work():
    expected = numpy.arange(1000.0) * 2
    with asnumpy.Stream():
        a = asnumpy.arange(1000.0) * 2
        assert asnumpy.array_str(a) == numpy.array_str(expected)
        assert repr(a) == repr(expected)
        assert asnumpy.array2string(a) == numpy.array2string(expected)
