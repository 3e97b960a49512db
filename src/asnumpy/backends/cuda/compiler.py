"""NVRTC compilation of generated kernel sources to CUBIN, with two caches.

Every kernel the cuda back end launches is CUDA C++ rendered at run time
(:mod:`.elementwise`, :mod:`.reduction`).  :func:`compile_module` turns such a
source into a CUBIN image for one architecture through ``cuda.core``'s
``Program`` (NVRTC) and remembers the result twice:

* in memory, for the life of the process;
* on disk, in :func:`cache_dir`, so a new process does not pay NVRTC again.

The cache key is the SHA-256 of the source, the compile options, the target
architecture and the NVRTC version, so upgrading NVRTC or changing an option
never reuses a stale image.  The disk cache is a
:class:`asnumpy.runtime.disk_cache.DiskCache`, as the cpu toolchain's: the
directory is used only when it is this user's and private, and an entry is
returned only when its digest (over its key and bytes) matches, so a damaged
entry or another kernel's is compiled again.  ``cuda.core`` is imported lazily
inside the functions: importing :mod:`asnumpy` never imports it.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from pathlib import Path

from ...runtime import _fork, disk_cache

__all__ = [
    "OPTIONS",
    "CompileError",
    "cache_dir",
    "clear_memory_cache",
    "compile_module",
    "nvrtc_available",
    "nvrtc_version",
]

# The options every module is compiled with, as data (they are part of the cache key).
# fma=False: NumPy evaluates a*b+c as two rounded operations, so NVRTC must not contract
# it into one fused multiply-add (which would change the last bit of results).
OPTIONS = {"std": "c++17", "fma": False}

_memory: dict[str, bytes] = {}
_lock = threading.Lock()
_fork.register_locks(sys.modules[__name__])     # a parent's thread may hold it at a fork
_KERNEL_NAME = re.compile(r'extern\s+"C"\s+__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?'
                          r'void\s+([A-Za-z_]\w*)')


class CompileError(RuntimeError):
    """NVRTC rejected a generated source; the message carries the log and kernel names."""


def nvrtc_available() -> bool:
    """Whether NVRTC can be used through ``cuda.core`` in this process.

    Returns
    -------
    bool
        True when ``cuda.core`` and ``cuda.bindings.nvrtc`` import and NVRTC
        reports its version (no GPU or driver is needed to compile CUBIN).
    """
    try:
        nvrtc_version()
        import cuda.core  # noqa: F401
    except Exception:  # noqa: BLE001 - a missing or broken NVRTC fails in many ways
        return False
    return True


def nvrtc_version() -> tuple[int, int]:
    """The ``(major, minor)`` version of the NVRTC library in use."""
    from cuda.bindings import nvrtc

    err, major, minor = nvrtc.nvrtcVersion()
    if int(err) != 0:
        raise RuntimeError(f"nvrtcVersion failed: {err!r}")
    return int(major), int(minor)


def cache_dir() -> Path:
    """The directory of the on-disk CUBIN cache.

    ``$ASNUMPY_CUDA_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/asnumpy/cuda``,
    else ``~/.cache/asnumpy/cuda``.  It is created 0700 when missing, and used
    only when it is owned by this user and not writable by group or others;
    otherwise a warning names it and a private temporary directory serves this
    process.
    """
    explicit = os.environ.get("ASNUMPY_CUDA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "asnumpy" / "cuda"


def clear_memory_cache() -> None:
    """Forget every CUBIN held in memory (the disk cache is left alone)."""
    with _lock:
        _memory.clear()


def compile_module(source: str, arch: str, options: dict | None = None) -> bytes:
    """Compile a CUDA C++ source to a CUBIN image, through both caches.

    Parameters
    ----------
    source : str
        Complete translation unit (prelude, device functions, kernels).
    arch : str
        Target architecture, ``"sm_90"`` (``"90"`` is accepted too).
    options : dict, optional
        Extra ``cuda.core.ProgramOptions`` fields (e.g. ``{"lineinfo": True}``),
        on top of (and overriding) :data:`OPTIONS`; part of the cache key.

    Returns
    -------
    bytes
        The CUBIN image, ready for ``cuda.core.ObjectCode.from_cubin``.

    Raises
    ------
    CompileError
        A :class:`RuntimeError` with the NVRTC log and the kernel names when
        the source does not compile.
    """
    arch = arch if arch.startswith(("sm_", "compute_")) else f"sm_{arch}"
    options = {**OPTIONS, **(options or {})}
    key = _key(source, arch, options)
    with _lock:
        hit = _memory.get(key)
    if hit is not None:
        return hit
    cache = disk_cache.DiskCache(cache_dir(), ".cubin", "ASNUMPY_CUDA_CACHE_DIR")
    cubin = cache.get(key)
    if cubin is None:
        cubin = _nvrtc_compile(source, arch, options)
        if not cubin:
            names = ", ".join(_KERNEL_NAME.findall(source)[:8]) or "<none>"
            raise CompileError(f"NVRTC produced an empty image for kernel(s) {names} "
                               f"({arch}); nothing was cached")
        cache.put(key, cubin)
    with _lock:
        _memory[key] = cubin
    return cubin


def _key(source: str, arch: str, options: dict) -> str:
    digest = hashlib.sha256()
    for part in (source, repr(sorted(options.items())), arch, repr(nvrtc_version())):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _nvrtc_compile(source: str, arch: str, options: dict) -> bytes:
    """One NVRTC run (the only place that calls the compiler; tests count these)."""
    from cuda.core import Program, ProgramOptions

    names = _KERNEL_NAME.findall(source)
    label = names[0] if names else "asnumpy_module"
    program_options = ProgramOptions(arch=arch, include_path=_include_path(), name=label,
                                     **options)
    try:
        obj = Program(source, "c++", program_options).compile("cubin")
    except Exception as exc:  # cuda.core raises NVRTCError carrying the log
        shown = ", ".join(names[:8]) + (f" (+{len(names) - 8} more)" if len(names) > 8 else "")
        raise CompileError(
            f"NVRTC failed to compile kernel(s) {shown or '<none>'} for {arch}:\n{exc}"
        ) from exc
    return bytes(obj.code)


def _include_path() -> list[str]:
    # cuda_fp16.h (used by the prelude for half) ships with the CUDA runtime headers
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        found = find_nvidia_header_directory("cudart")
    except Exception:  # noqa: BLE001 - no headers: NVRTC reports the missing include
        found = None
    return [found] if found else []
