"""Shared fixtures: every test starts with the default device current."""

import gc
import os
import sys
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


def _real_cuda_driver_loads() -> bool:
    """Whether cuda-core finds a GPU here (then the cuda tests run on it, unchanged)."""
    if os.environ.get("ASNUMPY_CUDA_DRIVER"):
        return False
    try:
        from asnumpy.backends.cuda.driver import CudaCoreDriver

        CudaCoreDriver()
    except Exception:
        return False
    return True


@pytest.fixture(scope="module")
def cuda():
    """``cuda:0``: a real GPU when one is usable, else the emulated driver.

    Driver-parametrised: the same tests run on ``tests/_cuda_emulator.py`` in
    CI and on a GPU unchanged.  With the emulator the device registry's cuda
    entries are dropped afterwards, so each module gets a fresh driver.
    """
    from _cuda_host import compiler

    emulated = not _real_cuda_driver_loads()
    if emulated and compiler() is None:
        pytest.skip("no GPU and no C++ compiler for the emulated cuda driver")
    pytest.importorskip("asnumpy.backends.cuda.scalar_ops")
    from asnumpy.runtime import device as device_registry

    saved = os.environ.get("ASNUMPY_CUDA_DRIVER")
    if emulated:
        sys.path.insert(0, os.path.dirname(__file__))
        os.environ["ASNUMPY_CUDA_DRIVER"] = saved or "_cuda_emulator:Driver"
        device_registry._kinds_missing.pop("cuda", None)
    try:
        yield ap.Device("cuda:0")
    finally:
        if emulated:
            for name in [n for n in device_registry._devices if n.startswith("cuda")]:
                del device_registry._devices[name]
            device_registry._kinds_loaded.discard("cuda")
            if saved is None:
                os.environ.pop("ASNUMPY_CUDA_DRIVER")
            else:
                os.environ["ASNUMPY_CUDA_DRIVER"] = saved


@pytest.fixture
def emulated_driver(cuda):
    """The emulated driver behind ``cuda`` (tests of emulator-only hooks skip on a GPU)."""
    driver = cuda.backend.driver
    if not hasattr(driver, "launches"):
        pytest.skip("needs the emulated driver's instrumentation")
    return driver
