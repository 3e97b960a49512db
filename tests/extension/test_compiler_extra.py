"""The ``asnumpy[compiler]`` extra: zig's clang builds cpu kernels where there is no g++.

The kernels themselves run through the extra in CI's step that hides the system
compiler (``.ci/without-system-cxx``); here, what does not need that step:
discovery falls back to the wheel, zig's cache is private, and the preludes
compile next to the C23 math declarations zig's bundled glibc headers make.
"""

import ctypes
import importlib.util
import os
import shutil
import stat
import sys
import uuid

import numpy as np
import pytest

from asnumpy.backends.cpu import compiler as _toolchain
from asnumpy.backends.cpu.programs import TARGET as _HOST
from asnumpy.extension import CompilerNotFoundError

_ZIG = (sys.executable, "-m", "ziglang", "c++")


def _system_compiler() -> bool:
    return any(shutil.which(name) for name in _toolchain._CANDIDATES)


def _compiler() -> bool:
    try:
        _toolchain.compiler_command()
    except CompilerNotFoundError:
        return False
    return True


@pytest.fixture
def no_system_compiler(tmp_path, monkeypatch):
    """A ``PATH`` with no C++ compiler on it, and no ``$CXX``."""
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))


def test_without_a_system_compiler_discovery_takes_the_wheel(no_system_compiler):
    pytest.importorskip("ziglang")
    assert _toolchain.compiler_command() == _ZIG


def test_cxx_selects_the_wheel_although_g_plus_plus_exists(monkeypatch):
    pytest.importorskip("ziglang")
    monkeypatch.setenv("CXX", "python -m ziglang c++")
    command = _toolchain.compiler_command()
    assert os.path.isabs(command[0]) and command[1:] == ("-m", "ziglang", "c++")


def test_zig_runs_with_a_private_global_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("ZIG_GLOBAL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    env = _toolchain._environment(_ZIG)
    path = tmp_path / "cache" / "asnumpy" / "zig"
    assert env["ZIG_GLOBAL_CACHE_DIR"] == str(path) == str(_toolchain.zig_cache_dir())
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert _toolchain._environment(("/usr/bin/g++",)) is None       # other compilers: as is
    monkeypatch.setenv("ZIG_GLOBAL_CACHE_DIR", str(tmp_path / "mine"))
    assert _toolchain._environment(("/opt/zig/zig", "c++"))["ZIG_GLOBAL_CACHE_DIR"] == str(
        tmp_path / "mine")                                          # the user's choice kept


def test_a_zig_cache_others_can_write_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("ZIG_GLOBAL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    shared = tmp_path / "asnumpy" / "zig"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    with pytest.warns(UserWarning, match="not using the zig cache directory .*writable"):
        used = _toolchain.zig_cache_dir()
    assert used != shared and stat.S_IMODE(used.parent.stat().st_mode) == 0o700


# glibc 2.42's <math.h> declares C23's rsqrt/rsqrtf (zig's bundled headers do, without a
# system libc): CUDA's names in the cpu prelude must not collide with them
_C23_MATH = """#include <math.h>
extern "C" float rsqrtf(float) noexcept;
extern "C" double rsqrt(double) noexcept;
"""


@pytest.mark.skipif(not _compiler(), reason="no C++ compiler")
@pytest.mark.parametrize("barriers", [False, True])
def test_cpu_prelude_compiles_after_c23_math_declarations(barriers, tmp_path, monkeypatch):
    monkeypatch.setenv("ASNUMPY_KERNEL_CACHE_DIR", str(tmp_path))
    body = (f"// {uuid.uuid4()}\n"
            'extern "C" double asn_test(float x, double y) { return rsqrtf(x) + rsqrt(y); }\n')
    library = _toolchain.load_library(_C23_MATH + _HOST.source(body, barriers))
    library.asn_test.argtypes = [ctypes.c_float, ctypes.c_double]
    library.asn_test.restype = ctypes.c_double
    expected = np.float64(1 / np.sqrt(np.float32(4))) + 1 / np.sqrt(16.0)
    assert library.asn_test(4.0, 16.0) == expected


@pytest.mark.skipif(_system_compiler() or importlib.util.find_spec("ziglang") is None,
                    reason="runs where no system C++ compiler is on PATH and the "
                           "ziglang wheel is installed (.ci/without-system-cxx)")
def test_kernels_build_with_the_extra_alone(tmp_path, monkeypatch):
    import asnumpy as ap
    from asnumpy.extension import ElementwiseKernel

    monkeypatch.delenv("CXX", raising=False)
    assert _toolchain.compiler_info()["command"] == _ZIG
    kernel = ElementwiseKernel("float32 x, float64 y", "float64 z",
                               "z = rsqrtf(x) + rsqrt(y)", "asn_rsqrt_pair")
    x = np.array([1, 4, 9], np.float32)
    y = np.array([4.0, 16.0, 64.0])
    got = kernel(ap.asarray(x, device="cpu:0"), ap.asarray(y, device="cpu:0"))
    np.testing.assert_array_equal(ap.asnumpy(got), (1 / np.sqrt(x)).astype(np.float64)
                                  + 1 / np.sqrt(y))
