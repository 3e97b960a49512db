"""A plain NumPy script ported to asnumpy by changing its import prints the same output.

Each script under ``tests/project/ported_scripts/`` is everyday NumPy (f-strings with format
specs, ``round``/``int``/``float`` of results, fancy and boolean indexing, ``argmin``,
``mean(axis=)``, loops over arrays) with deterministic data, so NumPy and asnumpy see
the same numbers.  The test runs each twice in a subprocess, once as written and once
with ``import numpy as np`` replaced by ``import asnumpy as np``, on the cpu device,
and compares the two outputs exactly.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).parent / "ported_scripts").glob("*.py"))
IMPORT = "import numpy as np\n"


def _run(source: str, tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    path.write_text(source)
    env = dict(os.environ, ASNUMPY_DEVICE="cpu:0")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, f"{name} failed:\n{done.stderr}"
    return done.stdout


def test_the_scripts_are_there():
    assert {path.stem for path in SCRIPTS} >= {"kmeans", "monte_carlo_pi", "convolution"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_changing_the_import_keeps_the_output(script, tmp_path):
    source = script.read_text()
    assert source.count(IMPORT) == 1, "a ported script imports NumPy once, as np"
    expected = _run(source, tmp_path, f"numpy_{script.name}")
    ported = _run(source.replace(IMPORT, "import asnumpy as np\n"), tmp_path,
                  f"asnumpy_{script.name}")
    assert expected.strip(), "the script prints its results"
    assert ported == expected
