"""What the user-kernel test modules share: the devices they run on and moving data there.

Importing this module skips the importing test module when no C++ compiler
can build cpu kernels.
"""

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.cpu import compiler as _toolchain

try:
    _toolchain.compiler_command()
except _toolchain.CompilerNotFoundError:
    pytest.skip("no C++ compiler for cpu kernels", allow_module_level=True)


@pytest.fixture(scope="module", params=["cpu", "cuda"])
def dev(request):
    """cpu:0, then cuda:0 (a GPU, or the emulated driver)."""
    if request.param == "cpu":
        return ap.Device("cpu:0")
    return request.getfixturevalue("cuda")


def on(dev, value, dtype=None):
    """``value`` as an asnumpy array on ``dev``."""
    return ap.asarray(np.asarray(value, dtype=dtype), device=dev)
