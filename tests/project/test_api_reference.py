"""The API reference (docs/api): generated pages current, every public name in them,
the device comparison table current, and the Sphinx build clean with warnings as errors.

Regenerate with ``python tools/api_reference.py`` and ``python tools/device_table.py``.
"""

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import asnumpy

ROOT = Path(__file__).resolve().parents[2]
# the pages and the table describe the code, whatever the default device of the session
pytestmark = pytest.mark.cpu_default("the reference is built once, in the cpu session")


def _tool(name):
    spec = importlib.util.spec_from_file_location(f"_asnumpy_{name}", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _environment():
    env = dict(os.environ)
    env.pop("ASNUMPY_DEVICE", None)
    return env


def test_generated_pages_are_current():
    stale = [str(path.relative_to(ROOT)) for path, text in _tool("api_reference").generate().items()
             if not path.exists() or path.read_text() != text]
    assert stale == [], f"run `python tools/api_reference.py`: stale {stale}"


def test_every_public_name_is_in_the_reference():
    tool = _tool("api_reference")
    documented = tool.documented_names()
    wanted = [f"asnumpy.{name}" for name in asnumpy.__all__]
    for module_name in tool.SUBMODULES:
        module = importlib.import_module(module_name)
        wanted += [f"{module_name}.{name}" for name in module.__all__]
    missing = [name for name in wanted if name not in documented
               and not isinstance(eval(name, {"asnumpy": asnumpy}), types.ModuleType)]
    assert missing == []
    # every public submodule of asnumpy.__all__ has its section
    submodules = [name for name in asnumpy.__all__
                  if isinstance(getattr(asnumpy, name), types.ModuleType)]
    assert [name for name in submodules if f"asnumpy.{name}" not in tool.SUBMODULES
            and name != "array_api"] == []


def test_every_documented_name_has_a_docstring():
    # an entry of the reference is its object's docstring: none may be empty
    assert _tool("api_reference").without_docstring() == []


def test_an_unplaced_name_is_an_error(monkeypatch):
    # a public name from a module no topic claims (here: this test module) stops the generator
    tool = _tool("api_reference")
    monkeypatch.setattr(asnumpy, "__all__", [*asnumpy.__all__, "_probe_name"], raising=True)
    monkeypatch.setattr(asnumpy, "_probe_name", lambda: None, raising=False)
    with pytest.raises(LookupError, match="_probe_name"):
        tool.generate()


@pytest.mark.skipif(shutil.which(os.environ.get("CXX", "g++")) is None,
                    reason="the table is probed on the emulated cuda driver, which needs g++")
def test_device_table_is_current():
    # a subprocess: the probe instruments the back ends of the process it runs in
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "device_table.py"), "--check"],
                            capture_output=True, text=True, env=_environment(), cwd=ROOT,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]


def test_device_table_counts_every_numpy_function():
    tool = _tool("device_table")
    text = (ROOT / "docs" / "api" / "comparison.rst").read_text()
    names = [f"{module}.{name}" for module, _, name in tool.numpy_functions()]
    assert len(names) > 600
    assert all(f"``{name}``" in text for name in names)
    # the ufuncs the cuda back end generates are cuda kernels; a sort is the host fallback
    assert "``numpy.add``\n     - cpu kernel\n     - cuda kernel" in text
    assert "``numpy.sort``\n     - cpu kernel\n     - host fallback" in text


def test_sphinx_build_has_no_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    # -W: a docstring Sphinx or numpydoc cannot read, or a reference that does not
    # resolve, fails the build
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(ROOT / "docs" / "api"), str(tmp_path / "build")],
        capture_output=True, text=True, env=_environment(), cwd=ROOT, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
