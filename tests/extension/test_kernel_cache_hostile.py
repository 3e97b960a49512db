"""The on-disk kernel caches against other local users and damaged entries.

Both caches (the cpu toolchain's libraries, the cuda back end's NVRTC cubins) keep their
entries through asnumpy.runtime.disk_cache; docs/extension.md ("Compiling and caching")
states the threat model these tests hold.  An attacker can compute any entry's key (a hash of
public inputs), so the tests plant entries *with* a valid digest: only the directory check
keeps them out.  The "another user" cases make the directory unsafe by its mode, or fake the
user id the check compares with, so they hold when the suite runs as root too.
"""

import os
import signal
import stat
import subprocess
import sys
import time
import uuid
import warnings

import pytest

from asnumpy.backends.cpu import compiler as _toolchain
from asnumpy.extension import CompileError, CompilerNotFoundError
from asnumpy.runtime import disk_cache

try:
    _toolchain.compiler_command()
    HAVE_COMPILER = True
except CompilerNotFoundError:
    HAVE_COMPILER = False

requires_compiler = pytest.mark.skipif(not HAVE_COMPILER, reason="no C++ compiler")
ENV = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}


def _source(factor=2):
    return f'// {uuid.uuid4()}\nextern "C" int scaled(int x) {{ return x * {factor}; }}\n'


def _planted_library(tmp_path, marker):
    """A library whose constructor writes ``marker``: what a hostile user would plant."""
    source = (f'#include <stdio.h>\n__attribute__((constructor)) static void planted() {{\n'
              f'  FILE* f = fopen("{marker}", "w"); if (f) fclose(f); }}\n'
              'extern "C" int scaled(int x) { return -1; }\n')
    return _toolchain._compile(source, (), _toolchain.compiler_command())


def _cpu_key(source):
    return _toolchain._key(source, (), _toolchain.compiler_command())


@pytest.fixture
def cpu_cache(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("ASNUMPY_KERNEL_CACHE_DIR", str(directory))
    return directory


def _entries(directory):
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


# --- who may write the directory ------------------------------------------------------------

@requires_compiler
def test_a_library_planted_in_a_world_writable_directory_never_runs(cpu_cache, tmp_path):
    cpu_cache.mkdir()
    cpu_cache.chmod(0o777)
    marker = tmp_path / "constructor-ran"
    source = _source()
    key = _cpu_key(source)
    planted = _planted_library(tmp_path, marker)
    # the attacker can compute the digest as well as the key: both formats are planted
    (cpu_cache / f"{key}{_toolchain.ENTRY_SUFFIX}").write_bytes(disk_cache._pack(key, planted))
    (cpu_cache / f"{key}.so").write_bytes(planted)
    with pytest.warns(UserWarning, match=r"writable by group or others \(mode 777\)"):
        library = _toolchain.load_library(source)
    assert library.scaled(21) == 42
    assert not marker.exists()


@requires_compiler
def test_a_directory_of_another_user_is_not_used(cpu_cache, tmp_path, monkeypatch):
    cpu_cache.mkdir(mode=0o700)
    marker = tmp_path / "constructor-ran"
    source = _source()
    key = _cpu_key(source)
    planted = disk_cache._pack(key, _planted_library(tmp_path, marker))
    (cpu_cache / f"{key}{_toolchain.ENTRY_SUFFIX}").write_bytes(planted)
    monkeypatch.setattr(disk_cache, "_euid", lambda: os.geteuid() + 1)   # "not ours"
    with pytest.warns(UserWarning, match="owned by user id"):
        assert _toolchain.load_library(source).scaled(4) == 8
    assert not marker.exists()


@requires_compiler
def test_a_symlinked_cache_directory_is_not_used(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("ASNUMPY_KERNEL_CACHE_DIR", str(tmp_path / "link"))
    with pytest.warns(UserWarning, match="symbolic link"):
        assert _toolchain.load_library(_source()).scaled(3) == 6
    assert _entries(real) == []


@requires_compiler
def test_the_default_directory_is_created_private_under_umask_002(tmp_path, monkeypatch):
    monkeypatch.delenv("ASNUMPY_KERNEL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    previous = os.umask(0o002)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)     # ours is never refused
            assert _toolchain.load_library(_source()).scaled(5) == 10
    finally:
        os.umask(previous)
    for made in ("xdg", "xdg/asnumpy", "xdg/asnumpy/kernels"):
        assert stat.S_IMODE((tmp_path / made).stat().st_mode) == 0o700, made
    assert len(_entries(tmp_path / "xdg" / "asnumpy" / "kernels")) == 1


# --- what an entry may be ----------------------------------------------------------------------

@requires_compiler
def test_a_symlinked_entry_is_not_followed(cpu_cache, tmp_path):
    cpu_cache.mkdir(mode=0o700)
    marker = tmp_path / "constructor-ran"
    source = _source()
    key = _cpu_key(source)
    elsewhere = tmp_path / "elsewhere.lib"
    elsewhere.write_bytes(disk_cache._pack(key, _planted_library(tmp_path, marker)))
    entry = cpu_cache / f"{key}{_toolchain.ENTRY_SUFFIX}"
    entry.symlink_to(elsewhere)
    assert _toolchain.load_library(source).scaled(6) == 12
    assert not marker.exists()
    assert not entry.is_symlink() and entry.is_file()     # the link was replaced by an entry


@requires_compiler
def test_another_kernels_entry_under_this_key_is_not_loaded(cpu_cache):
    double, triple = _source(2), _source(3)
    _toolchain.load_library(double)
    _toolchain.load_library(triple)
    suffix = _toolchain.ENTRY_SUFFIX
    (cpu_cache / f"{_cpu_key(triple)}{suffix}").write_bytes(
        (cpu_cache / f"{_cpu_key(double)}{suffix}").read_bytes())
    _toolchain.clear_memory_cache()
    compiles = _toolchain.stats["compiles"]
    assert _toolchain.load_library(triple).scaled(7) == 21
    assert _toolchain.stats["compiles"] == compiles + 1


@requires_compiler
@pytest.mark.parametrize("damage", ["empty", "header only", "garbage"])
def test_a_damaged_entry_is_compiled_again(cpu_cache, damage):
    source = _source()
    _toolchain.load_library(source)
    (entry,) = cpu_cache.iterdir()
    blob = entry.read_bytes()
    entry.write_bytes({"empty": b"", "header only": blob[:len(disk_cache.MAGIC) + 32],
                       "garbage": blob[:-1] + bytes([blob[-1] ^ 1])}[damage])
    _toolchain.clear_memory_cache()
    compiles = _toolchain.stats["compiles"]
    assert _toolchain.load_library(source).scaled(8) == 16
    assert _toolchain.stats["compiles"] == compiles + 1
    assert entry.read_bytes() != b"" and _entries(cpu_cache) == [entry.name]


_TRUNCATE = """
import os, sys
from asnumpy.backends.cpu import compiler as _toolchain
source = sys.stdin.read()
library = _toolchain.load_library(source)
(entry,) = os.scandir(os.environ["ASNUMPY_KERNEL_CACHE_DIR"])
with open(entry.path, "r+b") as handle:
    handle.truncate(os.path.getsize(entry.path) // 2)   # in place, under the loaded library
print(library.scaled(9))
_toolchain.clear_memory_cache()
print(_toolchain.load_library(source).scaled(10), _toolchain.stats["compiles"])
"""


@requires_compiler
def test_a_truncated_entry_is_compiled_again_without_sigbus(cpu_cache):
    # a child process: a truncated file mapped by dlopen would kill it with SIGBUS
    env = {**os.environ, **ENV}
    first = subprocess.run([sys.executable, "-c", _TRUNCATE], input=_source(), env=env,
                           capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr[-3000:]
    assert first.stdout.split() == ["18", "20", "2"]


# --- temporaries, scratch directories, compilers that misbehave --------------------------------

def _stub_compiler(tmp_path, body):
    """A $CXX that answers --version and then runs the shell ``body``."""
    script = tmp_path / "stub-c++"
    script.write_text("#!/bin/sh\n"
                      'if [ "$1" = --version ]; then echo stub-c++ 1.0; exit 0; fi\n' + body)
    script.chmod(0o755)
    return str(script)


_KILLED = """
import sys
from asnumpy.backends.cpu import compiler as _toolchain
_toolchain.load_library(sys.stdin.read())
"""


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs process groups")
def test_a_compile_killed_midway_leaves_nothing_in_the_cache(cpu_cache, tmp_path):
    started = tmp_path / "started"
    stub = _stub_compiler(tmp_path, f'touch "{started}"\nexec sleep 600\n')
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, **ENV, "CXX": stub, "TMPDIR": str(scratch)}
    child = subprocess.Popen([sys.executable, "-c", _KILLED], stdin=subprocess.PIPE, env=env,
                             start_new_session=True, stderr=subprocess.DEVNULL)
    try:
        child.stdin.write(_source().encode())
        child.stdin.close()
        deadline = time.monotonic() + 240
        while not started.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the stub compiler never started"
    finally:
        os.killpg(child.pid, signal.SIGKILL)        # the child and its compiler
        child.wait()
    assert _entries(cpu_cache) == []                # not even a temporary
    # the dead process's scratch directory is removed by a later process once a day old
    (left,) = scratch.iterdir()
    old = time.time() - 2 * 86400
    os.utime(left, (old, old))
    sweep = "from asnumpy.runtime import disk_cache; disk_cache.private_dir()"
    subprocess.run([sys.executable, "-c", sweep], env=env, check=True)
    assert list(scratch.iterdir()) == []


def test_stale_temporaries_are_removed_when_the_cache_opens(tmp_path):
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o700)
    stale, fresh = directory / ".tmp-1-dead.lib", directory / ".tmp-2-live.lib"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"being written")
    old = time.time() - 2 * disk_cache.STALE_SECONDS
    os.utime(stale, (old, old))
    assert disk_cache.DiskCache(directory, ".lib", "V").get("0" * 64) is None
    assert _entries(directory) == [fresh.name]      # a live writer's file is left alone


def test_a_compiler_killed_midway_raises_and_leaves_no_files(cpu_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", _stub_compiler(tmp_path, "kill -9 $$\n"))
    with pytest.raises(CompileError):
        _toolchain.load_library(_source())
    assert _entries(cpu_cache) == []
    assert list(disk_cache.private_dir().glob("build-*")) == []


@pytest.mark.parametrize("body", [
    "exit 0\n",                                                   # writes nothing
    'while [ $# -gt 0 ]; do [ "$1" = -o ] && : > "$2"; shift; done\n',   # an empty file
])
def test_a_compiler_that_writes_nothing_raises_and_caches_nothing(cpu_cache, tmp_path,
                                                                   monkeypatch, body):
    monkeypatch.setenv("CXX", _stub_compiler(tmp_path, body))
    source = _source()
    compiles = _toolchain.stats["compiles"]
    for _ in range(2):
        with pytest.raises(CompileError, match="wrote no library"):
            _toolchain.load_library(source)
    assert _toolchain.stats["compiles"] == compiles + 2          # nothing remembered
    assert _entries(cpu_cache) == []


_UNWRITABLE = """
import os, sys, warnings
from asnumpy.backends.cpu import compiler as _toolchain
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for factor in (2, 3, 4):
        source = 'extern "C" int scaled(int x) { return x * %d; }' % factor + sys.argv[1]
        assert _toolchain.load_library(source).scaled(1) == factor
print(len(caught), len(os.listdir(os.environ["TMPDIR"])))
"""


@requires_compiler
def test_an_unusable_directory_warns_once_and_uses_one_private_directory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")                          # a file where a directory should be
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, **ENV, "TMPDIR": str(scratch),
           "ASNUMPY_KERNEL_CACHE_DIR": str(blocker / "kernels")}
    proc = subprocess.run([sys.executable, "-c", _UNWRITABLE, f"// {uuid.uuid4()}"], env=env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["1", "1"]        # one warning, one scratch directory
    assert list(scratch.iterdir()) == []            # removed at exit


# --- the cuda (NVRTC) cache follows the same rules ------------------------------------------

@pytest.fixture
def cuda_cache(tmp_path, monkeypatch):
    """The cuda compiler with NVRTC itself replaced by a stand-in (the cache is under test)."""
    compiler = pytest.importorskip("asnumpy.backends.cuda.compiler")
    try:
        compiler.nvrtc_version()                    # part of every key
    except Exception:  # noqa: BLE001 - no NVRTC, in whatever way
        pytest.skip("NVRTC is not installed")
    directory = tmp_path / "cubins"
    monkeypatch.setenv("ASNUMPY_CUDA_CACHE_DIR", str(directory))
    calls = []

    def nvrtc(source, arch, options):
        calls.append(source)
        return b"CUBIN:" + source.encode()

    monkeypatch.setattr(compiler, "_nvrtc_compile", nvrtc)
    compiler.clear_memory_cache()
    yield compiler, directory, calls
    compiler.clear_memory_cache()


def _kernel(name="asn_k"):
    return f'extern "C" __global__ void {name}(float* x) {{ }} // {uuid.uuid4()}\n'


def _cubin_entry(compiler, directory, source):
    return directory / f"{compiler._key(source, 'sm_90', dict(compiler.OPTIONS))}.cubin"


def test_cuda_a_cubin_planted_in_a_world_writable_directory_is_not_used(cuda_cache):
    compiler, directory, calls = cuda_cache
    directory.mkdir()
    directory.chmod(0o777)
    source = _kernel()
    entry = _cubin_entry(compiler, directory, source)
    entry.write_bytes(disk_cache._pack(entry.stem, b"PLANTED"))
    with pytest.warns(UserWarning, match="ASNUMPY_CUDA_CACHE_DIR"):
        assert compiler.compile_module(source, "sm_90") == b"CUBIN:" + source.encode()
    assert len(calls) == 1


def test_cuda_the_default_directory_is_created_private(cuda_cache, tmp_path, monkeypatch):
    compiler, _, calls = cuda_cache
    monkeypatch.delenv("ASNUMPY_CUDA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    previous = os.umask(0o002)
    try:
        compiler.compile_module(_kernel(), "sm_90")
    finally:
        os.umask(previous)
    made = tmp_path / "xdg" / "asnumpy" / "cuda"
    assert stat.S_IMODE(made.stat().st_mode) == 0o700 and len(_entries(made)) == 1


@pytest.mark.parametrize("damage", ["symlink", "other key", "truncated", "empty"])
def test_cuda_an_unsound_entry_is_compiled_again(cuda_cache, tmp_path, damage):
    compiler, directory, calls = cuda_cache
    source, other = _kernel(), _kernel("asn_other")
    compiler.compile_module(source, "sm_90")
    compiler.compile_module(other, "sm_90")
    entry, other_entry = (_cubin_entry(compiler, directory, s) for s in (source, other))
    blob = entry.read_bytes()
    if damage == "symlink":
        planted = tmp_path / "planted"
        planted.write_bytes(disk_cache._pack(entry.stem, b"PLANTED"))
        entry.unlink()
        entry.symlink_to(planted)
    else:
        entry.write_bytes({"other key": other_entry.read_bytes(), "truncated": blob[:-3],
                           "empty": b""}[damage])
    compiler.clear_memory_cache()
    assert compiler.compile_module(source, "sm_90") == b"CUBIN:" + source.encode()
    assert len(calls) == 3
    assert entry.is_file() and not entry.is_symlink()


def test_cuda_an_empty_image_raises_and_caches_nothing(cuda_cache, monkeypatch):
    compiler, directory, _ = cuda_cache
    monkeypatch.setattr(compiler, "_nvrtc_compile", lambda source, arch, options: b"")
    source = _kernel("asn_empty")
    for _ in range(2):
        with pytest.raises(compiler.CompileError, match="asn_empty"):
            compiler.compile_module(source, "sm_90")
    assert _entries(directory) == []


def test_cuda_an_unusable_directory_warns_once_and_shares_the_private_one(cuda_cache, tmp_path,
                                                                          monkeypatch):
    compiler, _, calls = cuda_cache
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("ASNUMPY_CUDA_CACHE_DIR", str(tmp_path / "file" / "cubins"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            compiler.compile_module(_kernel(), "sm_90")
    assert len(caught) == 1 and "cannot be created" in str(caught[0].message)
    private = disk_cache.private_dir() / "cache"
    assert len(list(private.glob("*.cubin"))) >= 3 and len(calls) == 3


def test_the_scratch_directory_is_private_and_one_per_process():
    first = disk_cache.private_dir()
    assert disk_cache.private_dir() == first
    info = first.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.geteuid()
