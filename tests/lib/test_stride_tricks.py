"""asnumpy.lib.stride_tricks: as_strided and sliding_window_view, differential against NumPy."""

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import testing

from _inputs import random_data

_WINDOWS = [((2,), {"axis": 1}), ((2, 3, 2), {}), (3, {"axis": 0}), ((2, 2), {"axis": (1, 0)}),
            ((2, 2), {"axis": (1, 1)}), ((1, 1, 1), {}), (0, {"axis": -1})]


def _xp_stride_tricks(xp):
    return np.lib.stride_tricks if xp is np else ap.lib.stride_tricks


@pytest.fixture
def host(rng):
    return random_data(rng, (4, 5, 3), np.float32)


@pytest.mark.parametrize("window, kwargs", _WINDOWS, ids=str)
def test_sliding_window_view_matches_numpy(host, window, kwargs):
    @testing.numpy_asnumpy_array_equal(strides_check="exact", device_check=True)
    def check(xp):
        return _xp_stride_tricks(xp).sliding_window_view(xp.asarray(host)[:, ::-1], window,
                                                         **kwargs)

    check()


@pytest.mark.parametrize("window, kwargs", [((6,), {"axis": 1}), ((2, 2), {}), (-1, {"axis": 0}),
                                            ((2,), {"axis": (0, 1)}), (2, {"axis": 3})], ids=str)
def test_sliding_window_view_errors_match_numpy(host, window, kwargs):
    @testing.numpy_asnumpy_array_equal(accept_error=(ValueError, np.exceptions.AxisError))
    def check(xp):
        return _xp_stride_tricks(xp).sliding_window_view(xp.asarray(host), window, **kwargs)

    check()


def test_sliding_window_view_is_a_read_only_view_unless_asked(host):
    a = ap.asarray(host)
    windows = ap.lib.stride_tricks.sliding_window_view(a, 2, axis=0)
    assert not windows.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        windows[0, 0, 0, 0] = 1
    writable = ap.lib.stride_tricks.sliding_window_view(a, 2, axis=0, writeable=True)
    writable[1, 0, 0, 0] = 7
    assert a[1, 0, 0] == 7


@pytest.mark.parametrize("shape, strides",
                         [((3, 3), (8, 4)), ((2, 2, 2), (0, 24, 4)), ((0, 7), (4, 4))],
                         ids=str)
def test_as_strided_matches_numpy(rng, shape, strides):
    host = random_data(rng, (6, 4), np.int32)

    @testing.numpy_asnumpy_array_equal(strides_check="exact", device_check=True)
    def check(xp):
        return _xp_stride_tricks(xp).as_strided(xp.asarray(host)[1:], shape, strides)

    check()


def test_as_strided_refuses_to_reach_outside_the_memory(rng):
    a = ap.asarray(random_data(rng, (4, 5), np.float64))
    tricks = ap.lib.stride_tricks
    for shape, strides, view in (((10, 10), (80, 8), a), ((2,), (-8,), a), ((5,), (8,), a[3, 1:])):
        with pytest.raises(ValueError, match="outside the array's memory"):
            tricks.as_strided(view, shape, strides)
    assert not tricks.as_strided(a, writeable=False).flags.writeable


def test_numpy_stride_tricks_dispatch_to_asnumpy(host):
    windows = np.lib.stride_tricks.sliding_window_view(ap.asarray(host), 3, axis=1)
    assert isinstance(windows, ap.ndarray)
    testing.assert_array_equal(windows, np.lib.stride_tricks.sliding_window_view(host, 3, axis=1))
