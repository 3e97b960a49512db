"""Index arrays at the bounds: ``-len-1`` and ``len`` raise IndexError as in NumPy,
``-len`` and ``len-1`` are valid; 1-D and along an axis, for ``a[idx]``,
``a[idx] = v``, ``take`` (each ``mode=``) and ``put``.
"""

import numpy as np
import pytest

import asnumpy as ap

SHAPES = [(7,), (4, 5), (3, 6, 2)]


def _edges(n):
    return {"first": [-n], "last": [n - 1], "both": [-n, n - 1, 0, -1]}


def _bad(n):
    return {"low": [-n - 1], "high": [n], "high-among-valid": [0, n - 1, n]}


def _source(rng, shape):
    return rng.integers(-100, 100, shape).astype(np.int64)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_valid_edges_of_a_getitem_and_take(rng, shape):
    a = _source(rng, shape)
    d = ap.asarray(a)
    for axis in range(a.ndim):
        n = a.shape[axis]
        for idx in _edges(n).values():
            index = np.array(idx)
            key = (slice(None),) * axis + (ap.asarray(index),)
            np.testing.assert_array_equal(ap.asnumpy(d[key]), a[(slice(None),) * axis + (index,)])
            np.testing.assert_array_equal(ap.asnumpy(ap.take(d, ap.asarray(index), axis=axis)),
                                          np.take(a, index, axis=axis))
    flat = _edges(a.size)["both"]
    np.testing.assert_array_equal(ap.asnumpy(ap.take(d, ap.asarray(flat))), np.take(a, flat))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_out_of_bounds_edges_raise_index_error(rng, shape):
    a = _source(rng, shape)
    d = ap.asarray(a)
    for axis in range(a.ndim):
        n = a.shape[axis]
        for idx in _bad(n).values():
            index = np.array(idx)
            prefix = (slice(None),) * axis
            with pytest.raises(IndexError):
                a[prefix + (index,)]
            with pytest.raises(IndexError):
                d[prefix + (ap.asarray(index),)]
            with pytest.raises(IndexError):
                d[prefix + (ap.asarray(index),)] = 1
            with pytest.raises(IndexError):
                ap.take(d, ap.asarray(index), axis=axis)
    for idx in _bad(a.size).values():
        with pytest.raises(IndexError):
            ap.take(d, ap.asarray(idx))
        with pytest.raises(IndexError):
            ap.put(ap.asarray(a), ap.asarray(idx), 5)
    np.testing.assert_array_equal(ap.asnumpy(d), a)       # a refused write writes nothing


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_setitem_and_put_at_the_valid_edges(rng, shape):
    a = _source(rng, shape)
    for axis in range(a.ndim):
        n = a.shape[axis]
        for idx in _edges(n).values():
            want, d = a.copy(), ap.asarray(a)
            key = (slice(None),) * axis + (np.array(idx),)
            want[key] = 999
            d[(slice(None),) * axis + (ap.asarray(np.array(idx)),)] = 999
            np.testing.assert_array_equal(ap.asnumpy(d), want)
    for idx in _edges(a.size).values():
        want, d = a.copy(), ap.asarray(a)
        values = rng.integers(0, 9, len(idx))
        np.put(want, idx, values)
        ap.put(d, ap.asarray(idx), ap.asarray(values))
        np.testing.assert_array_equal(ap.asnumpy(d), want)


@pytest.mark.parametrize("mode", ["clip", "wrap"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_take_modes_at_and_past_the_bounds(rng, shape, mode):
    a = _source(rng, shape)
    d = ap.asarray(a)
    for axis in range(a.ndim):
        n = a.shape[axis]
        index = np.array([-n - 1, -n, -1, 0, n - 1, n, n + 1, 3 * n])
        got = ap.take(d, ap.asarray(index), axis=axis, mode=mode)
        np.testing.assert_array_equal(ap.asnumpy(got), np.take(a, index, axis=axis, mode=mode))
    index = np.array([-a.size - 1, -a.size, a.size - 1, a.size])
    np.testing.assert_array_equal(ap.asnumpy(ap.take(d, ap.asarray(index), mode=mode)),
                                  np.take(a, index, mode=mode))
    want, dd = a.copy(), ap.asarray(a)
    np.put(want, index, [1, 2, 3, 4], mode=mode)
    ap.put(dd, ap.asarray(index), ap.asarray([1, 2, 3, 4]), mode=mode)
    np.testing.assert_array_equal(ap.asnumpy(dd), want)


def test_take_raise_mode_names_the_bound(rng):
    a = _source(rng, (5,))
    d = ap.asarray(a)
    np.testing.assert_array_equal(ap.asnumpy(ap.take(d, ap.asarray([-5, 4]), mode="raise")),
                                  np.take(a, [-5, 4], mode="raise"))
    for idx in ([-6], [5]):
        with pytest.raises(IndexError):
            ap.take(d, ap.asarray(idx), mode="raise")
