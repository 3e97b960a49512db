"""The cpu toolchain: C++ source -> shared library -> ``ctypes.CDLL``, cached.

The one place asnumpy runs the host's C++ compiler (the cpu back end's
counterpart of :mod:`asnumpy.backends.cuda.compiler`).  User kernels
(:mod:`asnumpy.extension`) and fused functions (``asnumpy.fuse``) render C++
source and reach it through ``backend.compile`` (:mod:`.programs`), which
calls :func:`load_library`; it compiles the source once and remembers the
library twice:

* in memory, keyed by ``(source, options)``, for the life of the process;
* on disk, in :func:`cache_dir`, keyed by the SHA-256 of the source, the
  options, the flags, the compiler's identity (path and ``--version``) and
  the host CPU (the code is built with ``-march=native``), so a second
  process loads the library without compiling, and a cache directory shared
  between machines never hands one CPU another's instructions.

The disk cache is a :class:`asnumpy.runtime.disk_cache.DiskCache`: the
directory is used only when it is this user's and private (else a warning and
a private temporary cache), each entry carries a digest of its key and bytes
that is checked before the library is loaded (a damaged entry is compiled
again, never mapped), and entries appear by an atomic rename (two processes
that compile the same source at once both succeed; the last rename wins).
The compiler runs in this process's private scratch directory, so a killed
compile leaves nothing in the cache, and a library is loaded from a private
copy of the checked bytes, so what ``dlopen`` maps is what was checked.

Which compiler: ``$CXX`` when set (a command, e.g. ``"ccache g++"``), else
the first of ``g++``, ``clang++``, ``c++`` on ``PATH``, else the ``ziglang``
wheel (``python -m ziglang c++``; ``pip install "asnumpy[compiler]"``).
Without any, :class:`CompilerNotFoundError` says how to get one.  To use the
wheel although a system compiler exists, set ``CXX="python -m ziglang c++"``.
zig builds its C++ runtime on first use and keeps it in its global cache: for
a zig compiler asnumpy points ``$ZIG_GLOBAL_CACHE_DIR`` (unless it is set) at
:func:`zig_cache_dir`, held to the kernel cache's rules (this user's, 0700),
since what is in it is linked into every kernel.

Flags (:data:`FLAGS`): C++17, ``-O3 -march=native``, position-independent,
``-ffp-contract=off`` (no fused multiply-add: ``a*b + c`` rounds twice, as in
NumPy) and no ``-ffast-math``; callers add their own through ``options``.

Vector math (:func:`vector_math_options`): whether loops here may call glibc's
libmvec (:mod:`asnumpy.ops.cxx.vecmath`) is probed once per process, by
compiling, loading and running a small library (cached like any other).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib.util
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from ...ops.cxx.errors import (
    SOURCE_MARK,
    CompileError,
    CompilerNotFoundError,
    numbered_source,
)
from ...runtime import _fork, disk_cache

__all__ = [
    "FLAGS",
    "CompileError",
    "CompilerNotFoundError",
    "cache_dir",
    "clear_memory_cache",
    "compiler_command",
    "compiler_info",
    "load_library",
    "numbered_source",
    "stats",
    "vector_math_options",
    "zig_cache_dir",
]

FLAGS = ("-std=c++17", "-O3", "-march=native", "-shared", "-fPIC", "-ffp-contract=off",
         "-fno-math-errno")
_CANDIDATES = ("g++", "clang++", "c++")          # looked up on PATH in this order
ENTRY_SUFFIX = ".lib"   # a disk entry: a checked header, then the library (not loadable as is)

# Counters for tests and diagnostics: compiles run, libraries loaded from disk, memory hits.
stats = {"compiles": 0, "disk_hits": 0, "memory_hits": 0}

_memory: dict[tuple, ctypes.CDLL] = {}
_lock = threading.Lock()
_key_locks: dict[tuple, threading.Lock] = {}


def cache_dir() -> Path:
    """The directory of the on-disk cache of compiled kernels.

    ``$ASNUMPY_KERNEL_CACHE_DIR`` when set; else ``$XDG_CACHE_HOME/asnumpy/kernels``
    or ``~/.cache/asnumpy/kernels`` (``%LOCALAPPDATA%\\asnumpy\\kernels`` on
    Windows).  It is created 0700 when missing, and used only when it is owned by
    this user and not writable by group or others; otherwise a warning names it
    and a private temporary directory serves this process
    (:mod:`asnumpy.runtime.disk_cache`).
    """
    explicit = os.environ.get("ASNUMPY_KERNEL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return _user_cache() / "asnumpy" / "kernels"


def _user_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or (
        os.environ.get("LOCALAPPDATA") if sys.platform == "win32" else None)
    return Path(base) if base else Path.home() / ".cache"


def zig_cache_dir() -> Path:
    """The global cache of a zig compiler (the ``ziglang`` wheel) running for asnumpy.

    ``$ZIG_GLOBAL_CACHE_DIR`` when set; else ``$XDG_CACHE_HOME/asnumpy/zig`` or
    ``~/.cache/asnumpy/zig``, created 0700 and used only when it is this user's
    and not writable by group or others (the kernel cache's rule, see
    :mod:`asnumpy.runtime.disk_cache`): zig keeps the C++ runtime it builds on
    first use there and links it into every kernel.  Otherwise a warning names
    it and this process's private scratch directory serves (zig's runtime is
    then built again, about a minute).
    """
    explicit = os.environ.get("ZIG_GLOBAL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    path = _user_cache() / "asnumpy" / "zig"
    fd, reason = disk_cache._open_private_dir(path)
    if fd is not None:
        os.close(fd)
        return path
    fallback = disk_cache.private_dir() / "zig"
    if path not in _warned_zig:
        _warned_zig.add(path)
        warnings.warn(
            f"asnumpy: not using the zig cache directory {str(path)!r}: {reason}; zig's "
            f"C++ runtime is built again in {str(fallback)!r} for this process. Make the "
            "directory yours and private (chmod 700), or set $ZIG_GLOBAL_CACHE_DIR.",
            UserWarning, stacklevel=2)
    return fallback


_warned_zig: set[Path] = set()


def _environment(command: tuple) -> dict | None:
    """The compiler's environment: for zig, its global cache in :func:`zig_cache_dir`."""
    if "ziglang" not in command and os.path.basename(command[0]) not in ("zig", "zig.exe"):
        return None
    return {**os.environ, "ZIG_GLOBAL_CACHE_DIR": str(zig_cache_dir())}


def clear_memory_cache() -> None:
    """Forget the libraries loaded in this process (the disk cache is left alone)."""
    with _lock:
        _memory.clear()


def compiler_command() -> tuple[str, ...]:
    """The command that runs the C++ compiler (see the module docstring for the order).

    Raises
    ------
    CompilerNotFoundError
        When ``$CXX`` names no executable, or none of the candidates exists.
    """
    explicit = os.environ.get("CXX")
    if explicit:
        words = shlex.split(explicit)
        found = shutil.which(words[0]) if words else None
        if found is None:
            raise CompilerNotFoundError(
                f"asnumpy.extension: $CXX is {explicit!r}, which is not an executable; "
                "unset it or point it at a C++ compiler")
        return (found, *words[1:])
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return (found,)
    if importlib.util.find_spec("ziglang") is not None:
        return (sys.executable, "-m", "ziglang", "c++")
    raise CompilerNotFoundError(
        "asnumpy.extension: cpu kernels need a C++ compiler and none was found "
        f"(looked for $CXX, {', '.join(_CANDIDATES)} on PATH, and the ziglang package); "
        'install one with `pip install "asnumpy[compiler]"` (the ziglang wheel), '
        "or your system's g++ / clang++ (e.g. `apt install g++`), or set $CXX")


def compiler_info() -> dict:
    """What compiles cpu kernels here.

    Returns
    -------
    dict
        ``command`` (tuple of str), ``version`` (the first line of its
        ``--version``), ``flags`` (:data:`FLAGS`), ``cpu`` (the host CPU the
        code is built for) and ``cache_dir`` (str).

    Raises
    ------
    CompilerNotFoundError
        When there is no compiler.
    """
    command = compiler_command()
    return {"command": command, "version": _version(command), "flags": FLAGS,
            "cpu": _host_cpu(), "cache_dir": str(cache_dir())}


@functools.cache
def _version(command: tuple) -> str:
    try:
        proc = subprocess.run([*command, "--version"], capture_output=True, text=True,
                              timeout=120, check=False, env=_environment(command))
    except OSError as exc:
        raise CompilerNotFoundError(
            f"asnumpy.extension: the C++ compiler {' '.join(command)!r} does not run: {exc}"
        ) from None
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"


@functools.cache
def _host_cpu() -> str:
    """The host CPU's model and feature flags (``-march=native`` depends on them)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            wanted = {}
            for line in handle:
                name, _, value = line.partition(":")
                name = name.strip()
                if name in ("model name", "flags", "Features", "CPU part") and name not in wanted:
                    wanted[name] = value.strip()
                if not line.strip() and wanted:
                    break
        if wanted:
            return hashlib.sha256(repr(sorted(wanted.items())).encode()).hexdigest()[:16]
    except OSError:
        pass
    return f"{platform.machine()}-{platform.processor()}"


def load_library(source: str, *, options=()) -> ctypes.CDLL:
    """Compile C++ ``source`` into a shared library (or find it cached) and load it.

    Parameters
    ----------
    source : str
        A complete C++17 translation unit; the functions to call must be
        ``extern "C"``.  A ``#line 1 "name"`` directive marks where the part
        worth showing in error messages starts (after a prelude, say).
    options : sequence of str, optional
        Extra compiler flags, after :data:`FLAGS`; part of the cache key.

    Returns
    -------
    ctypes.CDLL
        The loaded library (set ``argtypes``/``restype`` before calling).

    Raises
    ------
    CompileError
        A :class:`RuntimeError` with the compiler's message and the source
        with line numbers, when the source does not compile.
    CompilerNotFoundError
        When no C++ compiler is found (the message says how to get one).
    """
    options = tuple(options)
    memory_key = (source, options)
    library = _memory.get(memory_key)
    if library is not None:
        stats["memory_hits"] += 1
        return library
    with _lock:
        key_lock = _key_locks.setdefault(memory_key, threading.Lock())
    with key_lock:                          # one compile per source, however many threads ask
        library = _memory.get(memory_key)
        if library is None:
            library = _memory[memory_key] = _load_or_compile(source, options)
    with _lock:
        _key_locks.pop(memory_key, None)
    return library


def _forget_compiles_in_child() -> None:
    # A thread of the parent compiling when the process forked holds its source's lock
    # for ever in the child: the child's first request for that source compiles anew.
    _key_locks.clear()


_fork.register_locks(sys.modules[__name__])
_fork.register(after_in_child=_forget_compiles_in_child)


def _key(source: str, options: tuple, command: tuple) -> str:
    """The disk cache key: a hash of public inputs (anyone can compute it; see disk_cache)."""
    digest = hashlib.sha256()
    for part in (source, repr(options), repr(FLAGS), repr(command), _version(command),
                 _host_cpu()):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _load_or_compile(source: str, options: tuple) -> ctypes.CDLL:
    command = compiler_command()
    key = _key(source, options, command)
    cache = disk_cache.DiskCache(cache_dir(), ENTRY_SUFFIX, "ASNUMPY_KERNEL_CACHE_DIR")
    library = cache.get(key)
    if library is not None:
        try:
            loaded = _load(library)
        except OSError:
            pass                            # sound bytes this host cannot load: compiled again
        else:
            stats["disk_hits"] += 1
            return loaded
    library = _compile(source, options, command)
    cache.put(key, library)
    return _load(library)


def _load(library: bytes) -> ctypes.CDLL:
    # dlopen loads by path: it gets a private copy of the checked bytes (no other user can
    # swap it between the check and the load), removed once mapped
    path = disk_cache.private_copy(library, ".so")
    try:
        return ctypes.CDLL(str(path))
    finally:
        os.unlink(path)


def _compile(source: str, options: tuple, command: tuple) -> bytes:
    """Run the compiler once (the only place that does); the library's bytes.

    It runs in a directory of its own under this process's scratch directory,
    removed afterwards whatever happens: nothing of a compile reaches the cache
    directory but the finished library.
    """
    with tempfile.TemporaryDirectory(prefix="build-", dir=disk_cache.private_dir()) as build:
        source_path = os.path.join(build, "kernel.cpp")
        output = os.path.join(build, "kernel.so")
        with open(source_path, "w", encoding="utf-8") as handle:
            handle.write(source)
        stats["compiles"] += 1
        try:
            proc = subprocess.run([*command, *FLAGS, *options, source_path, "-o", output],
                                  capture_output=True, text=True, check=False,
                                  env=_environment(command))
        except OSError as exc:
            raise CompilerNotFoundError(
                f"asnumpy.extension: the C++ compiler {' '.join(command)!r} does not run: "
                f"{exc}") from None
        message = (proc.stderr or proc.stdout).replace(source_path, "<source>").strip()
        if proc.returncode != 0:
            raise CompileError(
                f"asnumpy.extension: the C++ compiler ({' '.join(command)}) failed:\n"
                f"{message}\n\n--- source ---\n{numbered_source(source)}")
        try:
            with open(output, "rb") as handle:
                library = handle.read()
        except FileNotFoundError:
            library = b""
    if not library:
        raise CompileError(
            f"asnumpy.extension: the C++ compiler ({' '.join(command)}) exited with status 0 "
            f"but wrote no library{':' if message else ''}\n{message}\n\n--- source ---\n"
            f"{numbered_source(source)}")
    return library


_vector_math: list = []          # the probe's answer, once known


def vector_math_options(extra=()):
    """The link options under which host loops may call libmvec, or None where they may not.

    Probed once per process (the library is cached on disk like a kernel):
    a translation unit declaring the :mod:`asnumpy.ops.cxx.vecmath` functions
    with GCC's ``simd`` attribute, with vectorisable loops calling them, is
    compiled with ``extra`` and :data:`asnumpy.ops.cxx.vecmath.LINK_OPTIONS`,
    loaded (an absent libmvec or vector variant fails here: ``dlopen``
    resolves every symbol) and run on a few values, whose results must match
    the scalar C functions'.  Any failure -- no compiler, another C library,
    a non-x86 host -- answers None, and kernels keep the scalar calls.
    Set ``$ASNUMPY_VECTOR_MATH=0`` to answer None without probing.
    """
    if not _vector_math:
        _vector_math.append(_probe_vector_math(tuple(extra)))
    return _vector_math[0]


def _probe_vector_math(extra):
    from ...ops.cxx import vecmath
    from ...ops.cxx.prelude import PRELUDE

    if os.environ.get("ASNUMPY_VECTOR_MATH", "1") == "0" or platform.machine().lower() not in (
            "x86_64", "amd64"):
        return None
    options = (*extra, *vecmath.LINK_OPTIONS)
    header = ("#define __device__\n#define __forceinline__ inline __attribute__((always_inline))\n")
    try:
        library = load_library(vecmath.probe_source(header, PRELUDE), options=options)
        probe = library.asn_vecmath_probe
    except (CompileError, CompilerNotFoundError, OSError, AttributeError):
        return None
    probe.restype = ctypes.c_int
    probe.argtypes = [ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p]
    count = 64
    values = [0.25 + 0.37 * k for k in range(count)]         # inside every domain but acosh's
    x = (ctypes.c_float * count)(*values)
    y = (ctypes.c_float * count)(*reversed(values))
    return options if probe(count, x, y) == 0 else None
