"""Compile generated CUDA C source as host C++ and load it with ctypes.

The cuda back end generates CUDA C source at run time.  Without a GPU the
same source is verified on the host: :data:`SHIM` defines the CUDA keywords
and builtins away, :func:`build` prepends it, compiles the result with g++
into a shared library and loads it.  Kernels are then run block after block
with ``blockDim.x == 1`` (see ``ASN_HOST_LAUNCH``), which is how they must be
written to stay correct: grid-stride loops, shared-memory tree reductions, no
warp shuffles or atomics in the correctness path.

The half type: ``scalar_ops.PRELUDE`` picks ``__half`` under NVRTC and
``_Float16`` here (it keys on ``__CUDACC_RTC__``, which is never defined on
the host).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import pytest

__all__ = ["SHIM", "build", "compiler", "requires_compiler"]

# Host definitions of what CUDA C adds to C++.  Shared memory becomes a static
# (function-local) array: only statically sized ``__shared__`` arrays work,
# and a kernel using them must be run with blockDim.x == 1 (then
# __syncthreads() has nothing to wait for).
SHIM = r"""
#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static
#define __restrict__ __restrict
#define __launch_bounds__(...)
struct asn_dim3 { unsigned int x, y, z; };
static asn_dim3 blockIdx = {0u, 0u, 0u};
static asn_dim3 threadIdx = {0u, 0u, 0u};
static asn_dim3 blockDim = {1u, 1u, 1u};
static asn_dim3 gridDim = {1u, 1u, 1u};
static const int warpSize = 32;
static inline void __syncthreads() {}
static inline void __threadfence() {}
static inline void __threadfence_block() {}
/* Run KERNEL(...) on a 1-D grid of GRID blocks of BLOCK threads, one thread
   after another.  Only BLOCK == 1 is faithful for kernels that synchronise. */
#define ASN_HOST_LAUNCH(kernel, grid, block, ...)                               \
    do {                                                                        \
        gridDim.x = (unsigned int)(grid); gridDim.y = gridDim.z = 1u;           \
        blockDim.x = (unsigned int)(block); blockDim.y = blockDim.z = 1u;       \
        for (unsigned int asn_b = 0; asn_b < gridDim.x; ++asn_b) {              \
            blockIdx.x = asn_b;                                                 \
            for (unsigned int asn_t = 0; asn_t < blockDim.x; ++asn_t) {         \
                threadIdx.x = asn_t;                                            \
                kernel(__VA_ARGS__);                                            \
            }                                                                   \
        }                                                                       \
    } while (0)
"""

_FLAGS = ("-std=c++17", "-O1", "-shared", "-fPIC", "-ffp-contract=off", "-w")
_loaded: dict[str, ctypes.CDLL] = {}


def compiler() -> str | None:
    """Path of g++ (``$CXX`` when set), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


requires_compiler = pytest.mark.skipif(compiler() is None, reason="g++ is not available")


def _cache_dir() -> str:
    path = os.path.join(tempfile.gettempdir(), f"asnumpy-cuda-host-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def build(source: str) -> ctypes.CDLL | None:
    """Compile CUDA C ``source`` for the host and load it.

    Parameters
    ----------
    source : str
        CUDA C source (typically ``scalar_ops.PRELUDE`` plus generated
        functions and ``extern "C"`` host entry points); :data:`SHIM` is
        prepended.

    Returns
    -------
    ctypes.CDLL or None
        The loaded library, or None when no compiler is available.  Builds
        are cached on disk by a hash of the source and flags.

    Raises
    ------
    RuntimeError
        When compilation fails (the message holds the compiler's output).
    """
    cxx = compiler()
    if cxx is None:
        return None
    text = SHIM + "\n#line 1 \"generated.cu\"\n" + source
    key = hashlib.sha256((" ".join(_FLAGS) + "\0" + text).encode()).hexdigest()[:32]
    if key in _loaded:
        return _loaded[key]
    directory = _cache_dir()
    lib = os.path.join(directory, key + ".so")
    if not os.path.exists(lib):
        src = os.path.join(directory, key + ".cpp")
        with open(src, "w") as f:
            f.write(text)
        # compile to a private name, then rename: parallel test workers never
        # see a half-written library
        tmp = f"{lib}.{os.getpid()}.tmp"
        proc = subprocess.run([cxx, *_FLAGS, src, "-o", tmp], capture_output=True, text=True,
                              check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"g++ failed on {src}:\n{proc.stderr[-8000:]}")
        os.replace(tmp, lib)
    _loaded[key] = ctypes.CDLL(lib)
    return _loaded[key]
