"""Fixtures of the npu tests: ``npu:0`` on CANN when it is installed, else on the strict emulator."""

import os

import pytest

import asnumpy as ap

EMULATOR_SPEC = "_npu_emulator:libraries"
# the suite's default device is npu (tests/conftest.py set the emulator up): keep its registry
NPU_SESSION = os.environ.get("ASNUMPY_DEVICE", "").strip().startswith("npu")


def real_cann() -> bool:
    """Whether these tests run on an installed CANN (then emulator-only checks skip)."""
    return (bool(os.environ.get("ASCEND_HOME_PATH"))
            and os.environ.get("ASNUMPY_NPU_LIBRARIES") is None)


def forget_npu():
    """Drop the registry's npu devices and the back end, so the next use builds them anew."""
    import asnumpy.backends.npu as package
    from asnumpy.runtime import device as registry

    for name in [n for n in registry._devices if n.startswith("npu")]:
        del registry._devices[name]
    registry._kinds_loaded.discard("npu")
    registry._kinds_missing.pop("npu", None)
    package.__dict__.pop("BACKEND", None)


@pytest.fixture(scope="module")
def npu():
    """``npu:0``: CANN's when installed, else the emulator's (fresh for each module)."""
    saved = os.environ.get("ASNUMPY_NPU_LIBRARIES")
    emulated = not real_cann()
    if emulated and not NPU_SESSION:
        os.environ["ASNUMPY_NPU_LIBRARIES"] = EMULATOR_SPEC
        forget_npu()
    try:
        yield ap.Device("npu:0")
    finally:
        if emulated and not NPU_SESSION:
            forget_npu()
            if saved is None:
                os.environ.pop("ASNUMPY_NPU_LIBRARIES", None)
            else:
                os.environ["ASNUMPY_NPU_LIBRARIES"] = saved


@pytest.fixture
def on_npu(npu):
    """``npu:0`` current for the test (differential bodies make their arrays there)."""
    with npu:
        yield npu


@pytest.fixture
def emulator(npu):
    """The emulator behind ``npu`` (tests of emulator-only rules skip on hardware)."""
    if real_cann():
        pytest.skip("needs the emulated CANN libraries")
    import _npu_emulator

    return _npu_emulator.EMULATOR
