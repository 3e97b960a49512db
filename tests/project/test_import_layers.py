"""The package's import layers (.importlinter) hold: import-linter's ``lint-imports``.

Each check runs import-linter in a fresh interpreter over this checkout's sources (or
a copy of them with one upward import added, to see the contracts catch it).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / ".importlinter"


def lint_imports(source_root: Path) -> subprocess.CompletedProcess:
    """Run lint-imports with the repository's contracts over the package in `source_root`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(source_root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(CONFIG)!r}, no_cache=True, "
            "no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=source_root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_import_contracts_are_kept():
    result = lint_imports(REPO / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "line", "broken"), [
    # a cycle inside the runtime (device.py below stream.py)
    ("runtime/device.py", "from .stream import DefaultStream",
     ["No import cycles between sibling modules"]),
    # the array creation functions reaching up into indexing
    ("_core/creation/basic.py", "from ..indexing import take",
     ["The front end's layers import only downward", "No import cycles"]),
    # a front-end function importing the cpu back end
    ("_core/transfer.py", "from ..backends.cpu import kernels",
     ["The front end never imports a back end"]),
    # the runtime importing the front end
    ("runtime/memory.py", "from .._core import ndarray",
     ["The package's layers import only downward"]),
])
def test_an_upward_import_breaks_the_contracts(tmp_path, module, line, broken):
    shutil.copytree(REPO / "src" / "asnumpy", tmp_path / "asnumpy",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(tmp_path / "asnumpy" / module, "a") as file:    # function-local counts too
        file.write(f"\n\ndef _added_by_the_test():\n    {line}\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    for contract in broken:
        assert f"{contract}" in result.stdout.split("Broken contracts")[-1], result.stdout
