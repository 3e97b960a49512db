"""Shared fixtures: every test starts with the default device current."""

import gc
import os
import zlib

# SciPy reads this once, when it is first imported: its functions then accept
# any Array API namespace (asnumpy's included) instead of converting to NumPy.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402 (after the environment it reads)
import pytest  # noqa: E402

import asnumpy as ap  # noqa: E402


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
