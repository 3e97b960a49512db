"""Every Python code block in README.md and docs/*.md runs as written.

The blocks of one file run in order in one namespace (a later block may use what
an earlier one made), in a fresh interpreter per file with a scratch working
directory, so files a block writes (``out.npy``) land nowhere else and one
file's device or stream settings cannot leak into another's.
"""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# A file's blocks, run one after another; a failure names the file and block.
RUNNER = r"""
import sys, traceback
blocks = {blocks!r}
namespace = {{"__name__": "__main__"}}
for number, block in enumerate(blocks):
    try:
        exec(compile(block, "{name} block " + str(number), "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        sys.exit(f"{name}: block {{number}} failed:\n{{block}}")
"""


def python_blocks(path):
    return BLOCK.findall(path.read_text())


@pytest.mark.cpu_default("the blocks are written for the default cpu device")
@pytest.mark.parametrize("path", [p for p in DOCUMENTS if python_blocks(p)],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_blocks_run_as_written(path, tmp_path):
    program = RUNNER.format(blocks=python_blocks(path), name=path.relative_to(ROOT).as_posix())
    result = subprocess.run([sys.executable, "-c", program], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]


def test_every_document_is_found():
    names = {p.name for p in DOCUMENTS}
    assert {"README.md", "architecture.md", "extension.md", "reliability.md"} <= names
