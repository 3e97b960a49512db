"""The cpu toolchain of asnumpy.extension: compile, cache (memory and disk), errors."""

import os
import subprocess
import sys
import uuid

import pytest

from asnumpy.backends.cpu import compiler as _toolchain
from asnumpy.extension import CompileError, CompilerNotFoundError


def _has_compiler() -> bool:
    try:
        _toolchain.compiler_command()
    except CompilerNotFoundError:
        return False
    return True


requires_compiler = pytest.mark.skipif(not _has_compiler(), reason="no C++ compiler")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private disk cache; sources made unique so the memory cache cannot answer."""
    monkeypatch.setenv("ASNUMPY_KERNEL_CACHE_DIR", str(tmp_path))
    return tmp_path


def _source(body="return x * 2;"):
    return f'// {uuid.uuid4()}\nextern "C" int twice(int x) {{ {body} }}\n'


@requires_compiler
def test_compiles_loads_and_caches_in_memory(cache):
    source = _source()
    before = dict(_toolchain.stats)
    library = _toolchain.load_library(source)
    assert library.twice(21) == 42
    assert _toolchain.load_library(source) is library
    assert _toolchain.stats["compiles"] == before["compiles"] + 1
    assert _toolchain.stats["memory_hits"] == before["memory_hits"] + 1
    assert [p.suffix for p in cache.iterdir()] == [_toolchain.ENTRY_SUFFIX]  # no temporaries


@requires_compiler
def test_options_are_part_of_the_key(cache):
    source = 'extern "C" int value() { return VALUE; }\n// ' + str(uuid.uuid4())
    assert _toolchain.load_library(source, options=["-DVALUE=3"]).value() == 3
    assert _toolchain.load_library(source, options=["-DVALUE=4"]).value() == 4


_SECOND_PROCESS = """
import sys
from asnumpy.backends.cpu import compiler as _toolchain
library = _toolchain.load_library(sys.stdin.read())
print(library.twice(5), _toolchain.stats["compiles"], _toolchain.stats["disk_hits"])
"""


def _run_process(source, cache):
    env = {**os.environ, "ASNUMPY_KERNEL_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.run([sys.executable, "-c", _SECOND_PROCESS], input=source, env=env,
                          capture_output=True, text=True, check=True)
    return proc.stdout.split()


@requires_compiler
def test_a_second_process_loads_from_disk_without_compiling(cache):
    source = _source("return x * 7;")
    _toolchain.load_library(source)
    assert _run_process(source, cache) == ["35", "0", "1"]


@requires_compiler
def test_concurrent_processes_compiling_the_same_source_all_succeed(cache):
    source = _source("return x + 1;")
    env = {**os.environ, "ASNUMPY_KERNEL_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    procs = [subprocess.Popen([sys.executable, "-c", _SECOND_PROCESS], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, env=env, text=True) for _ in range(3)]
    outputs = [proc.communicate(source)[0].split() for proc in procs]
    assert [out[0] for out in outputs] == ["6"] * 3
    assert [p.suffix for p in cache.iterdir()] == [_toolchain.ENTRY_SUFFIX]


@requires_compiler
def test_a_corrupt_disk_entry_is_compiled_again(cache):
    source = _source("return x - 1;")
    _toolchain.load_library(source)
    (entry,) = cache.iterdir()
    entry.write_bytes(b"not a library")     # in place: this process mapped a private copy
    assert _run_process(source, cache) == ["4", "1", "0"]


@requires_compiler
def test_compile_error_shows_the_message_and_numbered_source(cache):
    source = ("// prelude\n" + _toolchain.SOURCE_MARK
              + 'kernel.cu"\nint ok;\nint f() { return nope; }\n')
    with pytest.raises(CompileError) as info:
        _toolchain.load_library(source)
    message = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert "nope" in message and "kernel.cu:2" in message
    assert "1 | int ok;" in message and "2 | int f() { return nope; }" in message
    assert "prelude" not in message


def test_no_compiler_says_how_to_get_one(tmp_path, monkeypatch):
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_toolchain.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(CompilerNotFoundError, match=r'pip install "asnumpy\[compiler\]"'):
        _toolchain.load_library(_source())
    with pytest.raises(CompilerNotFoundError):
        _toolchain.compiler_info()


def test_cxx_naming_no_executable_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    with pytest.raises(CompilerNotFoundError, match="no-such-compiler"):
        _toolchain.load_library(_source())


@requires_compiler
def test_compiler_info_names_the_compiler_and_cache(cache):
    info = _toolchain.compiler_info()
    assert info["version"] and os.path.isabs(info["command"][0])
    assert info["cache_dir"] == str(cache) and "-O3" in info["flags"]


def test_cache_dir_defaults(monkeypatch, tmp_path):
    monkeypatch.delenv("ASNUMPY_KERNEL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _toolchain.cache_dir() == tmp_path / "asnumpy" / "kernels"
