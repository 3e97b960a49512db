"""Shared fixtures: every test starts with the default device current."""

import gc
import zlib

import numpy as np
import pytest

import asnumpy as ap


@pytest.fixture
def pool():
    """The default device's pool, with limit and caching restored afterwards."""
    pool = ap.get_default_memory_pool()
    gc.collect()
    limit, enabled = pool.get_limit(), pool.enabled
    yield pool
    pool.set_limit(size=limit)
    pool.set_enabled(enabled)
    gc.collect()


@pytest.fixture
def on_cpu():
    """Make cpu:0 current, for tests of the cpu device itself (whatever $ASNUMPY_DEVICE says)."""
    with ap.Device("cpu:0"):
        yield


@pytest.fixture
def rng(request):
    """A generator seeded from the test's id: fresh data per test, and failures reproduce."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
