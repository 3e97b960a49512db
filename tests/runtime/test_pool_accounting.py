"""The pool's books balance: ``used_bytes``, ``free_bytes``, ``n_free_blocks`` and
``total_bytes`` after every step of random allocate/free sequences, with cached
blocks reused by the same stream, by another stream, and after a stream ends.

Each step checks the counters against a model of what is live and cached
(sizes by ``round_size``), so a counter that one path forgets to move is
caught at the step that forgets it.
"""

import gc
import threading

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.runtime.memory import round_size

pytestmark = pytest.mark.usefixtures("on_cpu")

SIZES = [700, 4096, 100_000, 1_500_000]


@pytest.fixture
def clean_pool(pool):
    pool.set_enabled(True)
    gc.collect()
    pool.free_all_blocks()
    return pool


def _books(pool, used0):
    """(used above the baseline, free, blocks) with total == used + free checked."""
    used, free = pool.used_bytes(), pool.free_bytes()
    assert pool.total_bytes() == used + free
    return used - used0, free, pool.n_free_blocks()


def test_random_sequences_balance_at_every_step(clean_pool, rng):
    pool = clean_pool
    used0 = pool.used_bytes()
    live, cached = [], {}
    for _ in range(120):
        if live and rng.random() < 0.45:
            array = live.pop(int(rng.integers(len(live))))
            size = round_size(array.nbytes)
            del array
            cached[size] = cached.get(size, 0) + 1
        else:
            nbytes = int(rng.choice(SIZES)) - int(rng.integers(0, 64))
            size = round_size(nbytes)
            live.append(ap.ndarray((nbytes,), np.uint8))
            if cached.get(size):
                cached[size] -= 1
        want = (sum(round_size(a.nbytes) for a in live),
                sum(s * n for s, n in cached.items()), sum(cached.values()))
        assert _books(pool, used0) == want
    del live
    pool.free_all_blocks()
    assert _books(pool, used0) == (0, 0, 0)


def test_a_block_cached_by_a_finished_stream_is_reused_and_counted(clean_pool):
    pool = clean_pool
    used0 = pool.used_bytes()
    stream = ap.Stream()
    with stream:
        a = ap.ndarray((3_000_000,), np.uint8)
    stream.synchronize()
    size = round_size(3_000_000)
    del a
    gc.collect()
    assert _books(pool, used0) == (0, size, 1)
    b = ap.ndarray((3_000_000,), np.uint8)         # the default stream takes it
    assert _books(pool, used0) == (size, 0, 0)
    del b
    assert _books(pool, used0) == (0, size, 1)


def test_a_block_cached_by_one_user_stream_is_reused_by_another(clean_pool):
    pool = clean_pool
    used0 = pool.used_bytes()
    first, second = ap.Stream(), ap.Stream()
    size = round_size(2_000_000)
    with first:
        a = ap.ndarray((2_000_000,), np.uint8)
    first.synchronize()
    del a
    gc.collect()
    assert _books(pool, used0) == (0, size, 1)
    with second:
        b = ap.ndarray((2_000_000,), np.uint8)
    assert _books(pool, used0)[0] == size
    used, free, blocks = _books(pool, used0)
    assert (free, blocks) in ((0, 0), (size, 1))   # reused, or a fresh block beside it
    assert pool.total_bytes() - pool.used_bytes() == free
    del b
    second.synchronize()
    gc.collect()
    pool.free_all_blocks()
    assert _books(pool, used0) == (0, 0, 0)


def test_a_pending_stream_keeps_its_block_and_the_books_stay_right(clean_pool):
    pool = clean_pool
    used0 = pool.used_bytes()
    stream = ap.Stream()
    gate = threading.Event()
    with stream:
        a = ap.ndarray((1_200_000,), np.uint8)
    stream.launch(gate.wait)
    del a
    gc.collect()
    size = round_size(1_200_000)
    b = ap.ndarray((1_200_000,), np.uint8)     # the stream is busy: a fresh block
    used, free, blocks = _books(pool, used0)
    assert used == size and free == blocks * size
    gate.set()
    stream.synchronize()
    del b
    gc.collect()
    pool.free_all_blocks()
    assert _books(pool, used0) == (0, 0, 0)


def test_limit_counts_cached_blocks_and_free_all_blocks_resets(clean_pool):
    pool = clean_pool
    used0 = pool.used_bytes()
    blocks = [ap.ndarray((n,), np.uint8) for n in SIZES]
    total = sum(round_size(n) for n in SIZES)
    assert _books(pool, used0) == (total, 0, 0)
    del blocks
    assert _books(pool, used0) == (0, total, len(SIZES))
    again = [ap.ndarray((n,), np.uint8) for n in SIZES[::-1]]
    assert _books(pool, used0) == (total, 0, 0)
    del again
    pool.free_all_blocks()
    assert _books(pool, used0) == (0, 0, 0)


def test_reservations_balance_with_blocks(clean_pool):
    pool = clean_pool
    used0 = pool.used_bytes()
    a = ap.ndarray((100_000,), np.uint8)
    size = round_size(100_000)
    with pool.reserve(5_000):
        assert _books(pool, used0) == (size + 5_000, 0, 0)
        del a
        assert _books(pool, used0) == (5_000, size, 1)
    assert _books(pool, used0) == (0, size, 1)
    pool.reserve(777).release()
    assert _books(pool, used0) == (0, size, 1)


@pytest.mark.parametrize("nbytes", [600, 70_000, 1_100_000, 5_000_000])
def test_blocks_of_ended_streams_pass_between_streams_and_the_default(clean_pool, nbytes):
    pool = clean_pool
    used0 = pool.used_bytes()
    size = round_size(nbytes)
    for round_ in range(3):
        stream = ap.Stream()
        with stream:
            a = ap.ndarray((nbytes,), np.uint8)
        stream.synchronize()
        del a
        gc.collect()
        assert _books(pool, used0) == (0, size, 1), round_
        b = ap.ndarray((nbytes,), np.uint8)    # the default stream's, from the cache
        assert _books(pool, used0) == (size, 0, 0), round_
        del b
        assert _books(pool, used0) == (0, size, 1), round_
