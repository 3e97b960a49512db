"""A private on-disk cache of compiled kernels, and this process's private scratch directory.

Both kernel caches (the cpu toolchain's shared libraries and the cuda back
end's NVRTC cubins) keep their entries through :class:`DiskCache`, so the
rules that make a cache directory safe to load code from live in one place.
The threat model (docs/extension.md, "Compiling and caching"): another local
user must not get code run in our process, a damaged entry must not crash it,
and one kernel's entry must never answer for another's.

* **The directory.**  Missing directories on the way to it are created 0700.
  It is used only when it is a real directory (not a symbolic link), owned by
  this user and not writable by group or others, as ssh and pip treat their
  directories; otherwise one warning names it and why, and this process
  keeps its entries in its private scratch directory instead.  Every entry
  is then reached through the verified directory's file descriptor, so
  swapping the path afterwards changes nothing.
* **An entry** is ``<key><suffix>``: a header (:data:`MAGIC`, then the SHA-256
  of the magic, the key and the payload) followed by the payload.  It is
  written to a ``.tmp-`` file created exclusively in the directory, synced,
  and renamed over the entry, so readers never see half of one.  It is read
  without following links, and only a regular file of this user whose digest
  matches is returned: a truncated, empty or corrupt entry, or one copied from
  another key, is removed and the caller compiles again.  The digest guards
  against damage, not against a writer of the directory (who could write the
  digest too): the directory check is what keeps other users out.
* **Stale temporaries** (``.tmp-`` files of a writer that was killed, older
  than :data:`STALE_SECONDS`) are removed the first time a process opens the
  directory.
* **The scratch directory** (:func:`private_dir`) is one ``mkdtemp`` per
  process, made on first use and removed at exit: compilers run in it, so a
  compile killed midway leaves nothing in the cache directory, and callers
  that load by path load private copies from it (:func:`private_copy`).
  Scratch directories of processes that died without removing theirs are
  removed once they are a day old.

POSIX only (ownership, modes and ``dir_fd`` are what the checks rest on).
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import itertools
import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
import time
import warnings
from pathlib import Path

from .._errors import user_stacklevel

__all__ = ["MAGIC", "STALE_SECONDS", "DiskCache", "private_copy", "private_dir"]

MAGIC = b"ASNKERNEL1\n"          # entry format version; the digest covers it
_DIGEST = hashlib.sha256().digest_size
STALE_SECONDS = 3600             # a .tmp- file this old belongs to a writer that died
_SCRATCH_STALE_SECONDS = 86400   # likewise for a dead process's scratch directory
_TMP_PREFIX = ".tmp-"
_SCRATCH_PREFIX = "asnumpy-kernels-"
_SCRATCH_NAME = re.compile(re.escape(_SCRATCH_PREFIX) + r"(\d+)-\w+$")

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _O_NOFOLLOW | _O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC

_lock = threading.Lock()
_warned: set[str] = set()        # directories already warned about (one warning each)
_swept: set[str] = set()         # directories whose stale temporaries were removed
_scratch: dict[int, Path] = {}   # pid -> that process's scratch directory
_copies = itertools.count()


class DiskCache:
    """The entries of one on-disk kernel cache directory.

    Parameters
    ----------
    directory : path-like
        Where the entries live (created 0700 when missing).
    suffix : str
        The entries' file-name suffix (``".cubin"``).
    variable : str
        The environment variable that chooses ``directory``; named in the
        warning about an unsafe directory.

    Notes
    -----
    Every method opens and checks the directory again (two system calls), so
    a cache directory deleted or replaced while the process runs is noticed.
    Errors writing an entry are swallowed: the caller's memory cache still
    holds the result.
    """

    def __init__(self, directory, suffix: str, variable: str):
        self.directory = Path(directory)
        self.suffix = suffix
        self.variable = variable

    def get(self, key: str) -> bytes | None:
        """The payload stored under ``key``, or None when there is no sound entry.

        A damaged entry (wrong digest, truncated, empty, a link, not a regular
        file of this user) is removed, and None is returned.
        """
        dir_fd = self._open()
        if dir_fd is None:
            return None
        name = key + self.suffix
        try:
            try:
                fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
            except FileNotFoundError:
                return None
            except OSError:             # a symbolic link (ELOOP) or worse: not ours to read
                _remove(name, dir_fd)
                return None
            with os.fdopen(fd, "rb") as handle:
                info = os.fstat(handle.fileno())
                sound = stat.S_ISREG(info.st_mode) and info.st_uid == _euid()
                blob = handle.read() if sound else b""
            payload = _unpack(key, blob)
            if payload is None:
                _remove(name, dir_fd, info)
            return payload
        except OSError:
            return None
        finally:
            os.close(dir_fd)

    def put(self, key: str, payload: bytes) -> None:
        """Store ``payload`` (not empty) under ``key``, atomically."""
        if not payload:
            raise ValueError("asnumpy: an empty kernel image is never cached")
        dir_fd = self._open()
        if dir_fd is None:
            return
        temporary = f"{_TMP_PREFIX}{os.getpid()}-{secrets.token_hex(8)}{self.suffix}"
        try:
            fd = os.open(temporary, _WRITE_FLAGS, 0o600, dir_fd=dir_fd)
            with os.fdopen(fd, "wb") as handle:
                handle.write(_pack(key, payload))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, key + self.suffix, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError:
            _remove(temporary, dir_fd)
        finally:
            os.close(dir_fd)

    def _open(self) -> int | None:
        """A file descriptor of the directory in use: the configured one when it is safe."""
        fd, reason = _open_private_dir(self.directory)
        if fd is not None:
            _sweep_once(self.directory, fd)
            return fd
        key = str(self.directory)
        with _lock:
            first = key not in _warned
            _warned.add(key)
        if first:
            warnings.warn(
                f"asnumpy: not using the kernel cache directory {key!r}: {reason}. "
                "Compiled kernels are kept in a private temporary directory for this "
                f"process instead. Set ${self.variable} to a directory of your own that "
                "only you can write (chmod 700), or empty this one and make it so.",
                UserWarning, stacklevel=user_stacklevel())
        try:
            fallback = private_dir() / "cache"
            fd, _ = _open_private_dir(fallback)
        except OSError:
            return None
        return fd


def _open_private_dir(path: Path) -> tuple[int | None, str | None]:
    """``(fd, None)`` for a directory that is ours and private, else ``(None, why not)``."""
    try:
        _make_dirs(path)
    except OSError as exc:
        return None, f"it cannot be created ({exc.strerror or exc})"
    try:
        fd = os.open(path, _DIR_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):   # Linux says ENOTDIR for a link too
            return None, ("it is a symbolic link" if os.path.islink(path)
                          else "it is not a directory")
        return None, f"it cannot be opened ({exc.strerror or exc})"
    info = os.fstat(fd)
    if info.st_uid != _euid():
        reason = f"it is owned by user id {info.st_uid}, not by this user ({_euid()})"
    elif info.st_mode & 0o022:
        reason = f"it is writable by group or others (mode {stat.S_IMODE(info.st_mode):o})"
    else:
        return fd, None
    os.close(fd)
    return None, reason


def _make_dirs(path: Path) -> None:
    """Create ``path`` and the missing directories above it, each 0700 (whatever the umask)."""
    missing = []
    while not os.path.lexists(path) and path.parent != path:
        missing.append(path)
        path = path.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            continue                    # made by a concurrent process: checked when opened
        os.chmod(directory, 0o700)      # the umask can only have removed bits


def _sweep_once(directory: Path, dir_fd: int) -> None:
    """Remove the stale temporaries of dead writers, the first time a process opens it."""
    key = str(directory)
    with _lock:
        if key in _swept:
            return
        _swept.add(key)
    cutoff = time.time() - STALE_SECONDS
    try:
        with os.scandir(dir_fd) as entries:
            stale = [entry.name for entry in entries if entry.name.startswith(_TMP_PREFIX)
                     and not entry.is_dir(follow_symlinks=False)
                     and entry.stat(follow_symlinks=False).st_mtime < cutoff]
    except OSError:
        return
    for name in stale:
        _remove(name, dir_fd)


def _pack(key: str, payload: bytes) -> bytes:
    return MAGIC + _digest(key, payload) + payload


def _unpack(key: str, blob: bytes) -> bytes | None:
    head = len(MAGIC) + _DIGEST
    if len(blob) <= head or not blob.startswith(MAGIC):
        return None
    payload = blob[head:]
    # the key is under the digest: a sound entry of another kernel copied here fails
    return payload if blob[len(MAGIC):head] == _digest(key, payload) else None


def _digest(key: str, payload: bytes) -> bytes:
    digest = hashlib.sha256(MAGIC)
    digest.update(key.encode())
    digest.update(b"\0")
    digest.update(payload)
    return digest.digest()


def _remove(name: str, dir_fd: int, info: os.stat_result | None = None) -> None:
    """Unlink ``name``; with ``info``, only while it is still that file (a concurrent
    writer may just have renamed a sound entry over it)."""
    try:
        if info is not None:
            now = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
                return
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def _euid() -> int:
    return os.geteuid()


def private_dir() -> Path:
    """This process's private scratch directory (0700, made on first use, removed at exit).

    Returns
    -------
    pathlib.Path
        One directory per process (a forked child gets its own), in the
        system's temporary directory.

    Raises
    ------
    OSError
        When no temporary directory can be made.
    """
    pid = os.getpid()
    with _lock:
        path = _scratch.get(pid)
        if path is not None and os.path.isdir(path):
            return path
        first = not _scratch
        path = _scratch[pid] = Path(tempfile.mkdtemp(prefix=f"{_SCRATCH_PREFIX}{pid}-"))
    atexit.register(_remove_scratch, path, pid)
    if first:
        _sweep_dead_scratch(path.parent)
    return path


def private_copy(payload: bytes, suffix: str) -> Path:
    """Write ``payload`` to a new file of :func:`private_dir`, under a name never used before.

    For loaders that take a path (``dlopen``): the bytes they load are the
    bytes the caller checked, and no other user can swap the file.  The caller
    removes it.  (glibc hands back an already loaded library whose path
    matches, hence the fresh name; its inode stays allocated while mapped.)
    """
    path = private_dir() / f"copy-{next(_copies)}-{secrets.token_hex(4)}{suffix}"
    fd = os.open(path, _WRITE_FLAGS, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(payload)
    return path


def _remove_scratch(path: Path, pid: int) -> None:
    if os.getpid() == pid:              # not a forked child's copy of the registration
        shutil.rmtree(path, ignore_errors=True)


def _sweep_dead_scratch(parent: Path) -> None:
    """Remove scratch directories of this user's processes that died (a day old, pid gone)."""
    cutoff = time.time() - _SCRATCH_STALE_SECONDS
    try:
        with os.scandir(parent) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        match = _SCRATCH_NAME.match(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (stat.S_ISDIR(info.st_mode) and info.st_uid == _euid() and info.st_mtime < cutoff
                and not _alive(int(match.group(1)))):
            shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:                     # exists, but another user's
        return True
    return True
