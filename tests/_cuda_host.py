"""Compile generated CUDA C source as host C++ and load it with ctypes.

The cuda back end generates CUDA C source at run time.  Without a GPU the
same source is verified on the host: :data:`SHIM` defines the CUDA keywords
and builtins away, :func:`build` prepends it, compiles the result with g++
into a shared library and loads it.  Kernels are then run block after block
with ``blockDim.x == 1`` (see ``ASN_HOST_LAUNCH``), which is how they must be
written to stay correct: grid-stride loops, no atomics in the correctness path,
and warp shuffles only where the kernel guards with its count of lanes holding
values (with one thread per block nothing is then read from another lane; the
shim's shuffles say exactly what they return).

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
import threading

import pytest

from asnumpy.backends.cuda.scalar_ops import PRELUDE

__all__ = ["SHIM", "THREADED_SHUFFLES", "build", "compiler", "requires_compiler"]

# Host definitions of what CUDA C adds to C++.  Shared memory becomes a static
# (function-local) array: only statically sized ``__shared__`` arrays work,
# and a kernel using them must be run with blockDim.x == 1 (then
# __syncthreads() has nothing to wait for).
SHIM = r"""
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
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
/* Warp shuffles.  Lane = threadIdx.x % warpSize; a warp's lanes are the threads of the
   block that exist.  asn_shfl_source gives the lane a shuffle reads (CUDA's rules: a source
   outside the caller's width segment gives the caller's own value), or -1 for "own value".
   Threads run one at a time here, so only the caller's own value is known: a source that
   is not named in mask or does not exist gives it too (CUDA leaves that value unspecified,
   so a correct kernel never uses it: it guards with its count of lanes holding values),
   and a shuffle that needs another live lane's value cannot be emulated and aborts.  With
   blockDim.x == 1 (how the emulator launches) these are exact.  Harnesses that run real
   threads per block add THREADED_SHUFFLES (below, in Python) after this shim. */
enum asn_shfl_kind { asn_shfl_idx, asn_shfl_up, asn_shfl_down, asn_shfl_xor };
static inline int asn_shfl_source(asn_shfl_kind kind, unsigned lane, int arg, int width) {
    const int base = (int)lane - (int)lane % width, at = (int)lane % width;
    int src;
    switch (kind) {
    case asn_shfl_idx: src = base + ((arg % width) + width) % width; break;
    case asn_shfl_up: src = at - arg < 0 ? -1 : (int)lane - arg; break;
    case asn_shfl_down: src = at + arg >= width ? -1 : (int)lane + arg; break;
    default: src = (int)lane ^ arg; if (src < base || src >= base + width) src = -1; break;
    }
    return src == (int)lane ? -1 : src;
}
static inline unsigned asn_warp_lanes(unsigned thread) {  /* the lanes that exist, as a mask */
    const unsigned first = thread - thread % 32u, n = blockDim.x - first;
    return n >= 32u ? 0xffffffffu : (1u << n) - 1u;
}
template <class T> static inline T asn_host_shfl(asn_shfl_kind kind, unsigned mask, T var,
                                                 int arg, int width) {
    const unsigned lane = threadIdx.x % 32u;
    if (!(mask >> lane & 1u)) {
        std::fprintf(stderr, "asn shim: lane %u shuffles with mask %#x not naming it\n",
                     lane, mask);
        std::abort();
    }
    const int src = asn_shfl_source(kind, lane, arg, width);
    if (src < 0 || !((mask & asn_warp_lanes(threadIdx.x)) >> src & 1u)) return var;
    std::fprintf(stderr, "asn shim: lane %u reads live lane %d; threads run one at a time "
                 "(launch with blockDim.x == 1)\n", lane, src);
    std::abort();
}
template <class T> static inline T __shfl_sync(unsigned mask, T var, int src, int width = 32)
{ return asn_host_shfl(asn_shfl_idx, mask, var, src, width); }
template <class T> static inline T __shfl_up_sync(unsigned mask, T var, unsigned d, int width = 32)
{ return asn_host_shfl(asn_shfl_up, mask, var, (int)d, width); }
template <class T> static inline T __shfl_down_sync(unsigned mask, T var, unsigned d, int width = 32)
{ return asn_host_shfl(asn_shfl_down, mask, var, (int)d, width); }
template <class T> static inline T __shfl_xor_sync(unsigned mask, T var, int m, int width = 32)
{ return asn_host_shfl(asn_shfl_xor, mask, var, m, width); }
static inline void __syncwarp(unsigned mask = 0xffffffffu) { (void)mask; }
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

# Warp shuffles among real threads, for harnesses that run each thread of a block as an OS
# thread with a thread-local ``threadIdx`` (added after SHIM and after the harness's own
# definitions).  The lanes named in ``mask`` meet at a per-warp barrier, publish their
# values, read the source lane's, and meet again before anyone publishes anew: what a GPU
# warp does in one step.  Source rules are SHIM's (``asn_shfl_source``); a source lane not
# named in ``mask`` gives the caller's own value (unspecified on a GPU).
THREADED_SHUFFLES = r"""
#include <condition_variable>
#include <cstring>
#include <mutex>
struct asn_warp_meeting {
    std::mutex m; std::condition_variable cv; unsigned count = 0, gen = 0;
    void wait(unsigned n) {
        std::unique_lock<std::mutex> lock(m);
        const unsigned g = gen;
        if (++count == n) { count = 0; ++gen; cv.notify_all(); }
        else cv.wait(lock, [&] { return g != gen; });
    }
};
static asn_warp_meeting asn_warp_meetings[32];
alignas(16) static unsigned char asn_warp_slots[1024][16];
template <class T> static inline T asn_threaded_shfl(asn_shfl_kind kind, unsigned mask, T var,
                                                     int arg, int width) {
    static_assert(sizeof(T) <= 16, "shuffle of a type over 16 bytes");
    const unsigned t = threadIdx.x, lane = t % 32u, warp = t / 32u;
    if (!(mask >> lane & 1u) || (mask & ~asn_warp_lanes(t))) {
        std::fprintf(stderr, "asn shim: lane %u shuffles with mask %#x\n", lane, mask);
        std::abort();
    }
    const unsigned n = (unsigned)__builtin_popcount(mask);
    std::memcpy(asn_warp_slots[t], &var, sizeof(T));
    asn_warp_meetings[warp].wait(n);
    T r = var;
    const int src = asn_shfl_source(kind, lane, arg, width);
    if (src >= 0 && (mask >> src & 1u))
        std::memcpy(&r, asn_warp_slots[warp * 32u + (unsigned)src], sizeof(T));
    asn_warp_meetings[warp].wait(n);
    return r;
}
template <class T> static inline T asn_threaded_shfl_sync(unsigned mask, T var, int src,
                                                          int width = 32)
{ return asn_threaded_shfl(asn_shfl_idx, mask, var, src, width); }
template <class T> static inline T asn_threaded_shfl_up_sync(unsigned mask, T var, unsigned d,
                                                             int width = 32)
{ return asn_threaded_shfl(asn_shfl_up, mask, var, (int)d, width); }
template <class T> static inline T asn_threaded_shfl_down_sync(unsigned mask, T var, unsigned d,
                                                               int width = 32)
{ return asn_threaded_shfl(asn_shfl_down, mask, var, (int)d, width); }
template <class T> static inline T asn_threaded_shfl_xor_sync(unsigned mask, T var, int m,
                                                              int width = 32)
{ return asn_threaded_shfl(asn_shfl_xor, mask, var, m, width); }
#define __shfl_sync asn_threaded_shfl_sync
#define __shfl_up_sync asn_threaded_shfl_up_sync
#define __shfl_down_sync asn_threaded_shfl_down_sync
#define __shfl_xor_sync asn_threaded_shfl_xor_sync
"""

_FLAGS = ("-std=c++17", "-O1", "-shared", "-fPIC", "-ffp-contract=off", "-w")
_LINE = '\n#line 1 "generated.cu"\n'     # compile errors point into the generated source
_loaded: dict[str, ctypes.CDLL] = {}


def compiler() -> str | None:
    """Path of g++ (``$CXX`` when set), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


requires_compiler = pytest.mark.skipif(compiler() is None, reason="g++ is not available")


def _cache_dir() -> str:
    path = os.path.join(tempfile.gettempdir(), f"asnumpy-cuda-host-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def _digest(text: str) -> str:
    """The cache key of compiling ``text`` with :data:`_FLAGS`."""
    return hashlib.sha256((" ".join(_FLAGS) + "\0" + text).encode()).hexdigest()[:32]


def _replace_atomically(path: str, write) -> None:
    """Make ``path`` by ``write(private name)`` then a rename: others never see it half made."""
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    write(tmp)
    os.replace(tmp, path)


def _with_precompiled_prelude(cxx: str, directory: str, text: str) -> str:
    """``text`` with SHIM and the prelude replaced by an include of their precompiled header.

    Parsing them (``<cmath>`` included) is about two thirds of a kernel's compile time, and
    every generated source starts with them; the header is compiled once per cache
    directory.  ``text`` is returned unchanged when it starts otherwise or the header does
    not compile (g++ also reads the plain header whenever its .gch does not fit).
    """
    prefix = SHIM + _LINE + PRELUDE
    if not text.startswith(prefix):
        return text
    name = "prelude-" + _digest(prefix)
    header = os.path.join(directory, name + ".h")
    if not os.path.exists(header + ".gch"):
        def write_header(path):
            with open(path, "w") as f:
                f.write(prefix)

        def compile_header(path):
            flags = [flag for flag in _FLAGS if flag != "-shared"]
            subprocess.run([cxx, *flags, "-x", "c++-header", header, "-o", path],
                           capture_output=True, check=True)

        try:
            _replace_atomically(header, write_header)
            _replace_atomically(header + ".gch", compile_header)
        except subprocess.CalledProcessError:
            return text
    return f'#include "{name}.h"\n' + text[len(prefix):]


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
    text = SHIM + _LINE + source
    key = _digest(text)
    if key in _loaded:
        return _loaded[key]
    directory = _cache_dir()
    lib = os.path.join(directory, key + ".so")
    if not os.path.exists(lib):
        src = os.path.join(directory, key + ".cpp")
        code = _with_precompiled_prelude(cxx, directory, text)

        def write_source(path):
            with open(path, "w") as f:
                f.write(code)

        def compile_library(path):
            proc = subprocess.run([cxx, *_FLAGS, src, "-o", path], capture_output=True,
                                  text=True, check=False)
            if proc.returncode != 0:
                raise RuntimeError(f"g++ failed on {src}:\n{proc.stderr[-8000:]}")

        # private names, then renames: parallel workers and threads never see a half-written
        # source or library
        _replace_atomically(src, write_source)
        _replace_atomically(lib, compile_library)
    _loaded[key] = ctypes.CDLL(lib)
    return _loaded[key]
