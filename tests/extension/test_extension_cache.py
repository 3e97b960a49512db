"""User kernels' compiled code is cached on disk: a second process compiles nothing.
Without a compiler, cpu kernels say how to get one."""

import os
import subprocess
import sys
import threading
import uuid

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.extension import (
    CompilerNotFoundError,
    ElementwiseKernel,
    RawKernel,
)
from asnumpy.backends.cpu import compiler as _toolchain

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the emulator's folder

_CPU_PROCESS = """
import sys
import numpy as np
import asnumpy as ap
from asnumpy.backends.cpu import compiler as _toolchain
from asnumpy.extension import ElementwiseKernel, ReductionKernel, RawKernel
tag = sys.argv[1]
scale = ElementwiseKernel("T x", "T y", "y = x * 3; // " + tag, "scale")
total = ReductionKernel("T x", "T y", "x", "a + b", "y = a; // " + tag, "0", "total")
fill = RawKernel('extern "C" __global__ void fill(int* x) { x[threadIdx.x] = 7; } // ' + tag,
                 "fill")
x = ap.arange(4.0)
out = ap.zeros(3, ap.int32)
fill(1, 3, (out,))
print(ap.asnumpy(scale(x)).tolist(), float(ap.asnumpy(total(x))), ap.asnumpy(out).tolist(),
      _toolchain.stats["compiles"], _toolchain.stats["disk_hits"])
"""


def _run(code, env, *args):
    env = {**os.environ, **env, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split("\n")[-2]


def _has_compiler():
    try:
        _toolchain.compiler_command()
    except CompilerNotFoundError:
        return False
    return True


@pytest.mark.skipif(not _has_compiler(), reason="no C++ compiler")
def test_second_process_loads_cpu_kernels_from_disk(tmp_path):
    # The children run on cpu:0 whatever $ASNUMPY_DEVICE the suite runs under: the cache
    # under test is the cpu toolchain's (a cuda default would compile through NVRTC).
    env = {"ASNUMPY_KERNEL_CACHE_DIR": str(tmp_path), "ASNUMPY_DEVICE": "cpu:0"}
    tag = str(uuid.uuid4())
    first = _run(_CPU_PROCESS, env, tag)
    second = _run(_CPU_PROCESS, env, tag)
    expected = "[0.0, 3.0, 6.0, 9.0] 6.0 [7, 7, 7]"
    assert first == f"{expected} 3 0"
    assert second == f"{expected} 0 3"


_CUDA_PROCESS = """
import sys
sys.path.insert(0, sys.argv[2])
import numpy as np
import asnumpy as ap
from asnumpy.backends.cuda import compiler
from asnumpy.extension import ElementwiseKernel
compiles = []
original = compiler._nvrtc_compile
compiler._nvrtc_compile = lambda *a: compiles.append(1) or original(*a)
scale = ElementwiseKernel("T x", "T y", "y = x * 3; // " + sys.argv[1], "scale")
with ap.Device("cuda:0"):
    print(ap.asnumpy(scale(ap.arange(3.0))).tolist(), len(compiles))
"""


def test_second_process_loads_cuda_kernels_from_the_nvrtc_cache(tmp_path, monkeypatch):
    compiler = pytest.importorskip("asnumpy.backends.cuda.compiler")
    if not compiler.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    monkeypatch.syspath_prepend(TESTS)
    from _cuda_host import compiler as host_compiler

    if host_compiler() is None:
        pytest.skip("the emulated cuda driver needs g++")
    env = {"ASNUMPY_CUDA_CACHE_DIR": str(tmp_path),
           "ASNUMPY_CUDA_DRIVER": os.environ.get("ASNUMPY_CUDA_DRIVER",
                                                 "_cuda_emulator:Driver")}
    tag = str(uuid.uuid4())
    assert _run(_CUDA_PROCESS, env, tag, TESTS) == "[0.0, 3.0, 6.0] 1"
    assert _run(_CUDA_PROCESS, env, tag, TESTS) == "[0.0, 3.0, 6.0] 0"


@pytest.fixture
def no_compiler(tmp_path, monkeypatch):
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_toolchain.importlib.util, "find_spec", lambda name: None)


def test_cpu_kernels_without_a_compiler_say_how_to_get_one(no_compiler, on_cpu):
    tag = uuid.uuid4().hex
    kernel = ElementwiseKernel("T x", "T y", f"y = x; // {tag}", "copy_")
    with pytest.raises(CompilerNotFoundError, match=r'pip install "asnumpy\[compiler\]"'):
        kernel(ap.arange(3.0))
    raw = RawKernel(f'extern "C" __global__ void k_{tag}(int* x) {{ }}', f"k_{tag}")
    with pytest.raises(CompilerNotFoundError, match="g\\+\\+"):
        raw(1, 1, (ap.zeros(1, ap.int32),))


@pytest.mark.skipif(not _has_compiler(), reason="no C++ compiler")
def test_threads_calling_a_new_kernel_at_once_compile_it_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ASNUMPY_KERNEL_CACHE_DIR", str(tmp_path))
    kernel = ElementwiseKernel("T x", "T y", f"y = x + 1; // {uuid.uuid4()}", "plus_one")
    before = _toolchain.stats["compiles"]
    results, start = [None] * 4, threading.Barrier(4)

    def call(k):
        start.wait()
        results[k] = ap.asnumpy(kernel(ap.arange(5.0, device="cpu:0")))

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _toolchain.stats["compiles"] == before + 1
    for result in results:
        np.testing.assert_array_equal(result, np.arange(5.0) + 1)
