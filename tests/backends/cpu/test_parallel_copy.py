"""Large cpu copies split across threads must equal a single numpy.copyto."""

import numpy as np
import pytest

from asnumpy.backends.cpu import parallel

N = (parallel.PARALLEL_MIN_BYTES // 8) * 3    # float64 elements: enough to split


def _source(shape, rng):
    return rng.standard_normal(shape)


@pytest.mark.parametrize("make_pair", [
    lambda rng: (np.empty(N), _source(N, rng)),
    lambda rng: (np.empty((N // 4, 4)), _source((N // 4, 4), rng)[::-1]),
    lambda rng: (np.empty((4, N // 4)).T, _source((N // 4, 4), rng)),
    lambda rng: (np.empty(N, np.float32), _source(N, rng)),              # casting
    lambda rng: (np.empty((N // 8, 8)), _source(8, rng)),                # broadcast
    lambda rng: (np.empty(N), _source((1, 1, N), rng)),                  # extra leading 1s
], ids=["contiguous", "negative-stride", "transposed", "cast", "broadcast", "leading-ones"])
def test_split_copy_equals_numpy(rng, make_pair):
    dst, src = make_pair(rng)
    expected = np.empty_like(dst)
    np.copyto(expected, src, casting="unsafe")
    parallel.copyto(dst, src)
    np.testing.assert_array_equal(dst, expected)


def test_overlapping_copy_is_not_split(rng):
    data = rng.standard_normal(N + 1)
    expected = data.copy()
    expected[1:] = expected[:-1].copy()
    parallel.copyto(data[1:], data[:-1])
    np.testing.assert_array_equal(data, expected)


def test_bad_broadcast_raises_numpys_error():
    with pytest.raises(ValueError):
        parallel.copyto(np.empty(N), np.ones((2, N)))


def test_thread_count_is_settable(rng):
    before = parallel.thread_count()
    try:
        parallel.set_thread_count(1)
        dst, src = np.empty(N), rng.standard_normal(N)
        parallel.copyto(dst, src)
        np.testing.assert_array_equal(dst, src)
        with pytest.raises(ValueError, match="at least 1"):
            parallel.set_thread_count(0)
    finally:
        parallel.set_thread_count(before)
