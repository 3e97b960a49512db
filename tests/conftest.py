"""Shared fixtures: every test starts with the default device current."""

import gc
import os
import sys
import zlib

# SciPy reads this once, when it is first imported: its functions then accept
# any Array API namespace (asnumpy's included) instead of converting to NumPy.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
# The cpu back end's thresholds are its documented defaults in tests, not this machine's
# measurements (which vary with the load): the same paths on every run and machine, and
# no test touches the user's calibration cache.  tests/backends/cpu/test_calibration.py
# calibrates in temporary directories; ASNUMPY_CALIBRATION=on runs the suite calibrated.
os.environ.setdefault("ASNUMPY_CALIBRATION", "off")

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


def flat_id(nodeid: str) -> str:
    """``nodeid`` as it read when every test file sat at ``tests/`` (basenames are unique).

    The seeds of ``rng`` and the cases ``--sample-cases`` keeps hash this id, not the
    node id itself: moving a file between the folders under ``tests/`` changes neither
    a test's data nor which of its cases the cuda step of ``.ci/run`` runs.
    """
    path, sep, rest = nodeid.partition("::")
    return f"tests/{os.path.basename(path)}{sep}{rest}"


@pytest.fixture
def rng(request):
    """A generator seeded from the test's id: fresh data per test, and failures reproduce."""
    return np.random.default_rng(zlib.crc32(flat_id(request.node.nodeid).encode()))


@pytest.fixture(autouse=True)
def _seeded_numpy_random(request):
    """Seed NumPy's global random state from the test's id, as ``rng`` is seeded.

    Differential bodies draw from ``numpy.random``'s global state (the harness
    gives both runs the same state); without this that state comes from OS
    entropy at import and from every earlier test, so a failure would neither
    reproduce nor stay put.  ``testing.with_seed`` still reseeds inside.
    """
    state = np.random.get_state()
    np.random.seed(zlib.crc32(flat_id(request.node.nodeid).encode()))
    yield
    np.random.set_state(state)


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


# ``ASNUMPY_DEVICE=cuda:N python -m pytest`` runs the whole suite with a cuda device as the
# default: on a GPU when one loads, else on the emulated driver (set up here, before any test
# asks for the default device; subprocesses that tests start find it through PYTHONPATH).
CUDA_SESSION = os.environ.get("ASNUMPY_DEVICE", "").strip().startswith("cuda")
if CUDA_SESSION and not _real_cuda_driver_loads():
    from _cuda_host import compiler as _compiler

    if _compiler() is None:
        raise pytest.UsageError("ASNUMPY_DEVICE=cuda: no GPU, and no C++ compiler "
                                "(g++ or $CXX) for the emulated cuda driver")
    _TESTS = os.path.dirname(os.path.abspath(__file__))
    os.environ.setdefault("ASNUMPY_CUDA_DRIVER", "_cuda_emulator:Driver")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (_TESTS, os.environ.get("PYTHONPATH")) if p)

# ``ASNUMPY_DEVICE=npu:N``: the same on the strict emulation of CANN's libraries
# (tests/_npu_emulator.py) unless a CANN toolkit is installed (ASCEND_HOME_PATH).
NPU_SESSION = os.environ.get("ASNUMPY_DEVICE", "").strip().startswith("npu")
if NPU_SESSION and not os.environ.get("ASCEND_HOME_PATH"):
    _TESTS = os.path.dirname(os.path.abspath(__file__))
    os.environ.setdefault("ASNUMPY_NPU_LIBRARIES", "_npu_emulator:libraries")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (_TESTS, os.environ.get("PYTHONPATH")) if p)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "cpu_default(reason): the test is meaningless when the default device is "
        "cuda (ASNUMPY_DEVICE=cuda:N); it skips there, giving the reason")


def pytest_addoption(parser):
    parser.addoption(
        "--sample-cases", type=int, default=0, metavar="K",
        help="run at most K parametrized cases of each test function: the K whose ids have "
             "the smallest crc32, a choice stable across runs (the cuda step of .ci/run)")


def pytest_collection_modifyitems(config, items):
    budget = config.getoption("--sample-cases")
    if budget <= 0:
        return
    cases: dict[str, list] = {}
    for item in items:
        cases.setdefault(item.nodeid.partition("[")[0], []).append(item)
    kept = set()
    for group in cases.values():
        group.sort(key=lambda item: zlib.crc32(flat_id(item.nodeid).encode()))
        kept.update(id(item) for item in group[:budget])
    config.hook.pytest_deselected(items=[item for item in items if id(item) not in kept])
    items[:] = [item for item in items if id(item) in kept]


# user kernels and fusion compile C++ for a target; npu has none (docs/npu.md)
_NO_NPU_TARGET = ("tests/extension/", "tests/profiler/test_profile_kernels.py",
                  "tests/interop/test_dask_backend.py::test_map_blocks_with_a_user_kernel",
                  # a fused record / a FusionFallbackWarning: fuse runs op by op on npu, silently
                  "tests/profiler/test_profile.py::test_nothing_escapes",
                  "tests/project/test_habits.py::"
                  "test_fuse_fallback_warning_points_at_the_users_line")


def pytest_runtest_setup(item):
    if NPU_SESSION and any(part in item.nodeid for part in _NO_NPU_TARGET):
        pytest.skip("meaningless with ASNUMPY_DEVICE=npu: user kernels and fusion have no npu "
                    "target (no Ascend C compiler is bound)")
    marker = item.get_closest_marker("cpu_default")
    if marker is not None and (CUDA_SESSION or NPU_SESSION):
        reason = marker.args[0] if marker.args else marker.kwargs["reason"]
        kind = "cuda" if CUDA_SESSION else "npu"
        pytest.skip(f"meaningless with ASNUMPY_DEVICE={kind}: {reason}")


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
        # the registry stays when cuda is the session's default device (it holds that one)
        if emulated and not CUDA_SESSION:
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
